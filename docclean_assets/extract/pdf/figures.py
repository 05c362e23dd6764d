"""Stage 2c: the text of a page's drawings (charts, diagrams, pictures) taken out of the flow.

A drawing is a cluster of marks: pictures, and stroked, unfilled paths that run in two directions
(curves and polylines; rules and shading are not marks), joined when within `figure_cluster_gap_pt`
of each other, and grown by the frames and axes drawn over them. It is a figure when it is at least
`figure_min_side_em` body em wide and high and no prose lies on it (a banner or a shape behind a
paragraph is decoration). The short blocks that are no sentence, set in a figure or, when it is drawn
in vectors, beside it within `figure_label_reach_em` (tick labels, axis titles, legends, panel
letters), are its text: `image_text` asides placed after the body block they sit beside, never prose
that a column break could join to a paragraph. A picture's labels are set on it: text beside a
picture is its caption or the prose around it.
"""
from __future__ import annotations

from typing import NamedTuple

from docclean_assets.extract.pdf.model import Box, PBlock
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.kinds import CAPTION
from docclean_assets.extract.pdf.regions import Asides, visible
from docclean_assets.extract.pdf.settings import PdfSettings


class Drawing(NamedTuple):
    """A drawing's box in top-left points, and whether vector marks are in it (not pictures only)."""

    x0: float
    top: float
    x1: float
    bottom: float
    vector: bool

    @property
    def box(self) -> Box:
        """The drawing's rectangle."""
        return Box(self.x0, self.top, self.x1, self.bottom)


def is_mark(g: Graphic, s: PdfSettings) -> bool:
    """A picture, or a stroked, unfilled path that runs in two directions (its short side at least
    `table_curve_min_aspect_fraction` of its long one): a curve, a polyline, an axis pair."""
    if g.kind == "image":
        return True
    w, h = g.x1 - g.x0, g.bottom - g.top
    flat = min(w, h) < s.table_curve_min_aspect_fraction * max(w, h)
    return g.kind == "path" and visible(g.stroke, s) and not visible(g.fill, s) and not flat


def _near(a: Box, b: Box, gap: float) -> bool:
    return a.x0 <= b.x1 + gap and a.x1 >= b.x0 - gap and a.top <= b.bottom + gap and a.bottom >= b.top - gap


def _union(a: Box, b: Box) -> Box:
    return Box(min(a.x0, b.x0), min(a.top, b.top), max(a.x1, b.x1), max(a.bottom, b.bottom))


def graphics_to_drawings(graphics: list[Graphic], body: float, s: PdfSettings) -> list[Drawing]:
    """The page's drawings of figure size (module docstring), not yet checked for prose."""
    clusters: list[tuple[Box, bool]] = [(Box(g.x0, g.top, g.x1, g.bottom), g.kind != "image")
                                        for g in graphics if is_mark(g, s)]
    merged = True
    # Join clusters until none is near another: quadratic in the clusters left apart, which is few on
    # a page (4,000 isolated marks, a sparse scatter plot's worst case, take 0.6 s; near ones merge at once).
    while merged:
        merged = False
        out: list[tuple[Box, bool]] = []
        for box, vector in clusters:
            for k, (o, ov) in enumerate(out):
                if _near(box, o, s.figure_cluster_gap_pt):
                    out[k], merged = (_union(box, o), vector or ov), True
                    break
            else:
                out.append((box, vector))
        clusters = out
    frames = [Box(g.x0, g.top, g.x1, g.bottom) for g in graphics if g.kind in ("rect", "line") and visible(g.stroke, s)]
    side = s.figure_min_side_em * body
    drawings = []
    for box, vector in clusters:
        for f in frames:
            if _near(f, box, 0.0):
                box = _union(box, f)
        if box.x1 - box.x0 >= side and box.bottom - box.top >= side:
            drawings.append(Drawing(*box, vector))
    return drawings


def _words(b: PBlock) -> int:
    return len(b.text.split())


def _overlap_share(b: PBlock, box: Box) -> float:
    """The share of the block's area inside the box."""
    w = min(b.x1, box.x1) - max(b.x0, box.x0)
    h = min(b.bottom, box.bottom) - max(b.top, box.top)
    area = max((b.x1 - b.x0) * (b.bottom - b.top), 1.0)  # 1 square point: a guard for empty boxes
    return max(w, 0.0) * max(h, 0.0) / area


def _label(b: PBlock, body: float, s: PdfSettings) -> bool:
    """A block short and small enough to be a drawing's label, and no caption nor sentence."""
    words = _words(b)
    sentence = words >= s.figure_sentence_min_words and b.text.rstrip()[-1:] in ".!?"
    return (words <= s.figure_label_max_words and len(b.lines) <= s.figure_label_max_lines and not sentence
            and b.size <= s.figure_label_max_size_ratio * body and not CAPTION.match(b.text))


def blocks_to_figure_text(blocks: list[PBlock], drawings: list[Drawing], body: float, s: PdfSettings) -> Asides:
    """The flow without the drawings' labels, and those labels as `image_text` asides."""
    figures = [d for d in drawings if not any(_words(b) >= s.figure_prose_min_words
                                              and _overlap_share(b, d.box) > 0.5 for b in blocks)]
    if not figures:
        return Asides(blocks, [])
    reach = s.figure_label_reach_em * body
    flow, labels = [], []
    for b in blocks:
        box = Box(b.x0, b.top, b.x1, b.bottom)
        if _label(b, body, s) and any(_near(box, d.box, reach if d.vector else 0.0) for d in figures):
            labels.append(b.relabel(kind="image_text"))
        else:
            flow.append(b)
    return Asides(flow, labels)
