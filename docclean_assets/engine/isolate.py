"""Run each document's parse in a worker process with a time limit and a memory ceiling of its own,
several at once; a crash, a hang or a memory blow-up becomes that document's error, nothing more.

Workers are warm: each takes document after document (worker.py), so a document pays for its parse,
not for a process start and the imports and tables a backend loads on first use (0.35-0.5 s a
document when every document had a process of its own), and each holds the next document in its pipe
(DEPTH) so it never waits for this process. What stays per document: the wall-clock limit (a worker
whose document runs over is killed, and replaced), the memory ceiling (set for each document) and a
peak memory figure of its own. A document that runs out of memory, dies or crashes in a worker that
had parsed others is parsed once more in a fresh one, so its outcome never depends on the documents
before it. A worker is replaced after any outcome other than blocks or a refusal, when it holds more
than `LimitSettings.worker_max_growth_mb` above its fresh resident memory even after returning what it
freed, and after `worker_max_documents` documents; an idle one leaves after `worker_idle_s`.
"""
from __future__ import annotations

import functools
import io
import multiprocessing as mp
import os
import pickle
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.connection import Connection, wait
from typing import Any

from docclean_assets.engine import blob, worker
from docclean_assets.engine.blob import Extractor, extract_file
from docclean_assets.engine.worker import BYE, CLEAN_KINDS, READY, grown, recall, remember, serve
from docclean_assets.extract.settings import LimitSettings

# Modules the fork server imports once so every worker starts warm (tesserocr: the OCR engine's
# library, imported only, no engine started; pandas: pyarrow's Table.from_pylist imports it on its
# first call, 0.29 s a worker). Not OpenCV: its import reserves ~440 MiB of address space (numpy
# included), which every worker would then carry under LimitSettings.memory_mb; a document whose
# pictures reach the text gate imports it itself (~0.2 s, once per worker).
_PRELOAD = [blob.__name__, worker.__name__, "pypdfium2", "docx", "pptx",
            "trafilatura", "selectolax.lexbor", "tesserocr", "pandas"]
_CTX = mp.get_context("forkserver")
_ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"
_EXIT_WAIT_S = 5.0  # seconds a worker that said it will exit is given before it is killed
# Documents sent to a worker at once: the one it parses and the next, waiting in its pipe, so it
# never idles while this process takes a result, writes a batch or reports.
DEPTH = 2
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
    peak_rss_mb: float | None = None  # the document's peak resident memory, when its worker reported back


# Every worker holds the read end of a pipe whose only write end is in the process that runs the
# jobs; when that process ends (SIGKILL included) the read returns EOF and the worker kills itself.
# The fork server cannot do this for us: every worker keeps its liveness pipe open, so it outlives
# a killed parent as long as a worker runs (a hung document would run on under PID 1 with no limit).
_LIFELINE: dict[int, tuple[Connection, Connection]] = {}  # pid of the owning process -> (read, write)
_LOCK = threading.Lock()  # the lifeline and the idle workers, shared by the threads of a process


def _lifeline() -> Connection:
    """The read end of this process's lifeline (made once per process, never inherited by a fork)."""
    pid = os.getpid()
    with _LOCK:
        if pid not in _LIFELINE:
            _LIFELINE.clear()
            _LIFELINE[pid] = _CTX.Pipe(duplex=False)
        return _LIFELINE[pid][0]


@contextmanager
def _starting() -> Iterator[None]:
    """Start a worker (and the fork server, the first time) without re-running the caller's __main__
    script in it (a script without an `if __name__ == "__main__"` guard would otherwise run again in
    every worker), and with Arrow's C++ default allocator set to the C library's: pa.set_memory_pool
    reaches only pyarrow's Python calls, and the IPC writer making a document's rows otherwise starts
    mimalloc, which reserves 1 GiB of address space under the worker's ceiling."""
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if main is not None and k in main.__dict__}
    pool = os.environ.get(_ARROW_POOL)
    try:
        for k in saved:
            setattr(main, k, None) if k == "__spec__" else delattr(main, k)
        os.environ.setdefault(_ARROW_POOL, "system")
        yield
    finally:
        for k, v in saved.items():
            setattr(main, k, v)
        if pool is None:
            os.environ.pop(_ARROW_POOL, None)


def start_fork_server() -> None:
    """Start the fork server the workers come from now, if it is not running: its imports take ~0.8 s
    of a core, which then overlap what a run does before its first document (the inventory, the plan)
    instead of delaying that document."""
    with _starting():
        forkserver.ensure_running()


class _Worker:
    """One warm worker process as the process running the jobs sees it: starting, idle, or with a
    queue of sent jobs whose head it is parsing."""

    def __init__(self, limits: LimitSettings) -> None:
        parent, child = _CTX.Pipe()
        self.proc = _CTX.Process(target=serve, args=(child, _lifeline(), limits.worker_idle_s), daemon=True)
        with _starting():
            self.proc.start()
        child.close()
        self.conn = parent
        self.ready = False
        self.fresh_mib: float | None = None  # resident memory when it said ready
        self.rss_mib: float | None = None  # resident memory after its last document
        self.documents = 0
        self.queue: deque[Job] = deque()  # sent to it in order (while it starts: to be sent); the head runs
        self.started = time.monotonic()  # when the head job began (while starting: when the process did)
        self.kept: dict[int, tuple[int, object]] = {}  # id -> (number, object) of the settings it holds

    def grown_mib(self) -> float:
        """How far its resident memory has grown since it started."""
        return grown(self.fresh_mib, self.rss_mib)

    def assign(self, job: Job, extractor: Extractor, limits: LimitSettings) -> None:
        """Queue a job here; sent at once when the worker is ready, else when it says it is."""
        if self.ready:
            if not self.queue:
                self.started = time.monotonic()
            self._send(job, extractor, limits)
        self.queue.append(job)

    def on_ready(self, fresh_mib: float | None, extractor: Extractor, limits: LimitSettings) -> None:
        self.ready, self.fresh_mib, self.started = True, fresh_mib, time.monotonic()
        for job in self.queue:
            self._send(job, extractor, limits)

    def _send(self, job: Job, extractor: Extractor, limits: LimitSettings) -> None:
        buf = io.BytesIO()
        _JobPickler(buf, self.kept).dump((extractor, job, limits))
        try:
            self.conn.send_bytes(buf.getbuffer())
        except OSError:  # it has just left (its goodbye or its death is still to be read): sent again then
            pass

    def limit(self, limits: LimitSettings) -> float:
        """Seconds the head job has (its OCR grant, else the default), or the worker to start."""
        job = self.queue[0] if self.queue and self.ready else None
        return job.timeout_s if job is not None and job.timeout_s is not None else limits.timeout_s

    def stop(self) -> None:
        """Let an idle worker exit on its own."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.conn.close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()


class _JobPickler(pickle.Pickler):
    """Pickles a job for one worker, each frozen settings object (Settings, LimitSettings, HtmlRules,
    storage access) whole the first time and by its number after: a document's message is then a
    few hundred bytes, where the settings' ~2 KB cost the parent 0.3 ms a document to pickle."""

    def __init__(self, file: io.BytesIO, kept: dict[int, tuple[int, object]]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.kept = kept

    def reducer_override(self, obj: object) -> Any:
        if not _shared_kind(type(obj)):
            return NotImplemented
        entry = self.kept.get(id(obj))
        if entry is not None and entry[1] is obj:
            return recall, (entry[0],)
        number = len(self.kept)
        self.kept[id(obj)] = (number, obj)  # held here, so its id is never another object's
        return remember, (number, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


@functools.cache
def _shared_kind(cls: type) -> bool:
    """Instances of `cls` are frozen settings a run shares between its jobs: frozen dataclasses but Job."""
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and params.frozen and cls is not Job and isinstance(cls, type)


class _Idle:
    """The idle warm workers of this process, kept between calls of run_jobs (a cluster worker runs a
    task of a few documents at a time); each leaves by itself after `worker_idle_s` without work."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.workers: list[_Worker] = []

    def take(self, limits: LimitSettings) -> _Worker | None:
        """An idle worker that is still there and fit for `limits` (another call may have set others)."""
        with _LOCK:
            if self.pid != os.getpid():  # a forked copy of the process: those workers are not ours
                self.pid, self.workers = os.getpid(), []
            while self.workers:
                w = self.workers.pop()
                if w.conn.poll():  # anything to read from an idle worker is its goodbye (or EOF)
                    w.conn.close()
                elif _spent(w, limits):
                    w.stop()
                else:
                    return w
        return None

    def give(self, w: _Worker) -> None:
        with _LOCK:
            if self.pid == os.getpid():
                self.workers.append(w)


_IDLE = _Idle()


def run_jobs(jobs: Iterable[Job], limits: LimitSettings,
             extractor: Extractor = extract_file) -> Iterator[tuple[Job, Outcome]]:
    """Yield (job, outcome) as documents finish, parsed by at most `limits.workers` workers at a time,
    each sent up to DEPTH documents; jobs are taken from the iterable only as workers have room for
    them, so a source of any size is never listed in memory."""
    run = _Run(iter(jobs), limits, extractor)
    try:
        while True:
            run.fill()
            if not run.busy:
                return
            deadline = min(w.started + w.limit(limits) for w in run.busy.values())
            for conn in wait(list(run.busy), timeout=max(0.0, deadline - time.monotonic())):
                if (w := run.busy.get(conn)) is not None:  # type: ignore[call-overload]
                    yield from run.receive(w)
            now = time.monotonic()
            for w in [w for w in run.busy.values() if now - w.started >= w.limit(limits)]:
                yield run.overrun(w, now)
    finally:
        for w in run.busy.values():
            w.kill()


class _Run:
    """One run_jobs call: its workers with work, and the jobs to send again."""

    def __init__(self, pending: Iterator[Job], limits: LimitSettings, extractor: Extractor) -> None:
        self.pending, self.limits, self.extractor = pending, limits, extractor
        self.size = limits.workers or os.cpu_count() or 1
        self.busy: dict[Connection, _Worker] = {}
        self.again: deque[Job] = deque()  # sent to a worker that left before parsing them: not their doing
        self.fresh: deque[Job] = deque()  # failed in a warm worker: once more, each in a fresh one

    def _next(self) -> Job | None:
        return self.again.popleft() if self.again else next(self.pending, None)

    def fill(self) -> None:
        """Give every free slot a worker with work, then every worker up to DEPTH jobs."""
        while self.fresh and len(self.busy) < self.size:
            self._add(_Worker(self.limits), self.fresh.popleft())
        while len(self.busy) < self.size and (job := self._next()) is not None:
            self._add(_IDLE.take(self.limits) or _Worker(self.limits), job)
        for w in list(self.busy.values()):
            while len(w.queue) < DEPTH and (job := self._next()) is not None:
                w.assign(job, self.extractor, self.limits)

    def _add(self, w: _Worker, job: Job) -> None:
        w.assign(job, self.extractor, self.limits)
        self.busy[w.conn] = w

    def _drop(self, w: _Worker) -> None:
        """The worker has left or is killed: forget it; what it was sent and did not parse goes again."""
        self.busy.pop(w.conn, None)
        self.again.extend(w.queue)
        w.queue.clear()

    def receive(self, w: _Worker) -> Iterator[tuple[Job, Outcome]]:
        """Take one message of a worker: it is ready, it left idle as jobs came (they go again), it
        died (its head job's outcome), or its head job's outcome."""
        try:
            message = w.conn.recv()
        except (EOFError, OSError):
            message = None
        except Exception as exc:  # noqa: BLE001 - a result that cannot be unpickled is that document's error
            job = w.queue.popleft()
            w.kill()
            self._drop(w)
            yield job, Outcome(None, f"unreadable worker result ({type(exc).__name__}: {exc})",
                               time.monotonic() - w.started, "crash")
            return
        if message is not None and message[0] == READY:
            w.on_ready(message[1], self.extractor, self.limits)
            return
        if message is not None and message[0] == BYE:
            w.conn.close()
            self._drop(w)
            return
        job, warm = w.queue.popleft(), w.documents > 0  # a worker started for a retry is not warm
        if message is None:  # it died: a crash in a native library, the kernel's OOM killer
            w.conn.close()
            w.proc.join()
            self._drop(w)
            if not self._again_fresh(job, "died", warm):
                yield job, _died(w, time.monotonic() - w.started)
            return
        kind, payload, peak, rss, seconds = message
        w.documents, w.rss_mib, w.started = w.documents + 1, rss, time.monotonic()
        self._settle(w, kind)
        if self._again_fresh(job, kind, warm):
            return
        yield job, Outcome(payload if kind == "ok" else None, None if kind == "ok" else payload, seconds, kind, peak)

    def _again_fresh(self, job: Job, kind: str, warm: bool) -> bool:
        """Whether a document that failed in a warm worker goes once more to a fresh one: a worker that
        had grown leaves less room under the ceiling, and native code out of room dies (C++ bad_alloc
        aborts, OpenCV's import segfaults) rather than raising MemoryError, so a memory failure, a
        death or an unexpected exception is not charged to the document before a fresh worker sees it."""
        if kind in CLEAN_KINDS or not warm:
            return False
        self.fresh.append(job)
        return True

    def _settle(self, w: _Worker, kind: str) -> None:
        """After a document: the worker carries on, goes back to the idle ones, or has left (a suspect
        outcome: it exits by itself; one grown too far or done with its share says goodbye next)."""
        if kind not in CLEAN_KINDS:
            w.conn.close()
            w.proc.join(timeout=_EXIT_WAIT_S)
            if w.proc.is_alive():
                w.kill()
            self._drop(w)
            return
        if not w.queue:  # a worker that is leaving has said so after this result: the pool drops it
            self.busy.pop(w.conn, None)
            _IDLE.give(w)

    def overrun(self, w: _Worker, now: float) -> tuple[Job, Outcome]:
        """The outcome of a head job whose worker ran out of time (the worker is killed)."""
        limit = w.limit(self.limits)
        job = w.queue.popleft()
        w.kill()
        self._drop(w)
        what = f"timed out after {limit:g} s" if w.ready else f"worker did not start within {limit:g} s"
        return job, Outcome(None, what, now - w.started, "timeout")


def _died(w: _Worker, seconds: float) -> Outcome:
    code = w.proc.exitcode
    what = "worker died" if w.ready else "worker died while starting"
    return Outcome(None, f"{what} (exit code {code}{', likely out of memory' if code == -9 else ''})", seconds, "died")


def _spent(w: _Worker, limits: LimitSettings) -> bool:
    """Whether a worker has taken its share of documents or grown too far to take another."""
    return w.documents >= limits.worker_max_documents or w.grown_mib() > limits.worker_max_growth_mb
