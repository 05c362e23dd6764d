"""DOCX backend: python-docx opens the package, lxml reads every part's XML.

Body text is the "accept all changes" view (insertions and move destinations kept, deletions and
move sources removed); deleted text is still emitted as dropped `deleted_revision` blocks.
Block order: header parts, body (text boxes and deleted fragments right after their paragraph,
altChunk imports in their place), footer parts, footnotes, endnotes, comments. A part other than
the document part that cannot be read (a header, the footnotes, the numbering, a chart, an
equation, an imported chunk...) costs that part only: counted and flagged `broken_part`.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.office.altchunk import chunk_format, chunk_items
from docclean_assets.extract.office.docx_body import (
    M_T,
    TEXT_TAGS,
    W_DELTEXT,
    W_ID,
    BodyReader,
    Item,
    StyleMap,
    w,
)
from docclean_assets.extract.office.numbering import Numbering
from docclean_assets.extract.model import Block, DocReport, DropReason, Extraction, Kind, count_chars
from docclean_assets.extract.ocr.engine import OcrRun
from docclean_assets.extract.ocr.office import PictureText, blob_to_picture_text
from docclean_assets.extract.office.charts import ChartData, chart_to_data
from docclean_assets.extract.office.common import (
    iter_text_nodes,
    library_error,
    parse_xml,
    read_part,
    tidy,
    xml_int,
)
from docclean_assets.extract.office.package import Opened, open_package
from docclean_assets.extract.settings import Settings

_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_NOTE_SKIP_TYPES = frozenset({"separator", "continuationSeparator", "continuationNotice"})
# docProps/app.xml <Pages> above this is not a page count but garbage: ignored (0 = unknown), flagged.
MAX_PAGES = 1_000_000


def _root(part) -> etree._Element:
    element = getattr(part, "element", None)
    if element is not None:
        return element
    return parse_xml(part.blob)


def _name(part) -> str:
    """A part's member name in the package ('word/header1.xml')."""
    return str(part.partname).lstrip("/")


class _Emitter:
    """Blocks in final order; seq is the list position, so anchors are list indices."""

    def __init__(self, picture_text: Callable[[str], PictureText | None] | None = None) -> None:
        self.blocks: list[Block] = []
        self.picture_text = picture_text  # OCR of a body picture by relationship id (None: OCR off)
        self.comment_anchor: dict[str, int] = {}
        self.note_anchor: dict[tuple[str, str], int] = {}

    def add(self, kind: str, text: str, *, level=None, drop=None, anchor=None, meta=()) -> int:
        self.blocks.append(
            Block(kind=kind, text=text, seq=len(self.blocks), level=level, drop_reason=drop, anchor=anchor, meta=meta)
        )
        return len(self.blocks) - 1

    def item(self, item: Item, *, drop: str | None = None, kind: str | None = None, meta=()) -> None:
        """One container item, then its deleted fragments, its text boxes and its charts."""
        text = tidy(item.text)
        meta = (*meta, *item.meta)
        handle: int | None = None
        read = self._pictures(item) if drop is None else []
        if text:
            label = (("list_label", item.label),) if item.label else ()
            handle = self.add(kind or item.kind, text, level=item.level, drop=drop, meta=(*meta, *label))
        elif item.boxes or item.comments or item.notes or read:
            handle = self.add(kind or item.kind, "", level=item.level, drop=str(DropReason.EMPTY), meta=meta)
        for cid in item.comments:
            if handle is not None:
                self.comment_anchor.setdefault(cid, handle)
        for note in item.notes:
            if handle is not None:
                self.note_anchor.setdefault(note, handle)
        deleted = " ".join(t for t in (tidy(d) for d in item.deleted) if t)
        if deleted:
            self.add(Kind.PARAGRAPH, deleted, drop=str(DropReason.DELETED_REVISION), anchor=handle, meta=meta)
        for box in item.boxes:
            if drop is None:
                self.add(Kind.CALLOUT, box, anchor=handle, meta=meta)
            else:
                self.add(kind or Kind.PARAGRAPH, box, drop=drop, anchor=handle, meta=meta)
        for chart in item.charts:
            if not chart.table:
                self.add(Kind.IMAGE_TEXT, chart.caption, drop=drop, anchor=handle, meta=meta)
                continue
            # The caption refers to the table right after it.
            self.add(Kind.CAPTION, chart.caption, drop=drop, anchor=len(self.blocks) + 1, meta=meta)
            self.add(Kind.TABLE, chart.table, drop=drop, meta=meta)
        for found in read:
            self.add(Kind.IMAGE_TEXT, found.text, anchor=handle, meta=meta + found.meta())

    def _pictures(self, item: Item) -> list[PictureText]:
        """What OCR reads in the item's pictures (none when OCR is off)."""
        if self.picture_text is None:
            return []
        return [t for t in (self.picture_text(rid) for rid in item.pictures) if t is not None]


def _related(document, reltype: str) -> list:
    return [r.target_part for r in document.part.rels.values() if not r.is_external and r.reltype == _RT + reltype]


def _header_footer_parts(document, body: etree._Element, kind: str) -> list:
    """Header or footer parts in the order the sections reference them, then any unreferenced."""
    rels = document.part.rels
    ordered: list = []
    for ref in body.iter(w(f"{kind}Reference")):
        rid = ref.get(_R_ID)
        rel = rels.get(rid) if rid else None
        if rel is not None and not rel.is_external and rel.target_part not in ordered:
            ordered.append(rel.target_part)
    for part in _related(document, kind):
        if part not in ordered:
            ordered.append(part)
    return ordered


def _target(opened: Opened, part, rid: str, what: str, report: DocReport, reltype: str = ""):
    """The part a relationship id of `part` points to (of a type ending in `reltype`); None when it
    is external or of another type, or when it is missing or was set aside (a failed part, reported
    once)."""
    rel = part.rels.get(rid) if rid else None
    if rel is None:
        if not opened.dangles(part, rid):  # a missing part is reported as such, once
            report.part_failed(f"{_name(part)} {what} {rid or '(no id)'}", "its relationship names no part")
        return None
    if rel.is_external or not rel.reltype.endswith(reltype) or opened.unreadable(rel.target_part):
        return None
    return rel.target_part


def _chart_reader(opened: Opened, part, seen: list[ChartData], report: DocReport) -> Callable[[str], ChartData | None]:
    """Relationship id of `part` -> the data of the chart part it points to (None when it is no
    chart or cannot be read, a failed part: the chart then stays only counted); read charts are added
    to `seen`."""

    def read(rid: str) -> ChartData | None:
        target = _target(opened, part, rid, "chart", report, "/chart")
        if target is None:
            return None
        data = read_part(report, _name(target), lambda: chart_to_data(parse_xml(target.blob), report))
        if data is not None:
            seen.append(data)
        return data

    return read


def _chunk_reader(opened: Opened, part, report: DocReport) -> Callable[[str], list[Item] | None]:
    """Relationship id of an altChunk in `part` -> the items it imports; None when its format is not
    read (RTF, another package, an external link); [] when it could not be read (a failed part)."""

    def read(rid: str) -> list[Item] | None:
        rel = part.rels.get(rid) if rid else None
        if rel is not None and rel.is_external:
            return None
        target = _target(opened, part, rid, "altChunk", report)
        if target is None:
            return []
        fmt = chunk_format(target.content_type, target.blob)
        if fmt is None:
            return None
        name = _name(target)
        return read_part(report, name, lambda: chunk_items(target.blob, fmt, name)) or []

    return read


def _page_count(document, report: DocReport) -> int:
    """Pages as last saved by the editor (docProps/app.xml), 0 when unknown or implausible."""
    try:
        for part in document.part.package.iter_parts():
            if str(part.partname) == "/docProps/app.xml":
                m = re.search(rb"<(?:\w+:)?Pages>([^<]*)<", part.blob)
                value = m.group(1).decode("latin-1") if m else None
                return xml_int(value, 0, MAX_PAGES, 0, report, clamp=False) or 0
    except Exception:  # metadata only; never fail the document for it
        return 0
    return 0


def _raw_chars(roots: list[etree._Element]) -> int:
    tags = frozenset(TEXT_TAGS | {W_DELTEXT, M_T})
    return sum(count_chars(el.text or "") for root in roots for el in iter_text_nodes(root, tags))


def extract_docx(data: bytes, settings: Settings, ocr: OcrRun | None = None) -> Extraction:
    """See `_extract_docx`; a package that makes the OOXML library itself fail is refused with its error."""
    try:
        return _extract_docx(data, settings, ocr)
    except ExtractionError:
        raise
    except Exception as exc:
        refused = library_error("docx", exc)
        if refused is None:
            raise
        raise refused from exc


def _body_picture_reader(opened: Opened, ocr: OcrRun | None,
                         report: DocReport) -> Callable[[str], PictureText | None] | None:
    """OCR of the body's pictures by relationship id, or None when OCR is off; a picture that
    cannot be decoded is a failed part."""
    if ocr is None:
        return None
    part = opened.doc.part

    def read(rid: str) -> PictureText | None:
        target = _target(opened, part, rid, "picture", report)
        if target is None:
            return None
        return read_part(report, _name(target), lambda: blob_to_picture_text(target.blob, ocr))

    return read


def _first(document, reltype: str, report: DocReport) -> tuple[etree._Element | None, str]:
    """The root and name of the document's first part of `reltype` (styles, numbering); no root when
    it has none or it cannot be read (a failed part)."""
    parts = _related(document, reltype)
    if not parts:
        return None, ""
    return read_part(report, _name(parts[0]), lambda: _root(parts[0])), _name(parts[0])


class _Reading:
    """One document being read: its package, reader, emitter and report."""

    def __init__(self, opened: Opened, report: DocReport, ocr: OcrRun | None) -> None:
        self.opened = opened
        self.document = opened.doc
        self.report = report
        styles_root, styles_name = _first(self.document, "styles", report)
        numbering_root, numbering_name = _first(self.document, "numbering", report)
        styles = read_part(report, styles_name, lambda: StyleMap(styles_root, report)) or StyleMap(None)
        self.numbering = read_part(report, numbering_name or styles_name,
                                   lambda: Numbering(numbering_root, styles_root, report)) or Numbering(None, None)
        self.charts: list[ChartData] = []
        self.reader = BodyReader(styles, self.numbering, report=report)
        self.out = _Emitter(_body_picture_reader(opened, ocr, report))
        self.roots: list[etree._Element] = []

    def part(self, part, *, charts: bool = True) -> etree._Element:
        """Point the reader at `part` (its name, charts and chunks) and return its root (raises when
        it cannot be parsed: the caller's read_part counts the part)."""
        self.reader.part = _name(part)
        self.reader.chart = _chart_reader(self.opened, part, self.charts, self.report) if charts else None
        self.reader.chunk = _chunk_reader(self.opened, part, self.report)
        root = _root(part)
        self.roots.append(root)
        return root

    def items(self, part, container: Callable[[etree._Element], list] | None = None, **kw) -> list:
        """What `container` (default: the reader's) reads in `part`; [] when the part cannot be read."""
        read = container or self.reader.container
        return read_part(self.report, _name(part), lambda: read(self.part(part, **kw))) or []

    def header_footer(self, body: etree._Element, kind: str) -> None:
        self.reader.numbering = None  # running heads never advance the body's list counters
        for part in _header_footer_parts(self.document, body, kind):
            for item in self.items(part):
                self.out.item(item, drop=str(DropReason.HEADER_FOOTER), kind=Kind.PARAGRAPH, meta=(("part", kind),))

    def notes(self, note_kind: str) -> int:
        """Footnotes or endnotes; how many have text."""
        count = 0
        for part in _related(self.document, f"{note_kind}s"):
            for nid, text in self.items(part, lambda root, k=note_kind: self._entries(root, k), charts=False):
                count += 1
                meta = (("note", note_kind), ("id", nid))
                self.out.add(Kind.FOOTNOTE, text, anchor=self.out.note_anchor.get((note_kind, nid)), meta=meta)
        return count

    def comments(self) -> int:
        """Reviewer comments; how many have text."""
        count = 0
        for part in _related(self.document, "comments"):
            for (cid, author), text in self.items(part, lambda root: self._entries(root, "comment"), charts=False):
                count += 1
                anchor = self.out.comment_anchor.get(cid)
                self.out.add(Kind.COMMENT, text, anchor=anchor, meta=(("author", author),))
        return count

    def _entries(self, root: etree._Element, tag: str) -> list[tuple]:
        """(key, text) of each w:footnote / w:endnote (key: its id) or w:comment (key: id, author)."""
        out = []
        for el in root.iter(w(tag)):
            if tag != "comment" and el.get(w("type")) in _NOTE_SKIP_TYPES:
                continue
            text = "\n".join(t for t in (tidy(i.text) for i in self.reader.container(el)) if t)
            if text:
                key = el.get(W_ID, "") if tag != "comment" else (el.get(W_ID, ""), el.get(w("author"), ""))
                out.append((key, text))
        return out


def _extract_docx(data: bytes, settings: Settings, ocr: OcrRun | None = None) -> Extraction:
    """Blocks of a DOCX in reading order, with revision, comment and object counts; with `ocr`, the
    text of body pictures follows the paragraph anchoring them as image_text."""
    opened = open_package(data, "docx", settings.limits)  # no DOCX layout threshold; only the package limits apply
    report = DocReport(format="docx")
    opened.to_report(report)
    document = opened.doc
    root = document.part.element
    body = root.find(w("body"))
    if body is None:
        raise ExtractionError("docx: document part has no w:body")
    doc = _Reading(opened, report, ocr)
    doc.header_footer(body, "header")
    doc.reader.numbering = doc.numbering
    doc.part(document.part)
    for item in doc.reader.container(body):  # the document part: if it cannot be read, neither can the document
        doc.out.item(item)
    doc.header_footer(body, "footer")
    doc.reader.numbering = doc.numbering
    notes = doc.notes("footnote") + doc.notes("endnote")
    comments = doc.comments()
    return _extraction(doc, report, notes, comments, ocr)


def _extraction(doc: _Reading, report: DocReport, notes: int, comments: int, ocr: OcrRun | None) -> Extraction:
    """The blocks and the report, with the counts gathered while reading."""
    c = doc.reader.counts
    chunk_chars = sum(count_chars(b.text) for b in doc.out.blocks if b.get_meta("alt_chunk"))
    report.pages = _page_count(doc.document, report)
    report.raw_chars = _raw_chars(doc.roots) + sum(chart.chars for chart in doc.charts) + chunk_chars
    report.footnotes = notes
    report.deletions, report.insertions = c.deletions, c.insertions
    report.moves = max(c.move_from, c.move_to)
    report.comment_refs = c.comment_refs
    report.embedded_objects = c.embedded_objects + c.alt_chunks_unread
    report.picture_shapes = c.picture_shapes
    if c.deletions + c.insertions + report.moves > 0:
        report.flag("has_revisions")
    if comments:
        report.flag("has_comments")
    if c.text_boxes:
        report.flag("has_text_boxes")
    if c.alt_chunks_unread:
        report.flag("alt_chunk_unread")
    if ocr is not None:
        ocr.to_report(report, report.raw_chars)
    trace = {"text_boxes": c.text_boxes, "comments": comments, "parts": len(doc.roots), "alt_chunks": c.alt_chunks}
    return Extraction(blocks=doc.out.blocks, report=report, trace=trace)
