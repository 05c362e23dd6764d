"""The six assets, partitioned by source: raw_files -> parsed_blocks + parsed_documents (one parse,
one commit) -> boilerplate_sets -> normalized_blocks -> quality_report. Each reads and writes
Parquet through the store."""

from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from docclean_assets import pipeline
from docclean_assets.extract.isolate import DEFAULT_EXTRACTOR
from docclean_assets.tables import BLOCKS_SCHEMA, BOILERPLATE_SCHEMA, DOCS_SCHEMA, QUALITY_SCHEMA, RAW_FILES_SCHEMA
from docclean_assets.resources import Docclean

GROUP = "docclean"
PREVIEW_ROWS = 8  # rows shown in the UI's metadata preview


class ParseConfig(dg.Config):
    """Run-time options of parsed_blocks."""

    extractor: str = DEFAULT_EXTRACTOR  # 'module:function' run in each worker (tests inject faults here)
    force: bool = False  # parse every document again, even when its bytes are unchanged


def _schema_meta(schema: pa.Schema) -> dg.TableSchema:
    return dg.TableSchema(columns=[dg.TableColumn(f.name, str(f.type)) for f in schema])


def _read(dc: Docclean, table: str, source: str, schema: pa.Schema) -> pa.Table:
    """A partition written upstream; a missing one means the upstream asset never ran."""
    data = dc.store.read(table, source, schema)
    if data is None:
        raise dg.Failure(f"{table} has no partition {source!r} yet: materialize it first")
    return data


def _preview(table: pa.Table, columns: list[str]) -> dg.MetadataValue:
    df = table.select(columns).slice(0, PREVIEW_ROWS).to_pandas()
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].map(lambda v: (str(v)[:80] + "…") if v is not None and len(str(v)) > 80 else v)
    return dg.MetadataValue.md(df.to_markdown(index=False))


def _result_meta(path: Path, table: pa.Table, schema: pa.Schema, **extra) -> dict:
    return {
        "dagster/row_count": table.num_rows,
        "dagster/column_schema": _schema_meta(schema),
        "path": dg.MetadataValue.path(str(path)),
        **extra,
    }


def _result(path: Path, table: pa.Table, schema: pa.Schema, **extra) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=_result_meta(path, table, schema, **extra))


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    """The asset graph over the given source partitions."""

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"},
              description="One row per file found or URL fetched: content address, sniffed format, size, time.")
    def raw_files(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src = docclean.source(context.partition_key)
        previous = docclean.store.read("raw_files", src.name, RAW_FILES_SCHEMA) if src.urls else None
        table = pipeline.raw_files_table(src, Path(docclean.data_dir), docclean.config.settings, previous,
                                         docclean.config.fetch)
        path = docclean.store.write("raw_files", src.name, table)
        return _result(path, table, RAW_FILES_SCHEMA,
                       formats=dg.MetadataValue.json(pipeline.count_by(table, "format")),
                       format_mismatches=int(sum(table.column("format_mismatch").to_pylist())),
                       not_modified=sum(1 for s in table.column("http_status").to_pylist() if s == 304),
                       preview=_preview(table, ["path", "format", "bytes", "error"]))

    # One parse writes two tables in one commit, so they are one multi-asset: both appear in the
    # lineage, and a run can never materialize one without the other.
    @dg.multi_asset(name="parsed_blocks", partitions_def=partitions, can_subset=False, specs=[
        dg.AssetSpec("parsed_blocks", deps=[raw_files], group_name=GROUP, kinds={"parquet"},
                     description="Blocks as each format backend returns them, incl. blocks the parser drops; "
                                 "one isolated worker per document; unchanged documents are reused."),
        dg.AssetSpec("parsed_documents", deps=[raw_files], group_name=GROUP, kinds={"parquet"},
                     description="One row per parsed document: status, error, parser version and the backend's "
                                 "diagnostics (the counts of every chance of silent loss, with flags)."),
    ])
    def parse(context: dg.AssetExecutionContext, config: ParseConfig, docclean: Docclean):
        src = docclean.source(context.partition_key)
        store, settings = docclean.store, docclean.config.settings
        raw = _read(docclean, "raw_files", src.name, RAW_FILES_SCHEMA)
        previous = store.read_tables(src.name, {"parsed_blocks": BLOCKS_SCHEMA, "parsed_documents": DOCS_SCHEMA})
        blocks, docs, stats = pipeline.parse_source(
            src, raw, previous["parsed_blocks"], previous["parsed_documents"], settings, config.extractor, config.force)
        # one commit under the source's lock: readers and a crash see both tables old or both new
        paths = store.write_tables(src.name, {"parsed_documents": docs, "parsed_blocks": blocks})
        for doc_path, error in stats.errors.items():
            context.log.warning(f"{src.name}/{doc_path}: {error}")
        yield dg.MaterializeResult(asset_key="parsed_documents", metadata=_result_meta(
            paths["parsed_documents"], docs, DOCS_SCHEMA, statuses=dg.MetadataValue.json(pipeline.count_by(docs, "status")),
            methods=dg.MetadataValue.json(pipeline.count_by(docs, "method")),
            preview=_preview(docs, ["path", "status", "method", "pages", "error"])))
        yield dg.MaterializeResult(asset_key="parsed_blocks", metadata=_result_meta(
            paths["parsed_blocks"], blocks, BLOCKS_SCHEMA, documents=docs.num_rows, parsed=stats.parsed,
            reused=stats.reused, failed=stats.failed, seconds=round(stats.seconds, 2),
            errors=dg.MetadataValue.json(stats.errors),
            kinds=dg.MetadataValue.json(pipeline.count_by(blocks, "kind")),
            drop_reasons=dg.MetadataValue.json(pipeline.count_by(blocks, "drop_reason"))))

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"}, deps=["parsed_blocks", "parsed_documents"],
              description="Repeated texts: running heads and page numbers across a document's pages "
                          "(digits normalised), and the site template across a source's pages.")
    def boilerplate_sets(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src = docclean.source(context.partition_key)
        with docclean.store.locked(src.name):  # the parsed pair from one commit
            blocks = _read(docclean, "parsed_blocks", src.name, BLOCKS_SCHEMA)
            docs = _read(docclean, "parsed_documents", src.name, DOCS_SCHEMA)
        errors: dict[str, str] = {}
        table = pipeline.boilerplate_table(src.name, blocks, docs, docclean.config.settings, errors)
        path = docclean.store.write("boilerplate_sets", src.name, table)
        for doc_path, error in errors.items():
            context.log.warning(f"{src.name}/{doc_path}: {error}")
        return _result(path, table, BOILERPLATE_SCHEMA, scopes=dg.MetadataValue.json(pipeline.count_by(table, "scope")),
                       errors=dg.MetadataValue.json(errors),
                       preview=_preview(table, ["scope", "band", "example", "count", "out_of", "drop_reason"]))

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"}, deps=["parsed_blocks", boilerplate_sets],
              description="Every block after repetition removal and normalisation; removed blocks keep "
                          "their text and a drop_reason. The body is drop_reason IS NULL AND kind IN body kinds.")
    def normalized_blocks(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src = docclean.source(context.partition_key)
        blocks = _read(docclean, "parsed_blocks", src.name, BLOCKS_SCHEMA)
        sets = _read(docclean, "boilerplate_sets", src.name, BOILERPLATE_SCHEMA)
        table = pipeline.normalized_table(blocks, sets, docclean.config.settings)
        path = docclean.store.write("normalized_blocks", src.name, table)
        return _result(path, table, BLOCKS_SCHEMA,
                       kinds=dg.MetadataValue.json(pipeline.count_by(table, "kind")),
                       drop_reasons=dg.MetadataValue.json(pipeline.count_by(table, "drop_reason")),
                       changed_by_normalisation=int(pc.sum(pc.is_valid(table.column("orig_text"))).as_py() or 0))

    @dg.asset(partitions_def=partitions, group_name=GROUP, kinds={"parquet"}, deps=[raw_files, "parsed_documents", normalized_blocks],
              description="One row per document: status, error, retention ratio and the counts of "
                          "every chance of silent loss, with flags.")
    def quality_report(context: dg.AssetExecutionContext, docclean: Docclean) -> dg.MaterializeResult:
        src = docclean.source(context.partition_key)
        raw = _read(docclean, "raw_files", src.name, RAW_FILES_SCHEMA)
        docs = _read(docclean, "parsed_documents", src.name, DOCS_SCHEMA)
        blocks = _read(docclean, "normalized_blocks", src.name, BLOCKS_SCHEMA)
        table, band = pipeline.quality_table(raw, docs, blocks, src, docclean.config.settings)
        path = docclean.store.write("quality_report", src.name, table)
        flagged = sum(1 for f in table.column("flags").to_pylist() if f)
        return _result(path, table, QUALITY_SCHEMA, documents=table.num_rows,
                       failed=pipeline.count_by(table, "status").get("failed", 0), flagged=flagged,
                       retention_band=dg.MetadataValue.json(None if band is None else
                                                            {"low": band.low, "high": band.high, "learned": band.learned}),
                       preview=_preview(table, ["path", "status", "retention_ratio", "flags", "error"]))

    return [raw_files, parse, boilerplate_sets, normalized_blocks, quality_report]
