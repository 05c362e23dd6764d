"""A page's vector graphics (filled rectangles, ruled lines, other paths) and the boxes of its
picture objects in the page's reading frame, read from PDFium's page objects; the input of the region
stages (boxes, table rules, figures).

Paths inside Form XObjects are included: their bounds are in the form's space, so the form
objects' matrices are composed on the way down.
"""
from __future__ import annotations

import ctypes
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docclean_assets.extract.pdf.pdfium import PageFrame, page_frame
from docclean_assets.extract.pdf.settings import PdfSettings

_Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
# Form XObjects nested deeper than this are not entered, as in pypdfium2's get_objects: a bound on
# the walk (self-referencing forms), not a heuristic threshold, so not a setting.
_MAX_FORM_DEPTH = 15


class Graphic(NamedTuple):
    """One path object: its box in top-left points within the visible box, and how it is painted."""

    kind: str  # "rect" (filled or stroked box), "line" (a rule: thin in one direction), "path" or "image"
    x0: float
    top: float
    x1: float
    bottom: float
    fill: tuple[int, int, int, int] | None  # RGBA 0-255 when the path is filled
    stroke: tuple[int, int, int, int] | None  # RGBA 0-255 when the path is stroked
    stroke_width: float  # points (in the path's own space), 0 when not stroked


def _compose(m: _Matrix, n: _Matrix) -> _Matrix:
    """m then n (PDF row-vector convention: p' = p x m x n)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def _matrix(obj: object) -> _Matrix:
    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, m):
        return _IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _colour(getter: object, obj: object) -> tuple[int, int, int, int] | None:
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    if not getter(obj, r, g, b, a):  # type: ignore[operator]
        return None
    return (r.value, g.value, b.value, a.value)


def _is_box(obj: object, decimals: int) -> bool:
    """Whether the path is one axis-aligned rectangle (re operator, or 4-5 straight segments; a
    close adds one), its corners compared at `decimals` places (`rect_corner_decimals`)."""
    n = pdfium_c.FPDFPath_CountSegments(obj)
    if not 4 <= n <= 6:
        return False
    xs, ys = set(), set()
    x, y = ctypes.c_float(), ctypes.c_float()
    for k in range(n):
        seg = pdfium_c.FPDFPath_GetPathSegment(obj, k)
        if pdfium_c.FPDFPathSegment_GetType(seg) == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            return False
        if not pdfium_c.FPDFPathSegment_GetPoint(seg, x, y):
            return False
        xs.add(round(x.value, decimals))
        ys.add(round(y.value, decimals))
    return len(xs) <= 2 and len(ys) <= 2


def _bounds(obj: object, ctm: _Matrix, frame: PageFrame) -> tuple[float, float, float, float] | None:
    """The object's box in top-left points of the visible box; None when wholly outside it."""
    l, b, r, t = (ctypes.c_float() for _ in range(4))
    if not pdfium_c.FPDFPageObj_GetBounds(obj, l, b, r, t):
        return None
    corners = [(x, y) for x in (l.value, r.value) for y in (b.value, t.value)]
    if ctm != _IDENTITY:
        a_, b_, c_, d_, e_, f_ = ctm
        corners = [(x * a_ + y * c_ + e_, x * b_ + y * d_ + f_) for x, y in corners]
    pts = [frame.point(x, y) for x, y in corners]
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    if x1 < 0 or y1 < 0 or x0 > frame.width or y0 > frame.height:
        return None
    return x0, y0, x1, y1


def _image_graphic(obj: object, ctm: _Matrix, frame: PageFrame) -> Graphic | None:
    box = _bounds(obj, ctm, frame)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    return Graphic("image", max(0.0, x0), max(0.0, y0), min(frame.width, x1), min(frame.height, y1), None, None, 0.0)


def _path_graphic(obj: object, ctm: _Matrix, frame: PageFrame, s: PdfSettings) -> Graphic | None:
    box = _bounds(obj, ctm, frame)
    if box is None:
        return None  # wholly outside the visible box
    x0, y0, x1, y1 = box
    mode, stroke_on = ctypes.c_int(), pdfium_c.FPDF_BOOL()
    if not pdfium_c.FPDFPath_GetDrawMode(obj, mode, stroke_on):
        mode.value, stroke_on.value = 0, 0
    fill = _colour(pdfium_c.FPDFPageObj_GetFillColor, obj) if mode.value else None
    stroke = _colour(pdfium_c.FPDFPageObj_GetStrokeColor, obj) if stroke_on.value else None
    if fill is None and stroke is None:
        return None  # a clipping path or an unpainted one
    width = ctypes.c_float()
    sw = float(width.value) if stroke is not None and pdfium_c.FPDFPageObj_GetStrokeWidth(obj, width) else 0.0
    if min(x1 - x0, y1 - y0) <= s.rule_max_thickness_pt:
        kind = "line"
    elif _is_box(obj, s.rect_corner_decimals):
        kind = "rect"
    else:
        kind = "path"
    return Graphic(kind, max(0.0, x0), max(0.0, y0), min(frame.width, x1), min(frame.height, y1), fill, stroke, sw)


def page_to_graphics(page: pdfium.PdfPage, settings: PdfSettings, frame: PageFrame | None = None) -> list[Graphic]:
    """The page's painted path objects (rectangles, rules, other paths) and picture objects in
    content order, with boxes in top-left points relative to the visible box in `frame` (by
    default the page as displayed)."""
    frame = frame or page_frame(page)
    out: list[Graphic] = []
    # (container form object or None, index, composed matrix of the containers, depth)
    stack: list[tuple[object | None, int, _Matrix, int]] = [(None, 0, _IDENTITY, 0)]
    while stack:
        form, k, ctm, depth = stack.pop()
        count = pdfium_c.FPDFFormObj_CountObjects(form) if form is not None else pdfium_c.FPDFPage_CountObjects(page.raw)
        if k >= count:
            continue
        stack.append((form, k + 1, ctm, depth))
        obj = pdfium_c.FPDFFormObj_GetObject(form, k) if form is not None else pdfium_c.FPDFPage_GetObject(page.raw, k)
        if not obj:
            continue
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_PATH:
            g = _path_graphic(obj, ctm, frame, settings)
            if g is not None:
                out.append(g)
        elif kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            g = _image_graphic(obj, ctm, frame)
            if g is not None:
                out.append(g)
        elif kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth + 1 < _MAX_FORM_DEPTH:
            stack.append((obj, 0, _compose(_matrix(obj), ctm), depth + 1))
    return out
