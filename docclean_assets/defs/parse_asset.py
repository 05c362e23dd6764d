"""parsed_blocks + parsed_documents: one graph-backed multi-asset that fans a source out into its
shards (`shards:` in sources.yaml; one shard when unset), parses each shard as a step of its own, and
records both tables once every shard is committed.

Each shard step parses its documents and commits them to its own pair of tables (pipeline/shards.py),
so the run's executor decides where shards run: one after another in the run's process (the default),
as processes of one machine (`DOCCLEAN_EXECUTOR=multiprocess`), or as Kubernetes jobs
(`DOCCLEAN_EXECUTOR=k8s`, dagster-k8s's k8s_job_executor). A shard that fails fails its step only; the
committed shards stay, and re-executing the run from failure parses only what is missing. Shard steps
pass no data between them: each records its counts on its step output, and the last step sums them
from the run's event log, so no I/O manager is needed across machines."""

import warnings
from dataclasses import replace as dc_replace

import dagster as dg

from docclean_assets.pipeline import parse as parse_stage
from docclean_assets.engine.blob import named_extractor
from docclean_assets.engine.run import EngineUnavailable, check_engine
from docclean_assets.engine.settings import EngineSettings
from docclean_assets.pipeline.shards import retire, shard_keys, shard_rows, stale_keys
from docclean_assets.defs.insight import KEPT
from docclean_assets.defs.meta import counts_value, require, result_meta, table_value
from docclean_assets.pipeline.progress import LineProgress, Progress, Tee
from docclean_assets.defs.resources import Docclean
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA, RAW_FILES_SCHEMA
from docclean_assets.defs.versions import changed_since, data_version, last_recorded

STAT_KEYS = ("parsed", "reused", "unchanged", "removed", "failed", "batches")  # summed over a run's shards


class ParseConfig(dg.Config):
    """Run-time options of parsed_blocks (each shard step's config)."""

    extractor: str = ""  # 'module:function' run in each worker instead of reading the blob (tests inject faults here)
    force: bool = False  # parse every document again, even when its bytes are unchanged
    retry_failed: bool = False  # parse failed documents again although their bytes are unchanged
    engine: str = ""  # local | dask: overrides settings: engine: kind ("" keeps it)
    address: str = ""  # the Dask scheduler: overrides settings: engine: address ("" keeps it)


def _engine(config: ParseConfig, docclean: Docclean) -> EngineSettings:
    """The configured engine, with the run's overrides (a bad combination fails the step in one line)."""
    engine = docclean.config.engine
    if not (config.engine or config.address):
        return engine
    try:
        return dc_replace(engine, kind=config.engine or engine.kind, address=config.address or engine.address)
    except ValueError as exc:
        raise dg.Failure(description=str(exc)) from None


@dg.op(ins={"raw_files": dg.In(dg.Nothing)}, out=dg.DynamicOut(int))
def plan_shards(context: dg.OpExecutionContext, docclean: Docclean):
    """One output per shard of the partition's source."""
    src = docclean.source(context.partition_key)
    require(docclean, "raw_files", src.name)
    for shard in range(src.shards):
        yield dg.DynamicOutput(shard, mapping_key=f"shard_{shard:03d}")


@dg.op(out=dg.Out(dg.Nothing))
def parse_shard(context: dg.OpExecutionContext, config: ParseConfig, docclean: Docclean,
                progress: dg.ResourceParam[Progress], shard: int):
    """Parse one shard's documents into its own pair of tables, holding that shard's lock."""
    src, store = docclean.source(context.partition_key), docclean.store
    key = shard_keys(src.name, src.shards)[shard]
    engine = _engine(config, docclean)
    try:  # an engine that would fail every document fails the step instead, before any is sent
        check_engine(engine)
    except EngineUnavailable as exc:
        raise dg.Failure(description=str(exc)) from None
    with store.locked(key):  # one writer per shard; rolls back what a killed writer left
        raw = shard_rows(store.read("raw_files", src.name, RAW_FILES_SCHEMA), shard, src.shards)
        stats = parse_stage.parse_source(store, src, raw, docclean.config.settings, named_extractor(config.extractor),
                                         config.force, config.retry_failed,
                                         Tee(progress, LineProgress(context.log.info)), engine, key)
        store.vacuum("parsed_blocks", key)
    for doc_path, error in stats.errors.items():
        context.log.warning(f"{key}/{doc_path}: {error}")
    yield dg.Output(None, metadata={"shard": key, "seconds": round(stats.seconds, 2),
                                    "errors": dg.MetadataValue.json(stats.errors),
                                    **{k: getattr(stats, k) for k in STAT_KEYS}})


@dg.op(ins={"shards": dg.In(dg.Nothing)},
       out={"parsed_blocks": dg.Out(dg.Nothing), "parsed_documents": dg.Out(dg.Nothing)})
def record_parse(context: dg.OpExecutionContext, docclean: Docclean):
    """Empty the shards an earlier layout left, then record both tables with this run's counts."""
    src, store = docclean.source(context.partition_key), docclean.store
    keys = shard_keys(src.name, src.shards)
    retired = {key: retire(store, key) for key in stale_keys(store, src.name, src.shards)}
    for key, documents in retired.items():
        context.log.info(f"{key}: no longer a shard of {src.name} ({src.shards} now); its {documents} documents "
                         "are parsed by the shards that hold them now")
    run, errors = _run_stats(context)
    con = store.connect_for(src.name, {"docs": ("parsed_documents", DOCS_SCHEMA), "blocks": ("parsed_blocks", BLOCKS_SCHEMA)},
                            {"parsed_documents": keys, "parsed_blocks": keys})
    try:
        statuses = _counts(con, "docs", "status")
        methods = _counts(con, "docs", "method")
        page_kinds = {k: n for k, n in _counts(con, "docs", "page_kind").items() if k}  # web pages only
        kinds = _counts(con, "blocks", "kind")
        drop_reasons = _counts(con, "blocks", "drop_reason")
    finally:
        con.close()
    def where(table: str) -> str:  # the table's folder: its one partition, or the folder of all shards
        return store.uri(table, keys[0]) if len(keys) == 1 else store.location.join(table)

    def output(table: str, meta: dict) -> dg.Output:  # with its data version, and whether that changed
        version = data_version(store.data_version(table, keys))
        # An op's Output takes a data version as a beta parameter (BetaWarning) in the pinned Dagster;
        # the other assets return it on MaterializeResult, where it is stable. Without it a rerun that
        # committed nothing would show the parse pair as changed data, and everything below as stale.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dg.BetaWarning)
            return dg.Output(None, table, data_version=version,
                             metadata={**meta, "changed": changed_since(last_recorded(context, table), version)})

    shards = {"shards": len(keys), "retired_shards": dg.MetadataValue.json(retired)} if len(keys) > 1 or retired else {}
    yield output("parsed_documents", result_meta(
        where("parsed_documents"), sum(statuses.values()), DOCS_SCHEMA,
        statuses=counts_value(statuses, "status", "(none)", "documents"),
        methods=counts_value(methods, "method", "(none)", "documents"),
        **({"page_kinds": counts_value(page_kinds, "page_kind", "(none)", "documents")} if page_kinds else {})))
    yield output("parsed_blocks", result_meta(
        where("parsed_blocks"), sum(kinds.values()), BLOCKS_SCHEMA, documents=sum(statuses.values()), **run, **shards,
        errors=table_value([{"path": p, "error": e} for p, e in errors.items()], ["path", "error"]),
        blocks_per_kind=counts_value(kinds, "kind", "(no kind)"),
        drop_reasons=counts_value(drop_reasons, "drop_reason", KEPT)))


def _run_stats(context: dg.OpExecutionContext) -> tuple[dict, dict]:
    """This run's counts summed over its parse_shard steps (from their step outputs), and their errors."""
    totals = dict.fromkeys(STAT_KEYS, 0) | {"seconds": 0.0}
    errors: dict[str, str] = {}
    for record in context.instance.all_logs(context.run_id, of_type=dg.DagsterEventType.STEP_OUTPUT):
        event = record.dagster_event
        if event is None or ".parse_shard[" not in (event.step_key or ""):
            continue
        meta = event.step_output_data.metadata
        for k in totals:
            if k in meta:
                totals[k] += meta[k].value
        if "errors" in meta and len(errors) < parse_stage.ERRORS_KEPT:
            errors.update(list(meta["errors"].value.items())[:parse_stage.ERRORS_KEPT - len(errors)])
    totals["seconds"] = round(totals["seconds"], 2)  # parse time summed over shards (they may overlap)
    return totals, errors


def _counts(con, view: str, column: str) -> dict[str | None, int]:  # type: ignore[no-untyped-def]
    """Rows per value of a column (NULL as None)."""
    rows = con.execute(f'SELECT CAST("{column}" AS VARCHAR), count(*) FROM {view} GROUP BY 1 ORDER BY 1')
    return dict(rows.fetchall())


def build_parse_asset(partitions: dg.PartitionsDefinition, common: dict) -> dg.AssetsDefinition:
    """The parse pair as one graph-backed multi-asset over the given source partitions."""

    # One parse writes two tables as one pair commit per batch, so they are one multi-asset: both
    # appear in the lineage, and a run can never materialize one without the other.
    # The group goes on the decorator: graph_multi_asset ignores an AssetOut's group_name (the pair sat
    # in `default`, its own box in the lineage, apart from every other stage).
    out = {k: v for k, v in common.items() if k != "group_name"}

    @dg.graph_multi_asset(name="parsed_blocks", partitions_def=partitions, can_subset=False,
                          group_name=common["group_name"],
                          ins={"raw_files": dg.AssetIn(dagster_type=dg.Nothing)}, outs={
        "parsed_blocks": dg.AssetOut(
            dagster_type=dg.Nothing, **out,
            description="Blocks as each format backend returns them, incl. blocks the parser drops; one isolated "
                        "worker per document; committed in batches (per shard for a sharded source); unchanged "
                        "documents are neither parsed nor rewritten."),
        "parsed_documents": dg.AssetOut(
            dagster_type=dg.Nothing, **out,
            description="One row per parsed document: status, error, parser version and the backend's "
                        "diagnostics (the counts of every chance of silent loss, with flags)."),
    })
    def parse(raw_files):
        return record_parse(plan_shards(raw_files).map(parse_shard).collect())

    return parse
