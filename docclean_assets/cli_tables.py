"""The commands that read the committed tables (summary, sql, text, chunks, search, prune), and which
sources they serve: those of the named sources file, else those the last run on the data dir was given."""
from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

from docclean_assets.ingest.sources import load_sources

EXIT_CONFIG = 2  # bad sources file or arguments
EXIT_INFRA = 3  # a step failed for a reason other than one bad document


SUMMARY_QUERIES = {
    "documents per source and status": """
        SELECT source, status, count(*) AS documents, sum(raw_chars) AS raw_chars, sum(kept_chars) AS kept_chars,
               round(median(retention_ratio), 3) AS median_retention
        FROM quality_report GROUP BY ALL ORDER BY ALL""",
    "blocks per kind (body = not dropped)": """
        SELECT kind, count(*) FILTER (WHERE drop_reason IS NULL) AS kept,
               count(*) FILTER (WHERE drop_reason IS NOT NULL) AS dropped
        FROM normalized_blocks GROUP BY ALL ORDER BY kept + dropped DESC""",
    "drop reasons": """
        SELECT drop_reason, count(*) AS blocks FROM normalized_blocks
        WHERE drop_reason IS NOT NULL GROUP BY ALL ORDER BY blocks DESC""",
    "flagged or failed documents": """
        SELECT source, path, status, array_to_string(flags, ',') AS flags, round(retention_ratio, 3) AS retention,
               left(coalesce(error, ''), 70) AS error
        FROM quality_report WHERE len(flags) > 0 OR status <> 'ok' ORDER BY ALL""",
}


def _print_table(con, sql: str) -> None:  # noqa: ANN001 - a duckdb connection (imported lazily)
    cur = con.execute(sql)
    _print_rows([d[0] for d in cur.description], cur.fetchall())


def _print_rows(cols: list[str], values: list) -> None:
    """Rows under their column names, each column as wide as its widest value."""
    rows = [["" if v is None else str(v) for v in row] for row in values]
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    print("  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)))
    if not rows:
        print("  (none)")


def store_of(args: argparse.Namespace):  # noqa: ANN202 - a Store (imported lazily: config errors stay fast)
    """The store of --data-dir, with `settings: store:` and `settings: storage:` of the sources file
    when there is one (sql and summary need no sources, only how to reach the tables)."""
    from docclean_assets.store.tables import Store

    config = load_sources(args.sources) if Path(args.sources).is_file() else None
    return Store(args.data_dir, config.store if config else None, config.storage if config else None)


def served_sources(args: argparse.Namespace, store) -> tuple[list[str] | None, list[str]]:  # noqa: ANN001 - a Store
    """(the stored partitions of the sources file's sources, or None without a sources file; the stored
    sources the file no longer names, whose rows are kept on disk but never served)."""
    from docclean_assets.pipeline.shards import served_keys

    configured = _configured(args, store)
    if configured is None:
        return None, []
    return served_keys(store.stored_keys(), configured)


def _configured(args: argparse.Namespace, store) -> set[str] | None:  # noqa: ANN001 - a Store
    """The sources to serve: those of the sources file when one is named (--sources or
    $DOCCLEAN_SOURCES), else those the last `docclean run` on this data dir was given, else every
    stored one (None)."""
    if args.sources_named and Path(args.sources).is_file():
        return set(load_sources(args.sources).sources)
    recorded = store.recorded_sources()
    return None if recorded is None else set(recorded)


def connect_served(args: argparse.Namespace, damaged: list | None = None):  # noqa: ANN202 - a duckdb connection
    """DuckDB views over the tables of the configured sources only (every stored one without a sources
    file); a note on stderr names the stored sources it leaves out. A damaged table gets no view and
    its Damage goes to `damaged` (without that list, TableDamaged)."""
    store = store_of(args)
    served, removed = served_sources(args, store)
    note_removed(removed)
    return store.connect(sources=served, damaged=damaged)


def note_removed(removed: list[str]) -> None:
    if removed:
        print(f"note: stored but not in the sources file, so not served: {', '.join(removed)} "
              "(`docclean prune` deletes their tables)", file=sys.stderr)


def cmd_prune(args: argparse.Namespace) -> int:
    """Delete the tables of every stored source that is not configured: not in the named sources file,
    or, with none named, not among those the last run on the data dir was given."""
    from docclean_assets.pipeline.shards import source_of

    store = store_of(args)
    keep = _configured(args, store)
    if keep is None:  # never the bundled default's sources: they may not be the ones this data dir holds
        print("config error: prune keeps the sources of a sources file: name it (--sources FILE or "
              f"$DOCCLEAN_SOURCES); no run on {args.data_dir} recorded its sources", file=sys.stderr)
        return EXIT_CONFIG
    _, removed = served_sources(args, store)
    for name in removed:
        keys = [k for k in store.stored_keys() if source_of(k) == name]
        if getattr(args, "dry_run", False):
            print(f"would remove source {name!r} ({len(keys)} partition(s))")
            continue
        tables = sorted({t for k in keys for t in store.remove(k)})
        print(f"removed source {name!r}: {len(tables)} table(s) ({', '.join(tables)})")
    if not removed:
        print("nothing to prune: every stored source is configured")
    return 0


def _keys(args: argparse.Namespace, store) -> list[str]:  # noqa: ANN001 - a Store
    """The stored partitions of --source (every stored one without it)."""
    from docclean_assets.pipeline.shards import source_of

    return [k for k in store.stored_keys() if not args.source or source_of(k) in args.source]


def cmd_verify(args: argparse.Namespace) -> int:
    """Read every part the last commits name, whole, and check every log: one line per damaged table
    and a total; EXIT_INFRA when anything is damaged."""
    from docclean_assets.store.repair import Tally, find_damage

    store, tally = store_of(args), Tally()
    damaged = [d for key in _keys(args, store) for d in find_damage(store, key, "full", tally)]
    for damage in damaged:
        print(damage.line())
    print(f"verified {tally.tables} table(s): {tally.parts} part(s), {tally.bytes:,} bytes read in full; "
          + (f"{len(damaged)} damaged (`docclean repair` repairs them)" if damaged else "no damage found"))
    return EXIT_INFRA if damaged else 0


def cmd_repair(args: argparse.Namespace) -> int:
    """Repair every damaged table (every part read whole, as `verify` does),
    saying what was done; with --dry-run only what is damaged."""
    from docclean_assets.pipeline.failure import first_cause
    from docclean_assets.store.repair import find_damage, repair

    store, found, failed = store_of(args), 0, 0
    for key in _keys(args, store):
        if args.dry_run:
            damage = find_damage(store, key, "full")
            found += len(damage)
            for d in damage:
                print(f"would repair: table {d.table} of source {d.key!r}: {d.problem}")
            continue
        try:
            for fixed in repair(store, key, "full"):
                found += 1
                print(fixed.line())
        except Exception as exc:  # noqa: BLE001 - another writer, the store refusing: that source, in one line
            failed += 1
            print(f"could not repair source {key!r}: {first_cause(exc, args.data_dir)}", file=sys.stderr)
    if not found and not failed:
        print("nothing to repair: no damaged table found (`docclean verify` reads every part whole)")
    return EXIT_INFRA if failed else 0


def cmd_summary(args: argparse.Namespace) -> int:
    store = store_of(args)
    served, removed = served_sources(args, store)
    note_removed(removed)
    damaged: list = []
    con = store.connect(sources=served, damaged=damaged)
    if damaged:
        for damage in damaged:
            print(damage.line(), file=sys.stderr)
        return EXIT_INFRA
    if not {"quality_report", "normalized_blocks"} <= (views := view_names(con)):
        if "parsed_documents" in views:  # parsed, not yet reported: never "run first" over committed rows
            parsed = con.execute("SELECT count(*) FROM parsed_documents").fetchone()[0]
            print(f"no quality_report yet under {args.data_dir}, though {parsed} document(s) are parsed and "
                  "committed: a run stopped before it; `docclean run` finishes them", file=sys.stderr)
        else:
            print(f"no results under {args.data_dir}: run `docclean run` first", file=sys.stderr)
        return 1
    _print_health(args, store, served)
    for title, sql in SUMMARY_QUERIES.items():
        print(f"\n{title}:")
        _print_table(con, sql)
    return 0


def _print_health(args: argparse.Namespace, store, served: list[str] | None) -> None:  # noqa: ANN001 - a Store
    """One row per source (documents, failed, below its band, each check's verdict), then why each
    check that did not pass failed, one line each: what the UI's checks say, from the same rows."""
    from docclean_assets.extract.settings import QualitySettings
    from docclean_assets.pipeline import health
    from docclean_assets.ingest.sources import Source
    from docclean_assets.pipeline.schemas import QUALITY_SCHEMA

    config = load_sources(args.sources) if Path(args.sources).is_file() else None
    quality = config.settings.quality if config else QualitySettings()
    rows, why = [], []
    for name in store.sources("quality_report"):
        if served is not None and name not in served:
            continue
        table = store.read("quality_report", name, QUALITY_SCHEMA, columns=health.HEALTH_COLUMNS)
        docs = table.to_pylist() if table is not None else []
        src = config.sources.get(name) if config else None
        verdicts = {v.check: v for v in health.source_verdicts(src or Source(name), docs, quality)}
        band = verdicts["retention_band"].figures
        rows.append((name, len(docs),
                     verdicts["failed_documents"].figures["failed"], band.get("below", "-"),
                     *(v.word for v in verdicts.values())))
        why += [(name, v.check, v.word, v.description) for v in verdicts.values() if not v.passed]
    print("\nsource health (the checks' verdicts):")
    _print_rows(["source", "documents", "failed", "below_band", "failed_documents", "retention_band", "revision_count"],
                rows)
    for name, check, word, description in why:
        print(f"  {name} {check} {word}: {description}")


def view_names(con) -> set[str]:  # noqa: ANN001 - a duckdb connection (imported lazily)
    """The table views a store connection holds (none before the first run)."""
    return {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}


def cmd_sql(args: argparse.Namespace) -> int:
    import duckdb

    damaged: list = []
    con = connect_served(args, damaged)
    if hit := [d for d in damaged if _names(args.query, d.table)]:
        for damage in hit:
            print(damage.line(), file=sys.stderr)
        return EXIT_INFRA
    for damage in damaged:  # not queried: the other tables stay queryable
        print(f"note: {damage.line()}", file=sys.stderr)
    if not view_names(con):
        print(f"no tables yet under {args.data_dir}: run `docclean run` first", file=sys.stderr)
        return 1
    try:
        if args.json:
            cur = con.execute(args.query)
            cols = [d[0] for d in cur.description]
            for row in cur.fetchall():
                print(json.dumps(dict(zip(cols, row)), default=str, ensure_ascii=False))
        else:
            _print_table(con, args.query)
    except duckdb.Error as exc:
        if not isinstance(exc, (duckdb.ParserException, duckdb.BinderException, duckdb.CatalogException)):
            if damage := _damage_behind(args, args.query):  # a part that reads wrong inside its whole footer
                print(damage[0].line(), file=sys.stderr)
                return EXIT_INFRA
        print(f"sql error: {exc}", file=sys.stderr)
        return 1
    return 0


def _names(query: str, table: str) -> bool:
    """Whether a query names a table (as a whole word, in any case)."""
    return re.search(rf"\b{table}\b", query, re.IGNORECASE) is not None


def _damage_behind(args: argparse.Namespace, query: str) -> list:
    """The damaged parts (each read whole) of the served tables a failed query names."""
    from docclean_assets.store.tables import TABLES

    store = store_of(args)
    served, _ = served_sources(args, store)
    keys = store.stored_keys() if served is None else served
    named = [t for t in TABLES if _names(query, t)]
    return [d for table in named for key in keys if key in store.sources(table)
            for d in store.part_damage(table, key, read="full")]


def _read_chunks(args: argparse.Namespace):  # noqa: ANN202 - a pyarrow Table (imported lazily)
    """The chunks of --source (every source without it) from the store of --data-dir."""
    from docclean_assets.pipeline.search import read_chunks

    store = store_of(args)
    served, removed = served_sources(args, store)
    note_removed(removed)
    return read_chunks(args.source, store=store, among=served)


def cmd_chunks(args: argparse.Namespace) -> int:
    from docclean_assets.pipeline.search import describe, write_chunks

    if args.since is not None:
        return _chunk_changes(args)
    table = _read_chunks(args)
    if table.num_rows == 0:
        print(f"no chunks{' for ' + args.source if args.source else ''} under {args.data_dir}: run `docclean run` first",
              file=sys.stderr)
        return 1
    if args.out:
        path = write_chunks(table, args.out, args.source or "chunks", args.jsonl)
        print(f"{table.num_rows} chunks -> {path}")
    elif args.jsonl:
        for row in table.to_pylist():
            print(json.dumps(row, ensure_ascii=False, default=str))
    else:
        for row in table.to_pylist():
            print(describe(row, args.width) + "\n")
    return 0


def _chunk_changes(args: argparse.Namespace) -> int:
    """`docclean chunks --source S --since V`: what an index synced to V applies, as a listing or as JSONL
    lines ({"op": "reset"} first when it must rebuild, then "upsert" rows and "delete" ids, last "synced"
    with the version to pass next time), on stdout or in <out>/<source>.changes.jsonl."""
    from docclean_assets.pipeline.chunks import read_changes
    from docclean_assets.pipeline.search import describe

    store = store_of(args)
    served, removed = served_sources(args, store)
    note_removed(removed)
    why = ("needs --source" if not args.source
           else f"source {args.source!r} is not one of the configured sources" if args.source not in served
           else f"no chunks for {args.source!r} under {args.data_dir}: run `docclean run` first"
           if args.source not in store.sources("chunks") else None)
    if why:
        print(f"docclean chunks --since: {why}", file=sys.stderr)
        return 1
    delta = read_changes(store, args.source, args.since)
    ops = ([{"op": "reset", "source": delta.source}] if delta.reset else []) + \
        [{"op": "upsert", **row} for row in delta.upsert.to_pylist()] + \
        [{"op": "delete", "source": delta.source, "chunk_id": i} for i in delta.delete] + \
        [{"op": "synced", "source": delta.source, "since": delta.since, "to_version": delta.to_version}]
    lines = (json.dumps(op, ensure_ascii=False, default=str) for op in ops)
    summary = (f"{delta.source}: {delta.upsert.num_rows} chunks to embed, {len(delta.delete)} to delete"
               f"{', after dropping every vector of the source (reset)' if delta.reset else ''}; "
               f"version {delta.since} -> {delta.to_version} (pass --since {delta.to_version} next time)")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{args.source}.changes.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"{summary} -> {path}")
    elif args.jsonl:
        for line in lines:
            print(line)
    else:
        for row in delta.upsert.to_pylist():
            print(describe(row, args.width) + "\n")
        for i in delta.delete:
            print(f"delete {i}")
        print(summary)
    return 0


def cmd_text(args: argparse.Namespace) -> int:
    """Each document's kept content from the committed tables: on stdout, or one file per document;
    1 when no document was shown (none matched, or every one matched had failed)."""
    from docclean_assets.pipeline.export import document_texts, write_texts

    store = store_of(args)
    served, removed = served_sources(args, store)
    note_removed(removed)
    if args.source and args.source in removed:
        print(f"source {args.source!r} is not one of the configured sources: its tables are not served",
              file=sys.stderr)
        return 1
    if args.source and args.source not in store.sources("normalized_blocks"):
        print(f"no results for source {args.source!r} under {args.data_dir}: run `docclean run` first", file=sys.stderr)
        return 1
    docs = document_texts(args.source, args.document, args.format, store=store, among=served)
    several = args.document is None and args.format != "jsonl"  # on stdout: say where each document begins
    if args.out:
        written, failed = write_texts(docs, args.out, args.format)
        if written:
            print(f"{len(written)} file(s) ({args.format}) -> {Path(args.out).resolve()}")
    else:
        written, failed = [], []
        for doc in docs:
            if doc.status != "ok":
                failed.append(doc)
                continue
            if several:
                print(f"<!-- {doc.source}/{doc.path} -->" if args.format == "md" else f"==> {doc.source}/{doc.path} <==")
            sys.stdout.write(doc.text + ("\n" if several else ""))
            written.append(doc)
    for doc in failed:
        print(_failed_line(doc), file=sys.stderr)
    if not written and not failed:
        what = f"document {args.document!r}" if args.document else "document"
        where = f" in source {args.source!r}" if args.source else ""
        print(f"no {what} under {args.data_dir}{where}: run `docclean run` first, or list the stored paths with "
              "`docclean sql \"SELECT source, path FROM quality_report\"`", file=sys.stderr)
    return 0 if written else 1


def _failed_line(doc) -> str:  # noqa: ANN001 - an export.DocumentText
    """One line for a document that has no text because it failed."""
    error = (doc.error or "").strip().splitlines()
    return f"{doc.source}/{doc.path}: failed: {error[0] if error else 'no error recorded'}"


def cmd_search(args: argparse.Namespace) -> int:
    from docclean_assets.pipeline.search import describe, search

    table = _read_chunks(args)
    if table.num_rows == 0:
        print(f"no chunks under {args.data_dir}: run `docclean run` first", file=sys.stderr)
        return 1
    hits = search(table, args.question, args.k)
    if not hits:
        print("no chunk matches a word of the question")
    roots = _local_roots(args)
    for rank, hit in enumerate(hits, start=1):
        hint = _inspect_hint(hit.row, roots, args)
        print(f"{rank}. score {hit.score:.2f}  " + describe(hit.row, args.width) + (f"\n  {hint}" if hint else "") + "\n")
    return 0


def _local_roots(args: argparse.Namespace) -> dict[str, Path]:
    """Each configured source's local folder (sources on object storage or URLs have none)."""
    if not Path(args.sources).is_file():
        return {}
    return {name: src.path for name, src in load_sources(args.sources).sources.items() if src.path is not None}


def _inspect_hint(row: dict, roots: dict[str, Path], args: argparse.Namespace) -> str | None:
    """The command that draws a PDF hit's first page with the blocks the last run stored for it."""
    root = roots.get(row.get("source", ""))
    if root is None or not row.get("pages") or not str(row["path"]).lower().endswith(".pdf"):
        return None
    file = root / row["path"]
    if not file.is_file():  # moved or deleted since the run, or another file's source of that name
        return None
    cmd = ["docclean", "inspect", str(file), "--page", str(row["pages"][0]), "--stored",
           "--data-dir", str(args.data_dir), "--sources", str(args.sources)]
    return "inspect: " + shlex.join(cmd)
