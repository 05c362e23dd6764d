"""Where documents are parsed: docclean's own fork-server workers on this machine (`local`, the
default), or the workers of a Dask cluster (`dask`).

On a cluster each document is one Dask task. Inside it, `isolate.run_jobs` parses that one document
in a child process of the Dask worker, so the per-document wall-clock limit and memory ceiling hold
there exactly as they do locally. A Dask worker that dies mid-document (killed, out of memory, its
machine gone) has its documents rescheduled on the others by the scheduler; a document whose workers
died `distributed.scheduler.allowed-failures` times (Dask's setting, default 3) becomes a failed row
(`died: ...`), never a failed run. Dask workers must run non-daemonic (`DASK_DISTRIBUTED__WORKER__DAEMON=False`,
or `distributed.worker.daemon: false`) so that a task may start that child.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Annotated

from docclean_assets.extract.isolate import Job, Outcome, run_jobs
from docclean_assets.extract.settings import LimitSettings
from docclean_assets.extract.validation import Range, check_section

ENGINES = ("local", "dask")


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """`settings: engine:` in sources.yaml (the CLI's --engine and --address override it)."""

    kind: str = "local"  # local | dask
    address: str | None = None  # the Dask scheduler, e.g. tcp://10.0.0.5:8786
    # Extra attempts a document's task gets when it fails on the cluster outside docclean's own
    # isolation (the worker could not unpickle or import it, a transient scheduler error); worker
    # deaths are bounded by the scheduler's allowed-failures, hangs and memory by the per-document
    # limits. One covers a transient error; more would re-run a task that fails everywhere.
    retries: Annotated[int, Range(0, 5)] = 1
    # Documents in flight per cluster worker thread: enough to keep workers busy between results,
    # few enough that a killed run loses little work and the driver holds little.
    in_flight_per_thread: Annotated[int, Range(1, 64)] = 2
    connect_timeout_s: Annotated[float, Range(1, None)] = 30.0

    def __post_init__(self) -> None:
        check_section(self)
        if self.kind not in ENGINES:
            raise ValueError(f"engine.kind: must be one of {', '.join(ENGINES)}, got {self.kind!r}")
        if self.kind == "dask" and not self.address:
            raise ValueError("engine.address: the Dask scheduler's address is required with kind: dask")


def parse_jobs(jobs: Iterable[Job], limits: LimitSettings, extractor: str,
               engine: EngineSettings) -> Iterator[tuple[Job, Outcome]]:
    """(job, outcome) as documents finish, on the configured engine."""
    if engine.kind == "local":
        return run_jobs(jobs, limits, extractor)
    return _dask_jobs(jobs, limits, extractor, engine)


def parse_one(job: Job, limits: LimitSettings, extractor: str) -> Outcome:
    """The task a cluster worker runs: one document in its own child process, with its limits."""
    [(_, outcome)] = list(run_jobs([job], replace(limits, workers=1), extractor))
    return outcome


def _dask_jobs(jobs: Iterable[Job], limits: LimitSettings, extractor: str,
               engine: EngineSettings) -> Iterator[tuple[Job, Outcome]]:
    """Submit documents to the Dask cluster a window at a time; yield each outcome as it arrives."""
    from distributed import Client, as_completed

    client = Client(engine.address, timeout=engine.connect_timeout_s, set_as_default=False)
    try:
        threads = sum(client.nthreads().values()) or 1
        window = threads * engine.in_flight_per_thread
        pending = iter(jobs)
        running: dict[str, Job] = {}
        done = as_completed(loop=client.loop)
        run_id = uuid.uuid4().hex[:8]

        def submit() -> bool:
            job = next(pending, None)
            if job is None:
                return False
            future = client.submit(parse_one, job, limits, extractor, key=f"docclean-{run_id}-{job.key}",
                                   retries=engine.retries, pure=False)
            running[future.key] = job
            done.add(future)
            return True

        while len(running) < window and submit():
            pass
        for future in done:
            job = running.pop(future.key)
            yield job, _outcome(future)
            future.release()
            submit()
    finally:
        client.close()


def _outcome(future) -> Outcome:  # type: ignore[no-untyped-def]
    """The task's outcome, or a failed one when the cluster could not run it."""
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker:
        return Outcome(None, "died: every cluster worker that ran it died (distributed.scheduler.allowed-failures)",
                       0.0, "died")
    except Exception as exc:  # noqa: BLE001 - a task the cluster lost is this document's failure only
        return Outcome(None, f"crash: cluster task failed: {type(exc).__name__}: {exc}", 0.0, "crash")
