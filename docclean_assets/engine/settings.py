"""Where documents are parsed, as sources.yaml sets it (`settings: engine:`): a leaf the sources file
loads without importing the engine itself."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

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
    # Documents per cluster task, and so per part file a worker writes: more means fewer, larger
    # files (a million-document source is ~60 k parts at 16) and less scheduler traffic; fewer means
    # less work redone when a worker dies and an even end of the run. 16 web pages are ~3 s of work.
    documents_per_task: Annotated[int, Range(1, 1024)] = 16
    connect_timeout_s: Annotated[float, Range(1, None)] = 30.0

    def __post_init__(self) -> None:
        check_section(self)
        if self.kind not in ENGINES:
            raise ValueError(f"engine.kind: must be one of {', '.join(ENGINES)}, got {self.kind!r}")
        if self.kind == "dask" and not self.address:
            raise ValueError("engine.address: the Dask scheduler's address is required with kind: dask")
