"""The seven assets, partitioned by source: raw_files -> parsed_blocks + parsed_documents (one parse,
fanned out over the source's shards, committed in batches; parse_asset.py) -> boilerplate_sets ->
normalized_blocks -> chunks (and its chunk_changes) and quality_report. Each streams over
the store's committed parts and writes through it, holding the source's write lock."""


import dagster as dg
import pyarrow as pa

from docclean_assets.defs import insight
from docclean_assets.engine.isolate import start_fork_server
from docclean_assets.defs.meta import counts_value, require, result_meta, table_value
from docclean_assets.defs.parse_asset import build_parse_asset
from docclean_assets.pipeline import chunks as chunking
from docclean_assets.pipeline import derive, health, raw
from docclean_assets.pipeline.shards import shard_keys, source_of
from docclean_assets.defs.resources import Docclean
from docclean_assets.ingest.sources import SourceConfigError
from docclean_assets.store.location import StorageUnavailable
from docclean_assets.store.repair import repair_all
from docclean_assets.pipeline.schemas import (
    BLOCKS_SCHEMA, BOILERPLATE_SCHEMA, CHUNK_CHANGES_SCHEMA, CHUNKS_SCHEMA, QUALITY_SCHEMA, RAW_FILES_SCHEMA,
)
from docclean_assets.defs.versions import CODE_VERSION, changed_since, data_version, last_recorded

GROUP = "docclean"
PREVIEW_ROWS = 8  # rows shown in the UI's metadata preview
PREVIEW_CHARS = 80  # characters of a text cell shown in a preview
# Who the UI names as the assets' owner (Dagster takes an e-mail address or "team:<name>").
OWNERS = ["team:docclean"]
KINDS = {"python", "deltalake", "parquet"}  # the UI's kind tags: what makes them and where they are


def common(stage: str) -> dict:
    """What every asset declares: group, owners, kinds, the stage tag and the code version."""
    return {"group_name": GROUP, "owners": OWNERS, "kinds": KINDS, "tags": {"docclean/stage": stage},
            "code_version": CODE_VERSION}


def _preview(table: pa.Table, columns: list[str]) -> dg.MetadataValue:
    """The first rows as a table, long texts cut."""
    rows = table.select(columns).slice(0, PREVIEW_ROWS).to_pylist()
    for row in rows:
        for col, value in row.items():
            if isinstance(value, str) and len(value) > PREVIEW_CHARS:
                row[col] = value[:PREVIEW_CHARS] + "…"
    return table_value(rows, columns)


_LOOK_UP = object()  # `previous` not looked up yet (None is an answer: nothing recorded)


def _result(context: dg.AssetExecutionContext, asset: str, path: str, rows: int, schema: pa.Schema,
            version: dg.DataVersion, previous: object = _LOOK_UP, **extra) -> dg.MaterializeResult:
    """The materialization: metadata, the data version, and whether it changed since the last one
    (`previous`, when the asset looked it up already)."""
    changed = changed_since(last_recorded(context, asset) if previous is _LOOK_UP else previous, version)
    return dg.MaterializeResult(asset_key=asset, metadata=result_meta(path, rows, schema, changed=changed, **extra),
                                data_version=version)


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    """The asset graph over the given source partitions."""

    @dg.asset(partitions_def=partitions, **common("ingest"),
              description="One row per file found or URL fetched: content address, sniffed format, size, time.")
    def raw_files(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store = docclean.source(context.partition_key), docclean.store
        if docclean.config.engine.kind == "local":  # its start overlaps the inventory, not the first document
            start_fork_server()
        # a damaged table of the source (a part or log entry lost) is mended before anything reads it
        repaired = repair_all(store, sorted({src.name} | {k for t in ("parsed_blocks", "parsed_documents")
                                                            for k in store.sources(t) if source_of(k) == src.name}))
        for fixed in repaired:
            context.log.warning(fixed.line())
        with store.locked(src.name):
            previous = store.read("raw_files", src.name, RAW_FILES_SCHEMA) if src.urls or src.prefix else None
            objects: dict[str, int] = {}  # a folder on object storage: objects downloaded, and reused unread
            skipped: dict[str, int] = {}  # files of types docclean does not read, per extension
            try:
                table = raw.raw_files_table(src, store.location, docclean.config.settings, previous,
                                            docclean.config.fetch, objects, skipped)
            except (StorageUnavailable, SourceConfigError) as exc:  # its bucket or prefix: one clear line
                raise dg.Failure(description=str(exc)) from None
            store.overwrite_if_changed("raw_files", src.name, table)
            version = data_version(store.data_version("raw_files", [src.name]))
        if objects:
            context.log.info(f"{src.name}: {objects['downloaded']} objects downloaded, {objects['reused']} "
                             "unchanged (same ETag and size) reused without reading them")
        if skipped:
            context.log.warning(f"{src.name}: {raw.skipped_line(skipped)}")
        return _result(context, "raw_files", store.uri("raw_files", src.name), table.num_rows, RAW_FILES_SCHEMA, version,
                       formats=counts_value(raw.count_by(table, "format"), "format", "(not recognised)"),
                       format_mismatches=int(sum(table.column("format_mismatch").to_pylist())),
                       not_modified=sum(1 for s in table.column("http_status").to_pylist() if s == 304),
                       **objects, skipped_files=sum(skipped.values()),
                       skipped_types=counts_value(skipped, "extension", "(none)", "files"),
                       repaired=table_value([{"table": r.table, "what": r.line()} for r in repaired], ["table", "what"]),
                       preview=_preview(table, ["path", "format", "bytes", "error"]))

    parse = build_parse_asset(partitions, common("parse"))

    @dg.asset(partitions_def=partitions, **common("clean"), deps=["parsed_blocks", "parsed_documents"],
              description="Repeated texts: running heads and page numbers across a document's pages "
                          "(digits normalised), and the site template across a source's pages.")
    def boilerplate_sets(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store, settings = docclean.source(context.partition_key), docclean.store, docclean.config.settings
        errors: dict[str, str] = {}
        with store.locked(src.name):
            keys = shard_keys(src.name, src.shards)
            require(docclean, "parsed_blocks", src.name, keys)
            inputs = derive.boilerplate_inputs(store, src.name, settings, keys)
            searched = store.inputs("boilerplate_sets", src.name) != inputs  # else made from these very parses
            if searched:
                table = derive.boilerplate_table(store, src.name, settings, errors, keys)
                store.overwrite("boilerplate_sets", src.name, table, inputs)
            else:
                table = store.read("boilerplate_sets", src.name, BOILERPLATE_SCHEMA)
            version = data_version(store.data_version("boilerplate_sets", [src.name]))
        for doc_path, error in errors.items():
            context.log.warning(f"{src.name}/{doc_path}: {error}")
        previous = last_recorded(context, "boilerplate_sets")
        if searched or previous is None or "errors" not in previous.metadata:
            error_table = table_value([{"path": p, "error": e} for p, e in errors.items()], ["path", "error"])
        else:  # not searched: the documents it could not search are those of the search that made the table
            error_table = previous.metadata["errors"]
        return _result(context, "boilerplate_sets", store.uri("boilerplate_sets", src.name), table.num_rows,
                       BOILERPLATE_SCHEMA, version, previous,
                       scopes=counts_value(raw.count_by(table, "scope"), "scope", "(none)"), errors=error_table,
                       preview=_preview(table, ["scope", "band", "example", "count", "out_of", "drop_reason"]))

    @dg.asset(partitions_def=partitions, **common("clean"), deps=["parsed_blocks", boilerplate_sets],
              description="Every block after repetition removal and normalisation; removed blocks keep "
                          "their text and a drop_reason. The body is drop_reason IS NULL AND kind IN body kinds.")
    def normalized_blocks(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store = docclean.source(context.partition_key), docclean.store
        with store.locked(src.name):
            require(docclean, "boilerplate_sets", src.name)
            stats = derive.normalize_source(store, src.name, docclean.config.settings, shard_keys(src.name, src.shards))
            store.vacuum("normalized_blocks", src.name)
            version = data_version(store.data_version("normalized_blocks", [src.name]))
        context.log.info(f"{src.name}: normalised {stats.normalized} documents in {stats.batches} commits, "
                         f"{stats.unchanged} unchanged, {stats.removed} removed")
        blocks = insight.block_stats(store, "normalized_blocks", src.name)
        return _result(context, "normalized_blocks", store.uri("normalized_blocks", src.name), blocks.rows, BLOCKS_SCHEMA,
                       version, normalized=stats.normalized, unchanged=stats.unchanged, removed=stats.removed,
                       **insight.blocks_meta(blocks), text_changed=blocks.text_changed,
                       footnote_markers_removed=blocks.footnote_markers_removed)

    @dg.multi_asset(partitions_def=partitions, can_subset=False, specs=[
        dg.AssetSpec("chunks", deps=[normalized_blocks], **common("chunk"),
                     description="Retrieval chunks of each document's kept blocks: heading path, pages and boxes, "
                                 "the blocks they came from, text and embed_text (settings: chunk:)."),
        dg.AssetSpec("chunk_changes", deps=["chunks"], **common("chunk"),
                     description="The chunk ids each run added, removed and updated (embed_text changed), per "
                                 "source: what an index loader embeds and deletes (nothing on an unchanged rerun)."),
    ])
    def chunks(context: dg.AssetExecutionContext, docclean: Docclean):  # noqa: ANN201 - two MaterializeResults
        src, store, settings = docclean.source(context.partition_key), docclean.store, docclean.config.settings
        with store.locked(src.name):
            require(docclean, "normalized_blocks", src.name)
            stats = chunking.chunk_source(store, src.name, settings.chunk)
            changes = chunking.record_changes(store, src.name, context.run.run_id)
            store.vacuum("chunks", src.name)  # only now: the change set above may read a replaced version
            versions = {t: data_version(store.data_version(t, [src.name])) for t in ("chunks", "chunk_changes")}
            figures = store.query("chunks", src.name, "SELECT count(*), avg(tokens), max(tokens), count(*) FILTER "
                                  "(WHERE list_contains(flags, 'over_budget')) FROM t") or [(0, None, None, 0)]
            logged = store.query("chunk_changes", src.name, "SELECT count(*) FROM t")
        count, mean, most, over = figures[0]
        context.log.info(f"{src.name}: chunked {stats.chunked} documents ({stats.chunks} chunks, {stats.failed} failed) "
                         f"in {stats.batches} commits, {stats.unchanged} unchanged, {stats.removed} removed; "
                         f"chunk ids {changes.added} added, {changes.removed} removed, {changes.updated} updated"
                         + (" (reset)" if changes.reset else ""))
        table = store.read("chunks", src.name, columns=["path", "chunk_index", "role", "tokens", "text"])
        preview = (_preview(table.sort_by([("path", "ascending"), ("chunk_index", "ascending")]),
                            ["path", "chunk_index", "role", "tokens", "text"])
                   if table is not None else table_value([], ["path"]))
        yield _result(context, "chunks", store.uri("chunks", src.name), count, CHUNKS_SCHEMA, versions["chunks"],
                      chunked=stats.chunked, unchanged=stats.unchanged, removed=stats.removed, failed=stats.failed,
                      mean_tokens=round(mean or 0.0, 1), max_tokens=int(most or 0), over_budget=int(over or 0),
                      tokenizer=settings.chunk.tokenizer, preview=preview)
        yield _result(context, "chunk_changes", store.uri("chunk_changes", src.name), logged[0][0] if logged else 0,
                      CHUNK_CHANGES_SCHEMA, versions["chunk_changes"], added=changes.added, removed=changes.removed,
                      updated=changes.updated, reset=changes.reset, to_version=-1 if changes.to_version is None else changes.to_version)

    @dg.asset(partitions_def=partitions, **common("report"), deps=[raw_files, "parsed_documents", normalized_blocks],
              description="One row per document: status, error, retention ratio and the counts of "
                          "every chance of silent loss, with flags.")
    def quality_report(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store, quality = docclean.source(context.partition_key), docclean.store, docclean.config.settings.quality
        with store.locked(src.name):
            require(docclean, "normalized_blocks", src.name)
            stream, band, inputs = derive.quality_table(store, src, docclean.config.settings)
            if store.inputs("quality_report", src.name) != inputs:  # else the same rows are committed already
                store.overwrite("quality_report", src.name, stream, inputs)
            version = data_version(store.data_version("quality_report", [src.name]))
        table = store.read("quality_report", src.name, QUALITY_SCHEMA, columns=[*health.HEALTH_COLUMNS, "flags"])
        verdicts = health.source_verdicts(src, table.to_pylist(), quality)
        statuses = raw.count_by(table, "status")
        ratios = [r for r in table.column("retention_ratio").to_pylist() if r is not None]
        words = insight.band_text(band, len(ratios), quality.min_docs_for_band)
        previous = last_recorded(context, "quality_report")
        pictures = insight.reused_pictures(previous, version) or insight.quality_pictures(
            store, src.name, ratios, band, statuses.get("failed", 0), words)
        return _result(context, "quality_report", store.uri("quality_report", src.name), table.num_rows, QUALITY_SCHEMA,
                       version, previous, health=health.health_line(src.name, verdicts),
                       checks=table_value([{"check": v.check, "verdict": v.word, "why": v.description} for v in verdicts],
                                          ["check", "verdict", "why"]),
                       documents=table.num_rows, failed=statuses.get("failed", 0),
                       flagged=sum(1 for f in table.column("flags").to_pylist() if f), retention_band=words,
                       **pictures, preview=_preview(table.sort_by("path"), ["path", "status", "retention_ratio", "flags", "error"]))

    return [raw_files, parse, boilerplate_sets, normalized_blocks, chunks, quality_report]
