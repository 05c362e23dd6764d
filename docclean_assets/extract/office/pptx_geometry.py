"""Slide geometry for the PPTX backend: shape boxes from DrawingML transforms (group scaling
included), read within the schema's ranges and kept inside a frame around the slide.

A shape may be placed anywhere a coordinate can say (2e13 EMU is schema-valid) and a group may scale
its children by any factor: every box is clamped to the slide widened by
OfficeSettings.off_slide_margin before anything is laid out (flag geometry_clamped), so no layout
ever sees a box miles off the slide.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from lxml import etree

from docclean_assets.extract.model import BBox, DocReport
from docclean_assets.extract.office.common import A_NS, finite_clamp, xml_float

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
EMU_PER_POINT = 12700  # spec value: English Metric Units per point (ECMA-376, 914,400 EMU per inch)
# DrawingML coordinates (ST_Coordinate, EMU); extents are ST_PositiveCoordinate (0 to the maximum).
EMU_MIN, EMU_MAX = -27_273_042_329_600, 27_273_042_316_900
# Slide sizes (ST_SlideSizeCoordinate, EMU), and the default 10 x 7.5 inch slide without a p:sldSz.
SLIDE_EMU_MIN, SLIDE_EMU_MAX = 914_400, 51_206_400
SLIDE_DEFAULT_EMU = (9_144_000, 6_858_000)


def _a(name: str) -> str:
    return f"{{{A_NS}}}{name}"


def _p(name: str) -> str:
    return f"{{{P_NS}}}{name}"


@dataclass(frozen=True)
class Xf:
    """Child-to-slide transform: X = tx + sx * x (EMU)."""

    sx: float = 1.0
    sy: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    def then(self, child: Xf) -> Xf:
        return Xf(self.sx * child.sx, self.sy * child.sy, self.tx + self.sx * child.tx, self.ty + self.sy * child.ty)

    def box(self, x: float, y: float, cx: float, cy: float) -> BBox:
        x0, y0 = self.tx + self.sx * x, self.ty + self.sy * y
        x1, y1 = x0 + abs(self.sx) * max(cx, 0), y0 + abs(self.sy) * max(cy, 0)
        return BBox(x0 / EMU_PER_POINT, y0 / EMU_PER_POINT, x1 / EMU_PER_POINT, y1 / EMU_PER_POINT)


def _emu(el: etree._Element, name: str, report: DocReport | None) -> float:
    """A coordinate (x, y) or extent (cx, cy) attribute in EMU, within the DrawingML range."""
    lo = 0 if name.startswith("c") else EMU_MIN
    return xml_float(el.get(name), lo, EMU_MAX, 0.0, report)


def xfrm_box(xfrm: etree._Element | None, xf: Xf, report: DocReport | None = None) -> BBox | None:
    if xfrm is None:
        return None
    off, ext = xfrm.find(_a("off")), xfrm.find(_a("ext"))
    if off is None or ext is None:
        return None
    return xf.box(*(_emu(off, n, report) for n in ("x", "y")), *(_emu(ext, n, report) for n in ("cx", "cy")))


def group_xf(grp: etree._Element, xf: Xf, report: DocReport | None = None) -> Xf:
    """The transform of a group's children: chOff/chExt scaled onto the group's off/ext."""
    xfrm = grp.find(f"{_p('grpSpPr')}/{_a('xfrm')}")
    if xfrm is None:
        return xf
    off, ext, ch_off, ch_ext = (xfrm.find(_a(n)) for n in ("off", "ext", "chOff", "chExt"))
    if off is None or ext is None or ch_off is None or ch_ext is None:
        return xf
    ccx, ccy = _emu(ch_ext, "cx", report), _emu(ch_ext, "cy", report)
    sx = _emu(ext, "cx", report) / ccx if ccx else 1.0
    sy = _emu(ext, "cy", report) / ccy if ccy else 1.0
    tx = _emu(off, "x", report) - _emu(ch_off, "x", report) * sx
    ty = _emu(off, "y", report) - _emu(ch_off, "y", report) * sy
    return xf.then(Xf(sx, sy, tx, ty))


class Frame(NamedTuple):
    """Where shape boxes are kept: the slide widened by OfficeSettings.off_slide_margin on each side, points."""

    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def of(cls, prs, report: DocReport, margin: float) -> Frame:  # noqa: ANN001 - a python-pptx Presentation
        """The slide of `prs` widened by `margin` (a fraction of its width and height) on each side."""
        size = prs.element.find(_p("sldSz"))
        dims = [xml_float(size.get(n) if size is not None else None, SLIDE_EMU_MIN, SLIDE_EMU_MAX, d, report)
                / EMU_PER_POINT for n, d in zip(("cx", "cy"), SLIDE_DEFAULT_EMU)]
        w, h = (d * margin for d in dims)
        return cls(-w, -h, dims[0] + w, dims[1] + h)

    def clamp(self, box: BBox, report: DocReport) -> BBox:
        """The box inside the frame (NaN from an overflowing transform too); flags geometry_clamped."""
        x0 = finite_clamp(box.x0, self.x0, self.x1)
        y0 = finite_clamp(box.y0, self.y0, self.y1)
        inside = BBox(x0, y0, finite_clamp(box.x1, x0, self.x1), finite_clamp(box.y1, y0, self.y1))
        if inside != box:
            report.flag("geometry_clamped")
        return inside
