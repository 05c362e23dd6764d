"""The explicit pyarrow schema of every table docclean writes, and Block <-> row conversion."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa

from docclean_assets.extract.model import BBox, Block, DocReport

META_TYPE = pa.map_(pa.string(), pa.string())

# Columns that say which document a row belongs to; every per-document table starts with them.
DOC_FIELDS = [
    pa.field("source", pa.string(), nullable=False),
    pa.field("doc_id", pa.string(), nullable=False),  # sha256 of the file's bytes
    pa.field("path", pa.string(), nullable=False),  # relative to the source root, '/'-separated, or the URL
    pa.field("format", pa.string()),
]

BLOCKS_SCHEMA = pa.schema(
    DOC_FIELDS
    + [
        pa.field("seq", pa.int32(), nullable=False),
        pa.field("page", pa.int32()),
        pa.field("x0", pa.float64()),  # points, top-left origin
        pa.field("y0", pa.float64()),
        pa.field("x1", pa.float64()),
        pa.field("y1", pa.float64()),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("orig_text", pa.string()),
        pa.field("drop_reason", pa.string()),
        pa.field("level", pa.int32()),
        pa.field("anchor", pa.int32()),
        pa.field("meta", META_TYPE),
    ]
)

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

# The per-document counts of the chances of silent loss, and its flags (quality_report and parsed_documents).
LOSS_FIELDS = [
    *(pa.field(name, pa.int32()) for name in ("footnotes", "unresolved_regions", "deletions", "insertions", "moves",
                                               "comment_refs", "embedded_objects", "picture_shapes", "callouts",
                                               "pull_quotes", "margin_notes", "tables", "tables_fallback")),
    pa.field("reader_comments", pa.int32()),  # HTML reader comments kept as kind='comment' (issue 7)
    pa.field("flags", pa.list_(pa.string())),
    # OCR (issue 9): pages and pictures OCR'd, pictures without confident text, mean word confidence.
    *(pa.field(name, pa.int32()) for name in ("ocr_pages", "ocr_pictures", "ocr_pictures_empty")),
    pa.field("ocr_confidence", pa.float64()),
    pa.field("broken_parts", pa.int32()),  # package parts that could not be read (each costs itself only)
    pa.field("part_errors", pa.list_(pa.string())),  # '<part>: <why>' for each of them
]

QUALITY_SCHEMA = pa.schema(
    DOC_FIELDS
    + [
        pa.field("status", pa.string(), nullable=False),  # 'ok' | 'failed'
        pa.field("error", pa.string()),
        pa.field("method", pa.string()),  # which extraction path produced the body
        pa.field("pages", pa.int32()),
        pa.field("raw_chars", pa.int64()),
        pa.field("kept_chars", pa.int64()),
        pa.field("retention_ratio", pa.float64()),
        pa.field("columns", pa.int32()),
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
        pa.field("method", pa.string()),
        pa.field("parser_version", pa.string()),
        pa.field("parse_seconds", pa.float64()),
        pa.field("pages", pa.int32()),
        pa.field("raw_chars", pa.int64()),
        pa.field("columns", pa.int32()),
    ]
    + LOSS_FIELDS
)

BOILERPLATE_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("scope", pa.string(), nullable=False),  # 'pages' (within a document) | 'documents' (site template)
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

_REPORT_COUNTS = ("pages", "raw_chars", "columns", "footnotes", "unresolved_regions", "deletions",
                  "insertions", "moves", "comment_refs", "embedded_objects", "picture_shapes", "callouts",
                  "pull_quotes", "margin_notes", "tables", "tables_fallback", "reader_comments",
                  "ocr_pages", "ocr_pictures", "ocr_pictures_empty", "ocr_confidence", "broken_parts")


@dataclass(frozen=True, slots=True)
class DocRef:
    """Which document rows belong to."""

    source: str
    doc_id: str
    path: str
    format: str | None


def _utf8(text: str | None) -> str | None:
    """Text Parquet can store: a lone surrogate from a broken font map becomes U+FFFD instead of
    failing the whole partition's write."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in text)


def block_to_row(ref: DocRef, b: Block) -> dict:
    """One BLOCKS_SCHEMA row."""
    box = b.bbox
    return {
        "source": ref.source, "doc_id": ref.doc_id, "path": ref.path, "format": ref.format,
        "seq": b.seq, "page": b.page,
        "x0": box.x0 if box else None, "y0": box.y0 if box else None,
        "x1": box.x1 if box else None, "y1": box.y1 if box else None,
        "kind": b.kind, "text": _utf8(b.text), "orig_text": _utf8(b.orig_text), "drop_reason": b.drop_reason,
        "level": b.level, "anchor": b.anchor, "meta": list(b.meta),
    }


def row_to_block(row: dict) -> Block:
    """The Block a BLOCKS_SCHEMA row holds."""
    box = None
    if row.get("x0") is not None:
        box = BBox(row["x0"], row["y0"], row["x1"], row["y1"])
    return Block(
        kind=row["kind"], text=row["text"], seq=row["seq"], orig_text=row.get("orig_text"),
        page=row.get("page"), bbox=box, drop_reason=row.get("drop_reason"), level=row.get("level"),
        anchor=row.get("anchor"), meta=tuple((k, v) for k, v in (row.get("meta") or [])),
    )


def blocks_to_table(items: Iterable[tuple[DocRef, Block]]) -> pa.Table:
    """A BLOCKS_SCHEMA table from (document, block) pairs."""
    return pa.Table.from_pylist([block_to_row(ref, b) for ref, b in items], schema=BLOCKS_SCHEMA)


def table_to_blocks(table: pa.Table) -> Iterator[tuple[DocRef, Block]]:
    """(document, block) pairs back from a BLOCKS_SCHEMA table."""
    for row in table.to_pylist():
        yield DocRef(row["source"], row["doc_id"], row["path"], row["format"]), row_to_block(row)


def report_to_row(ref: DocRef, report: DocReport | None, *, status: str, error: str | None,
                  parser_version: str, parse_seconds: float) -> dict:
    """One DOCS_SCHEMA row."""
    row = {"source": ref.source, "doc_id": ref.doc_id, "path": ref.path, "format": ref.format,
           "status": status, "error": error, "parser_version": parser_version,
           "parse_seconds": round(parse_seconds, 4)}
    for name in _REPORT_COUNTS:
        row[name] = getattr(report, name) if report else None
    row["flags"] = list(report.flags) if report else []
    row["part_errors"] = list(report.part_errors) if report else []
    row["method"] = report.method if report else None
    return row


def row_to_report(row: dict) -> DocReport:
    """The DocReport a DOCS_SCHEMA row holds."""
    report = DocReport(format=row.get("format") or "", method=row.get("method") or "",
                       flags=list(row.get("flags") or []), part_errors=list(row.get("part_errors") or []))
    for name in _REPORT_COUNTS:
        setattr(report, name, row.get(name) or 0)
    return report


def empty(schema: pa.Schema) -> pa.Table:
    """A table with no rows."""
    return schema.empty_table()
