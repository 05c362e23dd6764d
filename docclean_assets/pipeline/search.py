"""Chunks out of the store (issue 34, point 5): a source's chunks as a pyarrow table, as Parquet or JSONL
files, and BM25 search over them, to work back from a bad answer to the blocks it came from.

    from docclean_assets.pipeline.search import read_chunks
    table = read_chunks("reports", data_dir="data/out")   # pyarrow.Table, CHUNKS_SCHEMA

Search uses bm25s (sparse-matrix BM25, numpy only): the same scoring a user's first index would use,
instead of a home-made one.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from docclean_assets.ingest.sources import default_data_dir
from docclean_assets.store.tables import Store
from docclean_assets.pipeline.schemas import CHUNKS_SCHEMA

# Columns a listing or a search hit shows (boxes, seqs and the rest stay in the table).
SHOWN = ["source", "path", "chunk_id", "chunk_index", "role", "heading_path", "pages", "tokens", "text"]


def read_chunks(source: str | None = None, data_dir: str | Path | None = None, columns: Sequence[str] | None = None,
                store: Store | None = None, among: Sequence[str] | None = None) -> pa.Table:
    """The chunks the last run committed for one source (every source when None, or every one of
    `among`: the configured ones), in document order; from the tables under `data_dir` (a folder or
    s3://bucket/prefix; default: `docclean run`'s, as $DOCCLEAN_DATA_DIR or data/out), or those of `store`."""
    store = store or Store(str(data_dir or default_data_dir()))
    names = [source] if source is not None else [n for n in store.sources("chunks") if among is None or n in among]
    tables = [t for name in names if (t := store.read("chunks", name, CHUNKS_SCHEMA, columns=columns)) is not None]
    schema = CHUNKS_SCHEMA if columns is None else pa.schema([CHUNKS_SCHEMA.field(c) for c in columns])
    table = pa.concat_tables(tables) if tables else schema.empty_table()
    order = [(c, "ascending") for c in ("source", "path", "chunk_index") if c in table.column_names]
    return table.sort_by(order) if order else table


def write_chunks(table: pa.Table, out_dir: str | Path, name: str, jsonl: bool) -> Path:
    """The table as `<out_dir>/<name>.parquet` (or `.jsonl`, one chunk per line); the file written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.{'jsonl' if jsonl else 'parquet'}"
    if jsonl:
        with path.open("w", encoding="utf-8") as f:
            for row in table.to_pylist():
                f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    else:
        pq.write_table(table, path, compression="zstd")
    return path


@dataclass(frozen=True)
class Hit:
    """One search result: its BM25 score and its chunk's row."""

    score: float
    row: dict


def search(table: pa.Table, question: str, k: int = 5) -> list[Hit]:
    """The k chunks of `table` BM25 ranks highest for the question (over embed_text: heading path included)."""
    import bm25s  # only the search needs it

    if table.num_rows == 0 or k < 1:
        return []
    texts = table.column("embed_text").to_pylist()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    query = bm25s.tokenize([question], stopwords="en", show_progress=False)
    if not query.vocab:  # only stopwords or nothing: no term to match
        return []
    docs, scores = retriever.retrieve(query, k=min(k, table.num_rows), show_progress=False)
    rows = table.select([c for c in SHOWN if c in table.column_names])
    return [Hit(float(s), rows.slice(int(i), 1).to_pylist()[0]) for i, s in zip(docs[0], scores[0]) if s > 0]


def describe(row: dict, width: int = 400) -> str:
    """A chunk as a few lines for a terminal: where it is, under which headings, its text."""
    pages = ",".join(str(p) for p in row.get("pages") or []) or "-"
    heads = " > ".join(row.get("heading_path") or []) or "(no heading)"
    text = " ".join(str(row.get("text", "")).split())
    shown = text if len(text) <= width else text[:width].rsplit(" ", 1)[0] + " …"
    return (f"{row.get('source', '')}/{row['path']}  chunk {row['chunk_index']}  pages {pages}  {row['role']}  "
            f"{row['tokens']} tokens  id {row['chunk_id']}\n  {heads}\n  {shown}")
