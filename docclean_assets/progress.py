"""Live progress of a source's parse (placeholder interface; the full module lands from issue16-progress)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class BatchCommitted:
    """What one committed batch of a source's parse did."""

    source: str
    batch: int
    documents: int
    parsed: int
    reused: int
    failed: int
    done: int
    total: int
    failed_so_far: int
    seconds: float


class Progress(Protocol):
    def start(self, source: str, total: int, unchanged: int) -> None: ...
    def document(self, source: str, ok: bool) -> None: ...
    def batch(self, event: BatchCommitted) -> None: ...
    def finish(self, source: str, seconds: float) -> None: ...


class NullProgress:
    def start(self, source: str, total: int, unchanged: int) -> None:
        pass

    def document(self, source: str, ok: bool) -> None:
        pass

    def batch(self, event: BatchCommitted) -> None:
        pass

    def finish(self, source: str, seconds: float) -> None:
        pass


class LineProgress:
    def __init__(self, write) -> None:
        self.write = write

    def start(self, source: str, total: int, unchanged: int) -> None:
        self.write(f"{source}: {total} documents to parse, {unchanged} unchanged")

    def document(self, source: str, ok: bool) -> None:
        pass

    def batch(self, e: BatchCommitted) -> None:
        self.write(f"{e.source}: batch {e.batch} committed: {e.done}/{e.total} documents, {e.failed_so_far} failed so far")

    def finish(self, source: str, seconds: float) -> None:
        self.write(f"{source}: parsed in {seconds:.1f} s")


class Tee:
    def __init__(self, *progresses) -> None:
        self.progresses = progresses

    def start(self, source: str, total: int, unchanged: int) -> None:
        for p in self.progresses:
            p.start(source, total, unchanged)

    def document(self, source: str, ok: bool) -> None:
        for p in self.progresses:
            p.document(source, ok)

    def batch(self, event: BatchCommitted) -> None:
        for p in self.progresses:
            p.batch(event)

    def finish(self, source: str, seconds: float) -> None:
        for p in self.progresses:
            p.finish(source, seconds)
