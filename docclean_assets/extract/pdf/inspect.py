"""Draw a PDF page with every block's box coloured by kind, dropped blocks hatched, and each
block's reading-order number: what the layout decided, at a glance. Or draw one stage's output from
the page's trace (`stage_boxes`, `draw_boxes`): chars, words, lines, gutters, tables, blocks after any stage."""
from __future__ import annotations

from typing import NamedTuple

from PIL import Image, ImageDraw

from docclean_assets.extract.layout import Gutter
from docclean_assets.extract.model import BBox, Block, Kind
from docclean_assets.extract.pdf.model import Line, PBlock
from docclean_assets.extract.pdf.document import PAGE_TURN_META
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.trace import STAGES, PageTrace

# One colour per kind (RGB); dropped blocks are hatched in their kind's colour.
KIND_COLOURS: dict[str, tuple[int, int, int]] = {
    Kind.TITLE: (128, 0, 128), Kind.HEADING: (200, 0, 120), Kind.PARAGRAPH: (0, 90, 200),
    Kind.LIST_ITEM: (0, 150, 150), Kind.TABLE: (0, 150, 0), Kind.CAPTION: (120, 120, 0),
    Kind.CODE: (90, 90, 90), Kind.FOOTNOTE: (230, 120, 0), Kind.CALLOUT: (0, 200, 230),
    Kind.PULL_QUOTE: (170, 0, 0), Kind.MARGIN_NOTE: (255, 0, 255), Kind.SPEAKER_NOTES: (60, 60, 60),
    Kind.COMMENT: (60, 60, 60), Kind.IMAGE_TEXT: (100, 0, 200),
}
# Colours of the records that are no blocks (RGB).
GLYPH_COLOUR = (0, 90, 200)  # chars, words
LINE_COLOUR = (0, 150, 150)
GUTTER_COLOUR = (230, 120, 0)
GRAPHIC_COLOUR = (120, 120, 0)
HATCH_STEP_PX = 8  # spacing of the diagonal lines that mark a dropped block
LABEL_PX = 11  # height of the reading-order label box
LEGEND_PX = 170  # width of the legend strip drawn right of the page
LEGEND_ROW_PX = 16  # height of one legend entry


def render_page(data: bytes, page: int, dpi: float, turn: int = 0) -> Image.Image:
    """The page (1-based) rendered at `dpi`, CropBox as the PDF viewer shows it, turned `turn`
    degrees clockwise further (the frame of blocks read from a turned page, see `page_turn`)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        if not 1 <= page <= len(pdf):
            raise ValueError(f"page {page} out of range 1..{len(pdf)}")
        return pdf[page - 1].render(scale=dpi / 72.0, rotation=turn).to_pil().convert("RGB")
    finally:
        pdf.close()


def page_turn(blocks: list[Block], page: int) -> int:
    """Clockwise degrees from the page as displayed to the frame of its blocks' boxes: the PDF
    backend reads a page whose text is sideways or upside down turned (meta `page_turn_deg`)."""
    for b in blocks:
        if b.page == page and b.get_meta(PAGE_TURN_META) is not None:
            return int(b.get_meta(PAGE_TURN_META))
    return 0


def _hatch(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> None:
    """Diagonal lines clipped to the box."""
    x0, y0, x1, y1 = box
    for k in range(-(y1 - y0), x1 - x0, HATCH_STEP_PX):
        # the line x - x0 = k + (y - y0), clipped to the rectangle
        ya, yb = max(y0, y0 - k), min(y1, y0 + (x1 - x0) - k)
        if ya < yb:
            draw.line([(x0 + k + (ya - y0), ya), (x0 + k + (yb - y0), yb)], fill=colour, width=1)


def draw_blocks(image: Image.Image, blocks: list[Block], page: int, dpi: float) -> Image.Image:
    """The image with the page's blocks drawn over it, each labelled with its number and kind, and
    each footnote joined by a line to the block holding its marker."""
    on_page = [b for b in blocks if b.page == page and b.bbox is not None]
    boxes = [
        Drawn(b.bbox, f"{b.seq} {b.kind}" + (f" [{b.drop_reason}]" if b.drop_reason else ""),
            KIND_COLOURS.get(b.kind, (0, 0, 0)), b.drop_reason is not None)
        for b in on_page
    ]
    by_seq = {b.seq: b for b in on_page}
    links = [(b.bbox, by_seq[b.anchor].bbox) for b in on_page if b.kind == Kind.FOOTNOTE and b.anchor in by_seq]
    out = draw_boxes(image, boxes, dpi)
    draw, scale = ImageDraw.Draw(out), dpi / 72.0
    for note, holder in links:  # from the note's top-left corner to the holder's bottom-left corner
        draw.line([(note.x0 * scale, note.y0 * scale), (holder.x0 * scale, holder.y1 * scale)],
                  fill=KIND_COLOURS[Kind.FOOTNOTE], width=2)
    kinds = sorted({b.kind for b in on_page}, key=list(KIND_COLOURS).index)
    reasons = sorted({b.drop_reason for b in on_page if b.drop_reason})
    return with_legend(out, kinds, reasons, bool(links))


def with_legend(image: Image.Image, kinds: list[str], reasons: list[str], links: bool) -> Image.Image:
    """The image with a strip to its right naming each kind's colour, the drop reasons on the page
    (hatched boxes) and, when drawn, the footnote links."""
    out = Image.new("RGB", (image.width + LEGEND_PX, image.height), (255, 255, 255))
    out.paste(image, (0, 0))
    draw = ImageDraw.Draw(out)
    x, y = image.width + 8, 8
    rows = [(k, KIND_COLOURS.get(k, (0, 0, 0)), False) for k in kinds]
    rows += [(f"dropped: {r}", (90, 90, 90), True) for r in reasons]
    rows += [("footnote -> its paragraph", KIND_COLOURS[Kind.FOOTNOTE], False)] if links else []
    for text, colour, hatched in rows:
        box = (x, y, x + 12, y + 10)
        draw.rectangle(box, outline=colour, width=2)
        if hatched:
            _hatch(draw, box, colour)
        draw.text((x + 18, y - 1), text, fill=(0, 0, 0))
        y += LEGEND_ROW_PX
    return out


def _scaled(box: BBox, scale: float) -> tuple[int, int, int, int]:
    return (round(box.x0 * scale), round(box.y0 * scale), round(box.x1 * scale), round(box.y1 * scale))


class Drawn(NamedTuple):
    """One record of a stage drawn on the page: its box in points, label (may be empty), colour."""

    bbox: BBox
    label: str
    colour: tuple[int, int, int]
    dropped: bool = False


def stage_boxes(page: PageTrace, stage: str) -> list[Drawn]:
    """The boxes of `stage`'s output on the page (a name from `STAGES`); ValueError naming the
    stages for any other name."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")
    return [_box(i, item, page) for i, item in enumerate(getattr(page, stage))]


def _box(i: int, item: object, page: PageTrace) -> Drawn:
    """One stage record as a box: blocks by kind (labelled with their index), gutters over the page
    height, lines numbered, graphics by kind, chars and words unlabelled."""
    if isinstance(item, PBlock):
        label = f"{i} {item.kind}" + (f" [{item.drop_reason}]" if item.drop_reason else "")
        colour = KIND_COLOURS.get(item.kind, (0, 0, 0))
        return Drawn(BBox(item.x0, item.top, item.x1, item.bottom), label, colour, item.drop_reason is not None)
    if isinstance(item, Gutter):
        return Drawn(BBox(item.x0, 0.0, item.x1, page.info.height), f"gutter {i}", GUTTER_COLOUR)
    if isinstance(item, Graphic):
        return Drawn(BBox(item.x0, item.top, item.x1, item.bottom), item.kind, GRAPHIC_COLOUR)
    if isinstance(item, Line):
        return Drawn(BBox(item.x0, item.top, item.x1, item.bottom), str(i), LINE_COLOUR)
    return Drawn(BBox(item.x0, item.top, item.x1, item.bottom), "", GLYPH_COLOUR)  # type: ignore[attr-defined]


def draw_boxes(image: Image.Image, boxes: list[Drawn], dpi: float) -> Image.Image:
    """The image with the boxes drawn over it, each labelled at its top-left when it has a label
    (kept on the page); dropped boxes hatched, but never over a kept box (a watermark's box spans
    the page)."""
    scale = dpi / 72.0
    out = image.copy()
    draw = ImageDraw.Draw(out, "RGBA")
    hatch = Image.new("RGBA", out.size, (0, 0, 0, 0))
    hatch_draw = ImageDraw.Draw(hatch)
    kept = []
    for b in boxes:
        box = _scaled(b.bbox, scale)
        box = (box[0], box[1], max(box[0], box[2]), max(box[1], box[3]))
        draw.rectangle(box, outline=b.colour, width=1 if not b.label else 2, fill=(*b.colour, 28))
        if b.dropped:
            _hatch(hatch_draw, box, (*b.colour, 255))
        else:
            kept.append(box)
    for box in kept:  # the hatching leaves the kept blocks readable
        hatch_draw.rectangle(box, fill=(0, 0, 0, 0))
    out.paste(hatch, (0, 0), hatch)
    draw = ImageDraw.Draw(out)
    for b in boxes:
        if b.label:
            box = _scaled(b.bbox, scale)
            width = int(draw.textlength(b.label)) + 4
            x = max(0, min(box[0], out.width - width))
            y = box[1] - LABEL_PX if box[1] >= LABEL_PX else box[1]  # inside the box at the page's top
            draw.rectangle((x, y, x + width, y + LABEL_PX), fill=b.colour)
            draw.text((x + 2, y), b.label, fill=(255, 255, 255))
    return out
