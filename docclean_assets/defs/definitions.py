"""The Definitions: `build_defs` makes the graph for one sources file and data directory (the CLI and
the tests call it); `defs` is the one `dagster dev`, `dg` and the code server load (workspace.yaml),
from $DOCCLEAN_SOURCES / $DOCCLEAN_DATA_DIR or the bundled defaults, built only when they load it."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg

from docclean_assets.defs.assets import build_assets
from docclean_assets.defs.checks import build_checks
from docclean_assets.defs.resources import Docclean
from docclean_assets.defs.schedules import build_schedules, build_sensor
from docclean_assets.ingest.sources import SourceConfigError, default_data_dir, default_sources_file, load_sources
from docclean_assets.pipeline.progress import NullProgress
from docclean_assets.store.tables import Store

if TYPE_CHECKING:  # what define_asset_job returns (not exported by dagster's public API)
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition


def build_defs(sources_file: str | Path | None = None, data_dir: str | Path | None = None) -> dg.Definitions:
    """The whole graph for one sources file and data directory."""
    sources_file = Path(sources_file or default_sources_file()).resolve()
    config = load_sources(sources_file)
    # a local folder resolved, a URL normalised; a bad one refused here (never made a local folder)
    data_dir = Store(str(data_dir or default_data_dir()), config.store, config.storage).root
    partitions = dg.StaticPartitionsDefinition(sorted(config.sources))
    assets = build_assets(partitions)
    job = ingest_job()
    return dg.Definitions(
        assets=assets,
        asset_checks=build_checks(assets[-1]),
        jobs=[job],
        schedules=build_schedules(config, job),
        sensors=[build_sensor(config, job)],
        # `progress`: where parsed_blocks reports documents and batches besides its run log (the CLI
        # passes a terminal display; the UI needs nothing more than the log).
        resources={"docclean": Docclean(sources_file=str(sources_file), data_dir=str(data_dir)),
                   "progress": NullProgress()},
        executor=executor(),
    )


INGEST_JOB = "ingest"
# The code location's name (workspace.yaml's location_name, pyproject's [tool.dg.project]
# code_location_name) and the repository a Definitions object becomes: the UI lists a job's runs by
# this label (its `.dagster/repository` tag), so runs the CLI starts in-process carry it too.
CODE_LOCATION = "docclean"
REPOSITORY_LABEL = f"__repository__@{CODE_LOCATION}"
REPOSITORY_LABEL_TAG = ".dagster/repository"


def ingest_job() -> "UnresolvedAssetJobDefinition":
    """The one named job: every asset and check for one source partition (runs, schedules and the
    sensor all use it, so the UI lists runs under `ingest`, not `__ephemeral_asset_job__`)."""
    return dg.define_asset_job(INGEST_JOB, selection=dg.AssetSelection.all(),
                               description="Ingest one source: raw_files to quality_report and its checks.")


EXECUTOR_ENV = "DOCCLEAN_EXECUTOR"
EXECUTORS = ("in_process", "multiprocess", "k8s")


def executor() -> dg.ExecutorDefinition:
    """Where a run's steps (a sharded source's parse shards among them) run, from $DOCCLEAN_EXECUTOR:
    in the run's process (default: documents are parallelised inside each parse step, and a step
    costs no process start), in a process each (`multiprocess`, run config `execution: config:
    max_concurrent`), or in a Kubernetes job each (`k8s`: dagster-k8s's k8s_job_executor)."""
    kind = os.environ.get(EXECUTOR_ENV, "in_process") or "in_process"
    if kind == "in_process":
        return dg.in_process_executor
    if kind == "multiprocess":
        return dg.multiprocess_executor
    if kind == "k8s":
        try:
            from dagster_k8s import k8s_job_executor
        except ImportError:
            raise SourceConfigError(f"{EXECUTOR_ENV}=k8s needs dagster-k8s: pip install 'docclean[k8s]'") from None
        return k8s_job_executor
    raise SourceConfigError(f"{EXECUTOR_ENV}={kind!r}: must be one of {', '.join(EXECUTORS)}")


@dg.definitions
def defs() -> dg.Definitions:
    """The graph of the default sources file and data directory."""
    try:
        return build_defs()
    except SourceConfigError as exc:
        # The UI shows a load error's message above its trace: make that message the one line that says
        # which file and which key, and drop docclean's own frames (the loader's are Dagster's).
        where = str(default_sources_file())
        raise SourceConfigError(str(exc) if str(exc).startswith(where) else f"{where}: {exc}") from None
