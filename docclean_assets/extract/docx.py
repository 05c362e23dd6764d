"""DOCX backend: python-docx opens the package, lxml reads every part's XML.

Body text is the "accept all changes" view (insertions and move destinations kept, deletions and
move sources removed); deleted text is still emitted as dropped `deleted_revision` blocks.
Block order: header parts, body (text boxes and deleted fragments right after their paragraph),
footer parts, footnotes, endnotes, comments.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable

from lxml import etree

from docclean_assets.extract.docx_body import (
    M_T,
    TEXT_TAGS,
    W_DELTEXT,
    W_ID,
    BodyReader,
    Item,
    StyleMap,
    w,
)
from docclean_assets.extract.docx_numbering import Numbering
from docclean_assets.extract.model import Block, DocReport, DropReason, Extraction, Kind, count_chars
from docclean_assets.extract.office_charts import ChartData, chart_to_data
from docclean_assets.extract.ocr import OcrRun
from docclean_assets.extract.ocr_office import PictureText, blob_to_picture_text
from docclean_assets.extract.office_common import library_error, check_package, extraction_error, iter_text_nodes, parse_xml, tidy
from docclean_assets.extract.settings import LimitSettings, Settings

_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_NOTE_SKIP_TYPES = frozenset({"separator", "continuationSeparator", "continuationNotice"})


def _root(part) -> etree._Element:
    element = getattr(part, "element", None)
    if element is not None:
        return element
    return parse_xml(part.blob)


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


def _open(data: bytes, limits: LimitSettings):
    check_package(data, "docx", limits)
    try:
        import docx  # python-docx

        return docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many types for a broken package
        raise extraction_error(f"docx: unreadable package ({type(exc).__name__}: {exc})") from exc


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


def _chart_reader(part, seen: list[ChartData]) -> Callable[[str], ChartData | None]:
    """Relationship id of `part` -> the data of the chart part it points to (None when it is no
    chart or cannot be read: the chart then stays only counted); read charts are added to `seen`."""

    def read(rid: str) -> ChartData | None:
        rel = part.rels.get(rid) if rid else None
        if rel is None or rel.is_external or not rel.reltype.endswith("/chart"):
            return None
        try:
            data = chart_to_data(parse_xml(rel.target_part.blob))
        except Exception:  # a broken chart part loses only the chart's data
            return None
        seen.append(data)
        return data

    return read


def _page_count(document) -> int:
    """Pages as last saved by the editor (docProps/app.xml), 0 when unknown."""
    try:
        for part in document.part.package.iter_parts():
            if str(part.partname) == "/docProps/app.xml":
                m = re.search(rb"<(?:\w+:)?Pages>(\d+)<", part.blob)
                return int(m.group(1)) if m else 0
    except Exception:  # metadata only; never fail the document for it
        return 0
    return 0


def _raw_chars(roots: list[etree._Element]) -> int:
    tags = frozenset(TEXT_TAGS | {W_DELTEXT, M_T})
    return sum(count_chars(el.text or "") for root in roots for el in iter_text_nodes(root, tags))


def extract_docx(data: bytes, settings: Settings, ocr: OcrRun | None = None) -> Extraction:
    """See `_extract_docx`; a package that makes the OOXML library itself fail is refused with its error."""
    from docclean_assets.extract.api import ExtractionError

    try:
        return _extract_docx(data, settings, ocr)
    except ExtractionError:
        raise
    except Exception as exc:
        refused = library_error("docx", exc)
        if refused is None:
            raise
        raise refused from exc


def _body_picture_reader(document, ocr: OcrRun | None) -> Callable[[str], PictureText | None] | None:
    """OCR of the body's pictures by relationship id, or None when OCR is off."""
    if ocr is None:
        return None

    def read(rid: str) -> PictureText | None:
        try:
            blob = document.part.related_parts[rid].blob
        except Exception:  # a missing or external image: nothing to read
            return None
        return blob_to_picture_text(blob, ocr)

    return read


def _extract_docx(data: bytes, settings: Settings, ocr: OcrRun | None = None) -> Extraction:
    """Blocks of a DOCX in reading order, with revision, comment and object counts; with `ocr`, the
    text of body pictures follows the paragraph anchoring them as image_text."""
    document = _open(data, settings.limits)  # no DOCX layout threshold; only the package limits apply
    root = document.part.element
    body = root.find(w("body"))
    if body is None:
        raise extraction_error("docx: document part has no w:body")
    styles_parts = _related(document, "styles")
    styles = StyleMap(_root(styles_parts[0]) if styles_parts else None)
    numbering_parts = _related(document, "numbering")
    numbering = Numbering(_root(numbering_parts[0]) if numbering_parts else None,
                          _root(styles_parts[0]) if styles_parts else None)
    charts: list[ChartData] = []
    reader = BodyReader(styles, numbering, _chart_reader(document.part, charts))
    out = _Emitter(_body_picture_reader(document, ocr))
    roots = [root]
    hf_drop = str(DropReason.HEADER_FOOTER)

    def header_footer(kind: str) -> None:
        reader.numbering = None  # running heads never advance the body's list counters
        for part in _header_footer_parts(document, body, kind):
            reader.chart = _chart_reader(part, charts)
            part_root = _root(part)
            roots.append(part_root)
            meta = (("part", kind),)
            for item in reader.container(part_root):
                out.item(item, drop=hf_drop, kind=Kind.PARAGRAPH, meta=meta)

    header_footer("header")
    reader.numbering, reader.chart = numbering, _chart_reader(document.part, charts)
    for item in reader.container(body):
        out.item(item)
    header_footer("footer")
    reader.numbering = numbering
    reader.chart = None  # note and comment parts have relationship ids of their own: charts there stay counted only

    notes = 0
    for note_kind in ("footnote", "endnote"):
        for part in _related(document, f"{note_kind}s"):
            part_root = _root(part)
            roots.append(part_root)
            for note in part_root.iter(w(note_kind)):
                if note.get(w("type")) in _NOTE_SKIP_TYPES:
                    continue
                nid = note.get(W_ID, "")
                items = reader.container(note)
                text = "\n".join(t for t in (tidy(i.text) for i in items) if t)
                if not text:
                    continue
                notes += 1
                out.add(
                    Kind.FOOTNOTE,
                    text,
                    anchor=out.note_anchor.get((note_kind, nid)),
                    meta=(("note", note_kind), ("id", nid)),
                )

    comments = 0
    for part in _related(document, "comments"):
        part_root = _root(part)
        roots.append(part_root)
        for comment in part_root.iter(w("comment")):
            items = reader.container(comment)
            text = "\n".join(t for t in (tidy(i.text) for i in items) if t)
            if not text:
                continue
            comments += 1
            out.add(
                Kind.COMMENT,
                text,
                anchor=out.comment_anchor.get(comment.get(W_ID, "")),
                meta=(("author", comment.get(w("author"), "")),),
            )

    c = reader.counts
    report = DocReport(
        format="docx",
        pages=_page_count(document),
        raw_chars=_raw_chars(roots) + sum(chart.chars for chart in charts),
        footnotes=notes,
        deletions=c.deletions,
        insertions=c.insertions,
        moves=max(c.move_from, c.move_to),
        comment_refs=c.comment_refs,
        embedded_objects=c.embedded_objects,
        picture_shapes=c.picture_shapes,
    )
    if c.deletions + c.insertions + report.moves > 0:
        report.flag("has_revisions")
    if comments:
        report.flag("has_comments")
    if c.text_boxes:
        report.flag("has_text_boxes")
    if ocr is not None:
        ocr.to_report(report, report.raw_chars)
    trace = {"text_boxes": c.text_boxes, "comments": comments, "parts": len(roots)}
    return Extraction(blocks=out.blocks, report=report, trace=trace)
