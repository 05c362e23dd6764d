"""Stage 4b: borderless tables, inferred from aligned whitespace.

The line stage already splits a row at gaps that the neighbouring rows repeat (pdf/lines.py), so
a table arrives as rows of several short lines. A run of such rows, close together, is a candidate;
its columns are the x-bands that (nearly) no cell of its multi-cell rows crosses. Each column band
of the page (between its gutters) is searched on its own, so the gap between two columns of prose
is never a table column. A candidate whose cells read like prose, or that lies over a drawing
(stroked curves, pictures: the labels of a plot or diagram), is no table; one that is tabular
but fills too few of its grid slots, or whose cells straddle its columns, falls back to a
description plus its text rather than a misaligned grid.
"""
from __future__ import annotations

import itertools
import math
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from typing import NamedTuple

from docclean_assets.extract.pdf.model import Box, Line, Word, join_lines
from docclean_assets.extract.pdf.columns import Gutter
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.regions import visible
from docclean_assets.extract.pdf.figures import is_mark
from docclean_assets.extract.pdf.table_model import (
    Cell, Grid, TableBlock, fallback_text, grid_form, grid_to_rows, rows_to_markdown, table_block,
)
from docclean_assets.extract.pdf.settings import PdfSettings


class Row(NamedTuple):
    """The lines of one text row within a column band, left to right; `blocked` when a line
    crossing the band's edge (a full-width line) lies on it."""

    cells: list[Line]
    top: float
    bottom: float
    blocked: bool


class BorderlessTables(NamedTuple):
    """The page's borderless tables (and fallbacks) as blocks, and the lines left for the flow."""

    tables: list[TableBlock]
    rest: list[Line]


def _row_key(ln: Line) -> int:
    return Counter(w.row for w in ln.words).most_common(1)[0][0]


def lines_to_rows(lines: list[Line], lo: float, hi: float) -> list[Row]:
    """The page's rows restricted to the band [lo, hi], top to bottom."""
    grouped: dict[int, list[Line]] = {}
    for ln in lines:
        grouped.setdefault(_row_key(ln), []).append(ln)
    rows = []
    for members in grouped.values():
        cells = sorted((ln for ln in members if ln.x0 >= lo and ln.x1 <= hi), key=lambda ln: ln.x0)
        blocked = any(ln.x0 < hi and ln.x1 > lo and not (ln.x0 >= lo and ln.x1 <= hi) for ln in members)
        if cells or blocked:
            span = cells or members
            rows.append(Row(cells, min(ln.top for ln in span), max(ln.bottom for ln in span), blocked))
    rows.sort(key=lambda r: r.top)
    return rows


def rows_to_runs(rows: list[Row], body: float, s: PdfSettings) -> list[list[Row]]:
    """Runs of close rows holding at least `table_min_aligned_rows` rows of two or more short
    cells, with at most `table_max_single_rows` single-cell rows in a row between them (a label's
    first line whose figures stand on its wrapped last line counts with that row; nested section
    labels, up to `table_max_section_labels`, see `_labels_lead_on`); a row up to
    `table_section_gap_em` below the run goes on with it when it keeps the run's columns."""
    runs: list[list[Row]] = []
    cur: list[Row] = []
    pitch = row_pitch(rows)

    def close() -> None:
        while cur and len(cur[-1].cells) < 2:
            cur.pop()
        if sum(len(r.cells) >= 2 for r in cur) >= s.table_min_aligned_rows:
            runs.append(list(cur))
        cur.clear()

    singles = 0
    for i, row in enumerate(rows):
        tabular = _tabular(row, cur, s)
        gap = row.top - cur[-1].bottom if cur else 0.0
        if cur and (not tabular or (gap > s.table_row_gap_em * body
                                    and not (gap <= s.table_section_gap_em * body and _in_columns(row, cur, body, s)))):
            close()
        if not tabular:
            continue
        if len(row.cells) >= 2:
            cur.append(row)
            singles = 0
        elif cur:
            nxt = rows[i + 1] if i + 1 < len(rows) else None
            singles += 0 if nxt is not None and _wraps_onto(row, nxt, pitch, body, s) else 1
            if singles > s.table_max_single_rows and not _labels_lead_on(rows, i, cur, singles, body, s):
                close()
            else:
                cur.append(row)
    close()
    return runs


def _labels_lead_on(rows: list[Row], i: int, run: list[Row], singles: int, body: float, s: PdfSettings) -> bool:
    """Whether the one-cell rows from `rows[i]` on (`singles` of them so far) are a statement's nested
    section labels ("Commitments and contingencies", "Shareholders' Equity", "Amcor plc shareholders'
    equity:") that the run's rows go on under: at most `table_max_section_labels` of them, the
    one-cell rows that end the run among them, each a `_section_label` set in the run's label
    column (from its labels' start, up to `table_label_outdent_em` further left, to clear of its
    figures: at the margin, indented or centred over the labels); and the first row of several
    cells after them a row label beside figures in the run's columns, starting where one of its
    labels does (the next table would open with its column heads)."""
    multi = [r for r in run if len(r.cells) >= 2]
    if not multi:
        return False
    j = i
    while j < len(rows) and len(rows[j].cells) == 1:
        j += 1
    if j == len(rows) or singles + (j - i - 1) > s.table_max_section_labels:
        return False
    trailing = list(itertools.takewhile(lambda r: len(r.cells) < 2, reversed(run)))
    f, tol = _frame(run), s.table_column_align_em * body
    cells = [r.cells[0] for r in trailing + rows[i:j]]
    if not all(_section_label(c.text, len(c.words), s) and _in_label_column(c, f, body, s) for c in cells):
        return False
    after, starts = rows[j], [r.cells[0].x0 for r in multi]
    return (not after.blocked and any(ch.isalpha() for ch in after.cells[0].text)
            and all(_NUMERIC_CELL.match(c.text) for c in after.cells[1:])
            and any(abs(after.cells[0].x0 - x) <= tol for x in starts) and _values_in_columns(after, multi, tol))


def _section_label(text: str, words: int, s: PdfSettings) -> bool:
    """Whether a one-cell line may be a section label: at most `table_max_cell_words` words, not
    starting in lower case (that is a wrapped label's next line: "of share-based awards to")."""
    return words <= s.table_max_cell_words and not text.lstrip()[:1].islower()


def row_pitch(rows: list[Row]) -> float | None:
    """The median distance from top to top between consecutive rows of several cells (None: no pair)."""
    pitches = sorted(b.top - a.top for a, b in zip(rows, rows[1:]) if len(a.cells) >= 2 and len(b.cells) >= 2)
    return pitches[len(pitches) // 2] if pitches else None


def _wraps_onto(row: Row, below: Row, pitch: float | None, body: float, s: PdfSettings) -> bool:
    """Whether a one-cell row is a label's first line whose figures stand on its last line below
    ("Common stock, $0.01 par value, ... shares issued at" over "December 31, 2023 and 2022,
    respectively  —  —"): the row below holds figures and follows closer than
    `table_wrap_max_pitch_fraction` of the row pitch, its first cell starting where this line
    starts or indented under it (within `table_column_align_em` body em left, a hanging indent
    right) and ending no further right than this line (a wrapped line is the fuller one; a unit,
    "(In millions)", over a row is shorter than its label), and this line ending before the figures
    start (one that reaches over them would take them into its cell). A label ending in a colon
    introduces rows and wraps onto none."""
    if pitch is None or len(row.cells) != 1 or len(below.cells) < 2 or row.cells[0].text.rstrip().endswith(":"):
        return False
    first, tol = row.cells[0], s.table_column_align_em * body
    return (below.top - row.top < s.table_wrap_max_pitch_fraction * pitch
            and first.x0 - tol <= below.cells[0].x0 < first.x1 and below.cells[0].x1 <= first.x1 + tol
            and first.x1 < below.cells[1].x0 and all(_NUMERIC_CELL.match(c.text) for c in below.cells[1:]))


def _tabular(row: Row, run: list[Row], s: PdfSettings) -> bool:
    """Whether a row may be a table's: short cells; or a label of up to `table_max_label_words` words,
    beside figures ("Income before income taxes and equity in income of affiliates  1,251  1,115") or
    alone within the run's label column (a section label: "Adjustments to reconcile net income ...:")."""
    if row.blocked or not row.cells:
        return False
    if all(len(c.words) <= s.table_max_cell_words for c in row.cells):
        return True
    first, rest = row.cells[0], row.cells[1:]
    if len(first.words) > s.table_max_label_words:
        return False
    if not rest:
        values = [r.cells[1].x0 for r in run if len(r.cells) >= 2]
        return bool(values) and first.x1 < min(values)
    return all(len(c.words) <= s.table_max_cell_words and _NUMERIC_CELL.match(c.text) for c in rest)


def _in_columns(row: Row, run: list[Row], body: float, s: PdfSettings) -> bool:
    """Whether a row below a wider gap goes on with the run's columns (a statement's subtotal or next
    section): a label starting where the run's labels start (a one-cell section label of at most
    `table_max_cell_words` words up to `table_label_outdent_em` further left; a longer line there is
    the next table's lead-in), and its further cells each starting or ending where a
    cell of the run does (right-aligned figures), within `table_column_align_em`."""
    tol = s.table_column_align_em * body
    multi = [r for r in run if len(r.cells) >= 2]
    if not multi:
        return False
    start = min(r.cells[0].x0 for r in multi)
    label = len(row.cells) == 1 and len(row.cells[0].words) <= s.table_max_cell_words  # a sentence is a lead-in
    outdent = s.table_label_outdent_em * body if label else 0.0
    return start - tol - outdent <= row.cells[0].x0 <= start + tol and _values_in_columns(row, multi, tol)


def _values_in_columns(row: Row, multi: list[Row], tol: float) -> bool:
    """Whether each of a row's cells after its label starts or ends within `tol` of where a cell
    after the label of one of the rows `multi` does (right-aligned figures end together)."""
    starts = [c.x0 for r in multi for c in r.cells[1:]]
    ends = [c.x1 for r in multi for c in r.cells[1:]]
    return all(any(abs(c.x0 - x) <= tol for x in starts) or any(abs(c.x1 - x) <= tol for x in ends)
               for c in row.cells[1:])


class _Frame(NamedTuple):
    """Where a run's cells lie: its x-range, where its row labels start, where the shortest label
    ends, and where its figures start (leftmost second cell of its rows of several cells)."""

    x0: float
    x1: float
    labels_start: float
    first_col_end: float
    values_from: float


def _frame(run: list[Row]) -> _Frame:
    multi = [r for r in run if len(r.cells) >= 2]
    return _Frame(min(c.x0 for r in run for c in r.cells), max(c.x1 for r in run for c in r.cells),
                  min(r.cells[0].x0 for r in multi), min(r.cells[0].x1 for r in multi),
                  min(r.cells[1].x0 for r in multi))


def _heads(run: list[Row], rows: list[Row], body: float, s: PdfSettings) -> list[Row]:
    """Single-cell rows just above the run that head its data columns (a "Year Ended" spanning the
    value columns), with the section labels between them and its first row (`_labels_above`);
    without heads, none (the labels are then a caption or lead-in line)."""
    k, frame = rows.index(run[0]), _frame(run)
    figures = all(_NUMERIC_CELL.match(c.text) for r in run if len(r.cells) >= 2 for c in r.cells[1:])
    labels = _labels_above(run[0].top, rows[:k], frame, body, s) if figures else []
    heads = _column_heads_above((labels or run)[0].top, rows[:k - len(labels)], frame, body, s)
    return heads + labels if heads else []


def _close_single(r: Row, top: float, body: float, s: PdfSettings) -> bool:
    """A one-cell row at most `table_row_gap_em` above `top`."""
    return not r.blocked and len(r.cells) == 1 and top - r.bottom <= s.table_row_gap_em * body


def _in_label_column(c: Line, f: _Frame, body: float, s: PdfSettings) -> bool:
    """Whether a cell lies in the run's label column: from its labels' start (up to
    `table_label_outdent_em` further left, within `table_column_align_em`) to clear of its figures."""
    return f.labels_start - (s.table_label_outdent_em + s.table_column_align_em) * body <= c.x0 and c.x1 < f.values_from


def _labels_above(top: float, above: list[Row], f: _Frame, body: float, s: PdfSettings) -> list[Row]:
    """In a table of labelled figures, the section labels right above `top`, its first row
    ("Assets", "Current assets:"): at most `table_max_single_rows` short one-cell rows starting in
    the label column (or up to `table_label_outdent_em` left of it) and ending before the figures."""
    out: list[Row] = []
    for r in reversed(above):
        if len(out) == s.table_max_single_rows or not _close_single(r, out[0].top if out else top, body, s):
            break
        c = r.cells[0]
        if not (_in_label_column(c, f, body, s) and c.x0 <= f.first_col_end) or len(c.words) > s.table_max_cell_words:
            break
        out.insert(0, r)
    return out


def _column_heads_above(top: float, above: list[Row], f: _Frame, body: float, s: PdfSettings) -> list[Row]:
    """Up to `table_max_single_rows` one-cell rows right above `top` that head the run's value
    columns: short, within the run's x-range, right of the first column's start and at most
    `table_head_max_lead_em` left of the first figures (a title centred over the whole table,
    "Consolidated Balance Sheets", "($ in millions)", starts far further left)."""
    out: list[Row] = []
    for r in reversed(above):
        if len(out) == s.table_max_single_rows or not _close_single(r, out[0].top if out else top, body, s):
            break
        c = r.cells[0]
        if (len(c.words) > s.table_max_cell_words or c.x0 <= f.first_col_end or c.x0 < f.x0 or c.x1 > f.x1
                or c.x0 < f.values_from - s.table_head_max_lead_em * body):
            break
        out.insert(0, r)
    return out


def _column_bounds(run: list[Row], body: float, s: PdfSettings) -> list[float]:
    """x-positions splitting the run into columns, one in each x-gap at least
    `table_min_column_gap_em` wide that at most `table_max_straddle_share` of its multi-cell rows
    cross: the middle of the gap's stretch crossed by the fewest cells. (The gap's own middle would
    cut a wide header set flush with its right-aligned figures: "Findings" over "32".)"""
    multi = [r for r in run if len(r.cells) >= 2]
    left = min(c.x0 for r in run for c in r.cells)
    right = max(c.x1 for r in run for c in r.cells)
    nbins = int(math.ceil(right - left)) + 1  # one-point bins: the scan's resolution, no threshold
    diff = [0] * (nbins + 2)
    for r in multi:
        for c in r.cells:
            diff[max(0, int(c.x0 - left))] += 1
            diff[min(nbins, int(math.ceil(c.x1 - left)))] -= 1
    limit = int(s.table_max_straddle_share * len(multi))
    bounds: list[float] = []
    acc, start, crossing = 0, None, []  # crossing: cells over each bin of the open gap
    for i in range(nbins):
        acc += diff[i]
        if acc <= limit:
            start = i if start is None else start
            crossing.append(acc)
        elif start is not None:
            if start > 0 and i - start >= s.table_min_column_gap_em * body:
                bounds.append(left + start + _least_crossed_middle(crossing))
            start, crossing = None, []
    return bounds


def _least_crossed_middle(crossing: list[int]) -> float:
    """The middle (in bins from the gap's start) of the longest run of bins crossed by the fewest cells."""
    fewest = min(crossing)
    best, run_start = (0, 0), None
    for i, n in enumerate([*crossing, fewest + 1]):
        if n == fewest and run_start is None:
            run_start = i
        elif n != fewest and run_start is not None:
            best = max(best, (i - run_start, -run_start))
            run_start = None
    length, start = best[0], -best[1]
    return start + length / 2


def split_at_bounds(ln: Line, bounds: list[float], min_gap: float, any_gap: bool = False) -> list[Line]:
    """The line cut at its word gaps of at least `min_gap` points that hold a column boundary (a
    header row set with narrow gaps, a long label running close to its value); with `any_gap`, at
    every such gap (a head row's several column heads set as one run of text)."""
    pieces: list[list[Word]] = [[ln.words[0]]]
    for a, b in zip(ln.words, ln.words[1:], strict=False):
        if b.x0 - a.x1 >= min_gap and (any_gap or bisect_right(bounds, a.x1) != bisect_right(bounds, b.x0)):
            pieces.append([])
        pieces[-1].append(b)
    return [ln] if len(pieces) == 1 else [make_line(p) for p in pieces]


class Rule(NamedTuple):
    """A horizontal rule of the page: its height and extent in top-left points."""

    y: float
    x0: float
    x1: float


def graphics_to_rules(graphics: list[Graphic], s: PdfSettings) -> list[Rule]:
    """The page's visible horizontal rules, pieces drawn end to end along one height (within
    `table_snap_tolerance_pt`, gaps up to `table_join_tolerance_pt`) joined into one rule."""
    pieces = sorted((((g.top + g.bottom) / 2, g.x0, g.x1) for g in graphics
                     if g.kind == "line" and g.x1 - g.x0 >= g.bottom - g.top
                     and (visible(g.fill, s) or visible(g.stroke, s))), key=lambda p: (round(p[0]), p[1]))
    out: list[Rule] = []
    for y, x0, x1 in pieces:
        last = out[-1] if out else None
        if last and abs(y - last.y) <= s.table_snap_tolerance_pt and x0 <= last.x1 + s.table_join_tolerance_pt:
            out[-1] = Rule(last.y, last.x0, max(last.x1, x1))
        else:
            out.append(Rule(y, x0, x1))
    return out


def _placed(row: Row, bounds: list[float], min_gap: float, head: bool = False) -> list[tuple[int, int, list[Line]]]:
    """The row's cells as (first column, last column, lines): lines cut at boundaries in their wide
    word gaps, lines of one row falling in one column joined; a cell reaching past a boundary ends
    before the column of the next cell when it is clear of it (a long label over the gap before its
    figures, whose boundary is set by the rows of short labels). A head row's line of several column
    heads set as one run of text ("At December 31, 2019   At December 31, 2018") is cut at each
    of its wide gaps, and each head goes to the column holding its middle (heads are centred over
    their figures, and may reach past a boundary set left of them by the "$" signs)."""
    placed: list[tuple[int, int, list[Line]]] = []
    for whole in row.cells:
        pieces = split_at_bounds(whole, bounds, min_gap, any_gap=head)
        for ln in pieces:
            c0, c1 = bisect_right(bounds, ln.x0), bisect_right(bounds, ln.x1)
            if head and len(pieces) > 1:
                c0 = c1 = bisect_right(bounds, (ln.x0 + ln.x1) / 2)
            if placed and c0 <= placed[-1][1] and placed[-1][0] < c0 and ln.x0 - placed[-1][2][-1].x1 >= min_gap:
                a, _, lns = placed[-1]  # a cell reaching past a boundary, clear of the next: it ends before it
                placed[-1] = (a, c0 - 1, lns)
            if placed and c0 <= placed[-1][1]:
                a, b, lns = placed[-1]
                placed[-1] = (a, max(b, c1), [*lns, ln])
            else:
                placed.append((c0, c1, [ln]))
    return placed


def _rule_span(cell: tuple[int, int, list[Line]], placed: list[tuple[int, int, list[Line]]], mids: dict[int, float],
               below: float, rules: list[Rule], body: float, s: PdfSettings) -> tuple[int, int] | None:
    """The columns a header cell spans by the rule drawn under it: a rule at most
    `table_spanner_rule_max_gap_em` below its text and above the next row, as wide as the cell and
    centred under it (within `table_spanner_centre_tolerance_em`), covering the middles of two or
    more columns, not all of them (a rule across the whole table, booktabs' midrule, separates rows
    and groups no columns), that no other cell of its row fills. A filing's underline under an
    amount is no spanner: the amount is set right, off the rule's middle."""
    c0, c1, lns = cell
    x0, x1, bottom = min(ln.x0 for ln in lns), max(ln.x1 for ln in lns), max(ln.bottom for ln in lns)
    middle, tol = (min(ln.top for ln in lns) + bottom) / 2, s.table_snap_tolerance_pt
    for rule in rules:
        if not (middle < rule.y <= min(bottom + s.table_spanner_rule_max_gap_em * body, below)
                and rule.x0 - tol <= x0 and x1 <= rule.x1 + tol
                and abs((x0 + x1) - (rule.x0 + rule.x1)) / 2 <= s.table_spanner_centre_tolerance_em * body):
            continue
        covered = [k for k, m in mids.items() if rule.x0 - tol <= m <= rule.x1 + tol]
        if 2 <= len(covered) < len(mids) and min(covered) <= c0 and c1 <= max(covered) and not any(
                o is not cell and o[1] >= min(covered) and o[0] <= max(covered) for o in placed):
            return min(covered), max(covered)
    return None


def run_to_grid(run: list[Row], bounds: list[float], body: float, s: PdfSettings,
                rules: list[Rule]) -> tuple[Grid, int]:
    """The run's cells on the columns cut at `bounds` (`_placed`), a header cell over a rule
    spanning the columns the rule covers (`_rule_span`), and how many cells of multi-cell rows
    straddle a column boundary."""
    first_figures = next((i for i, row in enumerate(run) if len(row.cells) >= 2), 0)  # rows above it: heads
    rows = [_placed(row, bounds, s.table_cell_split_gap_em * body, head=i < first_figures) for i, row in enumerate(run)]
    extents: dict[int, tuple[float, float]] = {}  # x-range of the one-column cells of each column
    for placed in rows:
        for c0, c1, lns in placed:
            if c0 == c1:
                lo, hi = extents.get(c0, (math.inf, -math.inf))
                extents[c0] = (min(lo, *(ln.x0 for ln in lns)), max(hi, *(ln.x1 for ln in lns)))
    mids = {k: (lo + hi) / 2 for k, (lo, hi) in extents.items()}
    cells: list[Cell] = []
    straddle = 0
    for r, (row, placed) in enumerate(zip(run, rows, strict=True)):
        below = run[r + 1].top if r + 1 < len(run) else math.inf
        for cell in placed:
            c0, c1, lns = cell
            if c1 > c0 and len(row.cells) >= 2:
                straddle += 1
            c0, c1 = _rule_span(cell, placed, mids, below, rules, body, s) or (c0, c1)
            cells.append(Cell(r, c0, 1, c1 - c0 + 1, join_lines([ln.text for ln in lns])))
    x0 = min(c.x0 for r in run for c in r.cells)
    x1 = max(c.x1 for r in run for c in r.cells)
    bbox = Box(x0, run[0].top, x1, max(r.bottom for r in run))
    edges = (x0, *bounds, x1), (*(r.top for r in run), bbox.bottom)
    return Grid(cells, len(run), len(bounds) + 1, bbox, "borderless", *edges), straddle


# Pieces of large delimiters as TeX's cmex and Adobe Symbol fonts map them: the bracket, brace and
# radical extension pieces of Adobe's private-use block, or C0 control codes from a missing map.
_DELIMITER_PIECE = re.compile(r"[\uf8e5-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f]")
# A cell of figures, signs and units is data even when it holds a math symbol ("−3.2", "12 ± 0.4");
# a dash alone stands for zero or nothing in financial tables.
_NUMERIC_CELL = re.compile(r"^[\s\d.,%()+\-\u2212\u2013\u2014\u00b1<>\u2264\u2265$\u20ac\u00a3*]+$")


def _math_cell(text: str) -> bool:
    """A cell that is not a figure and holds a mathematical symbol."""
    text = text.strip()
    return bool(text) and not _NUMERIC_CELL.match(text) and any(unicodedata.category(ch) == "Sm" for ch in text)


def cells_read_as_math(cells: list[str], s: PdfSettings) -> bool:
    """Whether aligned text is a display formula (a matrix, a case split, aligned equations), not
    a table: large-delimiter pieces, or mostly cells of mathematical symbols."""
    if sum(len(_DELIMITER_PIECE.findall(c)) for c in cells) >= s.table_math_min_delimiter_pieces:
        return True
    filled = [c for c in cells if c.strip()]
    return bool(filled) and sum(map(_math_cell, filled)) > s.table_max_math_cell_share * len(filled)


def _density(grid: Grid) -> float:
    filled = sum(c.colspan * c.rowspan for c in grid.cells if c.text)
    return filled / max(grid.nrows * grid.ncols, 1)


def _join_wrapped(run: list[Row], body: float, s: PdfSettings) -> list[Row]:
    """The run with each wrapped line of a top-aligned cell joined to its row: a one-cell row set
    under a row of several cells, starting where that row's first cell starts (within
    `table_column_align_em` body em) and in lower case (it carries on a phrase; a section label under
    a header row, "CALCULATION OF RETURN ON ASSETS", does not), closer to it than
    `table_wrap_max_pitch_fraction` of the run's row pitch (the median distance between rows of
    several cells). A label's first line whose figures stand on its last line (`_wraps_onto`) joins
    the row below it."""
    pitch = row_pitch(run)
    if pitch is None:
        return run
    out = [run[0]]
    for row in run[1:]:
        above = out[-1]
        if (len(row.cells) == 1 and len(above.cells) >= 2 and row.cells[0].text[:1].islower()
                and abs(row.cells[0].x0 - above.cells[0].x0) <= s.table_column_align_em * body
                and row.top - max(c.top for c in above.cells) < s.table_wrap_max_pitch_fraction * pitch):
            first = [c for c in above.cells if c.x0 <= above.cells[0].x1]  # the first cell's lines so far
            cells = [*first, row.cells[0], *above.cells[len(first):]]
            out[-1] = Row(cells, above.top, max(above.bottom, row.bottom), above.blocked or row.blocked)
        elif _wraps_onto(above, row, pitch, body, s):
            out[-1] = Row([*above.cells, *row.cells], above.top, row.bottom, above.blocked or row.blocked)
        else:
            out.append(row)
    return out


def run_to_table(run: list[Row], page: int, body: float, s: PdfSettings, rules: list[Rule]) -> TableBlock | None:
    """The run as a `table` block, a fallback block when its grid cannot be aligned, or None
    when it is not a table (one column, or cells that read like prose). A table's top-aligned cell
    has its wrapped lines joined (`_join_wrapped`); a form reads its rows as set (its captions wrap
    under their values, pdf/table_model.py). Whether it aligns is judged on its cells as set; a
    header cell's span by the rule under it (`_rule_span`) fills no slot the grid lacked."""
    lines = [c for r in run for c in r.cells]
    words_per_cell = sum(len(c.words) for c in lines) / len(lines)
    if words_per_cell > s.table_max_mean_cell_words or cells_read_as_math([c.text for c in lines], s):
        return None
    bounds = _column_bounds(run, body, s)
    if not bounds:
        return None
    grid, straddle = run_to_grid(run, bounds, body, s, [])
    if (form := grid_form(lines, page, grid, grid_to_rows(grid))) is not None:
        return form
    joined = _join_wrapped(run, body, s)
    if len(joined) != len(run):
        run = joined
        grid, straddle = run_to_grid(run, bounds, body, s, [])
    multi_cells = sum(len(r.cells) for r in run if len(r.cells) >= 2)
    if _density(grid) < s.table_min_density or straddle > s.table_max_straddle_share * multi_cells:
        text = fallback_text(grid.ncols, [join_lines([c.text for c in r.cells]) for r in run])
        return table_block(lines, page, grid.bbox, text, "borderless", fallback=True)
    # judged as set; rendered with the spans of the rules under its header cells, when the page has rules
    spanned = run_to_grid(run, bounds, body, s, rules)[0] if rules else grid
    return table_block(lines, page, grid.bbox, rows_to_markdown(grid_to_rows(spanned)), "borderless", grid=spanned)


def _drawing_inside(table: TableBlock, graphics: list[Graphic], s: PdfSettings) -> bool:
    """Whether the table's box holds a drawing, so its text labels a plot or diagram: marks (pictures,
    curves: figures.is_mark) covering more than `table_max_picture_share` of it."""
    area = max((table.x1 - table.x0) * (table.bottom - table.top), 1.0)  # 1 square point: a guard for empty boxes
    drawn = 0.0
    for g in graphics:
        if not (table.x0 <= (g.x0 + g.x1) / 2 <= table.x1 and table.top <= (g.top + g.bottom) / 2 <= table.bottom):
            continue
        if is_mark(g, s):
            drawn += (g.x1 - g.x0) * (g.bottom - g.top)
    return drawn > s.table_max_picture_share * area


def _side_by_side(a: TableBlock, b: TableBlock, body: float, s: PdfSettings) -> bool:
    """Whether two tables of neighbouring column bands are one table cut by the gutter: their first
    and last rows at the same height, within `table_stitch_tolerance_em` body em."""
    tol = s.table_stitch_tolerance_em * body
    return abs(a.top - b.top) <= tol and abs(a.bottom - b.bottom) <= tol


def _stitched(banded: list[tuple[int, TableBlock]], lines: list[Line], edges: list[float], page: int,
              rules: list[Rule], body: float, s: PdfSettings) -> list[TableBlock]:
    """The tables found per column band, with each pair side by side in neighbouring bands read
    again as one table across the gutter between them (a table set across a two-column page's
    columns); the pair stays apart when the rows across both do not make a table."""
    out: list[TableBlock] = []
    taken: set[int] = set()
    for i, (k, a) in enumerate(banded):
        if i in taken:
            continue
        j = next((j for j, (m, b) in enumerate(banded) if j not in taken and j != i and m == k + 1
                  and _side_by_side(a, b, body, s)), None)
        if j is not None:
            b = banded[j][1]
            tol = s.table_stitch_tolerance_em * body
            rows = [r for r in lines_to_rows(lines, edges[k], edges[k + 2])
                    if r.cells and r.top >= min(a.top, b.top) - tol and r.bottom <= max(a.bottom, b.bottom) + tol]
            whole = run_to_table(rows, page, body, s, rules) if rows else None
            if whole is not None and not whole.fallback and len(whole.lines) == len(a.lines) + len(b.lines):
                out.append(whole)
                taken.update((i, j))
                continue
        out.append(a)
        taken.add(i)
    return out


def lines_to_borderless_tables(lines: list[Line], gutters: list[Gutter], graphics: list[Graphic], page: int,
                               body: float, s: PdfSettings) -> BorderlessTables:
    """The page's borderless tables, searched in each column band between gutters (none over a
    drawing), and the lines they leave to the flow."""
    mids = [g.mid for g in gutters]
    edges = [-math.inf, *mids, math.inf]
    banded: list[tuple[int, TableBlock]] = []
    rules = graphics_to_rules(graphics, s)
    for k, (lo, hi) in enumerate(zip(edges, edges[1:], strict=False)):
        rows = lines_to_rows(lines, lo, hi)
        for run in rows_to_runs(rows, body, s):
            table = run_to_table(_heads(run, rows, body, s) + run, page, body, s, rules)
            if table is not None and not _drawing_inside(table, graphics, s):
                banded.append((k, table))
    tables = _stitched(banded, lines, edges, page, rules, body, s)
    if not tables:
        return BorderlessTables([], lines)
    taken = {id(ln) for t in tables for ln in t.lines}
    return BorderlessTables(tables, [ln for ln in lines if id(ln) not in taken])
