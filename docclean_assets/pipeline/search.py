"""Chunks out of the store (issue 34, point 5): a source's chunks as a pyarrow table, as Parquet or JSONL
files, and BM25 search over them, to work back from a bad answer to the blocks it came from.

    from docclean_assets.pipeline.search import read_chunks
    table = read_chunks("reports", data_dir="data/out")   # pyarrow.Table, CHUNKS_SCHEMA

Search uses bm25s (sparse-matrix BM25, numpy only): the same scoring a user's first index would use,
instead of a home-made one, with PyStemmer's Snowball stemmer for English (`Bm25`, shared with the
retrieval bench).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from docclean_assets.extract.chunk import PATH_SEPARATOR
from docclean_assets.extract.chunk_tables import labels_only
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


# BM25's analysis (`docclean search` and the retrieval bench): bm25s' English stopwords, then the
# Snowball English stemmer, the analysis of Lucene's and Elasticsearch's English fields. Without it a
# question's "cash flow statement" misses a filing's "Statements of Cash Flows"; on financebench_dev
# (bench/README.md, "Retrieval") it raised BM25 recall@5 of every system's text, docclean's chunks
# most (0.17 -> 0.34).
BM25_STOPWORDS = "en"
BM25_STEMMER = "english"


class Bm25:
    """A BM25 index over texts, analysed as BM25_STOPWORDS and BM25_STEMMER say."""

    def __init__(self, texts: Sequence[str]) -> None:
        import logging

        import bm25s  # only search needs it
        import Stemmer

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index and retrieve log at DEBUG
        self._bm25s = bm25s
        self._stemmer = Stemmer.Stemmer(BM25_STEMMER)
        self._retriever = bm25s.BM25()
        corpus = self._tokens(texts)
        self.size = len(texts) if corpus.vocab else 0  # texts of stopwords only: nothing to match
        if self.size:
            self._retriever.index(corpus, show_progress=False)

    def _tokens(self, texts: Sequence[str]):
        return self._bm25s.tokenize(list(texts), stopwords=BM25_STOPWORDS, stemmer=self._stemmer, show_progress=False)

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The (index, score) of the k best texts for the query that share a term with it, best first."""
        tokens = self._tokens([query])
        if self.size == 0 or k < 1 or not tokens.vocab:  # only stopwords or nothing: no term to match
            return []
        docs, scores = self._retriever.retrieve(tokens, k=min(k, self.size), show_progress=False)
        return [(int(i), float(s)) for i, s in zip(docs[0], scores[0]) if s > 0]


def lexical_text(heading_path: Sequence[str] | None, text: str, role: str | None = None) -> str:
    """What BM25 indexes for a chunk: the levels of its heading path its text does not open with, then
    its text; a table chunk's rows as their labels alone, each said once (`labels_only`: its amounts
    would lengthen the chunk with words no question shares, and BM25 scores a longer text lower)."""
    path = list(heading_path or ())
    opening = {" ".join(p.split()) for p in text.split("\n\n")[:len(path)]}
    context = PATH_SEPARATOR.join(p for p in path if p not in opening)
    body = labels_only(text) if role == "table" else text
    return f"{context}\n\n{body}" if context else body


@dataclass(frozen=True)
class Hit:
    """One search result: its BM25 score and its chunk's row."""

    score: float
    row: dict


def search(table: pa.Table, question: str, k: int = 5) -> list[Hit]:
    """The k chunks of `table` BM25 ranks highest for the question (over each chunk's `lexical_text`)."""
    if table.num_rows == 0 or k < 1:
        return []
    roles = table.column("role").to_pylist() if "role" in table.column_names else [None] * table.num_rows
    texts = [lexical_text(p, t, r) for p, t, r in zip(table.column("heading_path").to_pylist(),
                                                      table.column("text").to_pylist(), roles)]
    rows = table.select([c for c in SHOWN if c in table.column_names])
    return [Hit(score, rows.slice(i, 1).to_pylist()[0]) for i, score in Bm25(texts).top(question, k)]


def describe(row: dict, width: int = 400) -> str:
    """A chunk as a few lines for a terminal: where it is, under which headings, its text."""
    pages = ",".join(str(p) for p in row.get("pages") or []) or "-"
    heads = PATH_SEPARATOR.join(row.get("heading_path") or []) or "(no heading)"
    text = " ".join(str(row.get("text", "")).split())
    shown = text if len(text) <= width else text[:width].rsplit(" ", 1)[0] + " …"
    return (f"{row.get('source', '')}/{row['path']}  chunk {row['chunk_index']}  pages {pages}  {row['role']}  "
            f"{row['tokens']} tokens  id {row['chunk_id']}\n  {heads}\n  {shown}")
