"""PDF backend: bytes to typed blocks in reading order, via pure stages chained by `extract_pdf`.

Stages (each a pure function returning new values; each one's output is kept in the page's
`PageTrace`, see pdf/trace.py): chars -> split (rotated lines, light watermark text) -> words ->
lines -> blocks -> gutters -> kinds (title, headings, captions) -> reading order -> footnotes ->
asides placed -> captions linked -> pull quotes -> Block records.
Tables leave the flow as one `table` block each: ruled tables (pdf/tables.py) before the call-out
panels, so a table's frame is never a panel; borderless ones (pdf/table_grid.py) once the gutters
are known; then each takes back its column labels set turned or slanted, which left the stream as
rotated lines (pdf/turned_heads.py). Captions are linked to their table or figure after reading
order (pdf/captions.py). Asides (call-out panels found on the page's vector graphics, sidebars, margin notes) leave the flow
before the column analysis and return after reading order, each after the body block it refers to;
pull quotes are found last, across pages. A stage that labels a block returns a relabelled copy;
the orchestrator then points every anchor (`anchor_to`) at the copy.
"""
from __future__ import annotations

from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docclean_assets.extract.continuations import FIRST_INDENT_META
from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.guard import ENCRYPTED_FLAG, check_pdf_pages, merge_flooded
from docclean_assets.extract.model import BBox, Block, DocReport, Extraction, renumber
from docclean_assets.extract.ocr.engine import OcrRun
from docclean_assets.extract.pdf.blocks import lines_to_blocks
from docclean_assets.extract.pdf.model import Box, Line, PBlock, Word
from docclean_assets.extract.pdf.captions import captions_to_links
from docclean_assets.extract.pdf.chars import Char, PageContent, PageInfo, modal_size, pdf_to_pages
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.columns import Gutter, blocks_to_gutters, split_lines_at_gutters
from docclean_assets.extract.pdf.endnotes import pages_to_endnotes
from docclean_assets.extract.pdf.figures import blocks_to_figure_text, graphics_to_drawings
from docclean_assets.extract.pdf.footnotes import counted_notes, notes_to_continuations, notes_to_links, page_footnotes
from docclean_assets.extract.pdf.kinds import blocks_to_kinds
from docclean_assets.extract.pdf.lines import chars_to_words, words_to_lines
from docclean_assets.extract.pdf.ocr_pages import extraction_with_ocr
from docclean_assets.extract.pdf.order import blocks_to_reading_order
from docclean_assets.extract.pdf.pdfium import PAGE_TURN_META, open_pdf
from docclean_assets.extract.pdf.pullquotes import pages_to_pull_quotes
from docclean_assets.extract.pdf.regions import (
    blocks_to_margin_notes,
    blocks_to_sidebars,
    chars_to_panels,
    graphics_to_panels,
    panel_to_callout,
    place_asides,
)
from docclean_assets.extract.pdf.table_grid import lines_to_borderless_tables
from docclean_assets.extract.pdf.table_model import TableBlock
from docclean_assets.extract.pdf.tables import page_to_ruled_tables
from docclean_assets.extract.pdf.turned_heads import turned_heads_to_tables
from docclean_assets.extract.pdf.trace import PageTrace, PdfTrace
from docclean_assets.extract.pdf.watermark import CharSplit, RotatedLine, split_chars
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.settings import Settings

__all__ = ["PAGE_TURN_META", "extract_pdf"]


def _rotated_block(r: RotatedLine, page: int, body: float, s: PdfSettings) -> PBlock:
    """A rotated line no table took: a diagonal watermark when large (`watermark_min_size_ratio`
    x body), slanted labels of a drawing when smaller, a margin note when turned upright."""
    extra = (("rotation_deg", f"{r.angle:.0f}"),)
    if r.diagonal and r.size >= s.watermark_min_size_ratio * body:
        return PBlock([r.as_line()], page, drop_reason="watermark", extra=extra)
    return PBlock([r.as_line()], page, kind="image_text" if r.diagonal else "margin_note", extra=extra)


class PageLayout(NamedTuple):
    """One page before ordering: the outputs of its page-level stages, ending with its flow blocks
    (body, tables, watermark, rotated margin notes) and the gutters found on them."""

    split: CharSplit
    ruled_tables: list[TableBlock]
    callouts: list[PBlock]
    words: list[Word]
    lines: list[Line]
    gutters: list[Gutter]
    borderless_tables: list[TableBlock]
    margin_notes: list[PBlock]
    sidebars: list[PBlock]
    figure_text: list[PBlock]
    blocks: list[PBlock]
    reversed_chars: int

    @property
    def asides(self) -> list[PBlock]:
        """Call-outs, margin notes, sidebars and drawings' labels: placed after reading order."""
        return self.callouts + self.margin_notes + self.sidebars + self.figure_text


def _panels(info: PageInfo, parts: CharSplit, graphics: list[Graphic], body: float, s: PdfSettings,
            tables: list[TableBlock]) -> tuple[list[Char], list[Char], list[PBlock], int]:
    """The flow chars, the remaining light chars, the call-out blocks and the reversed-char count;
    boxes drawn within the ruled `tables` are no panels."""
    avoid = [Box(t.x0, t.top, t.x1, t.bottom) for t in tables]
    split = chars_to_panels(parts.normal, parts.light, graphics_to_panels(graphics, info, body, s, avoid), s)
    flow, callouts, reversed_chars = list(split.flow), [], 0
    for panel, chars, n_reversed in split.panels:
        reversed_chars += n_reversed
        callout = panel_to_callout(panel, chars, info.number, s)
        if callout is None:  # too little text for a panel: back into the flow, after its chars
            flow.extend(chars)
            continue
        if n_reversed:
            callout = callout.relabel(extra=(*callout.extra, ("reversed_chars", str(n_reversed))))
        callouts.append(callout)
    return flow, split.light, callouts, reversed_chars


def _page_blocks(info: PageInfo, chars: list[Char], graphics: list[Graphic], body: float, s: PdfSettings) -> PageLayout:
    """Blocks of one page before ordering, its gutters and its asides.

    Gutters are found on the first blocks; lines merged across a narrow gutter are then split there
    and the blocks rebuilt. Margin notes and sidebars found on those blocks leave the flow, and the
    gutters are found again without them.
    """
    parts = split_chars(chars, body, s)
    ruled = page_to_ruled_tables(parts.normal, graphics, info.number, s)
    flow, light, callouts, reversed_chars = _panels(info, parts._replace(normal=ruled.rest), graphics, body, s,
                                                    ruled.tables)
    words = chars_to_words(flow, s)
    lines = words_to_lines(words, s)
    blocks = lines_to_blocks(lines, info.number, s)
    gutters = blocks_to_gutters(blocks, s)
    if gutters:
        lines_at_gutters = split_lines_at_gutters(lines, gutters, s)
        if len(lines_at_gutters) != len(lines):
            lines = lines_at_gutters
            blocks = lines_to_blocks(lines, info.number, s)
            gutters = blocks_to_gutters(blocks, s)
    borderless = lines_to_borderless_tables(lines, gutters, graphics, info.number, body, s)
    ruled_headed = turned_heads_to_tables(ruled.tables, parts.rotated, borderless.rest, body, s)
    headed = turned_heads_to_tables(borderless.tables, ruled_headed.rotated, ruled_headed.rest, body, s)
    if len(headed.rest) != len(lines):
        lines = headed.rest
        blocks = lines_to_blocks(lines, info.number, s)
        gutters = blocks_to_gutters(blocks, s)
    notes = blocks_to_margin_notes(blocks, body, s)
    sidebars = blocks_to_sidebars(notes.flow, body, s)
    figures = blocks_to_figure_text(sidebars.flow, graphics_to_drawings(graphics, body, s), body, s)
    if notes.asides or sidebars.asides or figures.asides:
        gutters = blocks_to_gutters(figures.flow, s)
    watermark = [b.relabel(drop_reason="watermark")
                 for b in lines_to_blocks(words_to_lines(chars_to_words(light, s), s), info.number, s)]
    flow_blocks = [*figures.flow, *ruled_headed.tables, *headed.tables, *watermark,
                   *(_rotated_block(r, info.number, body, s) for r in headed.rotated)]
    return PageLayout(parts, ruled_headed.tables, callouts, words, lines, gutters, headed.tables, notes.asides,
                      sidebars.asides, figures.asides, flow_blocks, reversed_chars)


def _follow_anchors(pages: list[list[PBlock]], replaced: dict[int, PBlock]) -> list[list[PBlock]]:
    """The pages with every anchor (`anchor_to`) to a block a stage replaced pointing at its
    replacement (`replaced` maps id(old block) to the new one); blocks re-pointed are copies."""
    if not replaced:
        return pages
    latest: dict[int, PBlock] = {}

    def current(b: PBlock) -> PBlock:
        new = replaced.get(id(b), b)
        if new is not b:
            return current(new)
        if id(b) not in latest:
            target = b.anchor_to
            now = None if target is None else current(target)
            latest[id(b)] = b if now is target else b.relabel(anchor_to=now)
        return latest[id(b)]

    return [[current(b) for b in page] for page in pages]


def _replacements(before: list[list[PBlock]], after: list[list[PBlock]]) -> dict[int, PBlock]:
    """id(old block) -> its replacement, for a stage that returns each page's blocks in their order."""
    return {id(a): b for old, new in zip(before, after, strict=True)
            for a, b in zip(old, new, strict=True) if a is not b}


def _relabelled(before: list[list[PBlock]], after: list[list[PBlock]]) -> list[list[PBlock]]:
    """A relabelling stage's output with the anchors to the blocks it replaced following them."""
    return _follow_anchors(after, _replacements(before, after))


def _to_block(b: PBlock, info: PageInfo, anchor: int | None) -> Block:
    x0, x1 = max(0.0, min(b.x0, info.width)), max(0.0, min(b.x1, info.width))
    y0, y1 = max(0.0, min(b.top, info.height)), max(0.0, min(b.bottom, info.height))
    meta = [
        ("page_height", f"{info.height:.1f}"),
        ("page_width", f"{info.width:.1f}"),
        ("font_size", f"{b.size:.1f}"),
        ("column", str(b.column)),
        *b.extra,
    ]
    if len(b.lines) > 1 and b.kind == "paragraph":  # how far its first line starts right of the rest, em
        indent = (b.lines[0].x0 - min(ln.x0 for ln in b.lines[1:])) / max(b.size, 1.0)
        meta.append((FIRST_INDENT_META, f"{indent:.1f}"))
    if info.turn:  # bbox and page size are in the page turned so that its text is upright
        meta.insert(2, (PAGE_TURN_META, str(info.turn)))
    text = b.text
    return Block(
        kind=b.kind,
        text=text,
        orig_text=b.marked_text if b.unmarked else None,
        page=info.number,
        bbox=BBox(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)),
        drop_reason=b.drop_reason,
        level=b.level,
        anchor=anchor,
        meta=tuple(meta),
    )


def extract_pdf(data: bytes, settings: Settings, ocr: OcrRun | None = None) -> Extraction:
    """Blocks of a PDF in reading order, with OCR'd pages and pictures merged in when `ocr` is on
    (see pdf/ocr_pages); raises ExtractionError for unreadable files and over the page cap. The file
    is opened once: the caps are checked, the text layer read and the pictures rendered on one
    document; a page over the character caps comes out as plain lines (guard.merge_flooded)."""
    pdf = open_pdf(data)
    try:
        check_pdf_pages(len(pdf), settings.limits)
        flooded: dict[int, str] = {}
        ext, pages = _extract_text_layer(pdf, settings, flooded)
        if ocr is not None:
            chars = {p.info.number: p.chars for p in pages}
            turns = {p.info.number: p.info.turn for p in pages}
            # pages the text pass saw no picture on (its graphics list every image object, forms
            # included), unless some page's graphics could not be listed
            pictureless = frozenset() if "graphics_unreadable" in ext.report.flags else frozenset(
                p.info.number for p in pages if not any(g.kind == "image" for g in p.graphics))
            ext = extraction_with_ocr(pdf, ext, ocr, chars, turns, skip=frozenset(flooded), pictureless=pictureless)
        if pdfium_c.FPDF_GetSecurityHandlerRevision(pdf.raw) != -1:
            ext.report.flag(ENCRYPTED_FLAG)
    finally:
        pdf.close()
    return merge_flooded(ext, flooded)


def _read_pages(pdf: pdfium.PdfDocument, report: DocReport, settings: Settings, flooded: dict[int, str]
                ) -> list[PageContent]:
    """Each page's chars and graphics (pages over the character caps into `flooded`); raises
    ExtractionError for unreadable files."""
    try:
        pages = list(pdf_to_pages(pdf, report.flags, settings.pdf, settings.limits, flooded))
    except ExtractionError:
        raise
    except Exception as exc:  # the page tree itself broke while iterating
        raise ExtractionError(f"corrupt or unreadable PDF: {type(exc).__name__}: {exc}") from exc
    if not pages:
        raise ExtractionError("PDF has no pages")
    return pages


def _page_body(chars: list[Char], s: PdfSettings) -> float | None:
    """The page's own body size: its modal size where it has enough text (`page_body_min_chars`), else
    None (`blocks_to_kinds` then uses the document's)."""
    if sum(1 for c in chars if not c.text.isspace()) < s.page_body_min_chars:
        return None
    return modal_size(chars, s)


def _extract_text_layer(pdf: pdfium.PdfDocument, settings: Settings, flooded: dict[int, str]
                        ) -> tuple[Extraction, list[PageContent]]:
    """Blocks of the PDF's text layer in reading order (trace: a `PdfTrace`), and the pages as read;
    raises ExtractionError for unreadable files."""
    s = settings.pdf
    report = DocReport(format="pdf")
    pages = _read_pages(pdf, report, settings, flooded)
    report.pages = len(pages)
    report.raw_chars = sum(p.raw_chars for p in pages)
    if report.raw_chars == 0:
        report.flag("no_text_layer")
        return Extraction([], report, PdfTrace(s.body_size_fallback_pt, ())), pages
    body = modal_size([c for p in pages for c in p.chars], s)
    layouts = [_page_blocks(p.info, p.chars, p.graphics, body, s) for p in pages]
    kinds = blocks_to_kinds([(p.info, layout.blocks) for p, layout in zip(pages, layouts, strict=True)], body, s,
                            [_page_body(p.chars, s) for p in pages])
    orders = [_page_order(p, lay, blocks, body, s) for p, lay, blocks in zip(pages, layouts, kinds, strict=True)]
    for order, layout in zip(orders, layouts, strict=True):
        report.unresolved_regions += order.unresolved
        report.columns = max(report.columns, order.columns)
        if layout.reversed_chars:
            report.flag("reversed_text")
    captions = [o.captions for o in orders]
    captions = _relabelled(captions, pages_to_endnotes(captions, s))
    quotes = pages_to_pull_quotes(captions, body, s)
    report.pull_quotes = quotes.count
    final = _relabelled(captions, quotes.pages)
    trace = PdfTrace(body, tuple(
        PageTrace(p.info, p.chars, p.graphics, lay.split, lay.ruled_tables, lay.callouts, lay.words, lay.lines,
                  lay.gutters, lay.borderless_tables, lay.margin_notes, lay.sidebars, lay.figure_text, lay.blocks, k, o.order,
                  o.footnotes, o.asides, o.captions, q)
        for p, lay, k, o, q in zip(pages, layouts, kinds, orders, final, strict=True)
    ))
    out = notes_to_continuations(_records(pages, final))
    report.footnotes, report.unanchored_notes = counted_notes(out)
    return Extraction(renumber(out), _counted(report, out), trace), pages


class PageOrder(NamedTuple):
    """One page's stages after kinds: reading order, footnotes (one block per note, linked to the
    block holding its marker), asides placed, captions linked."""

    order: list[PBlock]
    footnotes: list[PBlock]
    asides: list[PBlock]
    captions: list[PBlock]
    columns: int
    unresolved: int  # blocks straddling some but not all columns mid-page


def _page_order(page: PageContent, layout: PageLayout, blocks: list[PBlock], body: float, s: PdfSettings) -> PageOrder:
    """The page's labelled blocks through reading order, footnotes, asides and captions."""
    ordered, ncols, unresolved = blocks_to_reading_order(blocks, layout.gutters, s)
    noted = notes_to_links(page_footnotes(ordered, page.info, body, s))
    placed = place_asides(noted, layout.asides, s)
    [captioned] = _relabelled([placed], [captions_to_links(placed, page.graphics, body, s)])
    return PageOrder(ordered, noted, placed, captioned, ncols, unresolved)


def _records(pages: list[PageContent], final: list[list[PBlock]]) -> list[Block]:
    """The Block records of every page's final blocks, anchors as indexes into the document."""
    everything = [(p.info, b) for p, blocks in zip(pages, final, strict=True) for b in blocks]
    index = {id(b): i for i, (_info, b) in enumerate(everything)}
    return [_to_block(b, info, index.get(id(b.anchor_to))) for info, b in everything]


def _counted(report: DocReport, out: list[Block]) -> DocReport:
    """The report with the document's call-outs, margin notes and tables counted."""
    report.callouts = sum(1 for b in out if b.kind == "callout")
    report.margin_notes = sum(1 for b in out if b.kind == "margin_note")
    report.tables = sum(1 for b in out if b.kind == "table")
    report.tables_fallback = sum(1 for b in out if b.get_meta("table") == "fallback")
    return report
