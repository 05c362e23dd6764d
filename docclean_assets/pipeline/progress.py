"""Live progress of a source's parse: what the parse step reports (a document finished, a batch
committed) and where it is shown (a rich display on a terminal, one plain line per batch elsewhere or
in Dagster's run log). Standard library and rich only: no dagster here."""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Protocol, Self, TextIO

from rich.console import Console
from rich.progress import BarColumn, ProgressColumn, Task, TaskID, TextColumn
from rich.progress import Progress as RichProgress
from rich.text import Text

UNKNOWN = "?"  # a rate or ETA that cannot be estimated yet (nothing done, no time passed)
# Redraws of the terminal display per second: 4 moves the counters visibly without spending a core's
# time on redrawing (rich's default is 10; the machine this was written on has 2 cores shared with workers).
REFRESH_PER_SECOND = 4.0


@dataclass(frozen=True, slots=True)
class BatchCommitted:
    """What one committed batch of a source's parse did."""
    source: str
    batch: int            # 1-based number of the batch within this run
    documents: int        # documents committed in this batch
    parsed: int           # of those, parsed now
    reused: int           # of those, reused (same bytes found at another path, or carried over)
    failed: int           # of those, failed (error rows)
    done: int             # documents committed so far in this run (all batches)
    total: int            # documents this run has to commit (known at start)
    failed_so_far: int
    seconds: float        # since this source's parse started


class Progress(Protocol):
    """Where a source's parse reports, in this order: start, then documents and batches, then finish."""

    def start(self, source: str, total: int, unchanged: int) -> None: ...   # `unchanged`: committed before, not touched
    def document(self, source: str, ok: bool) -> None: ...                  # one document finished (before its batch commits)
    def batch(self, event: BatchCommitted) -> None: ...
    def finish(self, source: str, seconds: float) -> None: ...


# --- formatting: the one place rates, ETAs and durations are computed and written -------------------

def docs_per_second(done: int, seconds: float) -> float:
    """The average rate since the start: 0.0 before any time has passed."""
    return done / seconds if seconds > 0 else 0.0


def eta_seconds(done: int, total: int, seconds: float) -> float | None:
    """Seconds left at the average rate so far: 0.0 when all are done, None while no rate is known."""
    remaining = max(total - done, 0)
    if remaining == 0:
        return 0.0
    rate = docs_per_second(done, seconds)
    return remaining / rate if rate > 0 else None


def percent(done: int, total: int) -> float:
    """Share of `total` done, in percent; an empty run is complete."""
    return 100.0 * done / total if total > 0 else 100.0


def format_duration(seconds: float | None) -> str:
    """`4.2s`, `45s`, `1m23s`, `2h05m`, `3d04h`: two units at most; UNKNOWN for None or infinity."""
    if seconds is None or math.isinf(seconds):
        return UNKNOWN
    seconds = max(seconds, 0.0) if not math.isnan(seconds) else 0.0
    if seconds < 9.95:
        return f"{seconds:.1f}s"
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    m = s // 60
    if m < 24 * 60:
        return f"{m // 60}h{m % 60:02d}m"
    h = m // 60
    return f"{h // 24}d{h % 24:02d}h"


def format_rate(rate: float) -> str:
    """`41.2 docs/s`; two significant digits under one document per second (`0.25 docs/s`)."""
    return f"{rate:.1f} docs/s" if rate >= 1 or rate == 0 else f"{rate:.2g} docs/s"


def format_eta(done: int, total: int, seconds: float) -> str:
    """The ETA at the average rate so far, written as a duration."""
    return format_duration(eta_seconds(done, total, seconds))


# --- implementations ---------------------------------------------------------------------------------

class _NoContext:
    """A progress that needs no setup: `with` works on it and does nothing."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class NullProgress(_NoContext):
    """Reports nowhere: the definitions' default `progress` resource (the parse step logs its batches itself)."""

    def start(self, source: str, total: int, unchanged: int) -> None:
        return None

    def document(self, source: str, ok: bool) -> None:
        return None

    def batch(self, event: BatchCommitted) -> None:
        return None

    def finish(self, source: str, seconds: float) -> None:
        return None


class LineProgress(_NoContext):
    """One plain line per committed batch, plus one when a source starts and one when it finishes."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self._last: dict[str, BatchCommitted] = {}
        self._totals: dict[str, int] = {}

    def start(self, source: str, total: int, unchanged: int) -> None:
        self._last.pop(source, None)
        self._totals[source] = total
        self._write(f"{source}: {total} documents to parse, {unchanged} unchanged")

    def document(self, source: str, ok: bool) -> None:
        return None  # a line per document would flood a log of a million documents

    def batch(self, event: BatchCommitted) -> None:
        self._last[event.source] = event
        self._write(
            f"{event.source}: batch {event.batch} committed {event.documents} documents"
            f" ({event.parsed} parsed, {event.reused} reused, {event.failed} failed):"
            f" {event.done}/{event.total} documents ({percent(event.done, event.total):.1f}%),"
            f" {format_rate(docs_per_second(event.done, event.seconds))},"
            f" ETA {format_eta(event.done, event.total, event.seconds)}, {event.failed_so_far} failed so far")

    def finish(self, source: str, seconds: float) -> None:
        last = self._last.pop(source, None)
        total = self._totals.pop(source, last.total if last else 0)
        done, failed = (last.done, last.failed_so_far) if last else (0, 0)
        self._write(f"{source}: finished: {done}/{total} documents in {format_duration(seconds)}"
                    f" ({format_rate(docs_per_second(done, seconds))}), {failed} failed")


def _seconds(task: Task) -> float:
    """Seconds the row's source has been parsing: as the parse reported at its finish, else rich's clock."""
    seconds = task.fields.get("seconds")
    return seconds if seconds is not None else task.elapsed or 0.0


class _CountsColumn(ProgressColumn):
    """`600/4000`: documents finished of those to parse."""

    def render(self, task: Task) -> Text:
        return Text(f"{int(task.completed)}/{int(task.total or 0)}")


class _RateColumn(ProgressColumn):
    """Documents per second, averaged since the source started."""

    def render(self, task: Task) -> Text:
        return Text(format_rate(docs_per_second(int(task.completed), _seconds(task))), style="progress.data.speed")


class _EtaColumn(ProgressColumn):
    """`ETA 1m23s` while running, `in 1m37s` once finished."""

    def render(self, task: Task) -> Text:
        if task.fields.get("seconds") is not None:
            return Text(f"in {format_duration(_seconds(task))}", style="progress.elapsed")
        eta = format_eta(int(task.completed), int(task.total or 0), _seconds(task))
        return Text(f"ETA {eta}", style="progress.remaining")


class _FailedColumn(ProgressColumn):
    """`2 failed` (red when any), then the unchanged documents the run did not touch."""

    def render(self, task: Task) -> Text:
        failed = task.fields.get("failed", 0)
        return Text.assemble((f"{failed} failed", "bold red" if failed else "dim"),
                             (f", {task.fields.get('unchanged', 0)} unchanged", "dim"))


@dataclass(slots=True)
class _Row:
    """One source's counts as the terminal display shows them."""
    task: TaskID
    total: int
    done: int = 0
    failed: int = 0


class TerminalProgress:
    """A rich live display with one row per source; use it as a context manager (`with`), which starts
    and stops the display. Prints in between appear above it."""

    def __init__(self, console: Console | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._progress = RichProgress(
            TextColumn("{task.description}"), BarColumn(), _CountsColumn(), _RateColumn(), _EtaColumn(),
            _FailedColumn(), console=console, get_time=clock, refresh_per_second=REFRESH_PER_SECOND)
        self._rows: dict[str, _Row] = {}

    def __enter__(self) -> TerminalProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start(self, source: str, total: int, unchanged: int) -> None:
        if source in self._rows:  # parsed again in the same display (a retried step): a fresh row
            self._progress.remove_task(self._rows.pop(source).task)
        task = self._progress.add_task(source, total=total, failed=0, unchanged=unchanged, seconds=None)
        self._rows[source] = _Row(task, total)

    def document(self, source: str, ok: bool) -> None:
        row = self._rows[source]
        row.done += 1
        row.failed += not ok
        self._progress.update(row.task, completed=row.done, failed=row.failed)

    def batch(self, event: BatchCommitted) -> None:
        row = self._rows[event.source]  # committed counts win when documents went unreported
        row.done, row.failed = max(row.done, event.done), max(row.failed, event.failed_so_far)
        self._progress.update(row.task, completed=row.done, failed=row.failed)
        self._progress.refresh()

    def finish(self, source: str, seconds: float) -> None:
        row = self._rows[source]
        row.done = row.total
        self._progress.update(row.task, completed=row.done, seconds=seconds)
        self._progress.stop_task(row.task)
        self._progress.refresh()


class Tee:
    """Reports to several progresses at once (the terminal and Dagster's log); `with` enters them all."""

    def __init__(self, *progresses: Progress) -> None:
        self._progresses = progresses
        self._stack = ExitStack()

    def __enter__(self) -> Tee:
        for p in self._progresses:
            if hasattr(p, "__enter__"):
                self._stack.enter_context(p)  # type: ignore[arg-type]
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def start(self, source: str, total: int, unchanged: int) -> None:
        for p in self._progresses:
            p.start(source, total, unchanged)

    def document(self, source: str, ok: bool) -> None:
        for p in self._progresses:
            p.document(source, ok)

    def batch(self, event: BatchCommitted) -> None:
        for p in self._progresses:
            p.batch(event)

    def finish(self, source: str, seconds: float) -> None:
        for p in self._progresses:
            p.finish(source, seconds)


def for_stream(stream: TextIO) -> TerminalProgress | LineProgress:
    """The live display when `stream` is a terminal, else one flushed plain line per batch on it."""
    if stream.isatty():
        return TerminalProgress(Console(file=stream))
    return LineProgress(lambda line: print(line, file=stream, flush=True))
