"""WordprocessingML at the XML level: paragraph text from every run, revisions, tables, styles.

`BodyReader.container(el)` turns any block container (w:body, a header or footer part, a table
cell, a text box, a comment, a footnote) into `Item`s: one per paragraph or table, each carrying
the current ("accept all changes") text plus what hangs off it: deleted fragments, text boxes,
comment ids and note references found inside it.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from docclean_assets.extract.office.numbering import MAX_LEVELS, Numbering
from docclean_assets.extract.model import DocReport
from docclean_assets.extract.office.charts import ChartData
from docclean_assets.extract.office.common import (
    A_NS, C_NS, M_NS, MC_ALTERNATE, R_NS, STYLE_CHAIN_MAX, alternate_branch, clamped, markdown_table, read_part,
    tidy, w, xml_int,
)
from docclean_assets.extract.office.math import MATH_ROOTS, omml_to_text

V_NS = "urn:schemas-microsoft-com:vml"
O_NS = "urn:schemas-microsoft-com:office:office"
PIC_NS = "http://schemas.openxmlformats.org/drawingml/2006/picture"


W_P, W_TBL, W_TR, W_TC, W_T, W_DELTEXT = w("p"), w("tbl"), w("tr"), w("tc"), w("t"), w("delText")
W_INS, W_DEL, W_MOVEFROM, W_MOVETO = w("ins"), w("del"), w("moveFrom"), w("moveTo")
W_PPR, W_RPR, W_TRPR, W_TCPR, W_VAL = w("pPr"), w("rPr"), w("trPr"), w("tcPr"), w("val")
W_SDT, W_SDTCONTENT, W_CUSTOMXML, W_TXBX = w("sdt"), w("sdtContent"), w("customXml"), w("txbxContent")
W_ID, W_ALTCHUNK = w("id"), w("altChunk")
R_ID = f"{{{R_NS}}}id"
M_T = f"{{{M_NS}}}t"
TEXT_TAGS = frozenset({W_T, W_DELTEXT, M_T})
_SKIP = frozenset(
    w(n) for n in ("pPr", "rPr", "sdtPr", "sdtEndPr", "instrText", "delInstrText", "fldChar", "tblPr", "tblGrid",
                   "trPr", "tcPr", "footnoteRef", "endnoteRef", "annotationRef", "separator",
                   "continuationSeparator", "lastRenderedPageBreak", "softHyphen")
) | {f"{{{M_NS}}}rPr", f"{{{M_NS}}}ctrlPr"}
_BREAKS = frozenset({w("br"), w("cr")})
_TABS = frozenset({w("tab"), w("ptab")})
_COMMENT_MARKS = frozenset({w("commentRangeStart"), w("commentReference")})
_NOTE_REFS = {w("footnoteReference"): "footnote", w("endnoteReference"): "endnote"}
_PICTURES = frozenset({f"{{{PIC_NS}}}pic", f"{{{V_NS}}}imagedata"})
W_OBJECT, O_OLE, C_CHART = w("object"), f"{{{O_NS}}}OLEObject", f"{{{C_NS}}}chart"

_HEADING_NAME = re.compile(
    r"^(?:heading|überschrift|titre|t[ií]tulo|titolo|kop|nagłówek|заголовок|rubrik|otsikko|overskrift)\s*(\d)$"
)
_CODE_NAMES = frozenset({"html preformatted", "macro text", "source code", "code", "preformatted text"})
# Widest table grid, columns: Word's own limit is 63. A gridSpan, gridBefore or gridAfter never pads
# a row past the table's w:tblGrid, nor past this when the grid is missing or wider.
TABLE_MAX_COLUMNS = 63
# w:outlineLvl runs 0-8 for headings; 9 is body text.
_OUTLINE_BODY = 9


@dataclass
class Counts:
    """Report counters gathered while reading."""

    deletions: int = 0
    insertions: int = 0
    move_from: int = 0
    move_to: int = 0
    comment_refs: int = 0
    embedded_objects: int = 0
    picture_shapes: int = 0
    text_boxes: int = 0
    alt_chunks: int = 0  # w:altChunk imports (HTML, text, MHT, RTF, another package...)
    alt_chunks_unread: int = 0  # of which in a format that is not read (RTF, an embedded package)


@dataclass
class Item:
    """One paragraph or table of a container, with what hangs off it."""

    kind: str
    text: str = ""
    level: int | None = None
    plain: str | None = None  # a table's text without Markdown, for a table nested in a cell
    deleted: list[str] = field(default_factory=list)
    boxes: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    mark_deleted: bool = False
    num: tuple[str, int] | None = None  # (numId, ilvl) of a numbered paragraph
    label: str | None = None  # its rendered list label ("1.", "a)", bullet)
    charts: list[ChartData] = field(default_factory=list)  # charts drawn in this paragraph
    pictures: list[str] = field(default_factory=list)  # relationship ids of the images drawn in it
    meta: tuple[tuple[str, str], ...] = ()  # where it came from, when not the part itself (an altChunk)

    def absorb(self, other: Item) -> None:
        """Take over another item's attachments (a cell's or a text box's)."""
        self.deleted += other.deleted
        self.boxes += other.boxes
        self.comments += other.comments
        self.notes += other.notes
        self.charts += other.charts
        self.pictures += other.pictures


class _Acc:
    """Inline accumulator: current text, deleted fragments (contiguous deletions join)."""

    def __init__(self) -> None:
        self.item = Item("paragraph")
        self.parts: list[str] = []
        self._del_open = False

    def add(self, text: str, deleted: bool) -> None:
        if not text:
            return
        if deleted:
            if self._del_open:
                self.item.deleted[-1] += text
            else:
                self.item.deleted.append(text)
                self._del_open = True
        else:
            self.parts.append(text)
            self._del_open = False


def _val(el: etree._Element | None, default: str | None = None) -> str | None:
    return default if el is None else el.get(W_VAL, default)


@dataclass(frozen=True)
class _StyleInfo:
    kind: str = "paragraph"
    level: int | None = None
    list_ilvl: int | None = None  # set when the style makes a list paragraph


class StyleMap:
    """Paragraph styles: resolves the basedOn chain to a block kind."""

    def __init__(self, root: etree._Element | None, report: DocReport | None = None) -> None:
        self.report = report  # flagged value_clamped when a level is out of range
        self._styles: dict[str, tuple[str, str | None, int | None, int | None]] = {}
        self.default: str | None = None
        self._cache: dict[str | None, _StyleInfo] = {}
        if root is None:
            return
        for st in root.iter(w("style")):
            if st.get(w("type"), "paragraph") != "paragraph":
                continue
            sid = st.get(w("styleId"))
            if sid is None:
                continue
            name = (_val(st.find(w("name"))) or sid).strip().lower()
            based = _val(st.find(w("basedOn")))
            ppr = st.find(W_PPR)
            outline = ilvl = None
            if ppr is not None:
                ol = ppr.find(w("outlineLvl"))
                outline = self._outline(ol) if ol is not None else None
                num = ppr.find(w("numPr"))
                if num is not None and _val(num.find(w("numId"))) != "0":
                    ilvl = self._ilvl(num.find(w("ilvl")), 0)
            self._styles[sid] = (name, based, outline, ilvl)
            if st.get(w("default")) in ("1", "true", "on"):
                self.default = sid

    def _outline(self, el: etree._Element) -> int:
        """A w:outlineLvl: 0-8 a heading level, 9 (or anything out of range) body text."""
        level = xml_int(_val(el), 0, _OUTLINE_BODY, _OUTLINE_BODY, self.report, clamp=False)
        return level  # type: ignore[return-value]

    def _ilvl(self, el: etree._Element | None, default: int) -> int:
        """A w:ilvl list level, 0-8."""
        return xml_int(_val(el), 0, MAX_LEVELS - 1, default, self.report)  # type: ignore[return-value]

    def classify(self, sid: str | None) -> _StyleInfo:
        """Kind and level of a paragraph style, following basedOn; the closest decisive style wins."""
        if sid in self._cache:
            return self._cache[sid]
        info = self._classify(sid)
        self._cache[sid] = info
        return info

    def _classify(self, sid: str | None) -> _StyleInfo:
        list_ilvl: int | None = None
        seen: set[str] = set()
        while sid is not None and sid not in seen and len(seen) < STYLE_CHAIN_MAX:
            seen.add(sid)
            name, based, outline, ilvl = self._styles.get(sid, (sid.lower(), None, None, None))
            m = _HEADING_NAME.match(name)
            if m and m.group(1) != "0":
                return _StyleInfo("heading", int(m.group(1)))
            if name == "title":
                return _StyleInfo("title")
            if name == "subtitle":
                return _StyleInfo("paragraph")
            if name == "caption":
                return _StyleInfo("caption")
            if name in _CODE_NAMES:
                return _StyleInfo("code")
            if outline is not None and outline < _OUTLINE_BODY:
                return _StyleInfo("heading", outline + 1)
            if list_ilvl is None and (ilvl is not None or name.startswith("list")):
                list_ilvl = ilvl or 0
            sid = based
        return _StyleInfo("paragraph", list_ilvl=list_ilvl)

    def paragraph_kind(self, p: etree._Element) -> tuple[str, int | None]:
        """Kind and level of one w:p from its style, direct outline level and numbering."""
        ppr = p.find(W_PPR)
        sid = _val(ppr.find(w("pStyle"))) if ppr is not None else None
        info = self.classify(sid if sid is not None else self.default)
        if info.kind != "paragraph":
            return info.kind, info.level
        if ppr is not None:
            ol = ppr.find(w("outlineLvl"))
            outline = self._outline(ol) if ol is not None else _OUTLINE_BODY
            if outline < _OUTLINE_BODY:
                return "heading", outline + 1
            num = ppr.find(w("numPr"))
            if num is not None:
                num_id = _val(num.find(w("numId")))
                if num_id == "0":
                    return "paragraph", None
                if num_id is not None or num.find(w("ilvl")) is not None:
                    return "list_item", self._ilvl(num.find(w("ilvl")), info.list_ilvl or 0) + 1
        if info.list_ilvl is not None:
            return "list_item", info.list_ilvl + 1
        return "paragraph", None


def _picture_rid(el: etree._Element) -> str | None:
    """The relationship id of the image a pic:pic (a:blip r:embed) or v:imagedata (r:id) shows."""
    if el.tag == f"{{{V_NS}}}imagedata":
        return el.get(f"{{{R_NS}}}id")
    blip = el.find(f".//{{{A_NS}}}blip")
    return blip.get(f"{{{R_NS}}}embed") if blip is not None else None


_HEX = re.compile(r"[0-9A-Fa-f]{1,8}")


def _sym(el: etree._Element, report: DocReport) -> str:
    """The character of a w:sym (hex code point); symbol-font private-use glyphs have no Unicode
    meaning, and a code that is no Unicode scalar value gives nothing (flagged value_clamped)."""
    code = el.get(w("char"))
    if code is None:
        return ""
    if _HEX.fullmatch(code.strip()) is None:
        clamped(report)
        return ""
    cp = int(code, 16)
    if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        clamped(report)
        return ""
    if cp == 0 or 0xE000 <= cp <= 0xF8FF:
        return ""
    return chr(cp)


class BodyReader:
    """Reads containers of one document with shared styles and counters."""

    def __init__(self, styles: StyleMap, numbering: Numbering | None = None,
                 chart: Callable[[str], ChartData | None] | None = None, report: DocReport | None = None) -> None:
        self.styles = styles
        self.numbering = numbering  # None: no list labels (set to None while reading headers/footers)
        self.chart = chart  # relationship id (of the part being read) -> the chart's data, or None
        # relationship id of an altChunk (of the part being read) -> its items; None when its format
        # is not read (counted); [] when it could not be read (a failed part, reported by the callee)
        self.chunk: Callable[[str], list[Item] | None] | None = None
        self.part = "word/document.xml"  # the part being read, for the failures of its equations
        self.report = report if report is not None else DocReport()
        self.counts = Counts()
        self._in_object = 0

    # ---------------------------------------------------------------- blocks
    def _blocks(self, el: etree._Element, deleted: bool):
        """Block-level children (w:p, w:tbl), unwrapping content controls and revision wrappers."""
        for child in el:
            tag = child.tag
            if tag == W_P or tag == W_TBL or tag == W_ALTCHUNK:
                yield child, deleted
            elif tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML, W_INS, W_MOVETO):
                yield from self._blocks(child, deleted)
            elif tag in (W_DEL, W_MOVEFROM):
                yield from self._blocks(child, True)
            elif tag == MC_ALTERNATE:
                branch = alternate_branch(child)
                if branch is not None:
                    yield from self._blocks(branch, deleted)

    def container(self, el: etree._Element, deleted: bool = False) -> list[Item]:
        """Items of a block container; a paragraph whose mark was deleted merges into the next."""
        items: list[Item] = []
        pending: Item | None = None
        for child, is_deleted in self._blocks(el, deleted):
            if child.tag == W_P:
                item = self.paragraph(child, is_deleted)
                if pending is not None:
                    item = _merge(pending, item)
                    pending = None
                if item.mark_deleted and not is_deleted:
                    pending = item
                    continue
                items.append(self._labelled(item))
            else:
                if pending is not None:
                    items.append(pending)
                    pending = None
                if child.tag == W_TBL:
                    items.append(self.table(child, is_deleted))
                else:
                    items += self._alt_chunk(child)
        if pending is not None:
            items.append(self._labelled(pending))
        return items

    def _alt_chunk(self, el: etree._Element) -> list[Item]:
        """The items an altChunk imports at its place (none when its format is not read: counted)."""
        self.counts.alt_chunks += 1
        items = self.chunk(el.get(R_ID, "")) if self.chunk is not None else None
        if items is None:
            self.counts.alt_chunks_unread += 1
            return []
        return items

    def _labelled(self, item: Item) -> Item:
        """A numbered paragraph of the current text with its list label rendered in front."""
        if item.num is not None and self.numbering is not None:
            label = self.numbering.label(*item.num)
            if label:
                item.label = label
                if item.text.strip():
                    item.text = f"{label} {item.text.lstrip()}"
        return item

    # ---------------------------------------------------------------- paragraphs
    def paragraph(self, p: etree._Element, deleted: bool) -> Item:
        """One w:p: current text of all runs, deleted fragments and attachments."""
        acc = _Acc()
        self._walk(p, acc, deleted)
        item = acc.item
        item.text = "".join(acc.parts)
        item.kind, item.level = self.styles.paragraph_kind(p)
        if self.numbering is not None and not deleted:
            item.num = self.numbering.paragraph_num(p)
        rpr = p.find(f"{W_PPR}/{W_RPR}")
        if rpr is not None and (rpr.find(W_DEL) is not None or rpr.find(W_MOVEFROM) is not None):
            item.mark_deleted = True
        return item

    def _walk(self, el: etree._Element, acc: _Acc, deleted: bool) -> None:
        c = self.counts
        for child in el:
            tag = child.tag
            if not isinstance(tag, str):
                continue
            if tag == W_T or tag == M_T:
                acc.add(child.text or "", deleted)
            elif tag == W_DELTEXT:
                acc.add(child.text or "", True)
            elif tag in _SKIP:
                continue
            elif tag == W_DEL or tag == W_MOVEFROM:
                if len(child):
                    if tag == W_DEL:
                        c.deletions += 1
                    else:
                        c.move_from += 1
                self._walk(child, acc, True)
            elif tag == W_INS or tag == W_MOVETO:
                if len(child):
                    if tag == W_INS:
                        c.insertions += 1
                    else:
                        c.move_to += 1
                self._walk(child, acc, deleted)
            elif tag in _TABS:
                acc.add("\t", deleted)
            elif tag in _BREAKS:
                acc.add("\n", deleted)
            elif tag == w("noBreakHyphen"):
                acc.add("-", deleted)
            elif tag == w("sym"):
                acc.add(_sym(child, self.report), deleted)
            elif tag in MATH_ROOTS:
                acc.add(self._equation(child), deleted)
            elif tag == W_TXBX:
                self._text_box(child, acc, deleted)
            elif tag == MC_ALTERNATE:
                branch = alternate_branch(child)
                if branch is not None:
                    self._walk(branch, acc, deleted)
            elif tag in _COMMENT_MARKS:
                if tag == w("commentReference"):
                    c.comment_refs += 1
                cid = child.get(W_ID)
                if cid is not None:
                    acc.item.comments.append(cid)
            elif tag in _NOTE_REFS:
                nid = child.get(W_ID)
                if nid is not None:
                    acc.item.notes.append((_NOTE_REFS[tag], nid))
            elif tag in _PICTURES:
                c.picture_shapes += 1
                rid = _picture_rid(child)
                if rid and not deleted:
                    acc.item.pictures.append(rid)
            elif tag == W_OBJECT:
                c.embedded_objects += 1
                self._in_object += 1
                try:
                    self._walk(child, acc, deleted)
                finally:
                    self._in_object -= 1
            elif tag == O_OLE:
                if not self._in_object:
                    c.embedded_objects += 1
            elif tag == C_CHART:
                c.embedded_objects += 1
                data = self.chart(child.get(R_ID, "")) if self.chart is not None and not deleted else None
                if data is not None:
                    acc.item.charts.append(data)
            elif tag == W_P:  # a paragraph where runs were expected: keep its text on its own line
                self._walk(child, acc, deleted)
                acc.add("\n", deleted)
            else:
                self._walk(child, acc, deleted)

    def _equation(self, el: etree._Element) -> str:
        """An equation's linear text; one that cannot be read (nested too deep) costs itself only."""
        return read_part(self.report, f"{self.part} (equation)", lambda: omml_to_text(el)) or ""

    def _text_box(self, box: etree._Element, acc: _Acc, deleted: bool) -> None:
        self.counts.text_boxes += 1
        items = self.container(box, deleted)
        text = "\n".join(t for t in (tidy(i.text) for i in items) if t)
        if deleted:
            acc.add(text, True)
        elif text:
            acc.item.boxes.append(text)
        for i in items:
            acc.item.absorb(i)

    # ---------------------------------------------------------------- tables
    def _kids(self, el: etree._Element, tag: str):
        for child in el:
            if child.tag == tag:
                yield child
            elif child.tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML):
                yield from self._kids(child, tag)

    def table(self, tbl: etree._Element, deleted: bool) -> Item:
        """A w:tbl as a Markdown table; merged cells keep their text in the first grid position only."""
        item = Item("table")
        rows: list[list[str]] = []
        width = _grid_width(tbl)
        for tr in self._kids(tbl, W_TR):
            trpr = tr.find(W_TRPR)
            row_deleted = deleted or (trpr is not None and trpr.find(W_DEL) is not None)
            row: list[str] = []
            if trpr is not None:
                row += [""] * self._grid_cells(trpr.find(w("gridBefore")), 0, width)
            for tc in self._kids(tr, W_TC):
                tcpr = tc.find(W_TCPR)
                span = self._grid_cells(tcpr.find(w("gridSpan")) if tcpr is not None else None, 1, width - len(row))
                cell_items = self.container(tc, row_deleted)
                texts = []
                for ci in cell_items:
                    t = ci.plain if ci.plain is not None else ci.text
                    t = " ".join(t.split())
                    if t:
                        texts.append(t)
                    item.absorb(ci)
                row.append(" ".join(texts))
                row += [""] * (span - 1)
            if trpr is not None:
                row += [""] * self._grid_cells(trpr.find(w("gridAfter")), 0, width - len(row))
            if not row_deleted:  # a deleted row's text went to the deleted fragments of its cells
                rows.append(row)
        if any(c.strip() for r in rows for c in r):
            item.text = markdown_table(rows)
            item.plain = " ".join(c for r in rows for c in r if c)
        return item


    def _grid_cells(self, el: etree._Element | None, least: int, room: int) -> int:
        """Grid columns a gridSpan / gridBefore / gridAfter takes (at least `least`), never more than
        the `room` left in the table's grid (beyond it: clamped, flagged value_clamped)."""
        return xml_int(_val(el), least, max(least, room), least, self.report)  # type: ignore[return-value]


def _grid_width(tbl: etree._Element) -> int:
    """Columns of a table's grid (w:tblGrid), at most TABLE_MAX_COLUMNS (that when it has none)."""
    grid = tbl.find(w("tblGrid"))
    columns = len(grid.findall(w("gridCol"))) if grid is not None else 0
    return min(columns, TABLE_MAX_COLUMNS) if columns else TABLE_MAX_COLUMNS


def _merge(first: Item, second: Item) -> Item:
    """The paragraph left when `first`'s paragraph mark is deleted: its runs join `second`."""
    second.text = first.text + second.text
    second.deleted = first.deleted + second.deleted
    second.boxes = first.boxes + second.boxes
    second.comments = first.comments + second.comments
    second.notes = first.notes + second.notes
    second.charts = first.charts + second.charts
    if first.text.strip() and not second.text[len(first.text):].strip():
        second.kind, second.level = first.kind, first.level
    return second
