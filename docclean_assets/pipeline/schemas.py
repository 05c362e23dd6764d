"""The explicit pyarrow schema of every table the assets write, and rows of them: the document columns
in front of the library's block and report columns (extract/schema.py)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa

from docclean_assets.extract.model import BBox, Block, DocReport
from docclean_assets.extract.schema import (
    UNFIT, CONTENT_DOCS, CONTENT_SCHEMA, LOSS_FIELDS, REPORT_COLUMNS, REPORT_DOCS, REPORT_FIELDS, block_row,
    content_arrays, fit_block_row, fit_row, report_fields,
)

# Columns that say which document a row belongs to; every per-document table starts with them.
DOC_FIELDS = [
    pa.field("source", pa.string(), nullable=False),
    pa.field("doc_id", pa.string(), nullable=False),  # sha256 of the file's bytes
    pa.field("path", pa.string(), nullable=False),  # relative to the source root, '/'-separated, or the URL
    pa.field("format", pa.string()),
]

BLOCKS_SCHEMA = pa.schema(DOC_FIELDS + list(CONTENT_SCHEMA))

RAW_FILES_SCHEMA = pa.schema(
    DOC_FIELDS
    + [
        pa.field("bytes", pa.int64()),
        pa.field("ext_format", pa.string()),  # what the extension or Content-Type claims
        pa.field("format_mismatch", pa.bool_()),
        pa.field("modified", pa.timestamp("us", tz="UTC")),  # file mtime, or fetch time for URLs
        pa.field("http_status", pa.int32()),
        pa.field("blob", pa.string()),  # where the bytes are: absolute file path or fetched-blob path
        pa.field("rendered", pa.bool_()),  # the DOM came from headless Chromium (`render: true`)
        pa.field("etag", pa.string()),  # validators of the last fetch, for the next conditional GET
        pa.field("last_modified", pa.string()),
        pa.field("error", pa.string()),  # why the file could not be read or fetched
    ]
)

QUALITY_SCHEMA = pa.schema(
    DOC_FIELDS
    + [
        pa.field("status", pa.string(), nullable=False),  # 'ok' | 'failed'
        pa.field("error", pa.string()),
        REPORT_COLUMNS["method"],  # which extraction path produced the body
        REPORT_COLUMNS["pages"],
        REPORT_COLUMNS["raw_chars"],
        pa.field("kept_chars", pa.int64()),
        pa.field("retention_ratio", pa.float64()),
        REPORT_COLUMNS["columns"],
        pa.field("boilerplate_removed", pa.int32()),
    ]
    + LOSS_FIELDS
    + [
        pa.field("drop_counts", pa.map_(pa.string(), pa.int32())),  # drop_reason -> number of blocks
        pa.field("parse_seconds", pa.float64()),
    ]
)

# One row per parsed document: its diagnostics as the backend reported them, or its error.
DOCS_SCHEMA = pa.schema(
    DOC_FIELDS
    + [
        pa.field("status", pa.string(), nullable=False),
        pa.field("error", pa.string()),
        REPORT_COLUMNS["method"],
        pa.field("parser_version", pa.string()),
        pa.field("parse_seconds", pa.float64()),
        REPORT_COLUMNS["pages"],
        REPORT_COLUMNS["raw_chars"],
        REPORT_COLUMNS["columns"],
    ]
    + LOSS_FIELDS
)

# Internal index of normalized_blocks: one row per document normalised, its quality figures before the
# source's band is applied, and the digest of its inputs (an unchanged digest: nothing to redo).
NORMALIZED_DOCS_SCHEMA = pa.schema(list(QUALITY_SCHEMA) + [pa.field("inputs_digest", pa.string())])

BOILERPLATE_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        # 'pages' (within a document) | 'documents' (site template) | 'source_pages' (band furniture
        # across a source's paged documents)
        pa.field("scope", pa.string(), nullable=False),
        pa.field("doc_id", pa.string()),  # the document, for scope='pages'; NULL for scope='documents'
        pa.field("band", pa.string()),  # 'top' | 'bottom' | NULL
        pa.field("pattern", pa.string(), nullable=False),  # normalised text (digits -> #)
        pa.field("example", pa.string(), nullable=False),
        pa.field("count", pa.int32(), nullable=False),  # pages or documents it occurs in
        pa.field("out_of", pa.int32(), nullable=False),  # pages of the document or documents of the source
        pa.field("seen_in", pa.list_(pa.string())),  # page numbers or paths where it was seen
        pa.field("drop_reason", pa.string(), nullable=False),
    ]
)

# One row per retrieval chunk (issue 34; extract/chunk.py): what an index loads.
CHUNKS_SCHEMA = pa.schema(
    DOC_FIELDS
    + [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("chunk_index", pa.int32(), nullable=False),
        pa.field("role", pa.string(), nullable=False),
        pa.field("heading_path", pa.list_(pa.string())),
        pa.field("text", pa.string(), nullable=False),
        pa.field("embed_text", pa.string(), nullable=False),
        pa.field("tokens", pa.int32(), nullable=False),
        pa.field("kinds", pa.list_(pa.string())),
        pa.field("pages", pa.list_(pa.int32())),
        pa.field("seqs", pa.list_(pa.int32())),
        pa.field("boxes", pa.list_(pa.struct([
            pa.field("seq", pa.int32()), pa.field("page", pa.int32()), pa.field("x0", pa.float64()),
            pa.field("y0", pa.float64()), pa.field("x1", pa.float64()), pa.field("y1", pa.float64())]))),
        pa.field("part", pa.int32()),
        pa.field("parts", pa.int32()),
        pa.field("anchor_chunk", pa.string()),
        pa.field("flags", pa.list_(pa.string())),
    ]
)

# Internal index of chunks: one row per document chunked, with the digest of its inputs.
CHUNK_DOCS_SCHEMA = pa.schema(DOC_FIELDS + [pa.field("chunks", pa.int32()), pa.field("error", pa.string()),
                                            pa.field("inputs_digest", pa.string()),
                                            # what its chunk ids are made with: the doc_id of the first
                                            # bytes seen at its path, kept through edits and moves
                                            pa.field("doc_key", pa.string())])

# What each run changed in a source's chunks, for an index loader (issue 34, point 2).
CHUNK_CHANGES_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("recorded_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("from_version", pa.int64()),
        pa.field("to_version", pa.int64(), nullable=False),
        pa.field("change", pa.string(), nullable=False),  # added | removed | updated | reset
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("path", pa.string()),
        pa.field("doc_id", pa.string()),
    ]
)

# The description of every column the tables above add to the library's (a column name means the same
# in every table that has it); the Dagster UI shows them with each asset's column schema.
_TABLE_DOCS = {
    "source": "The source (sources.yaml entry, the Dagster partition) the row belongs to.",
    "doc_id": "SHA-256 of the document's bytes: the same file under two paths has one doc_id.",
    "path": "The file's path below the source's folder ('/'-separated), or the page's URL.",
    "bytes": "Size of the file or the fetched response, in bytes.",
    "ext_format": "The format the file's extension or Content-Type claims.",
    "format_mismatch": "True when the sniffed format differs from what the extension or Content-Type claims.",
    "modified": "The file's modification time, or when the URL was fetched (UTC).",
    "http_status": "The HTTP status of the last fetch (URL sources); NULL for files.",
    "blob": "Where the bytes are: the file's absolute path or the fetched blob's path.",
    "rendered": "True when the page's DOM came from headless Chromium (render: true).",
    "etag": "The ETag of the last fetch, sent back in the next conditional GET.",
    "last_modified": "The Last-Modified of the last fetch, sent back in the next conditional GET.",
    "error": "Why the document could not be read, fetched or parsed; NULL when it was.",
    "status": "ok, or failed (see error): a failed document is one row and costs nothing else.",
    "kept_chars": "Non-whitespace characters of the body that remains (kept blocks of body kinds).",
    "retention_ratio": "kept_chars / raw_chars: how much of the extracted text the body keeps.",
    "boilerplate_removed": "Blocks removed as repeated text (running heads, page numbers, site template).",
    "drop_counts": "Blocks dropped per drop_reason.",
    "parse_seconds": "Seconds the document's parse took in its worker.",
    "parser_version": "The extraction library's version and settings digest the document was parsed with.",
    "scope": "Where the text repeats: pages (of one document), documents (a site template) or source_pages.",
    "band": "top or bottom band of the page where a repeated line sits; NULL for site templates.",
    "pattern": "The repeated text normalised (digits as #), as it is matched.",
    "example": "One occurrence of the repeated text, as printed.",
    "count": "Pages or documents the text occurs in.",
    "out_of": "Pages of the document, or documents of the source.",
    "seen_in": "Page numbers or paths where the text was seen.",
    "chunk_id": "Digest of the chunk's document key (the doc_id first seen at its path), heading path and text: "
                "stable across runs, parser versions that do not change the text, moves of the file, and edits "
                "elsewhere in it.",
    "chunk_index": "The chunk's place in its document's reading order (0-based).",
    "role": "body | table | callout | footnote | notes: call-outs, footnotes and notes sit beside anchor_chunk.",
    "heading_path": "The headings the chunk is under, title first (a compound PDF's part is not under the headings of "
                    "the parts before it).",
    "embed_text": "What to embed: the heading path not already in the text, then the text; a table as its title, labels "
                  "and years (or each value beside its labels: settings chunk: embed_table_figures).",
    "tokens": "Tokens of text by settings.chunk.tokenizer (words unless a tokenizer.json is named).",
    "kinds": "The kinds of the blocks in the chunk, in order of appearance.",
    "pages": "Pages (PDF) or slides (PPTX) the chunk's blocks are on.",
    "seqs": "The seqs of the normalized_blocks rows the chunk was made from.",
    "boxes": "(seq, page, bbox) of each of those blocks, in PDF points, top-left origin.",
    "part": "1-based part of a unit (paragraph, list, table) split over several chunks.",
    "parts": "How many chunks that unit was split into.",
    "anchor_chunk": "The chunk_id of the body chunk a call-out, footnote or note belongs beside.",
    "run_id": "The Dagster run that recorded the change.",
    "recorded_at": "When the change was recorded (UTC).",
    "from_version": "The chunks table version the last recorded change set reached (NULL: none before).",
    "to_version": "The chunks table version this change set brings an index to.",
    "change": "added or removed; updated: kept, its embed_text changed (embed it again); reset: the table an index had "
              "was not readable, these are all the chunks now.",
    "chunks": "Chunks the document was cut into.",
    "inputs_digest": "Digest of what the row was made from; unchanged, nothing is redone.",
}
COLUMN_DOCS = {**CONTENT_DOCS, **REPORT_DOCS, **_TABLE_DOCS}


def column_description(name: str) -> str:
    """What a column of docclean's tables holds."""
    return COLUMN_DOCS[name]


@dataclass(frozen=True, slots=True)
class DocRef:
    """Which document rows belong to."""

    source: str
    doc_id: str
    path: str
    format: str | None


def block_to_row(ref: DocRef, b: Block) -> dict:
    """One BLOCKS_SCHEMA row, fitted to the schema."""
    row = {"source": ref.source, "doc_id": ref.doc_id, "path": ref.path, "format": ref.format, **block_row(b)}
    return fit_block_row(row, BLOCKS_SCHEMA)[0]


def content_to_blocks_table(ref: DocRef, content: pa.Table) -> pa.Table:
    """The BLOCKS_SCHEMA table of one document: its content with the document's columns in front."""
    n = content.num_rows
    doc_cols = [pa.array([getattr(ref, f.name)] * n, f.type) for f in DOC_FIELDS]
    return pa.Table.from_arrays([*doc_cols, *content.columns], schema=BLOCKS_SCHEMA)


_TEXT = frozenset({str, type(None)})


def blocks_to_table(items: Iterable[tuple[DocRef, Block]]) -> pa.Table:
    """A BLOCKS_SCHEMA table from (document, block) pairs: column by column when every value fits
    as it is, else row by row, each value fitted."""
    items = list(items)
    content = content_arrays([b for _, b in items])
    if content is not None:
        values = [[getattr(ref, f.name) for ref, _ in items] for f in DOC_FIELDS]
        try:  # strings only (Arrow would decode bytes that fitting turns into their repr)
            if all(set(map(type, col)) <= _TEXT for col in values):
                docs = [pa.array(col, f.type) for col, f in zip(values, DOC_FIELDS)]
                if not any(a.null_count for a, f in zip(docs, DOC_FIELDS) if not f.nullable):
                    return pa.Table.from_arrays([*docs, *content], schema=BLOCKS_SCHEMA)
        except UNFIT:
            pass
    return pa.Table.from_pylist([block_to_row(ref, b) for ref, b in items], schema=BLOCKS_SCHEMA)


def table_to_blocks(table: pa.Table) -> Iterator[tuple[DocRef, Block]]:
    """(document, block) pairs back from a BLOCKS_SCHEMA table."""
    cols = table.to_pydict()  # column by column: a dict per row costs more than the blocks
    docs = zip(*(cols[f.name] for f in DOC_FIELDS))
    ref = None
    for key, seq, page, x0, y0, x1, y1, kind, text, orig, drop, level, anchor, meta in zip(
            docs, *(cols[f.name] for f in CONTENT_SCHEMA)):
        if ref is None or key != (ref.source, ref.doc_id, ref.path, ref.format):
            ref = DocRef(*key)
        box = None if x0 is None else BBox(x0, y0, x1, y1)
        yield ref, Block(kind=kind, text=text, seq=seq, orig_text=orig, page=page, bbox=box, drop_reason=drop,
                         level=level, anchor=anchor, meta=tuple((k, v) for k, v in (meta or ())))


def report_to_row(ref: DocRef, report: DocReport | dict | None, *, status: str, error: str | None,
                  parser_version: str, parse_seconds: float) -> dict:
    """One DOCS_SCHEMA row; `report` is a backend's report or its fields as `report_fields` made them."""
    row = {"source": ref.source, "doc_id": ref.doc_id, "path": ref.path, "format": ref.format,
           "status": status, "error": error, "parser_version": parser_version,
           "parse_seconds": round(parse_seconds, 4),
           **{name: [] if pa.types.is_list(REPORT_COLUMNS[name].type) else None for name in REPORT_FIELDS}}
    if report is not None:
        row.update(report if isinstance(report, dict) else report_fields(report))
    return fit_row(row, DOCS_SCHEMA)[0]


def empty(schema: pa.Schema) -> pa.Table:
    """A table with no rows."""
    return schema.empty_table()
