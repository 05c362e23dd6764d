"""Stage 4: column gutters of a page, found geometrically from the x-projection of its blocks.

A gutter is an interior x-band crossed by blocks over at most `gutter_max_cover` of the text height
stacked at the page's densest x-position, with a prose column on each side. A gap that exists only beside a figure (text above and
below it runs across) is crossed over most of the height and is therefore no gutter.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from docclean_assets.extract.pdf.blocks import PBlock
from docclean_assets.extract.pdf.lines import Line, make_line
from docclean_assets.extract.settings import PdfSettings


class Gutter(NamedTuple):
    """An empty-enough x-band between two columns, points."""

    x0: float
    x1: float
    cover: float  # text height crossing the band, as a fraction of the densest x-position's

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


def _coverage(blocks: list[PBlock], left: float, nbins: int) -> list[float]:
    """Summed block height over each 1-pt bin from `left` (difference array: linear time)."""
    diff = [0.0] * (nbins + 2)
    for b in blocks:
        i0 = max(0, int(math.floor(b.x0 - left)))
        i1 = min(nbins, int(math.ceil(b.x1 - left)))
        h = b.bottom - b.top
        diff[i0] += h
        diff[i1] -= h
    cov, acc = [], 0.0
    for i in range(nbins):
        acc += diff[i]
        cov.append(acc)
    return cov


def _candidates(blocks: list[PBlock], settings: PdfSettings) -> tuple[list[Gutter], float, float, float]:
    left = min(b.x0 for b in blocks)
    right = max(b.x1 for b in blocks)
    height = max(b.bottom for b in blocks) - min(b.top for b in blocks)
    nbins = int(math.ceil(right - left))
    if nbins < 3 or height <= 0:
        return [], left, right, height
    cov = _coverage(blocks, left, nbins)
    # Relative to the densest x-position, not the page: a footer far below the columns (or a short
    # page) must not make the columns themselves look empty (community-bulletin sample).
    peak = max(cov) or 1.0
    limit = settings.gutter_max_cover * peak
    out: list[Gutter] = []
    i = 0
    while i < nbins:
        if cov[i] > limit:
            i += 1
            continue
        j = i
        while j < nbins and cov[j] <= limit:
            j += 1
        if i > 0 and j < nbins:
            # The gutter proper is the emptiest stretch of the band: ragged or wide blocks of one
            # column reach into a band whose low coverage they only raise a little.
            floor = min(cov[i:j]) + 0.05 * height
            best = (0, 0)
            k = i
            while k < j:
                if cov[k] > floor:
                    k += 1
                    continue
                m = k
                while m < j and cov[m] <= floor:
                    m += 1
                if m - k > best[1] - best[0]:
                    best = (k, m)
                k = m
            a, b = best
            if b - a >= settings.gutter_min_width_pt:
                out.append(Gutter(left + a, left + b, max(cov[a:b]) / peak))
        i = j
    return out, left, right, height


def _column_ok(blocks: list[PBlock], x0: float, x1: float, width: float, height: float, s: PdfSettings) -> bool:
    """Whether the x-range holds a prose column: wide enough, filled enough, words per line."""
    if x1 - x0 < s.column_min_width_fraction * width:
        return False
    inside = [b for b in blocks if b.x0 >= x0 - 1 and b.x1 <= x1 + 1]
    fill = sum(b.bottom - b.top for b in inside)
    if fill < s.column_min_fill * height:
        return False
    nlines = sum(len(b.lines) for b in inside)
    nwords = sum(len(ln.words) for b in inside for ln in b.lines)
    return nlines > 0 and nwords / nlines >= s.column_min_words_per_line


def blocks_to_gutters(blocks: list[PBlock], settings: PdfSettings) -> list[Gutter]:
    """The accepted gutters of one page, left to right (0 gutters = a single column)."""
    content = [b for b in blocks if b.drop_reason is None and b.kind != "margin_note"]
    if len(content) < 2:
        return []
    gutters, left, right, height = _candidates(content, settings)
    width = right - left
    while gutters:
        edges = [left] + [x for g in gutters for x in (g.x0, g.x1)] + [right]
        bad = [
            k
            for k in range(len(gutters) + 1)
            if not _column_ok(content, edges[2 * k], edges[2 * k + 1], width, height, settings)
        ]
        if not bad:
            break
        # Drop the worst-covered gutter next to the first failing column and try again.
        k = bad[0]
        near = [g for g in (gutters[k - 1] if k > 0 else None, gutters[k] if k < len(gutters) else None) if g]
        gutters.remove(max(near, key=lambda g: g.cover))
    return gutters


def split_lines_at_gutters(lines: list[Line], gutters: list[Gutter], settings: PdfSettings) -> list[Line]:
    """Lines merged across a narrow gutter, split at the wide word gap lying in the gutter band.

    A line that crosses a gutter with only normal word spaces there (a full-width title) is kept.
    """
    if not gutters:
        return lines
    # Each gutter is active only over the rows where text lies on both of its sides.
    spans = []
    for g in gutters:
        left = [ln for ln in lines if ln.x1 <= g.mid]
        right = [ln for ln in lines if ln.x0 >= g.mid]
        if not left or not right:
            spans.append((0.0, -1.0))
            continue
        spans.append(
            (max(min(ln.top for ln in left), min(ln.top for ln in right)),
             min(max(ln.bottom for ln in left), max(ln.bottom for ln in right)))
        )
    out: list[Line] = []
    for ln in lines:
        cuts = []
        for k, (a, b) in enumerate(zip(ln.words, ln.words[1:], strict=False)):
            gap = b.x0 - a.x1
            if gap < settings.gutter_split_gap_em * max(a.size, b.size):
                continue
            if any(
                a.x1 < g.x1 and b.x0 > g.x0 and lo <= (ln.top + ln.bottom) / 2 <= hi
                for g, (lo, hi) in zip(gutters, spans, strict=True)
            ):
                cuts.append(k + 1)
        if not cuts:
            out.append(ln)
            continue
        start = 0
        for cut in [*cuts, len(ln.words)]:
            out.append(make_line(list(ln.words[start:cut])))
            start = cut
    out.sort(key=lambda ln: (ln.top, ln.x0))
    return out
