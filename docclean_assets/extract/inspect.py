"""Draw a PDF page with every block's box coloured by kind, dropped blocks hatched, and each
block's reading-order number: what the layout decided, at a glance."""
from __future__ import annotations

from PIL import Image, ImageDraw

from docclean_assets.extract.model import BBox, Block, Kind
from docclean_assets.extract.pdf.document import PAGE_TURN_META

# One colour per kind (RGB); dropped blocks are hatched in their kind's colour.
KIND_COLOURS: dict[str, tuple[int, int, int]] = {
    Kind.TITLE: (128, 0, 128), Kind.HEADING: (200, 0, 120), Kind.PARAGRAPH: (0, 90, 200),
    Kind.LIST_ITEM: (0, 150, 150), Kind.TABLE: (0, 150, 0), Kind.CAPTION: (120, 120, 0),
    Kind.CODE: (90, 90, 90), Kind.FOOTNOTE: (230, 120, 0), Kind.CALLOUT: (0, 200, 230),
    Kind.PULL_QUOTE: (170, 0, 0), Kind.MARGIN_NOTE: (255, 0, 255), Kind.SPEAKER_NOTES: (60, 60, 60),
    Kind.COMMENT: (60, 60, 60), Kind.IMAGE_TEXT: (100, 0, 200),
}
HATCH_STEP_PX = 8  # spacing of the diagonal lines that mark a dropped block
LABEL_PX = 11  # height of the reading-order label box


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
    """The image with the page's blocks drawn over it."""
    scale = dpi / 72.0
    out = image.copy()
    draw = ImageDraw.Draw(out, "RGBA")
    for b in blocks:
        if b.page != page or b.bbox is None:
            continue
        colour = KIND_COLOURS.get(b.kind, (0, 0, 0))
        box = _scaled(b.bbox, scale)
        draw.rectangle(box, outline=colour, width=2, fill=(*colour, 28))
        if b.drop_reason is not None:
            _hatch(draw, box, colour)
        label = f"{b.seq} {b.kind}" + (f" [{b.drop_reason}]" if b.drop_reason else "")
        width = int(draw.textlength(label)) + 4
        draw.rectangle((box[0], box[1] - LABEL_PX, box[0] + width, box[1]), fill=colour)
        draw.text((box[0] + 2, box[1] - LABEL_PX), label, fill=(255, 255, 255))
    return out


def _scaled(box: BBox, scale: float) -> tuple[int, int, int, int]:
    return (round(box.x0 * scale), round(box.y0 * scale), round(box.x1 * scale), round(box.y1 * scale))
