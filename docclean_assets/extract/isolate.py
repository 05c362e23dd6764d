"""Run each document's parse in its own worker process with a time limit and a memory ceiling,
several at once; a crash, a hang or a memory blow-up becomes that document's error, nothing more."""
from __future__ import annotations

import hashlib
import importlib
import multiprocessing as mp
import os
import resource
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

import pyarrow as pa

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.errors import ExtractionError, stable_message
from docclean_assets.extract.model import Extraction
from docclean_assets.extract.schema import extraction_to_payload
from docclean_assets.extract.settings import LimitSettings

DEFAULT_EXTRACTOR = "docclean_assets.extract.isolate:extract_file"
# Modules the fork server imports once so every worker starts warm (tesserocr: the OCR engine's
# library, imported only, no engine started). Not OpenCV: its import reserves ~440 MiB of address
# space (numpy included), which every worker would then carry under LimitSettings.memory_mb; a
# document whose pictures reach the text gate imports it itself (~0.2 s).
_PRELOAD = ["docclean_assets.extract.api", "pypdfium2", "docx", "pptx", "trafilatura", "selectolax.lexbor",
            "tesserocr"]
_CTX = mp.get_context("forkserver")
_CTX.set_forkserver_preload(_PRELOAD)


@dataclass(frozen=True, slots=True)
class Job:
    """One document to parse: where its bytes are and how to read them."""

    key: str
    blob: str  # path of the file holding the bytes
    fmt: str
    options: dict[str, Any]  # keyword arguments for the extractor (settings, html_rules, url)
    timeout_s: float | None = None  # this document's time limit; None: LimitSettings.timeout_s
    # True: the worker turns the Extraction into table rows (schema.DocPayload), fitted to the
    # tables' types and under the text cap, so a value no column can hold costs only this document.
    rows: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a job: a result, or an error message."""

    result: Any
    error: str | None
    seconds: float
    # ok | refused (an ExtractionError: the document is unreadable, and says why) | crash (any other
    # exception escaping the extractor: a backend bug) | timeout | memory | died (killed, segfault)
    kind: str = "ok"
    peak_rss_mb: float | None = None  # the worker's peak resident memory, when it reported back


def extract_file(blob: str, fmt: str, *, sha256: str | None = None, **options: Any) -> Any:
    """Read the file and extract it: the default extractor run inside a worker. With `sha256` (the
    content address raw_files took), bytes that no longer match are refused: the blocks stored under
    a doc_id are always those of its bytes. The stage trace (every char of every page, for debugging)
    stays in the worker: only blocks and report return."""
    with open(blob, "rb") as fh:
        data = fh.read()
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise ExtractionError("file changed while being ingested (its bytes no longer match the sha256 that "
                              "raw_files recorded); run again to ingest the new version")
    result = extract_document(data, fmt, **options)
    return Extraction(result.blocks, result.report)


def resolve(dotted: str) -> Callable[..., Any]:
    """The function named 'module:function'."""
    module, _, name = dotted.partition(":")
    return getattr(importlib.import_module(module), name)


def _peak_rss_mb() -> float:
    """Peak resident memory of this process so far, MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(conn: Connection, extractor: str, job: Job, limits: LimitSettings, lifeline: Connection) -> None:
    """Worker body: die with docclean, cap memory, run the extractor (and make its rows when asked),
    send (kind, payload, peak RSS MiB)."""
    _watch(lifeline)
    limit = limits.memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass  # the platform refuses the cap; the wall-clock limit still applies
    # Arrow's default allocator (mimalloc) takes address space in large segments: under the ceiling
    # above, a worker with room left failed "realloc of size 4096" while making a small page's rows
    # (seen once, in the Dask engine's 512 MiB test). The C library's malloc grows by what is asked.
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        result = resolve(extractor)(job.blob, job.fmt, **job.options)
        if job.rows:
            result = _rows(result, limits)
        conn.send(("ok", result, _peak_rss_mb()))
    except MemoryError:
        conn.send(("memory", f"memory limit exceeded ({limits.memory_mb} MiB)", _peak_rss_mb()))
    except RecursionError as exc:
        conn.send(("crash", stable_message(f"RecursionError: {exc}{_where(exc)}"), _peak_rss_mb()))
    except ExtractionError as exc:
        conn.send(("refused", stable_message(str(exc)), _peak_rss_mb()))
    except Exception as exc:  # noqa: BLE001 - every failure becomes the document's error row
        conn.send(("crash", stable_message(f"{type(exc).__name__}: {exc}{_where(exc)}"), _peak_rss_mb()))
    finally:
        conn.close()


def _rows(result: Extraction, limits: LimitSettings) -> Any:
    """The document as table rows, refused when its text is over `max_text_chars`."""
    chars = sum(len(b.text) + len(b.orig_text or "") for b in result.blocks)
    if chars > limits.max_text_chars:
        raise ExtractionError(f"extracted text too large: {chars:,} characters (limit max_text_chars = "
                              f"{limits.max_text_chars:,}); raise the limit to ingest it")
    try:
        return extraction_to_payload(result.blocks, result.report)
    except Exception as exc:  # noqa: BLE001 - a value no column can hold costs this document only
        raise ExtractionError(f"the document's rows could not be written ({type(exc).__name__}: {exc})") from exc


# Every worker holds the read end of a pipe whose only write end is in the process that runs the
# jobs; when that process ends (SIGKILL included) the read returns EOF and the worker kills itself.
# The fork server cannot do this for us: every worker keeps its liveness pipe open, so it outlives
# a killed parent as long as a worker runs (a hung document would run on under PID 1 with no limit).
_LIFELINE: dict[int, tuple[Connection, Connection]] = {}  # pid of the owning process -> (read, write)


def _lifeline() -> Connection:
    """The read end of this process's lifeline (made once per process, never inherited by a fork)."""
    pid = os.getpid()
    if pid not in _LIFELINE:
        _LIFELINE.clear()
        _LIFELINE[pid] = _CTX.Pipe(duplex=False)
    return _LIFELINE[pid][0]


def _watch(lifeline: Connection) -> None:
    """Kill this worker as soon as its lifeline closes."""
    def wait_for_eof() -> None:
        try:
            lifeline.recv()  # nothing is ever sent: returns only when the write end is gone
        except (EOFError, OSError):
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=wait_for_eof, name="docclean-lifeline", daemon=True).start()


def _where(exc: BaseException) -> str:
    """' at file.py:line' of the innermost frame, so a crash report points at the backend line."""
    last = traceback.extract_tb(exc.__traceback__)[-1:]
    return f" at {os.path.basename(last[0].filename)}:{last[0].lineno}" if last else ""


@contextmanager
def _main_hidden() -> Iterator[None]:
    """Start workers without re-running the caller's __main__ script in them (a script without an
    `if __name__ == "__main__"` guard would otherwise run again in every worker)."""
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if main is not None and k in main.__dict__}
    try:
        for k in saved:
            setattr(main, k, None) if k == "__spec__" else delattr(main, k)
        yield
    finally:
        for k, v in saved.items():
            setattr(main, k, v)


@dataclass
class _Running:
    job: Job
    proc: Any
    conn: Connection
    started: float


def run_jobs(jobs: Iterable[Job], limits: LimitSettings, extractor: str = DEFAULT_EXTRACTOR) -> Iterator[tuple[Job, Outcome]]:
    """Yield (job, outcome) as documents finish, at most `limits.workers` at a time; jobs are taken
    from the iterable only as workers free up, so a source of any size is never listed in memory."""
    pending = iter(jobs)
    workers = limits.workers or os.cpu_count() or 1
    running: dict[Connection, _Running] = {}
    exhausted = False
    try:
        while not exhausted or running:
            while not exhausted and len(running) < workers:
                job = next(pending, None)
                if job is None:
                    exhausted = True
                    break
                parent, child = _CTX.Pipe(duplex=False)
                proc = _CTX.Process(target=_child, args=(child, extractor, job, limits, _lifeline()), daemon=True)
                with _main_hidden():
                    proc.start()
                child.close()
                running[parent] = _Running(job, proc, parent, time.monotonic())
            if not running:
                break
            deadline = min(r.started + _limit(r.job, limits) for r in running.values())
            ready = wait(list(running), timeout=max(0.0, deadline - time.monotonic()))
            for conn in ready:
                yield _finish(running.pop(conn))  # type: ignore[arg-type]
            now = time.monotonic()
            for conn, r in list(running.items()):
                if now - r.started >= _limit(r.job, limits):
                    running.pop(conn)
                    r.proc.kill()
                    r.proc.join()
                    conn.close()
                    yield r.job, Outcome(None, f"timed out after {_limit(r.job, limits):g} s", now - r.started, "timeout")
    finally:
        for r in running.values():
            r.proc.kill()
            r.proc.join()


def _limit(job: Job, limits: LimitSettings) -> float:
    """The job's own time limit (an OCR grant), else the default one."""
    return job.timeout_s if job.timeout_s is not None else limits.timeout_s


def _finish(r: _Running) -> tuple[Job, Outcome]:
    """Collect a worker whose pipe is readable or closed."""
    try:
        kind, payload, peak = r.conn.recv()
    except (EOFError, OSError):
        kind, payload, peak = "died", None, None
    except Exception as exc:  # noqa: BLE001 - a result that cannot be unpickled is that document's error
        kind, payload, peak = "crash", f"unreadable worker result ({type(exc).__name__}: {exc})", None
    r.proc.join()
    r.conn.close()
    seconds = time.monotonic() - r.started
    if kind == "ok":
        return r.job, Outcome(payload, None, seconds, "ok", peak)
    if payload is None:
        code = r.proc.exitcode
        payload = f"worker died (exit code {code}{', likely out of memory' if code == -9 else ''})"
    return r.job, Outcome(None, payload, seconds, kind, peak)
