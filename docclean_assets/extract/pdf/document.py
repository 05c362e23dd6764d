"""PDF backend: bytes to typed blocks in reading order, via pure stages chained by `extract_pdf`.

Stages (each a pure function; every intermediate is kept in `Extraction.trace`, keyed by stage and
1-based page): chars -> split (rotated lines, light watermark text) -> words -> lines -> blocks ->
gutters -> reading order -> kinds (title, headings, captions) -> footnotes -> Block records.
Tables leave the flow as one `table` block each: ruled tables (pdf/tables.py) before the call-out
panels, so a table's frame is never a panel; borderless ones (pdf/table_grid.py) once the gutters
are known. Captions are linked to their table or figure after reading order (pdf/captions.py).
Asides (call-out panels found on the page's vector graphics, sidebars, margin notes) leave the flow
before the column analysis and return after reading order, each after the body block it refers to;
pull quotes are found last, across pages.
"""
from __future__ import annotations

from typing import NamedTuple

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.model import BBox, Block, DocReport, Extraction, renumber
from docclean_assets.extract.ocr.engine import OcrRun
from docclean_assets.extract.pdf.blocks import PBlock, lines_to_blocks
from docclean_assets.extract.pdf.captions import captions_to_links
from docclean_assets.extract.pdf.chars import Char, PageInfo, modal_size, pdf_to_pages
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.columns import Gutter, blocks_to_gutters, split_lines_at_gutters
from docclean_assets.extract.pdf.footnotes import page_footnotes
from docclean_assets.extract.pdf.kinds import blocks_to_kinds
from docclean_assets.extract.pdf.lines import Line, chars_to_words, words_to_lines
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
from docclean_assets.extract.pdf.watermark import CharSplit, RotatedLine, split_chars
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.settings import Settings

__all__ = ["PAGE_TURN_META", "extract_pdf"]


def _rotated_block(r: RotatedLine, page: int) -> PBlock:
    line = Line(r.text, r.x0, r.top, r.x1, r.bottom, r.size, len(r.text), 0, ())
    blk = PBlock([line], page)
    if r.diagonal:
        blk.drop_reason = "watermark"
    else:
        blk.kind = "margin_note"
    blk.extra.append(("rotation_deg", f"{r.angle:.0f}"))
    return blk


class PageLayout(NamedTuple):
    """One page before ordering: its flow blocks (body, watermark, rotated margin notes), gutters,
    and asides (call-outs, sidebars, margin notes) to place after reading order."""

    blocks: list[PBlock]
    gutters: list[Gutter]
    asides: list[PBlock]
    reversed_chars: int


def _panels(info: PageInfo, parts: CharSplit, graphics: list[Graphic], body: float, s: PdfSettings,
            tables: list[TableBlock]) -> tuple[list[Char], list[Char], list[PBlock], int]:
    """The flow chars, the remaining light chars, the call-out blocks and the reversed-char count;
    boxes drawn within the ruled `tables` are no panels."""
    avoid = [(t.x0, t.top, t.x1, t.bottom) for t in tables]
    split = chars_to_panels(parts.normal, parts.light, graphics_to_panels(graphics, info, body, s, avoid), s)
    flow, callouts, reversed_chars = split.flow, [], 0
    for panel, chars, n_reversed in split.panels:
        reversed_chars += n_reversed
        callout = panel_to_callout(panel, chars, info.number, s)
        if callout is None:  # too little text for a panel: back into the flow
            flow.extend(chars)
            continue
        if n_reversed:
            callout.extra.append(("reversed_chars", str(n_reversed)))
        callouts.append(callout)
    if len(flow) != len(split.flow):
        flow.sort(key=lambda c: c.seq)
    return flow, split.light, callouts, reversed_chars


def _page_blocks(
    info: PageInfo,
    chars: list[Char],
    graphics: list[Graphic],
    body: float,
    s: PdfSettings,
    trace: dict[str, dict[int, object]],
) -> PageLayout:
    """Blocks of one page before ordering, its gutters and its asides.

    Gutters are found on the first blocks; lines merged across a narrow gutter are then split there
    and the blocks rebuilt. Margin notes and sidebars found on those blocks leave the flow, and the
    gutters are found again without them.
    """
    parts = split_chars(chars, body, s)
    ruled = page_to_ruled_tables(parts.normal, graphics, info.number, s)
    flow, light, asides, reversed_chars = _panels(info, parts._replace(normal=ruled.rest), graphics, body, s,
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
    if borderless.tables:
        lines = borderless.rest
        blocks = lines_to_blocks(lines, info.number, s)
        gutters = blocks_to_gutters(blocks, s)
    notes = blocks_to_margin_notes(blocks, body, s)
    for b in notes:
        blocks.remove(b)
    sidebars = blocks_to_sidebars(blocks, body, s)
    if notes or sidebars:
        gutters = blocks_to_gutters(blocks, s)
    asides += notes + sidebars
    tables = ruled.tables + borderless.tables
    blocks.extend(tables)
    for blk in lines_to_blocks(words_to_lines(chars_to_words(light, s), s), info.number, s):
        blk.drop_reason = "watermark"
        blocks.append(blk)
    blocks.extend(_rotated_block(r, info.number) for r in parts.rotated)
    n = info.number
    trace["split"][n] = parts
    trace["gutters"][n] = gutters
    trace["words"][n] = words
    trace["lines"][n] = lines
    trace["blocks"][n] = list(blocks)
    trace["asides"][n] = list(asides)
    trace["tables"][n] = tables
    return PageLayout(blocks, gutters, asides, reversed_chars)


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
    if info.turn:  # bbox and page size are in the page turned so that its text is upright
        meta.insert(2, (PAGE_TURN_META, str(info.turn)))
    return Block(
        kind=b.kind,
        text=b.text,
        page=info.number,
        bbox=BBox(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)),
        drop_reason=b.drop_reason,
        level=b.level,
        anchor=anchor,
        meta=tuple(meta),
    )


def extract_pdf(data: bytes, settings: Settings, ocr: OcrRun | None = None) -> Extraction:
    """Blocks of a PDF in reading order, with OCR'd pages and pictures merged in when `ocr` is on
    (see pdf/ocr_pages); raises ExtractionError for unreadable files."""
    ext = _extract_text_layer(data, settings)
    return ext if ocr is None else extraction_with_ocr(data, ext, ocr)


def _extract_text_layer(data: bytes, settings: Settings) -> Extraction:
    """Blocks of the PDF's text layer in reading order; raises ExtractionError for unreadable files."""
    s = settings.pdf
    report = DocReport(format="pdf")
    trace: dict[str, dict[int, object]] = {
        k: {} for k in ("info", "chars", "graphics", "split", "asides", "words", "lines", "blocks", "gutters",
                        "order", "tables")
    }
    pdf = open_pdf(data)
    try:
        pages = list(pdf_to_pages(pdf, report.flags, s))
    except ExtractionError:
        raise
    except Exception as exc:  # the page tree itself broke while iterating
        raise ExtractionError(f"corrupt or unreadable PDF: {type(exc).__name__}: {exc}") from exc
    finally:
        pdf.close()
    if not pages:
        raise ExtractionError("PDF has no pages")
    report.pages = len(pages)
    report.raw_chars = sum(p.raw_chars for p in pages)
    if report.raw_chars == 0:
        report.flag("no_text_layer")
        return Extraction([], report, {k: v for k, v in trace.items()})
    body = modal_size([c for p in pages for c in p.chars], s)
    trace["body_size"] = {0: body}
    per_page: list[tuple[PageInfo, list[PBlock]]] = []
    layouts: list[PageLayout] = []
    for info, chars, _raw, graphics in pages:
        trace["info"][info.number] = info
        trace["chars"][info.number] = chars
        trace["graphics"][info.number] = graphics
        layout = _page_blocks(info, chars, graphics, body, s, trace)
        per_page.append((info, layout.blocks))
        layouts.append(layout)
    blocks_to_kinds(per_page, body, s)
    ordered_pages: list[list[PBlock]] = []
    for (info, blocks), layout, page in zip(per_page, layouts, pages, strict=True):
        ordered, ncols, unresolved = blocks_to_reading_order(blocks, layout.gutters, s)
        report.unresolved_regions += unresolved
        report.columns = max(report.columns, ncols)
        report.footnotes += page_footnotes(ordered, info, body, s)
        ordered = place_asides(ordered, layout.asides)
        captions_to_links(ordered, page.graphics, body, s)
        trace["order"][info.number] = ordered
        ordered_pages.append(ordered)
        if layout.reversed_chars:
            report.flag("reversed_text")
    report.pull_quotes = pages_to_pull_quotes(ordered_pages, body, s)
    everything = [(info, b) for (info, _), ordered in zip(per_page, ordered_pages, strict=True) for b in ordered]
    index = {id(b): i for i, (_info, b) in enumerate(everything)}
    out = [_to_block(b, info, index.get(id(b.anchor_to))) for info, b in everything]
    report.callouts = sum(1 for b in out if b.kind == "callout")
    report.margin_notes = sum(1 for b in out if b.kind == "margin_note")
    report.tables = sum(1 for b in out if b.kind == "table")
    report.tables_fallback = sum(1 for b in out if b.get_meta("table") == "fallback")
    return Extraction(renumber(out), report, trace)
