"""One text page's per-char PDFium data as columns: each char's text object, loose box, origin and
generated flag, and the style of each run of chars from one text object, read in one native call
(`_charscan`, a C extension built at install) or, where it was not built, one ctypes call per char
and attribute. Both readers return the same values."""
from __future__ import annotations

import ctypes
from typing import NamedTuple

import pypdfium2.raw as pdfium_c

from docclean_assets.extract.pdf.pdfium import text_object_of

try:
    from docclean_assets.extract.pdf import _charscan
except ImportError:  # no C compiler at install: the ctypes reader below
    _charscan = None

GENERATED, ORIGIN_OK = 1, 2  # bits of `CharScan.flags` (as in _charscan.c)


def _address(fn: object) -> int:
    return ctypes.cast(fn, ctypes.c_void_p).value or 0


_FUNCTIONS = tuple(_address(f) for f in (pdfium_c.FPDFText_GetTextObject, pdfium_c.FPDFText_GetLooseCharBox,
                                          pdfium_c.FPDFText_GetCharOrigin, pdfium_c.FPDFText_IsGenerated,
                                          pdfium_c.FPDFText_GetMatrix, pdfium_c.FPDFText_GetFontSize,
                                          pdfium_c.FPDFText_GetFontInfo, pdfium_c.FPDFText_GetFillColor))


class RunStyle(NamedTuple):
    """What PDFium reports for the first char of a run of chars from one text object."""

    index: int  # the char
    matrix_ok: bool
    a: float  # the char's matrix (text space to user space, without translation)
    b: float
    c: float
    d: float
    font_size: float  # the text state's size
    fontname: bytes  # as FPDFText_GetFontInfo writes it (b"" when it fails)
    fill_ok: bool
    r: int  # fill colour, 0-255
    g: int
    bl: int


class CharScan(NamedTuple):
    """Columns indexed like PDFium's chars; `obj` is 0 for a char without a text object."""

    obj: list[int]
    left: list[float]  # loose box, PDF user space (y up)
    top: list[float]
    right: list[float]
    bottom: list[float]
    ox: list[float]  # glyph origin, user space
    oy: list[float]
    flags: bytes  # GENERATED | ORIGIN_OK per char
    styles: list[RunStyle]  # one per run of chars with the same text object (chars without one between)


def native() -> bool:
    """Whether the C reader was built and is in use."""
    return _charscan is not None


def scan_textpage(raw: object, n: int, use_native: bool = True) -> CharScan:
    """The columns of the first `n` chars of the text page `raw` (a pypdfium2 FPDF_TEXTPAGE)."""
    if use_native and _charscan is not None:
        objs, boxes, origins, flags, styles = _charscan.scan(_address(raw), n, *_FUNCTIONS)
        b = memoryview(boxes).cast("f").tolist()
        g = memoryview(origins).cast("d").tolist()
        return CharScan(memoryview(objs).cast("Q").tolist(), b[0::4], b[1::4], b[2::4], b[3::4],
                        g[0::2], g[1::2], flags, [RunStyle(*st) for st in styles])
    return _scan_ctypes(raw, n)


def _scan_ctypes(raw: object, n: int) -> CharScan:
    """The same columns through ctypes, one call per char and attribute."""
    box, ox, oy = pdfium_c.FS_RECTF(), ctypes.c_double(), ctypes.c_double()
    box_ref, ox_ref, oy_ref = ctypes.byref(box), ctypes.byref(ox), ctypes.byref(oy)
    get_box, get_origin, is_generated = (pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_GetCharOrigin,
                                         pdfium_c.FPDFText_IsGenerated)
    cols: tuple[list, ...] = ([], [], [], [], [], [], [])
    flags = bytearray(n)
    styles: list[RunStyle] = []
    run = 0  # the text object of the current run (chars without one do not end it)
    for i in range(n):
        obj = text_object_of(raw, i) or 0
        if obj and obj != run:
            run = obj
            styles.append(_run_style(raw, i))
        cols[0].append(obj)
        get_box(raw, i, box_ref)
        ok = get_origin(raw, i, ox_ref, oy_ref)
        for col, value in zip(cols[1:], (box.left, box.top, box.right, box.bottom, ox.value, oy.value)):
            col.append(value)
        flags[i] = (GENERATED if is_generated(raw, i) else 0) | (ORIGIN_OK if ok else 0)
    return CharScan(*cols, bytes(flags), styles)


def _run_style(raw: object, i: int) -> RunStyle:
    """The style values of char `i` through ctypes."""
    m = pdfium_c.FS_MATRIX()
    matrix_ok = bool(pdfium_c.FPDFText_GetMatrix(raw, i, m))
    size = float(pdfium_c.FPDFText_GetFontSize(raw, i))
    font_flags = ctypes.c_int()
    buf = ctypes.create_string_buffer(128)
    length = pdfium_c.FPDFText_GetFontInfo(raw, i, buf, len(buf), font_flags)
    if length > len(buf):
        buf = ctypes.create_string_buffer(length)
        pdfium_c.FPDFText_GetFontInfo(raw, i, buf, len(buf), font_flags)
    rgba = [ctypes.c_uint() for _ in range(4)]
    fill_ok = bool(pdfium_c.FPDFText_GetFillColor(raw, i, *rgba))
    return RunStyle(i, matrix_ok, m.a, m.b, m.c, m.d, size, buf.value if length else b"", fill_ok,
                    *(v.value for v in rgba[:3]))
