"""Stage 1: PDF bytes to per-page chars in top-left page coordinates (pdfplumber's text layer)."""
from __future__ import annotations

import io
import math
from functools import lru_cache
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple


class PageInfo(NamedTuple):
    """One page's visible size (its CropBox), points."""

    number: int  # 1-based
    width: float
    height: float


class Char(NamedTuple):
    """One glyph: top-left-origin box within the page's CropBox, plus what later stages need."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float  # font size, points
    fontname: str
    angle: float  # baseline rotation in degrees, counter-clockwise, within (-180, 180]
    ox: float  # glyph origin (matrix e, f) in PDF user space, for baseline direction fits
    oy: float
    lightness: float  # 0 black .. 1 white; -1 when the fill colour is not a plain grey
    seq: int  # index in the page's content-stream order
    adv: float  # advance width along the baseline, points


def open_pdf(data: bytes):  # noqa: ANN201 - returns a pdfplumber.PDF
    """Open the bytes with pdfplumber, mapping every failure to ExtractionError."""
    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    from docclean_assets.extract.api import ExtractionError

    try:
        pdf = pdfplumber.open(io.BytesIO(data), password="")
        _ = pdf.pages  # parses the page tree: corrupt files fail here
    except Exception as exc:  # pdfminer raises many unrelated types for broken files
        cause = exc.__cause__ or (exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc)
        if isinstance(cause, PDFPasswordIncorrect) or isinstance(exc, PDFPasswordIncorrect):
            raise ExtractionError("encrypted: needs a password") from exc
        raise ExtractionError(f"corrupt or unreadable PDF: {type(cause).__name__}: {cause}") from exc
    return pdf


def _lightness(color: object) -> float:
    """Grey level of a fill colour (1 = white); -1 for chromatic, pattern or unknown colours."""
    if not isinstance(color, (tuple, list)) or not all(isinstance(c, (int, float)) for c in color):
        return -1.0
    if len(color) == 1:
        return float(color[0])
    if len(color) == 3:
        r, g, b = (float(c) for c in color)
        return (r + g + b) / 3 if max(r, g, b) - min(r, g, b) <= 0.1 else -1.0
    if len(color) == 4:
        c, m, y, k = (float(v) for v in color)
        if max(c, m, y) - min(c, m, y) > 0.1:
            return -1.0
        return (1 - min(1.0, (c + m + y) / 3)) * (1 - k)
    return -1.0


def page_to_chars(page, number: int) -> tuple[PageInfo, list[Char], int]:  # noqa: ANN001
    """Visible chars of one pdfplumber page, shifted to its CropBox; also the non-space char count.

    Drawn whitespace chars are kept (they separate words) but not counted.

    pdfplumber's `top`/`bottom` already have a top-left origin in MediaBox space; the CropBox is what
    a viewer shows, so coordinates are made relative to it and chars whose centre lies outside it
    (printer marks, hidden overflow) are left out.
    """
    cx0, ctop, cx1, cbottom = page.cropbox
    mx0, mtop, mx1, mbottom = page.mediabox
    # Intersect: a CropBox larger than the MediaBox is clipped to it (PDF 32000 14.11.2).
    x0b, topb = max(cx0, mx0), max(ctop, mtop)
    x1b, botb = min(cx1, mx1), min(cbottom, mbottom)
    if x1b <= x0b or botb <= topb:
        x0b, topb, x1b, botb = mx0, mtop, mx1, mbottom
    width, height = x1b - x0b, botb - topb
    info = PageInfo(number, float(width), float(height))
    out: list[Char] = []
    raw = 0
    for i, c in enumerate(page.chars):
        text = c.get("text") or ""
        if not text:
            continue
        blank = text.isspace()  # kept: a drawn space is a word boundary, but not counted
        raw += 0 if blank else 1
        x0, x1, top, bottom = c["x0"] - x0b, c["x1"] - x0b, c["top"] - topb, c["bottom"] - topb
        mx, my = (x0 + x1) / 2, (top + bottom) / 2
        if not (0 <= mx <= width and 0 <= my <= height):
            continue
        a, b, _c, _d, e, f = c.get("matrix") or (1, 0, 0, 1, 0, 0)
        angle = math.degrees(math.atan2(b, a)) if (a or b) else 0.0
        out.append(
            Char(
                text,
                max(0.0, float(x0)),
                max(0.0, float(top)),
                min(float(width), float(x1)),
                min(float(height), float(bottom)),
                float(c.get("size") or (bottom - top) or 1.0),
                str(c.get("fontname") or ""),
                angle,
                float(e),
                float(f),
                _lightness(c.get("non_stroking_color")),
                i,
                float(c.get("adv") or (x1 - x0)),
            )
        )
    return info, out, raw


def pdf_to_pages(pdf, flags: list[str]) -> Iterator[tuple[PageInfo, list[Char], int]]:  # noqa: ANN001
    """Each page's chars in turn, releasing pdfplumber's per-page caches as it goes."""
    for number, page in enumerate(pdf.pages, start=1):
        try:
            yield page_to_chars(page, number)
        except Exception:  # a broken content stream on one page must not lose the others
            if "page_unreadable" not in flags:
                flags.append("page_unreadable")
            try:
                w, h = float(page.width), float(page.height)
            except Exception:
                w, h = 612.0, 792.0
            yield PageInfo(number, w, h), [], 0
        finally:
            page.close()


def size_key(size: float) -> float:
    """Font sizes rounded to half points, so 9.9626 and 9.96264 count as one size."""
    return round(size * 2) / 2


def modal_size(chars: list[Char]) -> float:
    """The most common (rounded) font size, weighted by character count; 10 when there are none."""
    counts = Counter(size_key(c.size) for c in chars if not c.text.isspace())
    return counts.most_common(1)[0][0] if counts else 10.0


_BOLD_MARKS = ("bold", "black", "heavy", "semibold", "demi", "medi", "cmbx", "-bd", ",b", "-b")


@lru_cache(maxsize=4096)
def is_bold_font(fontname: str) -> bool:
    """Guess boldness from the font name (Times-Bold, NimbusRomNo9L-Medi, CMBX10, Arial,Bold)."""
    name = fontname.split("+", 1)[-1].lower()
    return any(mark in name for mark in _BOLD_MARKS if not mark.startswith((",", "-"))) or name.endswith(
        (",b", "-b", "-bd", ",bold")
    )
