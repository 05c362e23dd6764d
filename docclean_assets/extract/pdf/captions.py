"""Stage 7b: captions linked to what they caption.

A caption block ("Table 2: ...", "Figure 3. ...", typed by pdf/kinds.py) names a table or a figure.
A table caption's `anchor_to` is the nearest table block of its page above or below it, sharing its
x-range, within `caption_max_gap_em` body em. A figure caption records the box of its figure in its
meta (`figure_bbox`): the picture objects and vector graphics nearest it, grown by everything drawn
within `figure_cluster_gap_pt` of them (a plot's axes, marks and legend).
"""
from __future__ import annotations

from docclean_assets.extract.pdf.model import Box, PBlock
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.settings import PdfSettings

_TABLE_WORDS = ("table", "tab.", "tabelle")


def _gap(top: float, bottom: float, cap: PBlock) -> float:
    """Vertical distance between a box (top, bottom) and the caption; 0 when they overlap."""
    return max(top - cap.bottom, cap.top - bottom, 0.0)


def _overlaps_x(x0: float, x1: float, cap: PBlock) -> bool:
    return min(x1, cap.x1) - max(x0, cap.x0) > 0


def caption_to_table(cap: PBlock, tables: list[PBlock], body: float, s: PdfSettings) -> PBlock | None:
    """The table the caption names: the nearest one sharing its x-range within the gap limit."""
    near = [(t, _gap(t.top, t.bottom, cap)) for t in tables if _overlaps_x(t.x0, t.x1, cap)]
    near = [(t, g) for t, g in near if g <= s.caption_max_gap_em * body]
    return min(near, key=lambda tg: tg[1])[0] if near else None


def _near(g: Graphic, box: Box, gap: float) -> bool:
    return g.x0 <= box.x1 + gap and g.x1 >= box.x0 - gap and g.top <= box.bottom + gap and g.bottom >= box.top - gap


def caption_to_figure(cap: PBlock, graphics: list[Graphic], avoid: list[Box], body: float, s: PdfSettings) -> Box | None:
    """The box of the figure the caption names: the graphics outside tables nearest the caption
    (sharing its x-range, within the gap limit), grown by those drawn close to them."""
    pool = [g for g in graphics if not any(a.x0 <= g.x0 and g.x1 <= a.x1 and a.top <= g.top and g.bottom <= a.bottom
                                           for a in avoid)]
    seeds = [g for g in pool if _overlaps_x(g.x0, g.x1, cap) and _gap(g.top, g.bottom, cap) <= s.caption_max_gap_em * body
             and not (g.top >= cap.top and g.bottom <= cap.bottom)]
    if not seeds:
        return None
    seed = min(seeds, key=lambda g: _gap(g.top, g.bottom, cap))
    box = Box(seed.x0, seed.top, seed.x1, seed.bottom)
    rest = [g for g in pool if g is not seed]
    for _ in range(s.figure_max_grow_passes):
        grown = [g for g in rest if _near(g, box, s.figure_cluster_gap_pt) and _gap(g.top, g.bottom, cap) > 0]
        if not grown:
            break
        box = Box(min(box.x0, *(g.x0 for g in grown)), min(box.top, *(g.top for g in grown)),
                  max(box.x1, *(g.x1 for g in grown)), max(box.bottom, *(g.bottom for g in grown)))
        taken = {id(g) for g in grown}
        rest = [g for g in rest if id(g) not in taken]
    return box


def captions_to_links(ordered: list[PBlock], graphics: list[Graphic], body: float, s: PdfSettings) -> list[PBlock]:
    """The page's blocks with each table caption linked to its table (`anchor_to`) and each figure
    caption's figure box recorded (`figure_bbox` in its meta): relabelled copies of the captions
    linked, the other blocks as they are."""
    tables = [b for b in ordered if b.kind == "table"]
    avoid = [Box(t.x0, t.top, t.x1, t.bottom) for t in tables]
    out: list[PBlock] = []
    for cap in ordered:
        if cap.kind == "caption" and cap.drop_reason is None:
            cap = _linked(cap, tables, graphics, avoid, body, s)
        out.append(cap)
    return out


def _linked(cap: PBlock, tables: list[PBlock], graphics: list[Graphic], avoid: list[Box], body: float,
            s: PdfSettings) -> PBlock:
    """The caption linked to its table or with its figure's box, or as it is when it names neither."""
    if cap.text.lower().startswith(_TABLE_WORDS):
        table = caption_to_table(cap, tables, body, s)
        return cap if table is None else cap.relabel(anchor_to=table)
    box = caption_to_figure(cap, graphics, avoid, body, s)
    if box is None:
        return cap
    return cap.relabel(extra=(*cap.extra, ("figure_bbox", ",".join(f"{v:.1f}" for v in box))))
