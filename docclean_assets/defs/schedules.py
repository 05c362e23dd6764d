"""Re-ingestion: one schedule per source that has a cron, and a sensor for changed folders."""

import hashlib
import json
from typing import TYPE_CHECKING

import dagster as dg

from docclean_assets.ingest.discover import list_objects, walk_source
from docclean_assets.defs.resources import Docclean
from docclean_assets.ingest.sources import SourceConfigError, SourcesConfig
from docclean_assets.store.location import StoreError

if TYPE_CHECKING:  # what define_asset_job returns (not exported by dagster's public API)
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition


def build_schedules(config: SourcesConfig, job: "UnresolvedAssetJobDefinition") -> list[dg.ScheduleDefinition]:
    """A schedule per source with `schedule:`, each re-ingesting that source's partition."""
    schedules = []
    for source in config.sources.values():
        if not source.schedule:
            continue

        def _tick(context: dg.ScheduleEvaluationContext, _name: str = source.name) -> dg.RunRequest:
            return dg.RunRequest(partition_key=_name, run_key=f"{_name}-{context.scheduled_execution_time:%Y%m%dT%H%M}",
                                 tags={"docclean/source": _name})

        schedules.append(dg.schedule(
            name=f"reingest_{source.name.replace('-', '_')}", cron_schedule=source.schedule,
            execution_timezone="UTC", target=job,
            description=f"Re-ingest source {source.name!r} on {source.schedule!r} (UTC)")(_tick))
    return schedules


def folder_fingerprint(config: SourcesConfig, name: str) -> str:
    """A digest of every file's path, size and mtime below a folder source (of every object's key,
    size and ETag below a prefix on object storage: one listing, nothing downloaded)."""
    source = config.sources[name]
    digest = hashlib.sha256()
    if source.path is not None:
        walk = walk_source(source.path)
        for rel, full in walk.files:
            try:
                st = full.stat()
                digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
            except OSError as exc:  # vanished or unreadable since the walk: a change all the same
                digest.update(f"{rel}\0{exc.errno}\n".encode("utf-8", "surrogateescape"))
        for rel, why in walk.refused:
            digest.update(f"{rel}\0{why}\n".encode("utf-8", "surrogateescape"))
    elif source.prefix is not None:
        for obj in list_objects(source, config.storage)[1]:
            digest.update(f"{obj.rel}\0{obj.size}\0{obj.etag}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def build_sensor(config: SourcesConfig, job: "UnresolvedAssetJobDefinition") -> dg.SensorDefinition:
    """Requests a run for every folder source whose files were added, changed or removed."""

    @dg.sensor(name="changed_files", target=job, minimum_interval_seconds=60,
               description="Re-ingest a folder source when its files change (path, size or mtime; on object "
                           "storage key, size or ETag).")
    def changed_files(context: dg.SensorEvaluationContext, docclean: Docclean):
        seen = json.loads(context.cursor) if context.cursor else {}
        now = {}
        for name, source in docclean.config.sources.items():
            if source.path is None and source.prefix is None:
                continue
            try:
                now[name] = folder_fingerprint(docclean.config, name)
            except (StoreError, SourceConfigError) as exc:  # storage down or prefix empty: ask again next tick
                context.log.warning(f"changed_files: {name}: {exc}")
                if name in seen:
                    now[name] = seen[name]
                continue
            if seen.get(name) != now[name]:
                yield dg.RunRequest(partition_key=name, run_key=f"{name}-{now[name][:16]}", tags={"docclean/source": name})
        context.update_cursor(json.dumps(now, sort_keys=True))

    return changed_files
