"""Stage 1: PDF bytes to per-page chars in top-left page coordinates, read through PDFium's text page
(pypdfium2's raw API: one ctypes call per char and attribute, per-text-object attributes cached).

PDFium specifics handled here:
- generated chars (CR/LF and the spaces PDFium infers) are left out: word and line breaks come from
  geometry in later stages, as they did with pdfminer's chars (PDFium's inferred spaces split words
  of loosely positioned OCR text layers). Only after a turned or sheared glyph is a generated space
  kept, as a blank char with an empty box: such glyphs' upright boxes overlap, so the gap cannot
  separate their words, and PDFium replaces a space drawn on its own by a generated one;
- a glyph whose ToUnicode maps to several code points ("fi" ligature) arrives as several chars with
  the same box: they are merged back into one Char (`text` holds all code points);
- a hyphen that ends a line is reported as U+0002 and becomes "-" again;
- boxes are PDFium's loose char boxes (advance width x font ascent/descent, like pdfminer's), not
  the tight glyph outlines;
- boxes, origins and angles come in user space: they are turned into the page's reading frame,
  the page as displayed (its /Rotate) turned further when most of its text would be sideways or
  upside down there (`reading_turn`), so the later stages always see upright lines.
"""
from __future__ import annotations

import ctypes
import math
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache, partial
from operator import attrgetter
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docclean_assets.extract.guard import flooded_text
from docclean_assets.extract.pdf.charscan import GENERATED, ORIGIN_OK, CharScan, RunStyle, scan_textpage
from docclean_assets.extract.pdf.graphics import Graphic, page_to_graphics
from docclean_assets.extract.pdf.pdfium import (
    PageFrame,
    opened_page,
    opened_textpage,
    page_frame,
    rgba_lightness,
)
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.settings import LimitSettings

_HYPHEN_MARKS = ("\x02", "\ufffe")  # PDFium marks a hyphen ending a line (GetUnicode, GetText)


class PageInfo(NamedTuple):
    """One page's visible size (its CropBox) in its reading frame, points."""

    number: int  # 1-based
    width: float
    height: float
    turn: int = 0  # clockwise degrees from the page as displayed to its reading frame (see reading_turn)


class Char(NamedTuple):
    """One glyph: top-left-origin box within the page's CropBox, plus what later stages need."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float  # font size, points (text-state size x the text matrix's scale across the baseline)
    fontname: str
    angle: float  # baseline rotation in degrees, counter-clockwise, within (-180, 180]
    ox: float  # glyph origin, y up: PDF user space (turned with the page when it has a /Rotate),
    oy: float  # for baseline fits; only differences and order matter
    lightness: float  # 0 black .. 1 white; -1 when the fill colour is not a plain grey
    seq: int  # index in the page's content-stream order
    adv: float  # advance width along the baseline, points


class _Style(NamedTuple):
    """What all chars of one PDFium text object share."""

    size: float
    fontname: str
    angle: float
    lightness: float
    upright: bool  # baseline along +x, no shear: origin = (box left, matrix f)
    ux: float  # baseline direction, unit vector in user space
    uy: float


def _style(run: RunStyle, rotation: int, s: PdfSettings) -> _Style:
    """Font size, name, angle and fill lightness of a run of chars from one text object."""
    a, b, c, d = (run.a, run.b, run.c, run.d) if run.matrix_ok else (1.0, 0.0, 0.0, 1.0)
    base = math.hypot(a, b)
    # The font's height on the page: the text-space unit square's area over its baseline length
    # (exact under rotation, shear and horizontal scaling).
    scale = abs(a * d - b * c) / base if base else 1.0
    size = run.font_size * (scale or 1.0)
    fontname = run.fontname.decode("utf-8", "replace")
    light = rgba_lightness(run.r, run.g, run.bl, s.grey_max_channel_spread_fraction) if run.fill_ok else -1.0
    angle = math.degrees(math.atan2(b, a)) if (a or b) else 0.0
    if rotation:
        angle = (angle - rotation + 180.0) % 360.0 - 180.0
        angle = 180.0 if angle == -180.0 else angle
    ux, uy = (a / base, b / base) if base else (1.0, 0.0)
    return _Style(size or 1.0, fontname, angle, light, b == 0 and c == 0 and a > 0 and not rotation, ux, uy)


# Char((...)) without the named constructor's Python frame: this builds a million chars per corpus pass.
_new_char = partial(tuple.__new__, Char)


def _styles(cols: CharScan, rotation: int, s: PdfSettings) -> dict[int, _Style]:
    """Each text object's style; an object may recur in several runs, objects may share values."""
    styles: dict[int, _Style] = {}
    by_values: dict[tuple, _Style] = {}
    for run in cols.styles:
        obj = cols.obj[run.index]
        if obj not in styles:
            values = run[1:]
            st = by_values.get(values)
            if st is None:
                st = by_values[values] = _style(run, rotation, s)
            styles[obj] = st
    return styles


def _texts(raw: object, n: int) -> list[str] | str:
    """The page's chars as one string indexed like PDFium's chars (a list when surrogates shift it)."""
    buf = (ctypes.c_ushort * (n + 1))()
    got = pdfium_c.FPDFText_GetText(raw, 0, n, buf)
    text = ctypes.string_at(buf, 2 * max(0, got - 1)).decode("utf-16-le", "replace")
    if len(text) == n:
        return text
    # Characters beyond the BMP take two indices (a surrogate pair): the pair's character goes to
    # the first index and the second gets "" (skipped); a lone surrogate becomes U+FFFD.
    units = [pdfium_c.FPDFText_GetUnicode(raw, i) for i in range(n)]
    out = []
    for i, u in enumerate(units):
        if 0xD800 <= u < 0xDC00 and i + 1 < n and 0xDC00 <= units[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
        elif 0xDC00 <= u < 0xE000 and i > 0 and 0xD800 <= units[i - 1] < 0xDC00:
            out.append("")
        elif 0xD800 <= u < 0xE000:
            out.append("\ufffd")
        else:
            out.append(chr(u))
    return out


# The text of a space PDFium inferred between upright glyphs and chars.py kept: lines.py splits a
# word there only where the glyphs around it, in x order, leave a gap (a glyph drawn twice can
# cover it).
INFERRED_SPACE = "\u2009"


def textpage_to_chars(textpage: pdfium.PdfTextPage, frame: PageFrame, s: PdfSettings) -> tuple[list[Char], int]:
    """The text page's visible chars in `frame`, and its drawn non-space char count.

    Drawn whitespace chars are kept (they separate words) but not counted; chars whose centre lies
    outside the visible box (printer marks, hidden overflow) are left out.
    """
    raw = textpage.raw
    n = pdfium_c.FPDFText_CountChars(raw)
    if n <= 0:
        return [], 0
    texts = _texts(raw, n)
    cols = scan_textpage(raw, n)
    width, height = frame.width, frame.height
    fx0, fy1, rotation = frame.x0, frame.y1, frame.rotation
    styles = _styles(cols, rotation, s)
    out: list[Char] = []
    append = out.append
    tails: dict[int, list[str]] = {}  # index in `out` -> the further code points of its glyph
    raw_count = 0
    prev_obj, pl, pt, pr, pb, prev_kept = 0, 0.0, 0.0, 0.0, 0.0, False  # the previous glyph's object and box
    st: _Style | None = None
    st_obj = 0  # the object `st` and its unpacked fields below belong to
    size = angle = light = 0.0
    fontname, upright = "", True
    overhang_em, space_em = s.glyph_overhang_min_em, s.inferred_space_min_em
    pen_right: float | None = None  # where the kept upright glyphs' pen boxes end on this baseline, user space
    pen_y: float | None = None  # and its baseline
    for i, obj, text, left, top, right, bottom in zip(range(n), cols.obj, texts, cols.left, cols.top, cols.right,
                                                       cols.bottom):
        if not text:  # the second half of a surrogate pair
            continue
        generated = not obj or (top == bottom and cols.flags[i] & GENERATED)
        if generated and upright and text == " " and st is not None:
            # kept as a word break where the pen gap around it is one; placed at the glyph before
            if not _inferred_gap(cols, i, n, pen_right, pen_y, space_em * size):
                continue
            left = right = pen_right
            text = INFERRED_SPACE
        elif generated and (text != " " or st is None or upright):
            continue  # generated CR/LF
        if obj == prev_obj and left == pl and top == pt and right == pr and bottom == pb:
            # One glyph, several code points (ligature): pdfminer gave them as one char.
            if prev_kept and out:  # joined once after the loop: linear in however many a glyph maps to
                tails.setdefault(len(out) - 1, []).append(text)
                raw_count += 0 if text.isspace() else 1  # raw counts code points, as kept_chars does
            continue
        prev_obj, pl, pt, pr, pb, prev_kept = obj, left, top, right, bottom, False
        if text in _HYPHEN_MARKS:
            text = "-"
        if not text.isspace():
            raw_count += 1
        if obj and obj != st_obj:  # a generated space without an object keeps the previous char's style
            st, st_obj = styles[obj], obj
            size, fontname, angle, light, upright = st.size, st.fontname, st.angle, st.lightness, st.upright
        if upright and not generated and cols.flags[i] & ORIGIN_OK and left < cols.ox[i] - overhang_em * size:
            left, right = _pen_box(cols, i, n, right, text, size)
        if rotation == 0:
            x0, x1, y0, y1 = left - fx0, right - fx0, fy1 - top, fy1 - bottom
        else:
            x0, y0, x1, y1 = frame.box(left, bottom, right, top)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        if not (0 <= mx <= width and 0 <= my <= height):
            continue
        if upright:
            ox, oy, adv = left, (pen_y if generated else cols.oy[i]), right - left
        else:
            ox, oy = cols.ox[i], cols.oy[i]
            if rotation:
                ox, oy = frame.point(ox, oy)
                oy = -oy
            adv = _advance(cols, i, n, obj, cols.ox[i], cols.oy[i], st, (left, bottom, right, top))
        append(_new_char((text, x0 if x0 > 0.0 else 0.0, y0 if y0 > 0.0 else 0.0, x1 if x1 < width else width,
                          y1 if y1 < height else height, size, fontname, angle, ox, oy, light, i, adv)))
        prev_kept = True
        if generated:
            pen_right = pen_y = None
        elif pen_right is not None and pen_y == cols.oy[i] and pen_right > right:
            pass  # a glyph drawn over the one before (an accent over its letter) ends no earlier
        else:
            pen_right, pen_y = right, cols.oy[i]
    for k, tail in tails.items():
        out[k] = out[k]._replace(text=out[k].text + "".join(tail))
    return out, raw_count


def _inferred_gap(cols: CharScan, i: int, n: int, pen_right: float | None, pen_y: float | None,
                  min_gap: float) -> bool:
    """Whether the space PDFium inferred at char i (from the fonts' advances) lies in a gap of at
    least `min_gap` points between the last glyph's pen box and the next glyph's origin on the same
    baseline: then it is kept as a word break."""
    j = i + 1
    if pen_right is None or j >= n or cols.flags[j] & GENERATED or not cols.flags[j] & ORIGIN_OK:
        return False
    return abs(cols.oy[j] - pen_y) < min_gap and cols.ox[j] - pen_right >= min_gap


def _pen_box(cols: CharScan, i: int, n: int, right: float, text: str, size: float) -> tuple[float, float]:
    """The x extent of an upright glyph drawn past its pen box: from its origin to the next glyph's
    origin in its text object, else to its advance in its font's metrics, else to where PDFium put
    the space it inferred after it; never past its ink. (PDFium's space for one the file draws may
    lie anywhere from the glyph's advance to its ink's end: "of identity" in TimesNewRoman-Italic.)"""
    ox = cols.ox[i]
    j = i + 1
    if j < n and cols.obj[j] == cols.obj[i] and cols.flags[j] & ORIGIN_OK and ox < cols.ox[j] < right:
        return ox, cols.ox[j]
    ligature = j < n and cols.obj[j] == cols.obj[i] and cols.left[j] == cols.left[i] and cols.right[j] == right
    if not ligature and 0.0 < (advance := _glyph_advance(cols.obj[i], text, size)) < right - ox:
        return ox, ox + advance  # (a ligature's advance is not its first letter's: "fi" is one glyph)
    if j < n and cols.flags[j] & GENERATED and ox < cols.left[j] <= right:  # the inferred space's box
        return ox, cols.left[j]
    return ox, right


def _glyph_advance(obj: int, text: str, size: float) -> float:
    """A char's advance at `size` points from its text object's font (0.0 when PDFium cannot tell:
    no font, several code points, a char the font does not map back)."""
    width = ctypes.c_float()
    font = pdfium_c.FPDFTextObj_GetFont(ctypes.cast(obj, pdfium_c.FPDF_PAGEOBJECT)) if obj else None
    if not font or len(text) != 1 or not pdfium_c.FPDFFont_GetGlyphWidth(font, ord(text), size, ctypes.byref(width)):
        return 0.0
    return width.value


def _advance(cols: CharScan, i: int, n: int, obj: int, ox: float, oy: float, st: _Style, box: tuple) -> float:
    """Advance of a char on a turned or sheared baseline: the distance to the next glyph origin of
    its text object along the baseline, else the loose box's extent along it."""
    if i + 1 < n and cols.obj[i + 1] == obj and cols.flags[i + 1] & ORIGIN_OK:
        step = (cols.ox[i + 1] - ox) * st.ux + (cols.oy[i + 1] - oy) * st.uy
        if step > 0:
            return step
    left, bottom, right, top = box
    ext = max((x - ox) * st.ux + (y - oy) * st.uy for x in (left, right) for y in (bottom, top))
    return max(ext, 0.0)


_ANGLE = attrgetter("angle")


def reading_turn(chars: list[Char], settings: PdfSettings) -> int:
    """Clockwise degrees (0, 90, 180 or 270) that turn the frame of `chars` so that most of its text
    is upright: 0 unless more than `page_turn_min_fraction` of at least `page_turn_min_chars`
    non-space chars run along one other axis direction (a page whose /Rotate shows its text
    sideways, or whose text is drawn sideways on an upright page)."""
    if not any(map(_ANGLE, chars)):  # every baseline at 0 degrees, as on most pages: nothing to count
        return 0
    angles = Counter(c.angle for c in chars if not c.text.isspace())  # few distinct: one per text object
    n = sum(angles.values())
    if n < settings.page_turn_min_chars:
        return 0
    counts: Counter[int] = Counter()
    for angle, k in angles.items():
        quarter = round(angle / 90.0)
        if abs(angle - 90.0 * quarter) <= settings.rotated_min_angle_deg:
            counts[quarter % 4] += k
    quarter, count = max(counts.items(), key=lambda kv: (kv[1], -kv[0]), default=(0, 0))
    return 90 * quarter if quarter and count > settings.page_turn_min_fraction * n else 0


def page_to_chars(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, number: int, settings: PdfSettings
                  ) -> tuple[PageInfo, list[Char], int, PageFrame]:
    """Visible chars of one PDFium page in its reading frame (see reading_turn); also the drawn
    non-space char count and the frame."""
    frame = page_frame(page)
    chars, raw_count = textpage_to_chars(textpage, frame, settings)
    turn = reading_turn(chars, settings)
    if turn:  # read again in the turned frame: origins, advances and angles follow the frame
        frame = frame.turned(turn)
        chars, raw_count = textpage_to_chars(textpage, frame, settings)
    return PageInfo(number, frame.width, frame.height, frame.turn), chars, raw_count, frame


class PageContent(NamedTuple):
    """What the stages read from one page: its size, chars, drawn char count and vector graphics."""

    info: PageInfo
    chars: list[Char]
    raw_chars: int  # drawn non-space chars, before any char is set aside
    graphics: list[Graphic]


def pdf_to_pages(pdf: pdfium.PdfDocument, flags: list[str], settings: PdfSettings, limits: LimitSettings | None = None,
                 flooded: dict[int, str] | None = None) -> Iterator[PageContent]:
    """Each page's chars and graphics in turn, each page closed before the next is loaded. A page
    over the character caps of `limits` is read no further: its plain text goes to `flooded` (page
    number -> text) and it comes out empty."""
    for index in range(len(pdf)):
        number = index + 1
        try:
            with opened_page(pdf, index) as page, opened_textpage(page) as textpage:
                text = flooded_text(textpage, limits) if limits is not None and flooded is not None else None
                if text is not None:
                    flooded[number] = text
                    frame = page_frame(page)
                    yield PageContent(PageInfo(number, frame.width, frame.height), [], 0, [])
                    continue
                info, chars, raw, frame = page_to_chars(page, textpage, number, settings)
                yield PageContent(info, chars, raw, _graphics(page, frame, settings, flags))
        except Exception:  # a broken page (tree entry, content stream) must not lose the others
            if "page_unreadable" not in flags:
                flags.append("page_unreadable")
            try:
                w, h = pdf.get_page_size(index)
            except Exception:
                w, h = 612.0, 792.0  # US Letter in points: a placeholder size, compared with nothing
            yield PageContent(PageInfo(number, float(w), float(h)), [], 0, [])


def _graphics(page: pdfium.PdfPage, frame: PageFrame, settings: PdfSettings, flags: list[str]) -> list[Graphic]:
    """The page's painted paths in `frame`; none (flag `graphics_unreadable`) when PDFium cannot
    list them, so the text still comes out without region detection."""
    try:
        return page_to_graphics(page, settings, frame)
    except Exception:
        if "graphics_unreadable" not in flags:
            flags.append("graphics_unreadable")
        return []


def size_key(size: float, step: float) -> float:
    """A font size rounded to `step` points (`size_step_pt`), so 9.9626 and 9.96264 count as one size."""
    return round(size / step) * step


def modal_size(chars: list[Char], s: PdfSettings) -> float:
    """The most common (rounded) font size, weighted by character count; `body_size_fallback_pt`
    when there are none."""
    raw = Counter(c.size for c in chars if not c.text.isspace())  # few distinct sizes: round each once
    counts: Counter[float] = Counter()
    for size, k in raw.items():  # first-seen order kept, so ties break as counting rounded sizes would
        counts[size_key(size, s.size_step_pt)] += k
    return counts.most_common(1)[0][0] if counts else s.body_size_fallback_pt


_BOLD_MARKS = ("bold", "black", "heavy", "semibold", "demi", "medi", "cmbx", "-bd", ",b", "-b")


@lru_cache(maxsize=4096)
def is_bold_font(fontname: str) -> bool:
    """Guess boldness from the font name (Times-Bold, NimbusRomNo9L-Medi, CMBX10, Arial,Bold)."""
    name = fontname.split("+", 1)[-1].lower()
    return any(mark in name for mark in _BOLD_MARKS if not mark.startswith((",", "-"))) or name.endswith(
        (",b", "-b", "-bd", ",bold")
    )
