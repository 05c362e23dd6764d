"""Column layout from geometry alone, shared by the PDF and PPTX paths.

A gutter is an interior x-band crossed by boxes over at most `max_cover` of the height stacked at
the densest x-position (so a gap beside a figure, with text running across above and below it, is no
gutter). Boxes crossing every gutter are full-width; they cut the region into vertical segments.
Within a segment columns are read left to right (or right to left), each top to bottom; segments and
the full-width boxes between them are read top to bottom. Units are whatever the caller's boxes use
(PDF points; PPTX shapes converted from EMU to points). The PDF path validates the gutters found here
as prose columns (pdf/columns.py); PPTX uses them as they are (`boxes_to_reading_order`).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, TypeVar


class Boxed(Protocol):
    """Anything with a box, y growing downwards."""

    @property
    def x0(self) -> float: ...
    @property
    def top(self) -> float: ...
    @property
    def x1(self) -> float: ...
    @property
    def bottom(self) -> float: ...


T = TypeVar("T", bound=Boxed)


class Gutter(NamedTuple):
    """An empty-enough x-band between two columns, in the boxes' units."""

    x0: float
    x1: float
    cover: float  # height crossing the band, as a fraction of the densest x-position's

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


class _Coverage(NamedTuple):
    """Summed box height along x in unit-wide bins from `left`, stored as runs of equal coverage: the
    bins [starts[k], starts[k + 1]) all carry values[k]. Its size depends on the number of boxes,
    never on the width they span (a shape placed 2e13 EMU off the slide costs one run, not a bin
    per point)."""

    starts: list[int]  # bin index where each run starts, increasing; the last is the bin count
    values: list[float]

    def runs(self, lo: int, hi: int) -> list[tuple[int, int, float]]:
        """(first bin, end bin, coverage) of the runs overlapping bins [lo, hi), cut to them."""
        k = max(bisect_right(self.starts, lo) - 1, 0)
        out = []
        while k < len(self.values) and self.starts[k] < hi:
            out.append((max(self.starts[k], lo), min(self.starts[k + 1], hi), self.values[k]))
            k += 1
        return out


def _coverage(boxes: Sequence[Boxed], left: float, nbins: int) -> _Coverage:
    """Coverage of `nbins` unit-wide bins from `left` (a difference array over the box edges only;
    the sums are added in the same order as over every bin, so the values are the same)."""
    diff: dict[int, float] = {}
    for b in boxes:
        i0 = min(max(0, int(math.floor(b.x0 - left))), nbins)
        i1 = min(nbins, int(math.ceil(b.x1 - left)))
        h = b.bottom - b.top
        diff[i0] = diff.get(i0, 0.0) + h
        if i1 >= 0:
            diff[i1] = diff.get(i1, 0.0) - h
    starts, values, acc = [0], [0.0], 0.0
    for i in sorted(k for k in diff if k < nbins):
        acc += diff[i]
        if i == 0:
            values[0] = acc
        else:
            starts.append(i)
            values.append(acc)
    return _Coverage(starts + [nbins], values)


def _low_runs(cov: _Coverage, start: int, stop: int, limit: float) -> list[tuple[int, int]]:
    """Maximal runs [i, j) of bins within [start, stop) whose coverage is at most `limit`."""
    runs: list[tuple[int, int]] = []
    for i, j, value in cov.runs(start, stop):
        if value > limit:
            continue
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], j)
        else:
            runs.append((i, j))
    return runs


def _finite(b: Boxed) -> bool:
    return all(math.isfinite(v) for v in (b.x0, b.x1, b.top, b.bottom))


def boxes_to_gutters(
    boxes: Sequence[Boxed], max_cover: float, min_width: float, floor_slack: float,
) -> list[Gutter]:
    """Candidate gutters of a region, left to right: interior x-bands covered by at most
    `max_cover` of the densest x-position's stacked height and at least `min_width` wide (the part
    of the band within `floor_slack` of the height above its emptiest bin). Boxes with a coordinate
    that is not a finite number are left out."""
    boxes = [b for b in boxes if _finite(b)]
    if not boxes:
        return []
    left = min(b.x0 for b in boxes)
    right = max(b.x1 for b in boxes)
    height = max(b.bottom for b in boxes) - min(b.top for b in boxes)
    if not math.isfinite(right - left) or not math.isfinite(height):
        return []
    nbins = int(math.ceil(right - left))
    if nbins < 3 or height <= 0:
        return []
    cov = _coverage(boxes, left, nbins)
    # Relative to the densest x-position, not the region: a footer far below the columns (or a short
    # page) must not make the columns themselves look empty.
    peak = max(cov.values) or 1.0
    limit = max_cover * peak
    out: list[Gutter] = []
    for i, j in _low_runs(cov, 0, nbins, limit):
        # A run reaching the region's edge is a margin, unless its emptiest part lies inside it: a
        # column covering less than `max_cover` (a last page's short column, one half filled by a
        # figure) joins the gutter beside it into one low run that reaches the edge.
        floor = min(v for _, _, v in cov.runs(i, j)) + floor_slack * height
        a, b = max(_low_runs(cov, i, j, floor), key=lambda r: r[1] - r[0])  # the first widest
        if a > 0 and b < nbins and b - a >= min_width:
            out.append(Gutter(left + a, left + b, max(v for _, _, v in cov.runs(a, b)) / peak))
    return out


class Placement(NamedTuple):
    """Boxes of a region sorted into columns by its gutters."""

    full: list  # boxes read in place between segments (crossing every gutter, or banners)
    cols: list  # boxes inside some column
    column: dict[int, int]  # id(box) -> column index (-1 for full-width)
    unresolved: int  # boxes crossing some but not all gutters inside the columns (their place is a guess)


def boxes_to_columns(boxes: Sequence[T], gutters: Sequence[Gutter]) -> Placement:
    """Which column each box belongs to; full-width boxes and banners outside the columns get -1."""
    mids = [g.mid for g in gutters]
    full: list[T] = []
    cols: list[T] = []
    partial: list[T] = []
    column: dict[int, int] = {}
    for b in boxes:
        crossed = sum(b.x0 < m < b.x1 for m in mids)
        if crossed == len(mids):
            column[id(b)] = -1
            full.append(b)
        else:
            column[id(b)] = bisect_right(mids, b.x0)
            (partial if crossed else cols).append(b)
    # A box crossing some gutters but not all: above or below all column text it is chrome or a
    # banner (read in place, like a full-width box); inside the columns it belongs to the leftmost
    # column it touches.
    top = min((b.top for b in cols), default=0.0)
    bottom = max((b.bottom for b in cols), default=0.0)
    unresolved = 0
    for b in partial:
        if b.top >= bottom or b.bottom <= top:
            column[id(b)] = -1
            full.append(b)
        else:
            unresolved += 1
            cols.append(b)
    return Placement(full, cols, column, unresolved)


def rows_then_x(boxes: Sequence[T], row_tol: Callable[[T, T], float]) -> list[T]:
    """Top to bottom; boxes starting within `row_tol` of a row's first box go left to right."""
    out: list[T] = []
    row: list[T] = []
    for b in sorted(boxes, key=lambda b: (b.top, b.x0)):
        if row and b.top - row[0].top > row_tol(b, row[0]):
            out.extend(sorted(row, key=lambda r: r.x0))
            row = []
        row.append(b)
    out.extend(sorted(row, key=lambda r: r.x0))
    return out


def columns_to_order(
    placement: Placement,
    ncols: int,
    read_column: Callable[[list[T]], list[T]],
    *,
    right_to_left: bool = False,
    bands: Callable[[list[T]], list[list[T]]] | None = None,
) -> list[T]:
    """Segments top to bottom, each followed by the full-width box that ends it; inside a segment
    (or each of its `bands`) the columns in reading direction, each read by `read_column`."""
    order = list(range(ncols))
    if right_to_left:
        order.reverse()
    full = sorted(placement.full, key=lambda b: (b.top, b.x0))
    tops = [f.top for f in full]
    segments: list[list[T]] = [[] for _ in range(len(full) + 1)]
    for b in placement.cols:
        segments[bisect_right(tops, b.top)].append(b)
    ordered: list[T] = []
    for s, seg in enumerate(segments):
        for band in bands(seg) if bands else [seg]:
            for c in order:
                ordered.extend(read_column([b for b in band if placement.column[id(b)] == c]))
        if s < len(full):
            ordered.append(full[s])
    return ordered


def _y_bands(boxes: list[T], overlap_ratio: float) -> list[list[T]]:
    """Boxes cut into horizontal bands: a band ends where the next box overlaps its vertical extent
    by no more than `overlap_ratio` of the shorter of the two."""
    bands: list[list[T]] = []
    lo = hi = 0.0
    for b in sorted(boxes, key=lambda b: (b.top, b.bottom, b.x0, b.x1)):
        if bands:
            overlap = min(hi, b.bottom) - max(lo, b.top)
            shorter = min(hi - lo, b.bottom - b.top)
            if overlap > overlap_ratio * shorter or (overlap > 0 and shorter == 0):
                bands[-1].append(b)
                hi = max(hi, b.bottom)
                continue
        bands.append([b])
        lo, hi = b.top, b.bottom
    return bands


def boxes_to_reading_order(
    boxes: Sequence[T], max_cover: float, min_width: float, row_tol: float, band_overlap: float,
    max_depth: int, floor_slack: float,
) -> tuple[list[T], int]:
    """Boxes in column-aware reading order from geometry alone, and the most columns found side by
    side. Gutters split a region into columns (recursively: a column may hold columns of its own);
    a region without a gutter is cut into horizontal bands, and a single band is read by rows."""
    most = 1 if boxes else 0

    def same_row(_a: T, _b: T) -> float:
        return row_tol

    def order(group: list[T], depth: int) -> list[T]:
        nonlocal most
        if len(group) <= 1 or depth >= max_depth:
            return rows_then_x(group, same_row)
        gutters = boxes_to_gutters(group, max_cover, min_width, floor_slack)
        while gutters:
            placement = boxes_to_columns(group, gutters)
            if not placement.unresolved:
                break
            # A box inside the columns that crosses a gutter (but not all) says that gutter belongs
            # to a sub-region only: drop it here; a column found below may split at it again.
            gutters = [g for g in gutters if not any(b.x0 < g.mid < b.x1 for b in placement.cols)]
        if gutters:
            ncols = len(gutters) + 1
            sizes = [sum(1 for b in placement.cols if placement.column[id(b)] == c) for c in range(ncols)]
            if max(sizes, default=0) < len(group):  # guard: every column smaller than the region
                most = max(most, sum(1 for n in sizes if n))
                return columns_to_order(placement, ncols, lambda col: order(col, depth + 1))
        bands = _y_bands(group, band_overlap)
        if len(bands) > 1:
            return [b for band in bands for b in order(band, depth + 1)]
        return rows_then_x(group, same_row)

    # A canonical input order, so that boxes with equal keys never depend on the file's order.
    start = sorted(boxes, key=lambda b: (b.top, b.x0, b.bottom, b.x1))
    return order(start, 0), most
