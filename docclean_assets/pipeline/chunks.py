"""chunks and chunk_changes (issue 34): retrieval chunks of every document's kept blocks, streamed over
normalized_blocks' committed parts, and what each run added, removed and updated, for an index loader.

Chunking is incremental like normalisation: a document is chunked again only when its normalised
inputs or the chunk settings changed, and committed in batches to the `chunks` pair (its index
`_chunked_documents`). The change set is not collected while chunking (a killed run would lose it):
at the end of a run the chunk ids of the chunks table's pinned version are compared with those of the
version the last change set reached (recorded with it), so a run that died half-way is caught up by
the next one, and an unchanged rerun records nothing.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pyarrow as pa

from docclean_assets.extract.chunk import Chunk, blocks_to_chunks, chunk_ids, token_counter
from docclean_assets.extract.settings import ChunkSettings
from docclean_assets.pipeline.derive import documents_with_blocks
from docclean_assets.store.tables import Store, StoreError, create_view
from docclean_assets.pipeline.schemas import (
    BLOCKS_SCHEMA, CHUNK_CHANGES_SCHEMA, CHUNK_DOCS_SCHEMA, CHUNKS_SCHEMA, NORMALIZED_DOCS_SCHEMA, table_to_blocks,
)

# Bump when the chunker cuts the same blocks differently: every document is chunked again (the ids
# of unchanged chunks stay the same, so an index loader sees only what really changed).
CHUNKER_VERSION = "3"  # 2: a split unit's parts keep at least half the budget for their own text; 3: parts of a compound document


@dataclass
class ChunkStats:
    """How a chunks run went."""

    chunked: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    chunks: int = 0
    batches: int = 0


@dataclass(frozen=True)
class Changes:
    """What one run recorded in chunk_changes."""

    added: int
    removed: int
    reset: bool
    to_version: int | None
    updated: int = 0  # ids kept whose embed_text changed (the chunker's or its settings' doing)


def chunk_version(s: ChunkSettings) -> str:
    """What chunks depend on besides the blocks: the chunker, its settings and the tokenizer file's bytes."""
    token_counter(s.tokenizer)  # a tokenizer file that cannot be used fails the step here, in one line
    tokenizer = s.tokenizer if s.tokenizer == "words" else hashlib.sha256(Path(s.tokenizer).read_bytes()).hexdigest()
    blob = json.dumps([CHUNKER_VERSION, asdict(s), tokenizer], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def chunk_rows(doc: dict, chunks: Sequence[Chunk]) -> list[dict]:
    """The chunks table rows of one document's chunks, their ids made with its `doc_key`."""
    ids = chunk_ids(doc["doc_key"], chunks)
    return [{"source": doc["source"], "doc_id": doc["doc_id"], "path": doc["path"], "format": doc["format"],
             "chunk_id": ids[i], "chunk_index": i, "role": c.role, "heading_path": list(c.heading_path),
             "text": c.text, "embed_text": c.embed_text, "tokens": c.tokens, "kinds": list(c.kinds),
             "pages": list(c.pages), "seqs": list(c.seqs),
             "boxes": [{"seq": q, "page": p, **({"x0": b.x0, "y0": b.y0, "x1": b.x1, "y1": b.y1} if b else {})}
                       for q, p, b in c.boxes],
             "part": c.part, "parts": c.parts, "anchor_chunk": ids[c.anchor] if c.anchor is not None else None,
             "flags": list(c.flags)} for i, c in enumerate(chunks)]


def _connect(store: Store, source: str) -> duckdb.DuckDBPyConnection:
    return store.connect_for(source, {"blocks": ("normalized_blocks", BLOCKS_SCHEMA),
                                      "normalized_documents": ("_normalized_documents", NORMALIZED_DOCS_SCHEMA),
                                      "chunked_documents": ("_chunked_documents", CHUNK_DOCS_SCHEMA)})


# The documents to chunk, with the key their chunk ids are made with (`doc_key`): the key of the file at
# their path before (an edit, or a page fetched again with other markup: its unchanged chunks keep their
# ids), else that of the same bytes at a path now gone (a move), else their doc_id, unless another
# document holds that key (a copy): then a digest of doc_id and path, so no two documents share ids.
_TODO = """
WITH here AS (SELECT path FROM normalized_documents),
held AS (SELECT coalesce(doc_key, doc_id) AS k FROM chunked_documents WHERE path IN (SELECT path FROM here)),
gone AS (SELECT doc_id, min(coalesce(doc_key, doc_id)) AS k FROM chunked_documents
         WHERE path NOT IN (SELECT path FROM here) GROUP BY doc_id),
base AS (SELECT n.source, n.doc_id, n.path, n.format,
                sha256(concat($v, '/', coalesce(n.inputs_digest, ''))) AS digest,
                c.path IS NOT NULL AS committed, c.inputs_digest AS old_digest,
                coalesce(c.doc_key, c.doc_id) AS own_key, g.k AS moved_key
         FROM normalized_documents n LEFT JOIN chunked_documents c ON c.path = n.path
         LEFT JOIN gone g ON g.doc_id = n.doc_id AND c.path IS NULL),
ranked AS (SELECT *, row_number() OVER (PARTITION BY doc_id, own_key IS NULL ORDER BY path) AS nth FROM base),
keyed AS (SELECT *, CASE WHEN own_key IS NOT NULL THEN own_key
                          WHEN nth = 1 AND moved_key NOT IN (SELECT k FROM held) THEN moved_key END AS kept_key
          FROM ranked)
SELECT source, doc_id, path, format, digest, committed, old_digest,
       coalesce(kept_key, CASE WHEN nth = 1 AND doc_id NOT IN (SELECT k FROM held)
                                    AND doc_id NOT IN (SELECT kept_key FROM keyed WHERE kept_key IS NOT NULL)
                               THEN doc_id ELSE sha256(concat(doc_id, '/', path)) END) AS doc_key
FROM keyed"""


def chunk_source(store: Store, source: str, s: ChunkSettings) -> ChunkStats:
    """Chunk every document whose inputs changed since its last commit, in batches; drop the chunks
    of documents that are gone. The caller holds the source's lock."""
    con = _connect(store, source)
    version = chunk_version(s)
    con.execute(f"CREATE TABLE todo AS {_TODO}", {"v": version})
    stats = ChunkStats(unchanged=con.execute("SELECT count(*) FROM todo WHERE digest = old_digest").fetchall()[0][0])
    con.execute("DELETE FROM todo WHERE digest = old_digest")
    rows: list[dict] = []
    index: list[dict] = []
    replaced: list[str] = []
    todo = "SELECT * EXCLUDE (old_digest) FROM todo ORDER BY path, doc_id"
    for doc, table in documents_with_blocks(con, todo, store.settings.batch_documents, blocks_view="blocks"):
        error = None
        try:
            made = chunk_rows(doc, blocks_to_chunks([b for _, b in table_to_blocks(table)] if table is not None else [], s))
        except Exception as exc:  # noqa: BLE001 - one document's chunks, never the partition
            made, error = [], f"chunking: {type(exc).__name__}: {exc}"
            stats.failed += 1
        rows += made
        index.append({k: doc[k] for k in ("source", "doc_id", "path", "format", "doc_key")} |
                     {"chunks": len(made), "error": error, "inputs_digest": doc["digest"]})
        if doc["committed"]:
            replaced.append(doc["path"])
        stats.chunked += 1
        stats.chunks += len(made)
        if len(index) >= store.settings.batch_documents:
            _commit(store, source, rows, index, replaced, stats)
            rows, index, replaced = [], [], []
    removed = [p for (p,) in con.execute("SELECT path FROM chunked_documents WHERE path NOT IN "
                                         "(SELECT path FROM normalized_documents)").fetchall()]
    stats.removed = len(removed)
    _commit(store, source, rows, index, replaced + removed, stats, last=True)
    con.close()
    return stats


def _commit(store: Store, source: str, rows: list[dict], index: list[dict], replaced: list[str],
            stats: ChunkStats, last: bool = False) -> None:
    """One batch of documents' chunks, with their index rows, as one pair commit (an empty one only as
    the run's `last` when Store.owes_empty_commit)."""
    wrote = bool(stats.batches or stats.unchanged)
    if not index and not replaced and not (last and store.owes_empty_commit("chunks", source, wrote)):
        return
    data = pa.Table.from_pylist(rows, schema=CHUNKS_SCHEMA)
    store.commit_pair("chunks", source, replaced, data, pa.Table.from_pylist(index, schema=CHUNK_DOCS_SCHEMA),
                      CHUNKS_SCHEMA)
    stats.batches += 1


def record_changes(store: Store, source: str, run_id: str) -> Changes:
    """Append to chunk_changes the chunk ids added and removed since the version the last change set
    reached, and those kept whose `embed_text` changed (`updated`: to embed again); nothing when the
    chunks table has not moved. When that version can no longer be read (vacuumed, its log cleaned
    up), every chunk now is recorded as `reset`: the loader rebuilds."""
    now = store.pinned_version("chunks", source)
    synced = store.inputs("chunk_changes", source)
    if now is None or now == synced:
        return Changes(0, 0, False, now)
    snap = store.snapshot("chunks", source)
    con = store.connect_for(source, {})
    try:
        create_view(con, "new", store.readable(snap) if snap else (), CHUNKS_SCHEMA)
        reset = False
        try:
            create_view(con, "old", store.files_at("chunks", source, synced) if synced is not None else (), CHUNKS_SCHEMA)
            con.execute("SELECT count(*) FROM old").fetchall()
        except (StoreError, duckdb.Error):
            reset = True
        ids = "SELECT chunk_id, min(path) AS path, min(doc_id) AS doc_id FROM {} GROUP BY chunk_id"
        if reset:
            sql = f"SELECT 'reset' AS change, * FROM ({ids.format('new')})"
        else:
            sql = (f"SELECT 'added' AS change, * FROM ({ids.format('new')}) WHERE chunk_id NOT IN (SELECT chunk_id FROM old) "
                   f"UNION ALL SELECT 'removed', * FROM ({ids.format('old')}) WHERE chunk_id NOT IN (SELECT chunk_id FROM new) "
                   f"UNION ALL SELECT 'updated', * FROM ({ids.format('new')}) WHERE chunk_id IN (SELECT n.chunk_id FROM new n "
                   "JOIN old o ON n.chunk_id = o.chunk_id AND n.embed_text IS DISTINCT FROM o.embed_text)")
        found = con.sql(sql + " ORDER BY 1, 2").to_arrow_table()
    finally:
        con.close()
    n = found.num_rows
    at = datetime.now(timezone.utc)
    table = pa.table({"source": [source] * n, "run_id": [run_id] * n, "recorded_at": [at] * n,
                      "from_version": [synced] * n, "to_version": [now] * n, "change": found.column("change"),
                      "chunk_id": found.column("chunk_id"), "path": found.column("path"),
                      "doc_id": found.column("doc_id")}, schema=CHUNK_CHANGES_SCHEMA)
    store.append("chunk_changes", source, table, inputs=now)  # even with no rows: the version reached is recorded
    changes = found.column("change").to_pylist()
    return Changes(changes.count("added") + changes.count("reset"), changes.count("removed"), reset, now,
                   changes.count("updated"))


@dataclass(frozen=True)
class ChunkDelta:
    """What an index that holds a source's chunks as of change-set version `since` applies to hold them as
    of `to_version`: on `reset`, drop the source's vectors first; embed `upsert`; delete `delete`."""

    source: str
    since: int
    to_version: int | None  # what to pass as `since` next time (None: no change recorded yet)
    reset: bool
    upsert: pa.Table  # chunks rows added or updated since (every chunk on a reset)
    delete: list[str]  # chunk ids removed since and not back


def read_changes(store: Store, source: str, since: int) -> ChunkDelta:
    """The net change of a source's chunks over the change sets after `since` (a `to_version` an earlier
    call returned; 0 for an empty index), with the rows as of the last of them. A `since` this source's
    change sets never reached (a store rebuilt under the index) is a reset."""
    con = store.connect_for(source, {"changes": ("chunk_changes", CHUNK_CHANGES_SCHEMA)})
    try:
        known = since == 0 or con.execute("SELECT count(*) FROM changes WHERE to_version = $v",
                                          {"v": since}).fetchall()[0][0] > 0
        after = "coalesce(from_version, 0) >= $since" if known else "true"
        con.execute(f"CREATE TABLE sets AS SELECT to_version, change, chunk_id FROM changes WHERE {after}",
                    {"since": since} if known else {})
        [(last,)] = con.execute("SELECT max(to_version) FROM sets").fetchall()
        to_version = last if last is not None else (since if known and since else None)
        create_view(con, "held_now", _chunk_files(store, source, last) if last is not None else (), CHUNKS_SCHEMA)
        reset = not known or con.execute("SELECT count(*) FROM sets WHERE change = 'reset'").fetchall()[0][0] > 0
        pick = "" if reset else "WHERE chunk_id IN (SELECT chunk_id FROM sets WHERE change IN ('added', 'updated'))"
        upsert = con.sql(f"SELECT * FROM held_now {pick} ORDER BY path, chunk_index").to_arrow_table()
        delete = [] if reset else [i for (i,) in con.execute(
            "SELECT DISTINCT chunk_id FROM sets WHERE change = 'removed' AND chunk_id NOT IN (SELECT chunk_id FROM held_now) "
            "ORDER BY 1").fetchall()]
    finally:
        con.close()
    return ChunkDelta(source, since, to_version, reset, upsert.select(CHUNKS_SCHEMA.names).cast(CHUNKS_SCHEMA), delete)


def _chunk_files(store: Store, source: str, version: int) -> tuple[str, ...]:
    """The chunks table's files at `version`, or its current ones once that version is vacuumed away
    (the next run then records a reset from them)."""
    try:
        return store.files_at("chunks", source, version)
    except StoreError:
        snap = store.snapshot("chunks", source)
        return tuple(store.readable(snap)) if snap else ()
