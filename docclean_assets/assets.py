"""The six assets, partitioned by source: raw_files -> parsed_blocks + parsed_documents (one parse,
fanned out over the source's shards, committed in batches; parse_asset.py) -> boilerplate_sets ->
normalized_blocks -> quality_report. Each streams over
the store's committed parts and writes through it, holding the source's write lock."""


import dagster as dg
import pyarrow as pa

from docclean_assets.meta import require, result_meta
from docclean_assets.parse_asset import build_parse_asset
from docclean_assets.pipeline import derive, raw
from docclean_assets.pipeline.shards import shard_keys
from docclean_assets.resources import Docclean
from docclean_assets.sources import SourceConfigError
from docclean_assets.store.location import StorageUnavailable
from docclean_assets.tables import BLOCKS_SCHEMA, BOILERPLATE_SCHEMA, QUALITY_SCHEMA, RAW_FILES_SCHEMA

GROUP = "docclean"
PREVIEW_ROWS = 8  # rows shown in the UI's metadata preview


def _preview(table: pa.Table, columns: list[str]) -> dg.MetadataValue:
    df = table.select(columns).slice(0, PREVIEW_ROWS).to_pandas()
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].map(lambda v: (str(v)[:80] + "…") if v is not None and len(str(v)) > 80 else v)
    return dg.MetadataValue.md(df.to_markdown(index=False))


def _result(path: str, rows: int, schema: pa.Schema, **extra) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=result_meta(path, rows, schema, **extra))


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    """The asset graph over the given source partitions."""

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"},
              description="One row per file found or URL fetched: content address, sniffed format, size, time.")
    def raw_files(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store = docclean.source(context.partition_key), docclean.store
        with store.locked(src.name):
            previous = store.read("raw_files", src.name, RAW_FILES_SCHEMA) if src.urls or src.prefix else None
            objects: dict[str, int] = {}  # a folder on object storage: objects downloaded, and reused unread
            try:
                table = raw.raw_files_table(src, store.location, docclean.config.settings, previous,
                                            docclean.config.fetch, objects)
            except (StorageUnavailable, SourceConfigError) as exc:  # its bucket or prefix: one clear line
                raise dg.Failure(description=str(exc)) from None
            store.overwrite_if_changed("raw_files", src.name, table)
        if objects:
            context.log.info(f"{src.name}: {objects['downloaded']} objects downloaded, {objects['reused']} "
                             "unchanged (same ETag and size) reused without reading them")
        return _result(store.uri("raw_files", src.name), table.num_rows, RAW_FILES_SCHEMA,
                       formats=dg.MetadataValue.json(raw.count_by(table, "format")),
                       format_mismatches=int(sum(table.column("format_mismatch").to_pylist())),
                       not_modified=sum(1 for s in table.column("http_status").to_pylist() if s == 304),
                       **objects,
                       preview=_preview(table, ["path", "format", "bytes", "error"]))

    parse = build_parse_asset(partitions, GROUP)

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"}, deps=["parsed_blocks", "parsed_documents"],
              description="Repeated texts: running heads and page numbers across a document's pages "
                          "(digits normalised), and the site template across a source's pages.")
    def boilerplate_sets(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store = docclean.source(context.partition_key), docclean.store
        errors: dict[str, str] = {}
        with store.locked(src.name):
            keys = shard_keys(src.name, src.shards)
            require(docclean, "parsed_blocks", src.name, keys)
            table = derive.boilerplate_table(store, src.name, docclean.config.settings, errors, keys)
            changed = store.overwrite_if_changed("boilerplate_sets", src.name, table)
        for doc_path, error in errors.items():
            context.log.warning(f"{src.name}/{doc_path}: {error}")
        return _result(store.uri("boilerplate_sets", src.name), table.num_rows, BOILERPLATE_SCHEMA, changed=changed,
                       scopes=dg.MetadataValue.json(raw.count_by(table, "scope")), errors=dg.MetadataValue.json(errors),
                       preview=_preview(table, ["scope", "band", "example", "count", "out_of", "drop_reason"]))

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"}, deps=["parsed_blocks", boilerplate_sets],
              description="Every block after repetition removal and normalisation; removed blocks keep "
                          "their text and a drop_reason. The body is drop_reason IS NULL AND kind IN body kinds.")
    def normalized_blocks(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store = docclean.source(context.partition_key), docclean.store
        with store.locked(src.name):
            require(docclean, "boilerplate_sets", src.name)
            stats = derive.normalize_source(store, src.name, docclean.config.settings, shard_keys(src.name, src.shards))
            store.vacuum("normalized_blocks", src.name)
        kinds = store.counts("normalized_blocks", src.name, "kind")
        context.log.info(f"{src.name}: normalised {stats.normalized} documents in {stats.batches} commits, "
                         f"{stats.unchanged} unchanged, {stats.removed} removed")
        return _result(store.uri("normalized_blocks", src.name), sum(kinds.values()), BLOCKS_SCHEMA,
                       normalized=stats.normalized, unchanged=stats.unchanged, removed=stats.removed,
                       kinds=dg.MetadataValue.json(kinds),
                       drop_reasons=dg.MetadataValue.json(store.counts("normalized_blocks", src.name, "drop_reason")),
                       changed_by_normalisation=store.count_where("normalized_blocks", src.name, "orig_text IS NOT NULL"))

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"}, deps=[raw_files, "parsed_documents", normalized_blocks],
              description="One row per document: status, error, retention ratio and the counts of "
                          "every chance of silent loss, with flags.")
    def quality_report(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src, store = docclean.source(context.partition_key), docclean.store
        with store.locked(src.name):
            require(docclean, "normalized_blocks", src.name)
            stream, band, inputs = derive.quality_table(store, src, docclean.config.settings)
            if store.inputs("quality_report", src.name) != inputs:  # else the same rows are committed already
                store.overwrite("quality_report", src.name, stream, inputs)
        table = store.read("quality_report", src.name, QUALITY_SCHEMA, columns=["path", "status", "retention_ratio", "flags", "error"])
        flagged = sum(1 for f in table.column("flags").to_pylist() if f)
        return _result(store.uri("quality_report", src.name), table.num_rows, QUALITY_SCHEMA, documents=table.num_rows,
                       failed=raw.count_by(table, "status").get("failed", 0), flagged=flagged,
                       retention_band=dg.MetadataValue.json(None if band is None else
                                                            {"low": band.low, "high": band.high, "learned": band.learned}),
                       preview=_preview(table.sort_by("path"), ["path", "status", "retention_ratio", "flags", "error"]))

    return [raw_files, parse, boilerplate_sets, normalized_blocks, quality_report]
