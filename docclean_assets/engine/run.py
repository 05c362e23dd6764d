"""Where documents are parsed: docclean's own fork-server workers on this machine (`local`, the
default), or the workers of a Dask cluster (`dask`).

On a cluster a Dask task is a few documents (`documents_per_task`). The worker reads each document's
bytes from storage itself, and `isolate.run_jobs` parses each in a warm child process of the Dask worker
(kept for its next tasks), so the per-document wall-clock limit and memory ceiling hold there exactly as
they do locally. The worker then writes the task's blocks as one Parquet part into the data table's
folder and returns only the documents' reports and where the part is: the driver never ships document
bytes or holds blocks, it commits parts (`Store.commit_pair(parts=...)`), and nothing a worker wrote is
visible before that.

A Dask worker that dies mid-task (killed, out of memory, its machine gone) has its tasks rescheduled
on the others by the scheduler. A task that fails even so (its workers died
`distributed.scheduler.allowed-failures` times, Dask's setting, default 3) is split into one task per
document. Dask blames every task on a dying worker, so a document's own task may die beside the one
that kills: a single document whose task died is sent once more alone, nothing else in flight on the
cluster, and only a document that kills its workers alone ends as a failed row (`died: ...`), never the
run.
Dask workers must run non-daemonic (`DASK_DISTRIBUTED__WORKER__DAEMON=False`, or
`distributed.worker.daemon: false`) so that a task may start that child.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from docclean_assets.engine.blob import Extractor
from docclean_assets.engine.isolate import Job, Outcome, run_jobs
from docclean_assets.engine.settings import EngineSettings
from docclean_assets.extract.schema import DocPayload
from docclean_assets.extract.settings import LimitSettings
from docclean_assets.store.parts import Part, PartTarget, write_part

# A document's rows for the data table, from what the driver knows of it (its ref) and its blocks;
# a module-level function, so that it travels to cluster workers by reference.
RowsOf = Callable[[Any, pa.Table], pa.Table]

Group = list[tuple[Job, Outcome]]  # documents that finished together: their rows are committed together


class EngineUnavailable(RuntimeError):
    """The engine cannot parse any document (unreachable, no workers, workers that cannot start a
    document's process): found before any document is sent, said in one line."""


def check_engine(engine: EngineSettings) -> None:
    """Raise EngineUnavailable when the engine would fail every document; locally there is nothing to check."""
    if engine.kind == "local":
        return
    from distributed import Client

    try:
        client = Client(engine.address, timeout=engine.connect_timeout_s, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise EngineUnavailable(f"the Dask scheduler at {engine.address} cannot be reached within "
                                f"{engine.connect_timeout_s:g} s ({type(exc).__name__}); is `dask scheduler` running?") from None
    try:
        if not client.nthreads():
            raise EngineUnavailable(f"no worker is connected to the Dask scheduler at {engine.address}: start one "
                                    f"with `DASK_DISTRIBUTED__WORKER__DAEMON=False dask worker {engine.address}`")
        try:
            states = client.run(worker_state)
        except Exception as exc:  # noqa: BLE001 - the workers' own error, whatever it is, in one line
            raise EngineUnavailable(f"the Dask workers at {engine.address} cannot run docclean: "
                                    f"{type(exc).__name__}: {_first_line(exc)} (install docclean, the same version, "
                                    "in the workers' environment)") from None
        daemonic = sorted(addr for addr, daemon in states.items() if daemon)
        if daemonic:
            raise EngineUnavailable(
                f"{len(daemonic)} of {len(states)} Dask workers at {engine.address} run as daemonic processes, which "
                "may not start the process each document is parsed in: start them with "
                f"`DASK_DISTRIBUTED__WORKER__DAEMON=False dask worker {engine.address}` "
                "(or distributed.worker.daemon: false in the Dask config)")
    finally:
        client.close()


def worker_state() -> bool:
    """Run on each Dask worker: whether it is a daemonic process (its tasks may not start children).
    Importing the library here proves the worker can unpickle docclean's tasks."""
    import multiprocessing

    import docclean_assets.engine.isolate  # noqa: F401 - what every task imports first

    return bool(multiprocessing.current_process().daemon)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


@dataclass(frozen=True, slots=True)
class Stored:
    """A document parsed on a cluster worker: its report's columns, and the part holding its blocks
    (shared with the other documents of its task; None when it has no blocks)."""

    report: dict
    part: Part | None


@dataclass(frozen=True, slots=True)
class Sink:
    """Where cluster workers write blocks, and which document each job's blocks belong to."""

    target: PartTarget
    ref_of: Callable[[Job], Any]  # called on the driver as a job is sent
    rows_of: RowsOf  # called on the cluster worker for each document's blocks
    expected: int = 0  # documents the run expects to parse (sizes the tasks; 0: unknown)


def parse_jobs(jobs: Iterable[Job], limits: LimitSettings, extractor: Extractor, engine: EngineSettings,
               sink: Sink) -> Iterator[Group]:
    """Groups of (job, outcome) as documents finish, on the configured engine. Locally each outcome
    holds its DocPayload; on a cluster a `Stored`, its blocks already in a part under `sink`."""
    if engine.kind == "local":
        return ([done] for done in run_jobs(jobs, limits, extractor))
    return _dask_jobs(jobs, limits, extractor, engine, sink)


def parse_task(jobs: list[Job], refs: list[Any], limits: LimitSettings, extractor: Extractor,
               target: PartTarget, rows_of: RowsOf) -> list[Outcome]:
    """The task a cluster worker runs: each document in its own child process, with its limits, one
    at a time (the task holds one of the worker's threads); their blocks as one part under `target`."""
    ref_of = {job.key: ref for job, ref in zip(jobs, refs)}
    done = dict((job.key, outcome) for job, outcome in run_jobs(jobs, replace(limits, workers=1), extractor))
    blocks = [rows_of(ref_of[k], o.result.blocks()) for k, o in done.items() if o.error is None]
    blocks = [t for t in blocks if t.num_rows]
    part = write_part(target, pa.concat_tables(blocks)) if blocks else None
    outcomes = []
    for job in jobs:
        o = done[job.key]
        if o.error is None:
            payload: DocPayload = o.result
            o = replace(o, result=Stored(payload.report, part))
        outcomes.append(o)
    return outcomes


def _dask_jobs(jobs: Iterable[Job], limits: LimitSettings, extractor: Extractor, engine: EngineSettings,
               sink: Sink) -> Iterator[Group]:
    """Submit tasks to the Dask cluster a window at a time; yield each task's outcomes as it ends. A
    task of several documents that fails is sent again as one task per document."""
    from distributed import Client, as_completed

    client = Client(engine.address, timeout=engine.connect_timeout_s, set_as_default=False)
    try:
        threads = sum(client.nthreads().values()) or 1
        window = threads * engine.in_flight_per_thread
        sent = 0  # documents sent so far (split ones not counted again)
        pending = iter(jobs)
        split: list[list[Job]] = []  # single-document tasks of failed tasks, sent before new work
        suspects: list[Job] = []  # documents whose own task died beside others: each runs again alone
        running: dict[str, tuple[list[Job], bool]] = {}  # task key: its documents, whether it runs alone
        done = as_completed(loop=client.loop)
        run_id = uuid.uuid4().hex[:8]

        def submit() -> bool:
            nonlocal sent
            if any(alone for _, alone in running.values()) or (suspects and running):
                return False
            alone = bool(suspects)
            if alone:
                batch = [suspects.pop()]
            elif split:
                batch = split.pop()
            else:
                batch = [j for _, j in zip(range(task_size(engine, window, sink.expected - sent)), pending)]
                sent += len(batch)
            if not batch:
                return False
            future = client.submit(parse_task, batch, [sink.ref_of(j) for j in batch], limits, extractor,
                                   sink.target, sink.rows_of, key=f"docclean-{run_id}-{uuid.uuid4().hex[:8]}-{batch[0].key}",
                                   retries=engine.retries, pure=False)
            running[future.key] = (batch, alone)
            done.add(future)
            return True

        while len(running) < window and submit():
            pass
        for future in done:
            batch, alone = running.pop(future.key)
            outcomes = _outcomes(future, len(batch), alone)
            future.release()
            if outcomes is None and len(batch) > 1:  # a task of several documents failed: find the one
                split.extend([job] for job in reversed(batch))
            elif outcomes is None:  # it may have died beside the document that kills: try it alone
                suspects.append(batch[0])
            else:
                yield list(zip(batch, outcomes))
            while len(running) < window and submit():
                pass
    finally:
        client.close()


def task_size(engine: EngineSettings, window: int, remaining: int) -> int:
    """Documents in the next task: `documents_per_task`, fewer once the documents left could not fill
    the cluster's window with tasks that large ("guided" scheduling: the tasks shrink towards the end,
    so no worker is left with a long last task while the others idle). `remaining` <= 0: unknown."""
    if remaining <= 0:
        return engine.documents_per_task
    return max(1, min(engine.documents_per_task, -(-remaining // window)))


def _outcomes(future, documents: int, alone: bool) -> list[Outcome] | None:  # type: ignore[no-untyped-def]
    """The task's outcomes; None when a task of several documents failed, or when a task died that did
    not run alone (others may have killed it); for a single document that died alone or failed by its
    own error, its failed outcome."""
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker:
        if not alone:  # a task runs alone only when it holds one document
            return None
        return [Outcome(None, "died: every cluster worker that ran it alone died "
                              "(distributed.scheduler.allowed-failures)", 0.0, "died")]
    except Exception as exc:  # noqa: BLE001 - a task the cluster lost is its documents' failure only
        if documents > 1:
            return None
        return [Outcome(None, f"crash: cluster task failed: {type(exc).__name__}: {exc}", 0.0, "crash")]
