"""docclean run | extract | inspect, and the command line itself; the commands that read the committed
tables (text, summary, sql, chunks, search, prune) are in cli_tables.py."""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
from dataclasses import asdict
from dataclasses import replace as dc_replace
from pathlib import Path

from docclean_assets.cli_tables import (
    EXIT_CONFIG, EXIT_INFRA, cmd_chunks, cmd_prune, cmd_repair, cmd_search, cmd_sql, cmd_summary, cmd_text,
    cmd_verify, connect_served, note_removed, served_sources, store_of, view_names,
)
from docclean_assets.ingest.sources import SOURCES_ENV, default_data_dir, default_sources_file
from docclean_assets.pipeline.failure import first_cause
from docclean_assets.ingest.sources import SourceConfigError, load_sources


def cmd_run(args: argparse.Namespace) -> int:
    try:
        config = load_sources(args.sources)
    except SourceConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    names = args.source or sorted(config.sources)
    unknown = [n for n in names if n not in config.sources]
    if unknown:
        print(f"config error: unknown source(s) {unknown}; known: {sorted(config.sources)}", file=sys.stderr)
        return EXIT_CONFIG
    if (args.engine or config.engine.kind) == "dask" and not (args.address or config.engine.address):
        print("config error: --engine dask needs --address (or settings: engine: address:)", file=sys.stderr)
        return EXIT_CONFIG
    from docclean_assets.store.location import Location, StorageUnavailable

    try:  # a source's bucket is checked like the data dir's: one line before any work, never mid-run
        for name in names:
            if (prefix := config.sources[name].prefix) is not None:
                Location(prefix, config.storage).check(f"source {name!r} ({prefix})")
    except StorageUnavailable as exc:
        print(f"storage error: {exc}", file=sys.stderr)
        return EXIT_INFRA
    args.sources_named = True  # a run serves the sources of the file it runs, and records them
    try:
        _record(args, config)
    except Exception as exc:  # noqa: BLE001 - a full disk or a failing store before any step: one line, exit 3
        print(f"docclean run failed: {first_cause(exc, args.data_dir)}", file=sys.stderr)
        return EXIT_INFRA
    from docclean_assets.engine.run import EngineUnavailable, check_engine

    try:  # an engine that would fail every document: refused before any is touched
        check_engine(dc_replace(config.engine, kind=args.engine or config.engine.kind,
                                address=args.address or config.engine.address))
    except EngineUnavailable as exc:
        print(f"engine error: {exc}", file=sys.stderr)
        return EXIT_INFRA
    try:
        return _run(args, names)
    except Exception as exc:  # noqa: BLE001 - anything outside a document's own failure: one line, exit 3
        print(f"docclean run failed: {first_cause(exc, args.data_dir)}", file=sys.stderr)
        return EXIT_INFRA


def _record(args: argparse.Namespace, config) -> None:  # noqa: ANN001 - a SourcesConfig
    """Before a run: prune (or name) the stored sources the file no longer has, record the ones it has."""
    store = store_of(args)
    if config.store.prune_removed:  # settings: store: prune_removed: as `docclean prune` does
        cmd_prune(args)
    else:
        note_removed(served_sources(args, store)[1])
    store.record_sources(list(config.sources))


def _instance():  # noqa: ANN202 - a dagster.DagsterInstance (imported lazily: config errors stay fast)
    """The Dagster instance runs are recorded in: $DAGSTER_HOME's, else a temporary one. A fresh
    home's storage is created under a file lock, so two first runs at once do not race to create the
    same tables."""
    import dagster as dg

    home = os.environ.get("DAGSTER_HOME")
    if not home:
        return dg.DagsterInstance.ephemeral()
    Path(home).mkdir(parents=True, exist_ok=True)  # runs recorded here show up in `make ui`
    with open(Path(home) / ".docclean-init.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        instance = dg.DagsterInstance.get()
        instance.get_run_records(limit=1)  # run, event and schedule storage exist before the lock is released
    return instance


def _run(args: argparse.Namespace, names: list[str]) -> int:
    """Materialize every asset of each source, printing progress; EXIT_INFRA when a step failed."""
    from docclean_assets.defs.definitions import INGEST_JOB, REPOSITORY_LABEL, REPOSITORY_LABEL_TAG, build_defs
    from docclean_assets.pipeline.progress import for_stream

    defs = build_defs(args.sources, args.data_dir)
    job = defs.resolve_job_def(INGEST_JOB)  # the UI's `ingest` job: the same runs, schedules and sensor use
    instance = _instance()
    parse = {"force": args.force, "retry_failed": args.retry_failed, "engine": args.engine or "", "address": args.address or ""}
    run_config = {"ops": {"parsed_blocks": {"ops": {"parse_shard": {"config": parse}}}},
                  # progress lines, not step logs: what the steps warn about is printed from their metadata
                  "loggers": {"console": {"config": {"log_level": "ERROR"}}}}
    failed: list[str] = []  # one line per failed step: source, step, first cause
    with for_stream(sys.stdout) as progress:  # live rows on a terminal, one plain line per batch otherwise
        for i, name in enumerate(names, 1):
            started = time.monotonic()
            print(f"[{i}/{len(names)}] {name}: materializing", flush=True)
            result = job.execute_in_process(run_config=run_config, instance=instance, partition_key=name,
                                            raise_on_error=False,
                                            # listed under Jobs -> ingest in the UI, as its own runs are
                                            tags={"docclean/source": name, REPOSITORY_LABEL_TAG: REPOSITORY_LABEL},
                                            resources={"progress": progress})
            steps = _print_result(result, args.data_dir)
            failed += [f"{name}: {line}" for line in steps]
            if not result.success and not steps:
                failed.append(f"{name}: the run failed without a failed step (see the Dagster log)")
            print(f"    {'done' if result.success else 'FAILED'} in {time.monotonic() - started:.1f} s", flush=True)
    if not args.quiet and not failed:
        cmd_summary(args)
    for line in failed:  # the last lines: why, in one line each (`docclean summary` shows what was committed)
        print(f"docclean run failed: {line}", file=sys.stderr)
    return EXIT_INFRA if failed else 0


def _print_result(result, where: str) -> list[str]:  # noqa: ANN001 - a dagster.ExecuteInProcessResult
    """One line per materialized asset and per check, and the failed steps' errors on stderr; the
    failed steps, each as `step: first cause` (`where`: the data dir, named in the cause)."""
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        meta = mat.metadata
        rows = meta.get("dagster/row_count")
        extra = "".join(f" {k}={meta[k].value}" for k in ("parsed", "reused", "failed", "flagged") if k in meta)
        print(f"    {mat.asset_key.to_user_string():<18} rows={rows.value if rows else '?'}{extra}", flush=True)
        for line in _problem_lines(mat.asset_key.to_user_string(), meta):
            print(f"      {line}", flush=True)
    for check in result.get_asset_check_evaluations():
        verdict = "passed" if check.passed else "WARN" if check.severity.value == "WARN" else "FAILED"
        print(f"    check {check.check_name:<16} {verdict:<6} {check.description or ''}")
    failed = [f"{ev.step_key}: {first_cause(ev.event_specific_data.error, where)}"
              for ev in result.all_events if ev.is_step_failure]
    for line in failed:
        print(f"    step failed: {line}", file=sys.stderr)
    return failed


# Problem lines printed per asset before the rest are counted: `docclean summary` and the UI list them all.
SHOWN_PROBLEMS = 20


def _problem_lines(asset: str, meta: dict) -> list[str]:
    """One plain line per document a step could not handle (its `errors` table), and files skipped for
    their type; at most SHOWN_PROBLEMS, then how many more."""
    verb = {"parsed_blocks": "failed"}.get(asset, "could not process")
    errors = meta.get("errors")
    records = [r.data for r in getattr(errors.value, "records", [])] if errors is not None else []
    lines = [f"{verb}: {r.get('path')}: {(str(r.get('error') or '').strip().splitlines() or [''])[0]}" for r in records]
    if (repaired := meta.get("repaired")) is not None:
        lines += [r.data["what"] for r in getattr(repaired.value, "records", [])]
    if (skipped := meta.get("skipped_files")) is not None and skipped.value:
        types = ", ".join(f"{r.data['extension']} {r.data['files']}" for r in meta["skipped_types"].value.records)
        lines.append(f"skipped {skipped.value} file(s) of types docclean does not read: {types}")
    if len(lines) > SHOWN_PROBLEMS:
        lines = lines[:SHOWN_PROBLEMS] + [f"... and {len(lines) - SHOWN_PROBLEMS} more (docclean summary lists them)"]
    return lines


def clean_file(file: str, settings=None):
    """(format, extraction, kept blocks) of one file by the library's one clean chain, no Dagster."""
    from docclean_assets.extract.clean import clean_document

    return tuple(clean_document(Path(file).read_bytes(), settings))


def cmd_extract(args: argparse.Namespace) -> int:
    from docclean_assets.extract.api import ExtractionError

    status = 0
    for file in args.files:
        try:
            fmt, ext, blocks = clean_file(file)
        except (ExtractionError, OSError) as exc:
            print(f"{file}: error: {exc}", file=sys.stderr)
            status = 1
            continue
        if args.jsonl:
            for b in blocks:
                row = asdict(b)
                row["meta"] = dict(b.meta)
                print(json.dumps({"file": file, "format": fmt, **row}, ensure_ascii=False))
            continue
        print(f"== {file} ({fmt}) {json.dumps(asdict(ext.report))}")
        for b in blocks:
            where = f"p{b.page}" if b.page else "  "
            tag = f"{b.kind}" + (f" DROPPED:{b.drop_reason}" if b.drop_reason else "")
            print(f"[{b.seq:>4}] {where:>4} {tag:<28} {b.text[:args.width].replace(chr(10), ' / ')}")
    return status


def cmd_inspect(args: argparse.Namespace) -> int:
    from docclean_assets.extract.api import ExtractionError
    from docclean_assets.extract.pdf.inspect import draw_blocks, draw_boxes, page_turn, render_page, stage_boxes

    try:
        if args.stored and args.stage is not None:
            raise ValueError("--stored draws the blocks as the pipeline kept them; --stage draws a stage of a "
                             "fresh extraction: use one of them")
        fmt, ext, blocks = clean_file(args.file)
        if fmt == "html":
            if args.stored:
                raise ValueError("--stored draws PDF pages; an HTML page's stored blocks: `docclean text` or `docclean sql`")
            return _inspect_html(ext.trace, args)
        if fmt != "pdf":
            raise ExtractionError(f"inspect draws PDF pages and lists HTML stages; this file is {fmt}")
        data = Path(args.file).read_bytes()
        if args.stored:
            blocks = _stored_blocks(args, data)
        if args.stage is None:
            page = render_page(data, args.page, args.dpi, page_turn(blocks, args.page))
            image = draw_blocks(page, blocks, args.page, args.dpi)
            shown = f"{sum(1 for b in blocks if b.page == args.page)} blocks"
        else:
            trace = _page_trace(ext.trace, args.page)
            boxes = stage_boxes(trace, args.stage)
            image = draw_boxes(render_page(data, args.page, args.dpi, trace.info.turn), boxes, args.dpi)
            shown = f"stage {args.stage}, {len(boxes)} boxes"
    except (ExtractionError, OSError, ValueError) as exc:
        print(f"{args.file}: error: {exc}", file=sys.stderr)
        return 1
    image.save(args.out)
    print(f"wrote {Path(args.out).resolve()}: page {args.page}, {shown}")
    return 0


def _inspect_html(trace: object, args: argparse.Namespace) -> int:
    """Print an HTML stage's output, a unit (or block) a line: index, status, kind, text."""
    from docclean_assets.extract.html.trace import HtmlTrace, stage_lines

    assert isinstance(trace, HtmlTrace)
    stage = args.stage or "blocks"
    lines = stage_lines(trace, stage, args.width)
    print(f"== {args.file} (html) stage {stage}: method {trace.method}, page kind {trace.page_kind}")
    print("\n".join(lines))
    return 0


def _stored_blocks(args: argparse.Namespace, data: bytes) -> list:
    """The file's normalized_blocks as the last run committed them (its source's verdicts included:
    source_furniture, site_template), found by the file's content hash; ValueError when absent."""
    import hashlib

    from docclean_assets.extract.schema import row_to_block

    args.data_dir = args.data_dir or str(default_data_dir())
    doc_id = hashlib.sha256(data).hexdigest()
    con = connect_served(args)
    views = view_names(con)
    cur = con.execute("SELECT * FROM normalized_blocks WHERE doc_id = ? ORDER BY seq", [doc_id]) \
        if "normalized_blocks" in views else None
    rows = [dict(zip([d[0] for d in cur.description], r, strict=True)) for r in cur.fetchall()] if cur else []
    if not rows:
        raise ValueError(f"not in the tables under {args.data_dir} (doc_id {doc_id[:12]}): run `docclean run` "
                         "on its source first")
    for row in rows:
        row["meta"] = list(row["meta"].items()) if isinstance(row["meta"], dict) else row["meta"]
    return [row_to_block(r) for r in rows]


def _page_trace(trace: object, page: int):
    """The PDF trace's record of `page`; ValueError when the extraction traced no such page."""
    from docclean_assets.extract.pdf.trace import PdfTrace

    try:
        if isinstance(trace, PdfTrace):
            return trace.page(page)
    except KeyError:
        pass
    raise ValueError(f"page {page} has no stage trace (out of range, or no text layer)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="docclean", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)

    def data_dir_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--sources", help="sources.yaml (default: $DOCCLEAN_SOURCES, else data/sources.yaml): its "
                       "settings: store: and storage: apply; only its sources are served (when no file is named: "
                       "the sources the last run on the data dir was given)")
        p.add_argument("--data-dir", default=str(default_data_dir()),
                       help="where the tables are: a folder, or s3://bucket/prefix")

    run = sub.add_parser("run", help="materialize every asset for the sources, in-process")
    data_dir_arg(run)
    run.add_argument("--source", action="append", help="only this source (repeatable)")
    run.add_argument("--force", action="store_true", help="parse unchanged documents again")
    run.add_argument("--retry-failed", action="store_true", help="parse failed documents again although unchanged")
    run.add_argument("--quiet", action="store_true", help="no summary at the end")
    run.add_argument("--engine", choices=("local", "dask"), help="where documents are parsed (default: settings: "
                     "engine:, else local fork-server workers)")
    run.add_argument("--address", help="the Dask scheduler, e.g. tcp://127.0.0.1:8786 (with --engine dask)")
    run.set_defaults(fn=cmd_run)

    txt = sub.add_parser("text", help="the cleaned text of committed documents: Markdown, plain text or JSONL")
    txt.add_argument("document", nargs="?", help="one document: its path as stored (or its tail), a local file "
                     "(matched by content) or a doc_id; default: every document of --source")
    txt.add_argument("--source", help="only this source's documents (default: every source)")
    txt.add_argument("--format", choices=("md", "txt", "jsonl"), default="md",
                     help="md: Markdown (headings, lists, pipe tables, call-outs, footnotes); txt: the same as plain "
                     "text; jsonl: one record per kept block")
    txt.add_argument("--out", help="write <out>/<source>/<path>.<format> per document (jsonl: <out>/<source>.jsonl) "
                     "instead of printing")
    data_dir_arg(txt)
    txt.set_defaults(fn=cmd_text)

    ext = sub.add_parser("extract", help="blocks of single files, without Dagster")
    ext.add_argument("files", nargs="+")
    ext.add_argument("--jsonl", action="store_true", help="one JSON object per block")
    ext.add_argument("--width", type=int, default=100, help="characters of text shown per block")
    ext.set_defaults(fn=cmd_extract)

    ins = sub.add_parser("inspect", help="draw a PDF page with its blocks, kinds, drops and reading order; "
                         "list an HTML page's units as a stage left them")
    ins.add_argument("file")
    ins.add_argument("--page", type=int, default=1, help="1-based page number")
    ins.add_argument("--out", default="page.png", help="PNG to write (default: page.png in the current folder)")
    ins.add_argument("--dpi", type=float, default=100.0, help="rendering resolution")
    ins.add_argument("--stage", help="draw this stage's output (from the page's trace: chars, words, lines, gutters, "
                     "blocks, kinds, order, tables, ...) instead of the final blocks; for HTML, list it (segmented, "
                     "chosen, rescued, routed, blocks); a wrong name lists them")
    ins.add_argument("--width", type=int, default=100, help="HTML: characters of text shown per unit")
    ins.add_argument("--stored", action="store_true", help="draw the blocks the last run committed for this file "
                     "(with its source's verdicts: source_furniture, site_template) instead of extracting it alone")
    ins.add_argument("--data-dir", help="with --stored: where the tables are (default: as for `docclean sql`)")
    ins.add_argument("--sources",
                     help="with --stored: sources.yaml whose settings say how to reach the tables")
    ins.set_defaults(fn=cmd_inspect)

    sql = sub.add_parser("sql", help="DuckDB SQL over the tables (one view per asset)")
    sql.add_argument("query")
    sql.add_argument("--json", action="store_true", help="one JSON object per row")
    data_dir_arg(sql)
    sql.set_defaults(fn=cmd_sql)

    prn = sub.add_parser("prune", help="delete the tables of stored sources the sources file no longer names")
    prn.add_argument("--dry-run", action="store_true", help="only say which sources would be deleted")
    data_dir_arg(prn)
    prn.set_defaults(fn=cmd_prune)

    ver = sub.add_parser("verify", help="read every committed part whole and check every table's log; "
                         "one line per damaged table (exit 3 when any)")
    ver.add_argument("--source", action="append", help="only this source (repeatable)")
    data_dir_arg(ver)
    ver.set_defaults(fn=cmd_verify)

    rep = sub.add_parser("repair", help="bring damaged tables back to a whole commit; say what was done and which "
                         "documents the next run makes again")
    rep.add_argument("--source", action="append", help="only this source (repeatable)")
    rep.add_argument("--dry-run", action="store_true", help="only say what is damaged")
    data_dir_arg(rep)
    rep.set_defaults(fn=cmd_repair)

    summ = sub.add_parser("summary", help="documents, blocks and flags of the last run")
    data_dir_arg(summ)
    summ.set_defaults(fn=cmd_summary)

    chk = sub.add_parser("chunks", help="the retrieval chunks of the last run: listed, as JSONL, or written to files")
    chk.add_argument("--source", help="only this source (default: every source)")
    chk.add_argument("--jsonl", action="store_true", help="one JSON object per chunk (every column)")
    chk.add_argument("--out", help="write <out>/<source>.parquet (or .jsonl with --jsonl) instead of printing")
    chk.add_argument("--width", type=int, default=400, help="characters of text shown per chunk in the listing")
    chk.add_argument("--since", type=int, metavar="VERSION",
                     help="only what changed after this change-set version (the to_version the last call gave; 0 for "
                          "an empty index): chunks to embed, ids to delete, and the version to pass next time "
                          "(needs --source)")
    data_dir_arg(chk)
    chk.set_defaults(fn=cmd_chunks)

    sea = sub.add_parser("search", help="BM25 over the chunks: each hit's path, pages, heading path and text")
    sea.add_argument("question")
    sea.add_argument("--source", help="only this source's chunks (default: every source)")
    sea.add_argument("-k", type=int, default=5, help="hits to show")
    sea.add_argument("--width", type=int, default=400, help="characters of text shown per hit")
    data_dir_arg(sea)
    sea.set_defaults(fn=cmd_search)

    args = parser.parse_args(argv)
    if hasattr(args, "sources"):  # named by the user (or $DOCCLEAN_SOURCES), or the bundled default
        args.sources_named = args.sources is not None or bool(os.environ.get(SOURCES_ENV))
        args.sources = args.sources or str(default_sources_file())
    if getattr(args, "data_dir", None) is not None:  # extract and inspect never load the store
        from docclean_assets.store.tables import StorageUnavailable, StoreError

        try:  # a data dir the table format cannot hold, or storage that cannot be reached: before any work
            store_of(args).check()
        except SourceConfigError as exc:
            print(f"config error: {exc}", file=sys.stderr)
            return EXIT_CONFIG
        except StorageUnavailable as exc:
            print(f"storage error: {exc}", file=sys.stderr)
            return EXIT_INFRA
        except StoreError as exc:
            print(f"config error: {exc}", file=sys.stderr)
            return EXIT_CONFIG
    from docclean_assets.store.damage import TableDamaged

    try:
        return args.fn(args)
    except TableDamaged as exc:  # a reader met a damaged table: what is wrong and what to run, in one line
        print(str(exc), file=sys.stderr)
        return EXIT_INFRA
    except BrokenPipeError:  # `docclean sql ... | head` closed the pipe: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 0


if __name__ == "__main__":
    sys.exit(main())
