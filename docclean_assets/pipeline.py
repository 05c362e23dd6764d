"""What each asset computes, as plain functions over Arrow tables (the Dagster layer only wires
them to partitions, IO and metadata)."""
from __future__ import annotations

import hashlib
import json
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pyarrow as pa

from docclean_assets.extract.api import PARSER_VERSION
from docclean_assets.extract.boilerplate import Repeat, apply_repeats, blocks_to_page_repeats, docs_to_template_repeats
from docclean_assets.extract.isolate import DEFAULT_EXTRACTOR, Job, run_jobs
from docclean_assets.extract.model import Block
from docclean_assets.extract.normalize import normalize_blocks
from docclean_assets.extract.quality import Band, band_for, document_figures
from docclean_assets.extract.schema import CONTENT_SCHEMA, DocPayload, fit_row, row_to_report
from docclean_assets.tables import (
    BLOCKS_SCHEMA, BOILERPLATE_SCHEMA, DOCS_SCHEMA, DocRef, QUALITY_SCHEMA, RAW_FILES_SCHEMA,
    blocks_to_table, content_to_blocks_table, report_to_row, table_to_blocks,
)
from docclean_assets.extract.settings import Settings
from docclean_assets.inventory import folder_rows, url_rows
from docclean_assets.sources import FetchSettings, Source, text_to_name


def raw_files_table(source: Source, data_dir: Path, settings: Settings, previous: pa.Table | None = None,
                    fetch: FetchSettings | None = None) -> pa.Table:
    """The inventory of one source; `previous` (the last inventory) makes URL fetches conditional."""
    if source.path is not None:
        rows = folder_rows(source, settings.limits)
    else:
        last = {r["path"]: r for r in previous.to_pylist()} if previous is not None else {}
        rows = url_rows(source, data_dir / "_blobs" / source.name, fetch or FetchSettings(), last)
    return rows_to_table(rows, RAW_FILES_SCHEMA)


def rows_to_table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """A table of rows, each fitted to the schema first: a value no column can hold is clamped or
    nulled in its own row and can never fail the write of the others."""
    return pa.Table.from_pylist([fit_row(r, schema)[0] for r in rows], schema=schema)


def group_blocks(table: pa.Table | None) -> dict[tuple[str, str], list[Block]]:
    """Blocks per (doc_id, path), in seq order."""
    docs: dict[tuple[str, str], list[Block]] = defaultdict(list)
    if table is not None:
        for ref, block in table_to_blocks(table):
            docs[(ref.doc_id, ref.path)].append(block)
    for blocks in docs.values():
        blocks.sort(key=lambda b: b.seq)
    return docs


@dataclass
class ParseStats:
    """How a parsed_blocks run went."""

    parsed: int = 0
    reused: int = 0
    failed: int = 0
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)  # path -> error


# The settings sections the backends read; boilerplate, normalisation and quality settings act after
# parsing, so changing them re-runs the later assets without parsing anything again.
_PARSE_SECTIONS = ("pdf", "office", "html", "limits", "ocr")
_OCR_FORMATS = frozenset({"pdf", "docx", "pptx"})


def parse_version(source: Source, settings: Settings) -> str:
    """What a parse depends on besides the bytes: the library's code, the settings and the source's
    own extraction options. A document parsed under another version is parsed again."""
    sections = settings.to_dict()
    options = {"settings": {k: sections[k] for k in _PARSE_SECTIONS},
               "html": None if source.html is None else asdict(source.html), "speaker_notes": source.speaker_notes,
               "ocr": source.ocr, "ocr_scanned_body": source.ocr_scanned_body}
    digest = hashlib.sha256(json.dumps(options, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return f"{PARSER_VERSION}-{digest}"


def _ref(row: dict) -> DocRef:
    return DocRef(row["source"], row["doc_id"], row["path"], row["format"])


def _options(source: Source, settings: Settings, row: dict) -> dict:
    """Extractor keyword arguments for one document."""
    opts: dict = {"settings": settings}
    if row["format"] == "pptx":
        opts["speaker_notes"] = source.speaker_notes
    if row["format"] in _OCR_FORMATS:
        opts.update(ocr=source.ocr, ocr_scanned_body=source.ocr_scanned_body)
    if row["format"] == "html":
        opts["html_rules"] = source.html
        if source.urls:
            opts["url"] = row["path"]
    return opts


def _timeout(source: Source, settings: Settings, row: dict) -> float:
    """Seconds one document's worker may take: OCR'd formats get the OCR time grant on top."""
    grant = settings.ocr.timeout_grant_s if source.ocr != "off" and row["format"] in _OCR_FORMATS else 0.0
    return settings.limits.timeout_s + grant


@dataclass
class _Parsed:
    """What parse_source collects: one DOCS_SCHEMA row and one BLOCKS_SCHEMA table per document."""

    version: str
    stats: ParseStats
    docs: list[dict] = field(default_factory=list)
    blocks: list[tuple[str, pa.Table]] = field(default_factory=list)  # (path, the document's blocks)

    def fail(self, row: dict, error: str, seconds: float = 0.0) -> None:
        self.stats.failed += 1
        self.stats.errors[row["path"]] = error
        self.docs.append(report_to_row(_ref(row), None, status="failed", error=error,
                                       parser_version=self.version, parse_seconds=seconds))

    def ok(self, row: dict, doc: dict, blocks: pa.Table) -> None:
        """A parsed (rows fitted by report_to_row) or reused (rows read back) document."""
        self.docs.append(doc)
        self.blocks.append((row["path"], blocks))

    def tables(self) -> tuple[pa.Table, pa.Table]:
        """(parsed_blocks, parsed_documents), ordered by path."""
        self.docs.sort(key=lambda r: r["path"])
        self.blocks.sort(key=lambda item: item[0])
        blocks = pa.concat_tables([t for _, t in self.blocks]) if self.blocks else BLOCKS_SCHEMA.empty_table()
        return blocks, pa.Table.from_pylist(self.docs, schema=DOCS_SCHEMA)


def _blocks_by_doc(previous: pa.Table | None, wanted: set[str]) -> dict[str, pa.Table]:
    """The previous run's blocks of the wanted doc_ids, one table each (rows in their stored order)."""
    if previous is None or not wanted:
        return {}
    rows: dict[str, list[int]] = defaultdict(list)
    for i, doc in enumerate(previous.column("doc_id").to_pylist()):
        if doc in wanted:
            rows[doc].append(i)
    return {doc: previous.take(idx) for doc, idx in rows.items()}


def _readdress(table: pa.Table, ref: DocRef) -> pa.Table:
    """A document's stored blocks under the path (and source) it is found at now."""
    return content_to_blocks_table(ref, table.select(CONTENT_SCHEMA.names))


def parse_source(source: Source, raw: pa.Table, previous_blocks: pa.Table | None, previous_docs: pa.Table | None,
                 settings: Settings, extractor: str = DEFAULT_EXTRACTOR, force: bool = False) -> tuple[pa.Table, pa.Table, ParseStats]:
    """Blocks and per-document rows for a source; unchanged documents are reused, not parsed again.
    Each document's rows are made and checked in its worker: one document can cost only itself."""
    started = time.monotonic()
    out = _Parsed(parse_version(source, settings), ParseStats())
    old_docs = {} if force or previous_docs is None else {
        r["doc_id"]: r for r in previous_docs.to_pylist() if r["status"] == "ok" and r["parser_version"] == out.version
    }
    raw_rows = raw.to_pylist()
    old_blocks = _blocks_by_doc(previous_blocks, {r["doc_id"] for r in raw_rows} & set(old_docs))
    jobs: dict[str, Job] = {}
    waiting: dict[str, list[dict]] = defaultdict(list)  # doc_id -> raw rows with those bytes
    for row in raw_rows:
        if row["error"]:
            out.fail(row, row["error"])
        elif row["format"] is None:
            out.fail(row, f"unrecognised format (extension says {row['ext_format'] or 'nothing'}; bytes are none of pdf/docx/pptx/html)")
        elif row["bytes"] > settings.limits.max_bytes:
            out.fail(row, f"file too large: {row['bytes']} bytes > limit {settings.limits.max_bytes}")
        elif row["doc_id"] in old_docs:  # same bytes, same parser: last run's blocks (maybe none) stand
            out.stats.reused += 1
            doc = {**old_docs[row["doc_id"]], "path": row["path"], "source": row["source"], "format": row["format"]}
            blocks = old_blocks.get(row["doc_id"], CONTENT_SCHEMA.empty_table())
            out.ok(row, doc, _readdress(blocks, _ref(row)))
        else:
            waiting[row["doc_id"]].append(row)
            jobs.setdefault(row["doc_id"], Job(row["doc_id"], text_to_name(row["blob"]), row["format"],
                                               {**_options(source, settings, row), "sha256": row["doc_id"]},
                                               _timeout(source, settings, row), rows=True))

    for job, outcome in run_jobs(jobs.values(), settings.limits, extractor):
        for row in waiting[job.key]:
            if outcome.error is not None:
                out.fail(row, outcome.error, outcome.seconds)
                continue
            out.stats.parsed += 1
            payload: DocPayload = outcome.result
            doc = report_to_row(_ref(row), payload.report, status="ok", error=None,
                                parser_version=out.version, parse_seconds=outcome.seconds)
            out.ok(row, doc, content_to_blocks_table(_ref(row), payload.blocks()))
    blocks, docs = out.tables()
    out.stats.seconds = time.monotonic() - started
    return blocks, docs, out.stats


def boilerplate_table(source: str, blocks: pa.Table, docs: pa.Table, settings: Settings,
                      errors: dict[str, str] | None = None) -> pa.Table:
    """Repeated texts of a source: running heads per document, and the template across HTML pages.
    A document whose repeats cannot be found keeps all its blocks; `errors` gets path -> why."""
    s = settings.boilerplate
    grouped = group_blocks(blocks)
    reports = {(r["doc_id"], r["path"]): r for r in docs.to_pylist() if r["status"] == "ok"}
    repeats: list[Repeat] = []
    html_docs = []
    for key, doc_blocks in grouped.items():
        row = reports.get(key)
        if row is None:
            continue
        if row["format"] == "html":
            html_docs.append((key[1], doc_blocks))
        elif row["pages"]:
            try:
                repeats.extend(blocks_to_page_repeats(key[0], doc_blocks, row["pages"], s))
            except Exception as exc:  # noqa: BLE001 - one document's bug costs its furniture removal only
                if errors is not None:
                    errors[key[1]] = f"running heads not searched ({type(exc).__name__}: {exc})"
    repeats.extend(docs_to_template_repeats(html_docs, s))
    rows = [{**asdict(r), "source": source, "seen_in": list(r.seen_in)} for r in repeats]
    return pa.Table.from_pylist(rows, schema=BOILERPLATE_SCHEMA)


def _repeats(table: pa.Table) -> list[Repeat]:
    cols = [f.name for f in BOILERPLATE_SCHEMA if f.name != "source"]
    return [Repeat(**{c: (tuple(r[c]) if c == "seen_in" else r[c]) for c in cols}) for r in table.to_pylist()]


def normalized_table(blocks: pa.Table, boilerplate: pa.Table, settings: Settings) -> pa.Table:
    """Every block after repetition removal and the normalisation pass; dropped ones stay, with a reason."""
    repeats = _repeats(boilerplate)
    page_repeats = [r for r in repeats if r.scope == "pages"]  # the site template applies to HTML only
    refs = {(r["doc_id"], r["path"]): DocRef(**r) for r in blocks.select(["source", "doc_id", "path", "format"]).to_pylist()}
    items: list[tuple[DocRef, Block]] = []
    for key, doc_blocks in group_blocks(blocks).items():
        ref = refs[key]
        try:
            kept = apply_repeats(ref.doc_id, doc_blocks, repeats if ref.format == "html" else page_repeats,
                                 settings.boilerplate)
            items.extend((ref, b) for b in normalize_blocks(kept, settings.normalize))
        except Exception as exc:  # noqa: BLE001 - the document keeps its parsed blocks, marked
            why = (STAGE_ERROR, f"normalisation: {type(exc).__name__}: {exc}")
            items.extend((ref, replace(b, meta=(*b.meta, why))) for b in doc_blocks)
    return blocks_to_table(items)


DOC_COLUMNS = ("source", "doc_id", "path", "format")
# meta key on the blocks of a document a later stage could not process (they stay as parsed).
STAGE_ERROR = "stage_error"
STAGE_FAILED_FLAG = "stage_failed"


def _stage_error(blocks: list[Block]) -> str | None:
    return blocks[0].get_meta(STAGE_ERROR) if blocks else None


def quality_table(raw: pa.Table, docs: pa.Table, normalized: pa.Table, source: Source, settings: Settings) -> tuple[pa.Table, Band | None]:
    """One row per document with its diagnostics, flags and status; and the source's band."""
    grouped = group_blocks(normalized)
    mismatch = {(r["doc_id"], r["path"]) for r in raw.to_pylist() if r["format_mismatch"]}
    rows = []
    for d in docs.to_pylist():
        try:
            rows.append(_quality_row(d, grouped.get((d["doc_id"], d["path"]), []), (d["doc_id"], d["path"]) in mismatch))
        except Exception as exc:  # noqa: BLE001 - one document's figures cannot cost the source its report
            rows.append({**{c: d.get(c) for c in DOC_COLUMNS}, "status": "failed", "flags": [STAGE_FAILED_FLAG],
                         "retention_ratio": None, "error": f"quality figures could not be computed ({type(exc).__name__}: {exc})"})
    ratios = [r["retention_ratio"] for r in rows if r["status"] == "ok" and r["retention_ratio"] is not None]
    band = band_for(source.retention_band, ratios, settings.quality)
    for r in rows:
        ratio = r["retention_ratio"]
        if band is not None and ratio is not None and ratio < band.low:
            r["flags"] = [*r["flags"], "below_retention_band"]
    return rows_to_table(rows, QUALITY_SCHEMA), band


def _quality_row(d: dict, blocks: list[Block], mismatch: bool) -> dict:
    """The quality_report row of one document from its parsed_documents row and normalised blocks."""
    report = row_to_report(d)
    row = {c: d.get(c) for c in QUALITY_SCHEMA.names if c in d}
    if d["status"] == "ok":
        row.update(document_figures(blocks, report))
        row["drop_counts"] = list(row["drop_counts"].items())
        if report.deletions or report.insertions or report.moves:
            report.flag("has_revisions")
        if (stage_error := _stage_error(blocks)) is not None:
            report.flag(STAGE_FAILED_FLAG)
            row["part_errors"] = [*(row.get("part_errors") or []), stage_error]
    else:
        row.update(kept_chars=0, retention_ratio=None, boilerplate_removed=0, drop_counts=[])
    if mismatch:
        report.flag("format_mismatch")
    row["flags"] = report.flags
    return row


def count_by(table: pa.Table, column: str) -> dict[str, int]:
    """Rows per value of a column (NULL as 'null')."""
    return dict(Counter("null" if v is None else str(v) for v in table.column(column).to_pylist()))
