"""PDFium access shared by the PDF stages: opening documents, page frames (visible box and rotation)
and the raw pypdfium2 calls the char and graphics layers make per char or per object.

PDFium reports positions in PDF user space (bottom-left origin, y up, MediaBox coordinates). Stages
work in the page's reading frame: top-left origin, y down, points, relative to the visible box
(the CropBox clipped to the MediaBox) and turned by the page's /Rotate, so the page as displayed;
turned further when most of the page's text is drawn sideways or upside down on the display (see
chars.reading_turn), so that its text reads upright.
"""
from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docclean_assets.extract.errors import ExtractionError

# Per-char calls returning the text object as a plain int (0 for generated chars): PDFium pointers
# as ints can key a dict, and ctypes skips building a pointer object on every call.
text_object_of = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
    ctypes.cast(pdfium_c.FPDFText_GetTextObject, ctypes.c_void_p).value
)


# Meta key of the blocks of a page read turned: clockwise degrees from the page as displayed to the
# frame of their bbox, page_width and page_height; absent on pages read as displayed.
PAGE_TURN_META = "page_turn_deg"


class PageFrame(NamedTuple):
    """The visible box of a page in PDF user space and the rotation the stages see it under."""

    x0: float
    y0: float
    x1: float
    y1: float
    rotation: int  # clockwise rotation of user space, degrees: 0, 90, 180 or 270 (the /Rotate, plus `turn`)
    turn: int = 0  # clockwise degrees from the page as displayed to this frame (0, 90, 180 or 270)

    def turned(self, degrees: int) -> PageFrame:
        """This frame turned a further `degrees` (a multiple of 90) clockwise."""
        return self._replace(rotation=(self.rotation + degrees) % 360, turn=(self.turn + degrees) % 360)

    @property
    def width(self) -> float:
        """Displayed width, points."""
        return self.x1 - self.x0 if self.rotation in (0, 180) else self.y1 - self.y0

    @property
    def height(self) -> float:
        """Displayed height, points."""
        return self.y1 - self.y0 if self.rotation in (0, 180) else self.x1 - self.x0

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A user-space point in this frame (top-left origin, y down)."""
        r = self.rotation
        if r == 0:
            return x - self.x0, self.y1 - y
        if r == 90:
            return y - self.y0, x - self.x0
        if r == 180:
            return self.x1 - x, y - self.y0
        return self.y1 - y, self.x1 - x

    def box(self, left: float, bottom: float, right: float, top: float) -> tuple[float, float, float, float]:
        """A user-space box (left, bottom, right, top) as (x0, top, x1, bottom) in this frame."""
        ax, ay = self.point(left, bottom)
        bx, by = self.point(right, top)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def page_frame(page: pdfium.PdfPage) -> PageFrame:
    """The page's visible box: its CropBox clipped to the MediaBox (PDF 32000 14.11.2); the MediaBox
    when they do not intersect."""
    mx0, my0, mx1, my1 = page.get_mediabox()
    cx0, cy0, cx1, cy1 = page.get_cropbox()
    x0, y0, x1, y1 = max(cx0, mx0), max(cy0, my0), min(cx1, mx1), min(cy1, my1)
    if x1 <= x0 or y1 <= y0:
        x0, y0, x1, y1 = mx0, my0, mx1, my1
    return PageFrame(float(x0), float(y0), float(x1), float(y1), int(page.get_rotation()) % 360)


def open_pdf(data: bytes) -> pdfium.PdfDocument:
    """Open the bytes with PDFium (empty user password), mapping every failure to ExtractionError."""
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if exc.err_code == pdfium_c.FPDF_ERR_PASSWORD:
            raise ExtractionError("encrypted: needs a password") from exc
        raise ExtractionError(f"corrupt or unreadable PDF: {exc}") from exc
    except Exception as exc:  # anything else PDFium's loader trips on
        raise ExtractionError(f"corrupt or unreadable PDF: {type(exc).__name__}: {exc}") from exc


@contextmanager
def opened_page(pdf: pdfium.PdfDocument, index: int) -> Iterator[pdfium.PdfPage]:
    """A page (0-based index), closed on exit so its native memory is released deterministically."""
    page = pdf[index]
    try:
        yield page
    finally:
        page.close()


@contextmanager
def opened_textpage(page: pdfium.PdfPage) -> Iterator[pdfium.PdfTextPage]:
    """The page's text page, closed on exit."""
    textpage = page.get_textpage()
    try:
        yield textpage
    finally:
        textpage.close()


def rgba_lightness(r: int, g: int, b: int, max_spread: float) -> float:
    """Grey level of an RGB colour (0-255 channels; 1 = white); -1 for chromatic colours (channels
    more than `max_spread` of the channel range apart: `grey_max_channel_spread_fraction`)."""
    if max(r, g, b) - min(r, g, b) > max_spread * 255:
        return -1.0
    return (r + g + b) / 765.0  # the mean channel over its 255 range
