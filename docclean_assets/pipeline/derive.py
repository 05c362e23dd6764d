"""boilerplate_sets, normalized_blocks and quality_report, streamed over the committed parts.

Nothing here holds a partition's blocks: DuckDB sorts and aggregates over the Parquet parts (spilling
past `StoreSettings.duckdb_memory_mb`), and Python sees one document's blocks at a time. The
normalisation is incremental: each document's inputs (its parsed_documents row, the repeats that
apply to it, the settings) are digested, and only documents whose digest changed are normalised and
committed again, in batches, with their quality figures kept in the `_normalized_documents` index.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace

import duckdb
from duckdb import sqltypes
import pyarrow as pa

from docclean_assets.extract.api import PARSER_VERSION
from docclean_assets.extract.boilerplate import (
    Repeat, band_patterns, blocks_to_page_repeats, source_furniture_reason, template_pattern_of,
)
from docclean_assets.extract.clean import blocks_to_kept
from docclean_assets.extract.model import Block, DropReason
from docclean_assets.extract.quality import Band, band_for, document_figures
from docclean_assets.extract.schema import row_to_report
from docclean_assets.extract.settings import BoilerplateSettings, Settings
from docclean_assets.pipeline.raw import rows_to_table
from docclean_assets.ingest.sources import Source
from docclean_assets.store.tables import Store
from docclean_assets.pipeline.schemas import (
    BLOCKS_SCHEMA, BOILERPLATE_SCHEMA, DOCS_SCHEMA, DocRef, NORMALIZED_DOCS_SCHEMA, QUALITY_SCHEMA,
    RAW_FILES_SCHEMA, blocks_to_table, table_to_blocks,
)

# Rows DuckDB hands to Python at a time from a sorted stream.
STREAM_ROWS = 8192
# Paths listed in a site-template repeat's `seen_in` (its `count` is exact): a nav line of a
# million-page site must not make a million-path row.
SEEN_IN_KEPT = 50
# meta key on the blocks of a document a later stage could not process (they stay as parsed).
STAGE_ERROR = "stage_error"
STAGE_FAILED_FLAG = "stage_failed"
DOC_COLUMNS = ("source", "doc_id", "path", "format")


def doc_groups(reader: pa.RecordBatchReader) -> Iterator[pa.Table]:
    """Consecutive rows with the same (path, doc_id), one table per document, from a sorted stream."""
    carry: list[pa.RecordBatch] = []
    key = None
    for batch in reader:
        if not batch.num_rows:
            continue
        paths, ids = batch.column("path").to_pylist(), batch.column("doc_id").to_pylist()
        start = 0
        for i, k in enumerate(zip(paths, ids)):
            if k != key:
                if i > start:
                    carry.append(batch.slice(start, i - start))
                if carry:
                    yield pa.Table.from_batches(carry)
                carry, key, start = [], k, i
        carry.append(batch.slice(start))
    if carry:
        yield pa.Table.from_batches(carry)


def documents_with_blocks(con: duckdb.DuckDBPyConnection, docs_sql: str, chunk_docs: int,
                          blocks_view: str = "parsed_blocks") -> Iterator[tuple[dict, pa.Table | None]]:
    """(document row, its blocks (of `blocks_view`) in seq order or None) for every row of `docs_sql` (which must
    yield path and doc_id, ordered by them), a chunk of documents at a time. Each chunk's blocks are
    read by path range, so DuckDB skips the parts outside it by their statistics, and sorted alone: memory
    follows the chunk, never the source."""
    docs = con.cursor().sql(docs_sql).to_arrow_reader(chunk_docs)
    for batch in docs:
        rows = batch.to_pylist()
        if not rows:
            continue
        con.register("_chunk", batch.select(["path", "doc_id"]))
        table = con.sql(
            f"SELECT b.* FROM {blocks_view} b SEMI JOIN _chunk k ON k.path = b.path AND k.doc_id = b.doc_id "
            "WHERE b.path BETWEEN $lo AND $hi ORDER BY b.path, b.doc_id, b.seq",
            params={"lo": rows[0]["path"], "hi": rows[-1]["path"]}).to_arrow_table()
        con.unregister("_chunk")
        groups = doc_groups(table.to_reader())
        pending = next(groups, None)
        for row in rows:
            if pending is not None and (pending.column("path")[0].as_py(), pending.column("doc_id")[0].as_py()) == (row["path"], row["doc_id"]):
                yield row, pending
                pending = next(groups, None)
            else:
                yield row, None


def _connect(store: Store, source: str, *tables: str, parse_keys: Sequence[str] | None = None) -> duckdb.DuckDBPyConnection:
    """Views over the source's tables; the parse pair's over each of `parse_keys` (a sharded parse)."""
    schemas = {"parsed_blocks": BLOCKS_SCHEMA, "parsed_documents": DOCS_SCHEMA, "raw_files": RAW_FILES_SCHEMA,
               "boilerplate_sets": BOILERPLATE_SCHEMA, "_normalized_documents": NORMALIZED_DOCS_SCHEMA}
    keys = {t: parse_keys for t in ("parsed_blocks", "parsed_documents")} if parse_keys else None
    return store.connect_for(source, {t.lstrip("_"): (t, schemas[t]) for t in tables}, keys)


# -- boilerplate_sets --------------------------------------------------------------------------------
def boilerplate_table(store: Store, source: str, settings: Settings, errors: dict[str, str] | None = None,
                      parse_keys: Sequence[str] | None = None) -> pa.Table:
    """Repeated texts of a source: running heads per paged document, page furniture across its paged
    documents, and the template across HTML pages. A document whose repeats cannot be found keeps all
    its blocks; `errors` gets path -> why."""
    con = _connect(store, source, "parsed_blocks", "parsed_documents", parse_keys=parse_keys)
    bands = _BandLines(con)
    rows = [_repeat_row(r, source)
            for r in _page_repeats(con, settings, errors, store.settings.batch_documents, bands)]
    rows += [_repeat_row(r, source) for r in bands.repeats(settings.boilerplate)]
    rows += [_repeat_row(r, source) for r in _template_repeats(con, settings, store.settings.batch_documents)]
    con.close()
    return pa.Table.from_pylist(rows, schema=BOILERPLATE_SCHEMA)


def boilerplate_inputs(store: Store, source: str, settings: Settings, parse_keys: Sequence[str]) -> int:
    """A number that changes whenever boilerplate_table would: the parse pair's committed files, the
    boilerplate settings, the library's version. An unchanged rerun finds it recorded and searches
    nothing (the per-document pass costs ~1 ms a paged document: 17 minutes a million)."""
    versions = [store.data_version(t, parse_keys) for t in ("parsed_blocks", "parsed_documents")]
    return int(_digest([versions, asdict(settings.boilerplate), PARSER_VERSION])[:15], 16)


def _repeat_row(r: Repeat, source: str) -> dict:
    return {**asdict(r), "source": source, "seen_in": list(r.seen_in)}


class _BandLines:
    """The band lines of a source's paged documents, as (path, band, pattern, text) rows in a DuckDB
    table (a source of any size: memory holds one chunk), and the ones that recur across them."""

    FLUSH_ROWS = 10_000  # rows collected before they go to DuckDB

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con, self.rows, self.docs = con, [], 0
        con.execute("CREATE OR REPLACE TEMP TABLE _band_lines (path VARCHAR, band VARCHAR, pattern VARCHAR, text VARCHAR)")

    def add(self, path: str, blocks: list[Block], s: BoilerplateSettings) -> None:
        self.docs += 1
        self.rows += [(path, band, pattern, text) for (band, pattern), text in band_patterns(blocks, s).items()]
        if len(self.rows) >= self.FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            cols = list(zip(*self.rows))
            self.con.register("_band_chunk", pa.table({n: pa.array(c, pa.string()) for n, c in
                                                       zip(("path", "band", "pattern", "text"), cols)}))
            self.con.execute("INSERT INTO _band_lines SELECT * FROM _band_chunk")
            self.con.unregister("_band_chunk")
            self.rows = []

    def repeats(self, s: BoilerplateSettings) -> list[Repeat]:
        """Band lines (digits as '#') in at least `min_doc_fraction` of the paged documents and at
        least `min_docs` of them: furniture every document of the source carries, however few pages."""
        self.flush()
        if self.docs < s.min_docs:
            return []
        found = self.con.execute("""
            SELECT band, pattern, arg_min(text, path), count(DISTINCT path), list(DISTINCT path ORDER BY path)[1:$kept]
            FROM _band_lines GROUP BY band, pattern HAVING count(DISTINCT path) >= $need ORDER BY band, pattern
        """, {"kept": SEEN_IN_KEPT, "need": max(s.min_docs, s.min_doc_fraction * self.docs)}).fetchall()
        return [Repeat("source_pages", None, band, pattern, example, count, self.docs, tuple(seen),
                       source_furniture_reason(pattern)) for band, pattern, example, count, seen in found]


def _page_repeats(con: duckdb.DuckDBPyConnection, settings: Settings, errors: dict[str, str] | None,
                  chunk_docs: int, bands: _BandLines) -> Iterator[Repeat]:
    """Running heads of each paged document, one document's blocks at a time; its band lines go to
    `bands`."""
    paged = ("SELECT path, doc_id, pages FROM parsed_documents WHERE status = 'ok' AND format <> 'html' "
             "AND pages > 0 ORDER BY path, doc_id")
    for row, doc in documents_with_blocks(con, paged, chunk_docs):
        if doc is None:
            continue
        try:
            blocks = [b for _, b in table_to_blocks(doc)]
            bands.add(row["path"], blocks, settings.boilerplate)
            yield from blocks_to_page_repeats(row["doc_id"], blocks, row["pages"], settings.boilerplate)
        except Exception as exc:  # noqa: BLE001 - one document's bug costs its furniture removal only
            if errors is not None:
                errors[row["path"]] = f"running heads not searched ({type(exc).__name__}: {exc})"


def _template_udf(texts: pa.Array) -> pa.Array:
    return pa.array([template_pattern_of(t) for t in texts.to_pylist()], pa.string())


_HTML_DOCS = "SELECT path, doc_id FROM parsed_documents WHERE status = 'ok' AND format = 'html'"
# One document's short texts as (pattern, path, text of its first block with that pattern), for the
# blocks of the documents in `_keys` (a chunk) or of every HTML document.
_SHORT = """SELECT template_pattern(b.text) AS pattern, b.path, arg_min(b.text, b.seq) AS text
            FROM parsed_blocks b SEMI JOIN ({docs}) k ON k.path = b.path AND k.doc_id = b.doc_id
            WHERE length(b.text) BETWEEN 1 AND $max_chars {where} GROUP BY ALL"""


def _template_repeats(con: duckdb.DuckDBPyConnection, settings: Settings, chunk_docs: int) -> list[Repeat]:
    """Short texts that recur across enough of a source's HTML documents. Blocks a backend already
    dropped count too: a menu recognised on nine pages is template on the tenth.

    Two passes, so memory follows the number of candidates, not of distinct texts in the source: a
    text in at least a fraction f of all documents is in at least f of the documents of some chunk
    (were it below f in every chunk, it would be below f in their sum), so the chunks' frequent texts
    are all the candidates, counted exactly in the second pass."""
    s = settings.boilerplate
    n_docs = con.execute("SELECT count(*) FROM (SELECT DISTINCT b.path, b.doc_id FROM parsed_blocks b "
                         f"SEMI JOIN ({_HTML_DOCS}) k ON k.path = b.path AND k.doc_id = b.doc_id)").fetchall()[0][0]
    if not n_docs:
        return []
    if not con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'template_pattern'").fetchall()[0][0]:
        con.create_function("template_pattern", _template_udf, [sqltypes.VARCHAR], sqltypes.VARCHAR, type="arrow")
    params = {"max_chars": s.max_chars}
    candidates = _template_candidates(con, s.min_doc_fraction, chunk_docs, params) if s.min_doc_fraction > 0 else None
    con.register("_candidates", pa.table({"pattern": pa.array(sorted(candidates or ()), pa.string())}))
    keep = "" if candidates is None else "AND template_pattern(b.text) IN (SELECT pattern FROM _candidates)"
    found = con.execute(f"""
        SELECT pattern, arg_min(text, path), count(*), min(path, $kept)
        FROM ({_SHORT.format(docs=_HTML_DOCS, where=keep)}) WHERE pattern <> '' GROUP BY pattern
        HAVING count(*) >= $need ORDER BY pattern
    """, {**params, "kept": SEEN_IN_KEPT, "need": max(s.min_docs, s.min_doc_fraction * n_docs)}).fetchall()
    return [Repeat("documents", None, None, pattern, example, count, n_docs, tuple(seen), DropReason.SITE_TEMPLATE)
            for pattern, example, count, seen in found]


def _template_candidates(con: duckdb.DuckDBPyConnection, fraction: float, chunk_docs: int, params: dict) -> set[str]:
    """Patterns in at least `fraction` of the documents (with blocks) of some chunk of HTML documents."""
    found: set[str] = set()
    for batch in con.cursor().sql(f"{_HTML_DOCS} ORDER BY path, doc_id").to_arrow_reader(chunk_docs):
        if not batch.num_rows:
            continue
        con.register("_keys", batch.select(["path", "doc_id"]))
        lo, hi = batch.column("path")[0].as_py(), batch.column("path")[-1].as_py()
        in_range = "AND b.path BETWEEN $lo AND $hi"
        n = con.execute(f"SELECT count(DISTINCT b.path) FROM parsed_blocks b SEMI JOIN _keys k ON k.path = b.path "
                        f"AND k.doc_id = b.doc_id WHERE TRUE {in_range}", {"lo": lo, "hi": hi}).fetchall()[0][0]
        found.update(p for (p,) in con.execute(
            f"SELECT pattern FROM ({_SHORT.format(docs='SELECT * FROM _keys', where=in_range)}) GROUP BY pattern "
            "HAVING count(*) >= $need", {**params, "lo": lo, "hi": hi, "need": fraction * n}).fetchall())
        con.unregister("_keys")
    return found


def repeats_of(table: pa.Table) -> list[Repeat]:
    """boilerplate_sets rows as Repeats."""
    cols = [f.name for f in BOILERPLATE_SCHEMA if f.name != "source"]
    return [Repeat(**{c: (tuple(r[c]) if c == "seen_in" else r[c]) for c in cols}) for r in table.to_pylist()]


# -- normalized_blocks -------------------------------------------------------------------------------
@dataclass
class NormalizeStats:
    """How a normalized_blocks run went."""

    normalized: int = 0
    unchanged: int = 0
    removed: int = 0
    batches: int = 0
    failed: int = 0  # documents whose normalisation raised (they keep their parsed blocks, marked)


class _Repeats:
    """The repeats that apply to each document, and the digest of them."""

    def __init__(self, repeats: list[Repeat]):
        self.template = [r for r in repeats if r.scope == "documents"]
        self.furniture = [r for r in repeats if r.scope == "source_pages"]
        self.pages: dict[str, list[Repeat]] = {}
        for r in repeats:
            if r.scope == "pages":
                self.pages.setdefault(r.doc_id, []).append(r)
        self.template_digest = _digest([(r.pattern, r.drop_reason) for r in self.template])
        self.furniture_digest = _digest([(r.band, r.pattern, r.drop_reason) for r in self.furniture])

    def of(self, doc_id: str, fmt: str | None) -> list[Repeat]:
        # the site template applies to HTML only, the source's page furniture to paged documents only
        shared = self.template if fmt == "html" else self.furniture
        return [*self.pages.get(doc_id, []), *shared]

    def digest(self, doc_id: str, fmt: str | None) -> str:
        own = [(r.band, r.pattern, r.drop_reason) for r in self.pages.get(doc_id, [])]
        return _digest([own, self.template_digest if fmt == "html" else self.furniture_digest])


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def normalize_source(store: Store, source: str, settings: Settings,
                     parse_keys: Sequence[str] | None = None) -> NormalizeStats:
    """Normalise every document whose inputs changed since its last commit, in batches; drop the rows
    of documents that are gone. The caller holds the source's lock."""
    con = _connect(store, source, "parsed_blocks", "parsed_documents", "raw_files", "boilerplate_sets",
                   "_normalized_documents", parse_keys=parse_keys)
    repeats = _Repeats(repeats_of(con.sql("SELECT * FROM boilerplate_sets").to_arrow_table()))
    version = _digest([PARSER_VERSION, asdict(settings.boilerplate), asdict(settings.normalize)])
    stats = NormalizeStats()
    _plan_normalize(con, repeats, version, stats)
    batch = _NormBatch()
    for doc_row, blocks in _todo_documents(con, store.settings.batch_documents):
        batch.add(*_normalize_document(doc_row, blocks, repeats, settings, stats))
        if len(batch.index) >= store.settings.batch_documents:
            batch.commit(store, source, stats)
    removed = [p for (p,) in con.execute("SELECT path FROM normalized_documents WHERE path NOT IN "
                                         "(SELECT path FROM parsed_documents)").fetchall()]
    batch.commit(store, source, stats, removed, last=True)
    stats.removed = len(removed)
    con.close()
    return stats


# Whether the inventory flagged a path's extension as contradicting its bytes (one row per path).
_MISMATCH = "SELECT path, any_value(format_mismatch) AS format_mismatch FROM raw_files GROUP BY path"


def _plan_normalize(con: duckdb.DuckDBPyConnection, repeats: _Repeats, version: str, stats: NormalizeStats) -> None:
    """Table `todo`: parsed_documents rows whose inputs digest differs from the committed one."""
    con.execute("CREATE TABLE todo (path VARCHAR, doc_id VARCHAR, digest VARCHAR, committed BOOLEAN)")
    reader = con.cursor().sql(f"""
        SELECT d.*, coalesce(r.format_mismatch, FALSE) AS format_mismatch, n.inputs_digest AS old_digest,
               n.path IS NOT NULL AS committed
        FROM parsed_documents d
        LEFT JOIN ({_MISMATCH}) r ON r.path = d.path
        LEFT JOIN normalized_documents n ON n.path = d.path
    """).to_arrow_reader(STREAM_ROWS)
    for batch in reader:
        todo = []
        for row in batch.to_pylist():
            old, committed = row.pop("old_digest"), row.pop("committed")
            digest = _digest([version, row, repeats.digest(row["doc_id"], row["format"])])
            if digest == old:
                stats.unchanged += 1
            else:
                todo.append((row["path"], row["doc_id"], digest, committed))
        if todo:
            con.register("_todo_batch", pa.table(list(zip(*todo)), names=["path", "doc_id", "digest", "committed"]))
            con.execute("INSERT INTO todo SELECT * FROM _todo_batch")
            con.unregister("_todo_batch")


def _todo_documents(con: duckdb.DuckDBPyConnection, chunk_docs: int) -> Iterator[tuple[dict, pa.Table | None]]:
    """(parsed_documents row with digest and mismatch, its blocks or None) of every todo document."""
    return documents_with_blocks(con, f"""
        SELECT d.*, t.digest AS inputs_digest, t.committed, coalesce(r.format_mismatch, FALSE) AS format_mismatch
        FROM parsed_documents d JOIN todo t ON t.path = d.path AND t.doc_id = d.doc_id
        LEFT JOIN ({_MISMATCH}) r ON r.path = d.path
        ORDER BY d.path, d.doc_id
    """, chunk_docs)


def _normalize_document(row: dict, table: pa.Table | None, repeats: _Repeats, settings: Settings,
                        stats: NormalizeStats) -> tuple[dict, pa.Table]:
    """A document's normalised blocks and its quality row (before the source's band is known)."""
    ref = DocRef(row["source"], row["doc_id"], row["path"], row["format"])
    blocks = [b for _, b in table_to_blocks(table)] if table is not None else []  # in seq order already
    try:
        out = blocks_to_kept(ref.doc_id, blocks, repeats.of(ref.doc_id, ref.format), ref.format, settings)
    except Exception as exc:  # noqa: BLE001 - the document keeps its parsed blocks, marked
        stats.failed += 1
        why = (STAGE_ERROR, f"normalisation: {type(exc).__name__}: {exc}")
        out = [replace(b, meta=(*b.meta, why)) for b in blocks]
    stats.normalized += 1
    index = {**quality_row(row, out, row["format_mismatch"]), "inputs_digest": row["inputs_digest"],
             "committed": row["committed"]}
    return index, blocks_to_table((ref, b) for b in out)


class _NormBatch:
    """Normalised documents waiting for their commit."""

    def __init__(self) -> None:
        self.index: list[dict] = []
        self.blocks: list[pa.Table] = []

    def add(self, index: dict, blocks: pa.Table) -> None:
        self.index.append(index)
        if blocks.num_rows:
            self.blocks.append(blocks)

    def commit(self, store: Store, source: str, stats: NormalizeStats, removed: list[str] | tuple = (),
               last: bool = False) -> None:
        """Commit the batch (and the removal of `removed`); an empty one only as the run's `last` when
        Store.owes_empty_commit."""
        wrote = bool(stats.batches or stats.unchanged)
        if not self.index and not removed and not (
                last and store.owes_empty_commit("normalized_blocks", source, wrote)):
            return
        replaced = [r["path"] for r in self.index if r.pop("committed")] + list(removed)
        data = pa.concat_tables(self.blocks) if self.blocks else BLOCKS_SCHEMA.empty_table()
        index = rows_to_table(self.index, NORMALIZED_DOCS_SCHEMA)
        store.commit_pair("normalized_blocks", source, replaced, data, index, BLOCKS_SCHEMA)
        stats.batches += 1
        self.index, self.blocks = [], []


# -- quality_report ----------------------------------------------------------------------------------
def quality_row(d: dict, blocks: list[Block], mismatch: bool) -> dict:
    """The quality_report row of one document from its parsed_documents row and normalised blocks."""
    report = row_to_report(d)
    row = {c: d.get(c) for c in QUALITY_SCHEMA.names if c in d}
    if d["status"] == "ok":
        try:
            row.update(document_figures(blocks, report))
            row["drop_counts"] = list(row["drop_counts"].items())
        except Exception as exc:  # noqa: BLE001 - one document's figures cannot cost the source its report
            return {**{c: d.get(c) for c in DOC_COLUMNS}, "status": "failed", "flags": [STAGE_FAILED_FLAG],
                    "retention_ratio": None, "error": f"quality figures could not be computed ({type(exc).__name__}: {exc})"}
        if report.deletions or report.insertions or report.moves:
            report.flag("has_revisions")
        if blocks and (stage_error := blocks[0].get_meta(STAGE_ERROR)) is not None:
            report.flag(STAGE_FAILED_FLAG)
            row["part_errors"] = [*(row.get("part_errors") or []), stage_error]
    else:
        row.update(kept_chars=0, retention_ratio=None, boilerplate_removed=0, drop_counts=[])
    if mismatch:
        report.flag("format_mismatch")
    row["flags"] = report.flags
    return row


def quality_table(store: Store, source: Source, settings: Settings) -> tuple[pa.RecordBatchReader, Band | None, int]:
    """quality_report as a stream (the index's rows with the source's band flag), the band, and a
    number that changes whenever that stream would (the index version, the band, the settings)."""
    con = _connect(store, source.name, "_normalized_documents")
    ratios = [r for (r,) in con.execute("SELECT retention_ratio FROM normalized_documents WHERE status = 'ok' "
                                        "AND retention_ratio IS NOT NULL").fetchall()]
    band = band_for(source.retention_band, ratios, settings.quality)
    snap = store.snapshot("_normalized_documents", source.name)
    inputs = int(_digest([snap.version if snap else None, asdict(band) if band else None, PARSER_VERSION])[:15], 16)
    reader = con.sql(f"SELECT {', '.join(QUALITY_SCHEMA.names)} FROM normalized_documents ORDER BY path, doc_id"
                     ).to_arrow_reader(STREAM_ROWS)

    def flagged() -> Iterator[pa.RecordBatch]:
        for batch in reader:
            rows = batch.to_pylist()
            for r in rows:
                if band is not None and r["retention_ratio"] is not None and r["retention_ratio"] < band.low:
                    r["flags"] = [*r["flags"], "below_retention_band"]
            yield pa.RecordBatch.from_pylist(rows, schema=QUALITY_SCHEMA)
        con.close()

    return pa.RecordBatchReader.from_batches(QUALITY_SCHEMA, flagged()), band, inputs
