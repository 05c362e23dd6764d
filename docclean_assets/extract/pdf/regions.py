"""Stage 2b: asides, the text set beside the prose, as blocks of their own.

- Call-out panels: chars whose centre lies inside a filled or stroked box drawn in the file (an
  exact containment test on the page's vector graphics) belong to that panel, whatever the columns
  do around it; the panel becomes one `callout` block.
- Sidebars: a narrow stack of blocks with stable left and right edges down a long stretch of the
  page, beside wider text, without a drawn box; also one `callout` block.
- Margin notes: short blocks wholly outside the main text's left or right edge, beside a body block.

Asides leave the column analysis and are placed after reading order is known (`place_asides`):
each right after the body block it sits beside, with `anchor_to` pointing at that block.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from docclean_assets.extract.pdf.blocks import lines_to_blocks
from docclean_assets.extract.pdf.model import Box, PBlock
from docclean_assets.extract.pdf.chars import Char, PageInfo
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.labels import follows, list_label
from docclean_assets.extract.pdf.lines import chars_to_words, words_to_lines
from docclean_assets.extract.pdf.settings import PdfSettings

ASIDE_KINDS = ("callout", "margin_note", "pull_quote")


class Panel(NamedTuple):
    """A box drawn on the page that may set text apart, in top-left points."""

    x0: float
    top: float
    x1: float
    bottom: float
    dark: bool  # filled with a dark colour: light text on it is reversed text

    @property
    def area(self) -> float:
        return (self.x1 - self.x0) * (self.bottom - self.top)


class Asides(NamedTuple):
    """A page's flow blocks split into those that stay in the flow and the asides taken out of it."""

    flow: list[PBlock]
    asides: list[PBlock]


class PanelChars(NamedTuple):
    """The page's chars divided between the flow, the watermark candidates and the panels."""

    flow: list[Char]
    light: list[Char]  # light chars on no dark panel: still watermark candidates
    panels: list[tuple[Panel, list[Char], int]]  # panel, its chars in page order, how many are reversed


def luminance(rgba: tuple[int, int, int, int]) -> float:
    """Relative luminance of an RGB colour, 0 black .. 1 white (Rec. 601 weights)."""
    r, g, b, _a = rgba
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255.0


def visible(rgba: tuple[int, int, int, int] | None, s: PdfSettings) -> bool:
    """Whether paint shows on a white page: opaque and darker than `invisible_min_luminance`."""
    return rgba is not None and rgba[3] > 0 and luminance(rgba) < s.invisible_min_luminance


def _inside(g: Graphic, box: Box) -> bool:
    cx, cy = (g.x0 + g.x1) / 2, (g.top + g.bottom) / 2
    return box.x0 <= cx <= box.x1 and box.top <= cy <= box.bottom


def graphics_to_panels(
    graphics: list[Graphic],
    info: PageInfo,
    body: float,
    settings: PdfSettings,
    avoid: list[Box] = (),  # type: ignore[assignment]
) -> list[Panel]:
    """Boxes that may hold a call-out: visibly painted, room for two lines of body text, at least
    `panel_min_width_em` wide, not the page background, not a cell of a table in `avoid`."""
    page_area = max(info.width * info.height, 1.0)
    out: list[Panel] = []
    rows = _rect_rows(graphics, settings.panel_tile_tolerance_pt)
    for g in graphics:
        if g.kind != "rect":
            continue
        w, h = g.x1 - g.x0, g.bottom - g.top
        if w < settings.panel_min_width_em * body or h < settings.panel_min_lines * body:
            continue
        if w * h > settings.panel_max_page_fraction * page_area:
            continue
        filled = visible(g.fill, settings)
        if not (filled or visible(g.stroke, settings)):
            continue
        if any(_inside(g, box) for box in avoid) or _tiled(g, rows, settings.panel_tile_tolerance_pt):
            continue
        dark = filled and g.fill is not None and luminance(g.fill) <= settings.panel_dark_max_luminance
        out.append(Panel(g.x0, g.top, g.x1, g.bottom, dark))
    if len(out) > settings.panel_max_per_page:
        out = sorted(out, key=lambda p: -p.area)[:settings.panel_max_per_page]
    return out


def _span_key(g: Graphic, tol: float) -> tuple[int, int]:
    """A rect's top and bottom in steps of `tol` points: rects of one row share it or a neighbour."""
    step = max(tol, 0.01)
    return round(g.top / step), round(g.bottom / step)


def _rect_rows(graphics: list[Graphic], tol: float) -> dict[tuple[int, int], list[Graphic]]:
    """The painted rects by `_span_key` (a lookup for `_tiled`)."""
    rows: dict[tuple[int, int], list[Graphic]] = {}
    for g in graphics:
        if g.kind == "rect":
            rows.setdefault(_span_key(g, tol), []).append(g)
    return rows


def _tiled(g: Graphic, rows: dict[tuple[int, int], list[Graphic]], tol: float) -> bool:
    """Whether another rect of the same top and bottom meets `g`'s left or right edge: a cell of a row."""
    t, b = _span_key(g, tol)
    for key in ((t + i, b + j) for i in (-1, 0, 1) for j in (-1, 0, 1)):
        for o in rows.get(key, ()):
            if o is not g and abs(o.top - g.top) <= tol and abs(o.bottom - g.bottom) <= tol and (
                    abs(o.x0 - g.x1) <= tol or abs(o.x1 - g.x0) <= tol):
                return True
    return False


def chars_to_panels(normal: list[Char], light: list[Char], panels: list[Panel], settings: PdfSettings) -> PanelChars:
    """Each char to the outermost panel containing its centre, unless that panel holds more than
    `panel_max_text_share` of the page's chars (a frame around the body). Light chars (watermark
    candidates) join a panel only when the innermost box under them is dark: reversed text."""
    if not panels or not (normal or light):
        return PanelChars(list(normal), list(light), [])
    chars = [*normal, *light]
    is_light = np.zeros(len(chars), dtype=bool)
    is_light[len(normal):] = True
    tol = settings.panel_edge_tolerance_pt
    cx = np.fromiter(((c.x0 + c.x1) / 2 for c in chars), float, len(chars))
    cy = np.fromiter(((c.top + c.bottom) / 2 for c in chars), float, len(chars))
    box = np.array([(p.x0 - tol, p.top - tol, p.x1 + tol, p.bottom + tol) for p in panels])
    inside = (
        (cx[:, None] >= box[None, :, 0]) & (cx[:, None] <= box[None, :, 2])
        & (cy[:, None] >= box[None, :, 1]) & (cy[:, None] <= box[None, :, 3])
    )
    area = np.array([p.area for p in panels])
    dark = np.array([p.dark for p in panels])
    # Reversed: the innermost box under the char is dark and the char is light.
    innermost = np.where(inside, area[None, :], np.inf).argmin(axis=1)
    any_inside = inside.any(axis=1)
    lightness = np.fromiter((c.lightness for c in chars), float, len(chars))
    reversed_ = any_inside & dark[innermost] & (lightness >= settings.reversed_min_lightness)
    eligible = ~is_light | reversed_
    # Frames around most of the page's text are not call-outs.
    counts = (inside & eligible[:, None]).sum(axis=0)
    qualifies = (counts > 0) & (counts <= settings.panel_max_text_share * max(int(eligible.sum()), 1))
    held = inside & qualifies[None, :] & eligible[:, None]
    outermost = np.where(held, area[None, :], -1.0).argmax(axis=1)
    in_panel = held.any(axis=1)
    flow = [c for i, c in enumerate(normal) if not in_panel[i]]
    light_rest = [c for i, c in enumerate(light) if not in_panel[len(normal) + i]]
    grouped: dict[int, list[int]] = {}
    for i in np.flatnonzero(in_panel):
        grouped.setdefault(int(outermost[i]), []).append(int(i))
    members = [
        (panels[k], sorted((chars[i] for i in idx), key=lambda c: c.seq), int(reversed_[idx].sum()))
        for k, idx in sorted(grouped.items())
    ]
    return PanelChars(flow, light_rest, members)


def panel_to_callout(panel: Panel, chars: list[Char], page: int, settings: PdfSettings) -> PBlock | None:
    """The panel's text as one `callout` block (its paragraphs kept apart, the box as its bbox);
    None when it holds fewer than `panel_min_lines` lines (a heading band, a highlighted phrase)."""
    lines = words_to_lines(chars_to_words(chars, settings), settings)
    if len(lines) < settings.panel_min_lines:
        return None
    paragraphs = sorted(lines_to_blocks(lines, page, settings), key=lambda b: (b.top, b.x0))
    return PBlock([ln for p in paragraphs for ln in p.lines], page, kind="callout", parts=paragraphs,
                  extra=(("region", "box"),), box=(panel.x0, panel.top, panel.x1, panel.bottom))  # the box, not its text


def _weighted_quantile(values: list[float], weights: list[int], q: float) -> float:
    order = sorted(range(len(values)), key=values.__getitem__)
    total = sum(weights)
    acc = 0.0
    for i in order:
        acc += weights[i]
        if acc >= q * total:
            return values[i]
    return values[order[-1]]


def _vertical_overlap(a: PBlock, b: PBlock) -> float:
    return min(a.bottom, b.bottom) - max(a.top, b.top)


def blocks_to_margin_notes(blocks: list[PBlock], body: float, settings: PdfSettings) -> Asides:
    """The page's flow without its margin notes, and those notes: blocks in the outer margins (wholly
    outside the main text's edges, short, beside a body block, within the vertical span of the
    prose), relabelled `margin_note` (copies), in page order."""
    notes = _margin_notes(blocks, body, settings)
    taken = {id(b) for b, _side in notes}
    notes.sort(key=lambda bs: (bs[0].top, bs[0].x0))
    return Asides([b for b in blocks if id(b) not in taken],
                  [b.relabel(kind="margin_note", extra=(*b.extra, ("region", "margin"), ("side", side)))
                   for b, side in notes])


def _margin_notes(blocks: list[PBlock], body: float, settings: PdfSettings) -> list[tuple[PBlock, str]]:
    """The blocks that are margin notes (see `blocks_to_margin_notes`), each with its side."""
    content = [b for b in blocks if b.drop_reason is None and b.kind == "paragraph"]
    lines = [ln for b in content for ln in b.lines]
    if len(content) < 2 or not lines:
        return []
    weights = [ln.n for ln in lines]
    left = _weighted_quantile([ln.x0 for ln in lines], weights, settings.margin_text_left_quantile)
    right = _weighted_quantile([ln.x1 for ln in lines], weights, settings.margin_text_right_quantile)
    gap = settings.margin_note_min_gap_em * body
    width = right - left
    # Only beside the prose: page furniture (a page label, a footer DOI) sits above or below every
    # paragraph of two lines or more.
    prose = [b for b in content if len(b.lines) >= 2]
    if not prose:
        return []
    span_top, span_bottom = min(b.top for b in prose), max(b.bottom for b in prose)
    notes = []
    for b in content:
        if not span_top <= (b.top + b.bottom) / 2 <= span_bottom:
            continue
        if len(b.lines) > settings.margin_note_max_lines or b.x1 - b.x0 > settings.margin_note_max_width_fraction * width:
            continue
        side = "left" if b.x1 <= left - gap else "right" if b.x0 >= right + gap else None
        if side is None:
            continue
        # Beside a paragraph of two lines or more: a cell at the end of a row of one-line cells is a
        # table's last column, and a note needs a letter or digit (a lone dash is an empty cell).
        if not any(left - gap < o.x0 < right and _vertical_overlap(o, b) > 0 for o in prose if o is not b):
            continue
        if not any(ch.isalnum() for ch in b.text):
            continue
        notes.append((b, side))
    return notes


def _measure(blocks: list[PBlock]) -> float:
    """The page's main text measure: the char-weighted median line width."""
    lines = [ln for b in blocks for ln in b.lines]
    return _weighted_quantile([ln.x1 - ln.x0 for ln in lines], [ln.n for ln in lines], 0.5) if lines else 0.0


def _words_per_line(blocks: list[PBlock]) -> float:
    lines = [ln for b in blocks for ln in b.lines]
    return sum(len(ln.words) for ln in lines) / max(len(lines), 1)


def blocks_to_sidebars(blocks: list[PBlock], body: float, settings: PdfSettings) -> Asides:
    """The page's flow without its sidebars, and those sidebars, each as one `callout` block (region
    `sidebar`) made of the blocks it takes out of the flow.

    A sidebar is a stack of prose blocks sharing left and right edges, narrower than
    `sidebar_max_width_ratio` x the page's main measure, at least `sidebar_min_height_em` tall, with
    nothing else across its x-range between its blocks, beside wider text.
    """
    content = [b for b in blocks if b.drop_reason is None and b.kind in ("paragraph", "heading", "list_item")]
    measure = _measure(content)
    if measure <= 0:
        return Asides(blocks, [])
    align = settings.sidebar_align_em * body
    narrow = [b for b in content if b.x1 - b.x0 <= settings.sidebar_max_width_ratio * measure]
    bands: list[list[PBlock]] = []
    for b in sorted(narrow, key=lambda b: (b.top, b.x0)):
        band = next((s for s in bands if abs(s[-1].x0 - b.x0) <= align and b.x1 <= max(x.x1 for x in s) + align
                     and b.top - s[-1].bottom <= settings.sidebar_max_gap_em * body), None)
        if band is not None and not any(
            o not in band and o is not b and o.top >= band[-1].bottom - settings.sidebar_edge_tolerance_pt
            and o.bottom <= b.top + settings.sidebar_edge_tolerance_pt
            and min(o.x1, b.x1) - max(o.x0, b.x0) > 0 for o in content
        ):
            band.append(b)
        else:
            bands.append([b])
    out: list[PBlock] = []
    taken: set[int] = set()
    for band in bands:
        x0, x1 = min(b.x0 for b in band), max(b.x1 for b in band)
        top, bottom = band[0].top, max(b.bottom for b in band)
        if bottom - top < settings.sidebar_min_height_em * body or x1 - x0 > settings.sidebar_max_width_ratio * measure:
            continue
        if sum(len(b.lines) for b in band) < settings.sidebar_min_lines:
            continue
        if _words_per_line(band) < settings.column_min_words_per_line:
            continue
        beside = [
            o for o in content
            if o not in band and (o.x1 <= x0 or o.x0 >= x1) and min(o.bottom, bottom) - max(o.top, top) > 0
            and o.x1 - o.x0 > settings.sidebar_max_width_ratio * measure
        ]
        if not beside:
            continue
        out.append(PBlock([ln for b in band for ln in b.lines], band[0].page, kind="callout", parts=list(band),
                          extra=(("region", "sidebar"),)))
        taken.update(id(b) for b in band)
    return Asides([b for b in blocks if id(b) not in taken], out)


def _anchor_for(aside: PBlock, ordered: list[PBlock], by_overlap: bool, settings: PdfSettings) -> int | None:
    """Index in `ordered` of the body block the aside goes after (see `place_asides`)."""
    body = [(i, b) for i, b in enumerate(ordered) if b.drop_reason is None and b.kind not in ASIDE_KINDS]
    if not body:
        return None

    def h_overlap(b: PBlock) -> bool:
        return min(b.x1, aside.x1) - max(b.x0, aside.x0) > 0

    if by_overlap:  # margin notes: the block beside them, most vertical overlap first
        beside = [(i, b) for i, b in body if _vertical_overlap(b, aside) > 0]
        if beside:
            return max(beside, key=lambda ib: (_vertical_overlap(ib[1], aside), -abs(ib[1].x0 - aside.x0)))[0]
    edge, tol = aside.top, settings.aside_anchor_tolerance_pt
    tiers = (
        [i for i, b in body if b.top <= edge <= b.bottom and h_overlap(b)],
        [i for i, b in body if b.bottom <= edge + tol and h_overlap(b)],
        [i for i, b in body if b.top <= edge <= b.bottom],
        [i for i, b in body if b.bottom <= edge + tol],
    )
    return next((max(t) for t in tiers if t), None)


def place_asides(ordered: list[PBlock], asides: list[PBlock], settings: PdfSettings) -> list[PBlock]:
    """The page's reading order with each aside right after the body block it refers to: for a
    call-out, the block whose vertical extent holds the panel's top edge (else the last block above
    it), preferring blocks over the panel's x-range; for a margin note, the block beside it. Asides
    with nothing before them open the page. `anchor_to` of each aside's copy records the block."""
    if not asides:
        return ordered
    after: dict[int, list[PBlock]] = {}
    lead: list[PBlock] = []
    for a in sorted(asides, key=lambda b: (b.top, b.x0)):
        k = _anchor_for(a, ordered, a.kind == "margin_note", settings)
        if k is None:
            lead.append(a)
        else:
            after.setdefault(k, []).append(a.relabel(anchor_to=ordered[k]))
    out = _aside_order(lead, settings)
    for i, b in enumerate(ordered):
        out.append(b)
        out.extend(_aside_order(after.get(i, []), settings))
    return out


def _aside_order(asides: list[PBlock], s: PdfSettings) -> list[PBlock]:
    """Asides placed after one block, in the order their own enumerators give (numbered cards:
    "1." ... "4.", whether the grid is numbered across or down), else read like text columns."""
    return _numbered(asides) or _read_like_columns(asides, s)


def _numbered(asides: list[PBlock]) -> list[PBlock] | None:
    """The asides sorted by their enumerators, when each opens with one and so sorted each follows
    the one before ("2." after "1."); else None."""
    if len(asides) < 2:
        return None
    labels = [list_label(min(a.lines, key=lambda ln: (ln.top, ln.x0)).text) if a.lines else None for a in asides]
    if any(label is None or label.kind == "bullet" for label in labels):
        return None
    pairs = sorted(zip(labels, asides, strict=True), key=lambda p: p[0].value)  # type: ignore[union-attr]
    if all(follows(a, b) for (a, _), (b, _) in zip(pairs, pairs[1:])):
        return [a for _, a in pairs]
    return None


def _bands(asides: list[PBlock], lo: str, hi: str, slack: float) -> list[list[PBlock]]:
    """The asides in groups along one axis (fields `lo`, `hi`), split where no aside crosses."""
    groups: list[list[PBlock]] = []
    end = float("-inf")
    for a in sorted(asides, key=lambda b: getattr(b, lo)):
        if groups and getattr(a, lo) < end - slack:
            groups[-1].append(a)
        else:
            groups.append([a])
        end = max(end, getattr(a, hi)) if len(groups[-1]) > 1 else getattr(a, hi)
    return groups


def _read_like_columns(asides: list[PBlock], s: PdfSettings) -> list[PBlock]:
    """Asides in reading order as text columns are read: stacks of panels side by side, each top to
    bottom, left to right; a panel spanning the stacks divides them into bands read top to bottom."""
    if len(asides) < 2:
        return list(asides)
    stacks = _bands(asides, "x0", "x1", s.aside_column_overlap_pt)
    if len(stacks) > 1:
        return [a for stack in stacks for a in _read_like_columns(stack, s)]
    bands = _bands(asides, "top", "bottom", 0.0)
    if len(bands) > 1:
        return [a for band in bands for a in _read_like_columns(band, s)]
    return sorted(asides, key=lambda b: (b.top, b.x0))
