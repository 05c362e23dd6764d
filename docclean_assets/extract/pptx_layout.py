"""Geometric reading order of slide shapes: a recursive XY cut, columns before rows.

Shapes side by side (horizontal overlap small relative to the narrower one) form columns that are
read left to right, each top to bottom; a shape spanning several columns blocks the column cut, so
the region is cut into horizontal bands first and full-width shapes are read by their top.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from docclean_assets.extract.model import BBox

T = TypeVar("T")


def _split(items: list[T], box: Callable[[T], BBox], axis: str, ratio: float) -> list[list[T]]:
    """Groups along one axis: a new group starts when an item overlaps the running group by less
    than `ratio` of the smaller of the two extents."""
    lo = (lambda b: b.x0) if axis == "x" else (lambda b: b.y0)
    hi = (lambda b: b.x1) if axis == "x" else (lambda b: b.y1)
    ordered = sorted(items, key=lambda it: (lo(box(it)), hi(box(it))))
    groups: list[list[T]] = []
    g_lo = g_hi = 0.0
    for it in ordered:
        b = box(it)
        if groups:
            overlap = min(g_hi, hi(b)) - max(g_lo, lo(b))
            smaller = min(g_hi - g_lo, hi(b) - lo(b))
            if overlap > ratio * smaller or (overlap > 0 and smaller == 0):
                groups[-1].append(it)
                g_hi = max(g_hi, hi(b))
                continue
        groups.append([it])
        g_lo, g_hi = lo(b), hi(b)
    return groups


def _spanning(items: list[T], box: Callable[[T], BBox], ratio: float) -> tuple[list[T], list[T]]:
    """Full-width shapes that block the column cut: remove the widest until the rest form columns;
    every removed shape must overlap at least two of those columns, else there are none."""
    rest = sorted(items, key=lambda it: box(it).width, reverse=True)
    removed: list[T] = []
    while len(rest) >= 2:
        cols = _split(rest, box, "x", ratio)
        if len(cols) > 1:
            extents = [(min(box(i).x0 for i in c), max(box(i).x1 for i in c)) for c in cols]
            for sp in removed:
                b = box(sp)
                hits = sum(
                    1 for x0, x1 in extents if min(b.x1, x1) - max(b.x0, x0) > ratio * min(b.width, x1 - x0)
                )
                if hits < 2:
                    return [], list(items)
            return removed, rest
        removed.append(rest.pop(0))
    return [], list(items)


def reading_order(
    items: Sequence[T], box: Callable[[T], BBox], column_ratio: float, band_ratio: float
) -> tuple[list[T], int]:
    """`items` in reading order and the largest number of columns found side by side."""
    max_cols = 1 if items else 0

    def order(group: list[T]) -> list[T]:
        nonlocal max_cols
        if len(group) <= 1:
            return list(group)
        cols = _split(group, box, "x", column_ratio)
        if len(cols) > 1:
            max_cols = max(max_cols, len(cols))
            return [it for col in cols for it in order(col)]
        spanning, rest = _spanning(group, box, column_ratio)
        if spanning:
            max_cols = max(max_cols, len(_split(rest, box, "x", column_ratio)))
            spanning.sort(key=lambda it: (box(it).y0, box(it).x0))
            centres = [(box(sp).y0 + box(sp).y1) / 2 for sp in spanning]
            bands_of: list[list[T]] = [[] for _ in range(len(spanning) + 1)]
            for it in rest:
                centre = (box(it).y0 + box(it).y1) / 2
                bands_of[sum(1 for c in centres if c < centre)].append(it)
            out: list[T] = []
            for i, band in enumerate(bands_of):
                out += order(band)
                if i < len(spanning):
                    out.append(spanning[i])
            return out
        bands = _split(group, box, "y", band_ratio)
        if len(bands) > 1:
            return [it for band in bands for it in order(band)]
        # Neither cut separates them (overlapping shapes): top edge, then left edge.
        return sorted(group, key=lambda it: (box(it).y0, box(it).x0))

    return order(list(items)), max_cols
