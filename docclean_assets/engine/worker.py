"""The parse worker's side of isolation: a warm process that takes documents one at a time from its
pipe, each under the document's own memory ceiling, and answers with its outcome and its memory.

The process that runs the jobs (isolate.py) decides everything else: which document goes where, the
time limit (it kills a worker whose document runs over), and when a worker is replaced.
"""
from __future__ import annotations

import ctypes
import gc
import os
import pickle
import resource
import signal
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import pyarrow as pa

from docclean_assets.extract.errors import ExtractionError, stable_message
from docclean_assets.extract.model import Extraction
from docclean_assets.extract.schema import extraction_to_payload
from docclean_assets.extract.settings import LimitSettings

READY = "ready"  # the worker's first message, with its resident memory, MiB
# Its last message when it leaves on its own (idle, or done with its share): what was sent meanwhile
# was not started.
BYE = "bye"
# Outcomes after which the worker takes further documents; after any other (a memory blow-up, a
# recursion overflow, an exception a backend did not expect) its state is suspect and it exits.
CLEAN_KINDS = frozenset({"ok", "refused"})


_KEPT: dict[int, Any] = {}  # the settings objects the process running the jobs has sent, by number


def remember(number: int, data: bytes) -> Any:
    """Unpickle a settings object sent whole, and keep it for the jobs that name it (isolate._JobPickler)."""
    _KEPT[number] = obj = pickle.loads(data)
    return obj


def recall(number: int) -> Any:
    """A settings object sent before."""
    return _KEPT[number]


def serve(conn: Connection, lifeline: Connection, idle_s: float) -> None:
    """Worker body: die with docclean, say ready, then run (extractor, job, limits) messages until
    told to stop (None), the pipe closes, an outcome leaves the process suspect, or it says goodbye:
    after `worker_max_documents`, past `worker_max_growth_mb`, or when no document came for `idle_s`
    (then the last document's `worker_idle_s`)."""
    watch(lifeline)
    # Arrow's default allocator (mimalloc) takes address space in large segments: under a ceiling, a
    # worker with room left failed "realloc of size 4096" while making a small page's rows (seen once,
    # in the Dask engine's 512 MiB test). The C library's malloc grows by what is asked.
    pa.set_memory_pool(pa.system_memory_pool())
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    # The modules the fork server loaded are the worker's for life: out of the collector's sight, a
    # full collection scans only what documents made (it took ~50 ms every 10-30 PDFs before).
    gc.freeze()
    try:
        _documents(conn, idle_s, hard)
    except (EOFError, OSError):  # the process that runs the jobs closed the pipe or is gone: no one to tell
        pass


def _documents(conn: Connection, idle_s: float, hard: int) -> None:
    """Say ready, then parse what comes until it is time to stop (serve)."""
    fresh = rss_mib()
    conn.send((READY, fresh))
    documents = 0
    while True:
        if not conn.poll(idle_s):
            conn.send((BYE,))
            return
        message = conn.recv()
        if message is None:
            return
        started = time.perf_counter()
        extractor, job, limits = message
        idle_s = limits.worker_idle_s  # the settings of the run that sent the last document
        reset_peak()
        _cap(limits.memory_mb, hard)
        kind, payload = run(extractor, job, limits)
        peak = peak_rss_mib()
        _cap(None, hard)  # the result is made: sending it (a copy as it is pickled) is not the document's
        rss = settled_rss_mib(fresh, limits)
        conn.send((kind, payload, peak, rss, time.perf_counter() - started))
        documents += 1
        if kind not in CLEAN_KINDS:
            return
        if documents >= limits.worker_max_documents or grown(fresh, rss) > limits.worker_max_growth_mb:
            conn.send((BYE,))  # what was sent meanwhile is sent to another worker
            return


def run(extractor: Callable[..., Any], job: Any, limits: LimitSettings) -> tuple[str, Any]:
    """(kind, result or message) of one document: its extraction, and its rows when the job asks."""
    try:
        result = extractor(job.blob, job.fmt, **job.options)
        if job.rows:
            result = rows(result, limits)
        return "ok", result
    except MemoryError:
        return "memory", f"memory limit exceeded ({limits.memory_mb} MiB)"
    except RecursionError as exc:
        return "crash", stable_message(f"RecursionError: {exc}{_where(exc)}")
    except ExtractionError as exc:
        return "refused", stable_message(str(exc))
    except Exception as exc:  # noqa: BLE001 - every failure becomes the document's error row
        return "crash", stable_message(f"{type(exc).__name__}: {exc}{_where(exc)}")


def rows(result: Extraction, limits: LimitSettings) -> Any:
    """The document as table rows, refused when its text is over `max_text_chars`."""
    chars = sum(len(b.text) + len(b.orig_text or "") for b in result.blocks)
    if chars > limits.max_text_chars:
        raise ExtractionError(f"extracted text too large: {chars:,} characters (limit max_text_chars = "
                              f"{limits.max_text_chars:,}); raise the limit to ingest it")
    try:
        return extraction_to_payload(result.blocks, result.report)
    except Exception as exc:  # noqa: BLE001 - a value no column can hold costs this document only
        raise ExtractionError(f"the document's rows could not be written ({type(exc).__name__}: {exc})") from exc


def _cap(memory_mb: int | None, hard: int) -> None:
    """Set this process's address-space ceiling (None: lift it to the hard limit). Only the soft limit
    moves, so the next document may be given a higher ceiling than this one."""
    soft = hard if memory_mb is None else memory_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ValueError, OSError):
        pass  # the platform refuses the cap; the wall-clock limit still applies


def _status_kib(field: str) -> int | None:
    """A `Vm*` line of /proc/self/status, KiB (None off Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_mib() -> float | None:
    """This process's resident memory now, MiB (None off Linux)."""
    kib = _status_kib("VmRSS:")
    return None if kib is None else kib / 1024


def grown(fresh: float | None, rss: float | None) -> float:
    """MiB of resident memory a worker holds beyond what it held fresh (0 when unknown)."""
    return 0.0 if fresh is None or rss is None else rss - fresh


def settled_rss_mib(fresh: float | None, limits: LimitSettings) -> float | None:
    """Resident memory after a document; past `worker_max_growth_mb` above the fresh worker's, after
    collecting its cycles and returning the C heap's free pages to the system (a 10-K filing leaves
    ~200 MiB of freed but held heap; this takes 5-20 ms, and only after such documents)."""
    rss = rss_mib()
    if grown(fresh, rss) <= limits.worker_max_growth_mb:
        return rss
    gc.collect()
    if _malloc_trim is not None:
        _malloc_trim(0)
    return rss_mib()


def _libc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim (None elsewhere)."""
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


_malloc_trim = _libc_malloc_trim()


def reset_peak() -> None:
    """Start counting peak resident memory anew, so each document reports its own (Linux >= 4.0;
    elsewhere the peak is the worker's so far)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        pass


def peak_rss_mib() -> float:
    """Peak resident memory since the last `reset_peak`, MiB (Linux reports KiB)."""
    kib = _status_kib("VmHWM:")
    return (kib if kib is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def watch(lifeline: Connection) -> None:
    """Kill this worker as soon as its lifeline closes (the process that runs the jobs is gone)."""
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
