"""A table as a grid of cells, and its text: a GitHub-flavoured Markdown table, or, for a table
whose columns could not be aligned, a plain-language description followed by its text.

Merged cells: a cell spanning several grid columns or rows writes its text once, in the first
slot it covers; the other slots stay empty. Markdown cannot express spans; repeating the text in
every slot was measured too: it passes no more olmOCR-bench table checks on the corpus and lowers
docling token F1 (0.946 -> 0.922: a title row spanning a whole table repeats in every column).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from docclean_assets.extract.pdf.model import Box, Line, PBlock


class Cell(NamedTuple):
    """One cell of a grid: its first row and column, how many it spans, its text."""

    row: int
    col: int
    rowspan: int
    colspan: int
    text: str


class Grid(NamedTuple):
    """A recovered table: its cells, its size in grid slots, its frame in top-left points, which
    detector found it ("ruled" or "borderless"), and where its columns and rows start and the last
    one ends (x and y in top-left points: ncols + 1 and nrows + 1 edges; empty when unknown)."""

    cells: list[Cell]
    nrows: int
    ncols: int
    bbox: Box
    source: str
    cols: tuple[float, ...] = ()
    rows: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class TableBlock(PBlock):
    """A table in the page flow: its cell lines (for geometry and size), its rendered text, and the
    grid it was rendered from (None for a fallback's text)."""

    rendered: str = ""
    fallback: bool = False
    grid: Grid | None = None

    @property
    def text(self) -> str:  # type: ignore[override]
        return self.rendered


def grid_to_rows(grid: Grid) -> list[list[str]]:
    """The grid as rows of slot texts: a dollar sign set before an amount in the amount's slot, a
    column that held nothing but such signs dropped, a merged cell's text in the first column it
    covers that is kept (a "Year Ended" over a filing's "$" and amount columns heads the first
    amount column), its other slots empty. A column that never held text stays: a ruled table's
    column whose header was lost keeps its place."""
    def slots(cells: list[Cell], skip: frozenset[int] = frozenset()) -> list[list[str]]:
        rows = [[""] * grid.ncols for _ in range(grid.nrows)]
        for c in cells:
            rows[c.row][next((k for k in range(c.col, c.col + c.colspan) if k not in skip), c.col)] = c.text
        return [_dollars_to_amounts(r) for r in rows]

    def filled(rows: list[list[str]]) -> set[int]:
        return {k for r in rows for k, t in enumerate(r) if t.strip()}

    single = [c for c in grid.cells if c.colspan == 1]
    signs_only = frozenset({c.col for c in single if c.text.strip()} - filled(slots(single)))
    rows = slots(grid.cells, signs_only)
    gone = signs_only - filled(rows)
    return [[t for k, t in enumerate(r) if k not in gone] for r in rows]


def _dollars_to_amounts(row: list[str]) -> list[str]:
    """A "$" ending a slot moved to the amount that starts the next slot: filings set the sign at the
    left edge of the amount's column, often nearer the column before ("$ 14,694 $ | 14,544" becomes
    "$ 14,694 | $ 14,544"). Only "$": it always precedes its amount, where euro and pound signs may
    follow it."""
    out = list(row)
    for k in range(len(out) - 1):
        cell, nxt = out[k].rstrip(), out[k + 1].lstrip()
        if (cell == "$" or cell.endswith(" $")) and nxt[:1] and (nxt[0].isdigit() or nxt[0] in "(-"):
            out[k], out[k + 1] = cell[:-1].rstrip(), f"$ {nxt}"
    return out


def escape_cell(text: str) -> str:
    """Cell text safe inside a Markdown table row: one line, pipes and backslashes escaped."""
    flat = " ".join(text.split())
    return flat.replace("\\", "\\\\").replace("|", "\\|")


def rows_to_markdown(rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown table: the first row as header, then `|---|`, then the rest."""
    if not rows:
        return ""
    ncols = max(len(r) for r in rows)

    def line(cells: list[str]) -> str:
        padded = [escape_cell(c) for c in cells] + [""] * (ncols - len(cells))
        return "| " + " | ".join(padded) + " |"

    return "\n".join([line(rows[0]), "|" + "---|" * ncols, *(line(r) for r in rows[1:])])


def grid_to_markdown(grid: Grid) -> str:
    """The grid's Markdown table (a merged cell's text once, in its first slot)."""
    return rows_to_markdown(grid_to_rows(grid))


def fallback_text(ncols: int, row_texts: list[str]) -> str:
    """A table that could not be aligned: what it is, then its rows of text, one per line."""
    head = f"Table ({ncols} columns could not be aligned):"
    return "\n".join([head, *(t for t in row_texts if t.strip())])


# ---- Forms: a grid of fields is no table. A cover page sets each value over its caption
# ("Delaware" over "(State or other jurisdiction of incorporation)") and check boxes beside their
# labels, in aligned columns a table detector takes for a table; read as a table, a caption heads
# nothing and a box sits in a cell or a row of its own. A grid is a form when at least
# FORM_MIN_PAIRS such pairs (value rows with the caption rows under them, labels with their boxes)
# hold at least FORM_MIN_ROW_SHARE of its rows; its other rows are kept as lines of text. A real
# table's "(in millions)" row is one pair at most, and its figure rows are no pairs.

# Ballot boxes, empty or ticked (a form's); bare tick marks fill comparison tables, so they are no box.
CHECK_BOXES = frozenset("\u2610\u2611\u2612\u25a1")
FORM_MIN_PAIRS = 2  # one value over a caption is a table's unit row as often as a form's field
# Share of a grid's non-empty rows its pairs must hold (a fraction): a cover page's form grids are
# all pairs but a heading row or two; a table with a pair or two among its data rows stays a table.
FORM_MIN_ROW_SHARE = 0.5
_RULE_CHARS = frozenset("_-\u2014\u2013.")  # a rule typed as characters: no field


def _is_caption(text: str) -> bool:
    return text.startswith("(") and any(ch.isalpha() for ch in text)


def _pieces(row: list[str]) -> list[str]:
    """A row's filled cells cut into check boxes and text runs, left to right."""
    out: list[str] = []
    for cell in row:
        run = ""
        for ch in cell.strip():
            if ch in CHECK_BOXES:
                out += [run.strip()] if run.strip() else []
                out.append(ch)
                run = ""
            else:
                run += ch
        out += [run.strip()] if run.strip() else []
    return out


def _boxed(pieces: list[str]) -> list[str] | None:
    """Labels with the boxes beside them ("Large accelerated filer \u2612"): each label has one box,
    all after it or all before it; None when the pieces are not so paired."""
    boxes = [p in CHECK_BOXES for p in pieces]
    if not any(boxes) or len(pieces) % 2:
        return None
    pairs = list(zip(pieces[::2], pieces[1::2]))
    if all(not x and y for x, y in zip(boxes[::2], boxes[1::2])):
        return [f"{label} {box}" for label, box in pairs]
    if all(x and not y for x, y in zip(boxes[::2], boxes[1::2])):
        return [f"{box} {label}" for box, label in pairs]
    return None


def _captions(rows: list[list[str]], at: int) -> tuple[list[str], int] | None:
    """The captions starting at row `at` (a caption wraps over rows until its parenthesis closes)
    and the row after them; None when row `at` holds no captions."""
    if at >= len(rows) or not (filled := [c for c in rows[at] if c.strip()]) or not all(map(_is_caption, filled)):
        return None
    texts, end = list(rows[at]), at + 1
    while any(t.count("(") > t.count(")") for t in texts) and end < len(rows):
        texts = [" ".join(p for p in (t, c) if p.strip()) for t, c in zip(texts, rows[end])]
        end += 1
    return None if any(t.count("(") > t.count(")") for t in texts) else (texts, end)


def _captioned(values: list[list[str]], captions: list[str]) -> tuple[list[str], int]:
    """Each captioned column as "caption: value", its value the trailing value rows that hold text only
    in captioned columns (an address over two lines); and how many value rows it took."""
    used = 0
    for row in reversed(values):
        if any(v.strip() and not c.strip() for v, c in zip(row, captions)):
            break
        used += 1
    taken = values[len(values) - used:]
    out = []
    for k, caption in enumerate(captions):
        label = caption.strip()[1:-1].strip() if caption.strip() else ""
        value = " ".join(r[k].strip() for r in taken if r[k].strip())
        if label or value:
            out.append(f"{label}: {value}" if label and value else label or value)
    return out, used


def grid_to_fields(rows: list[list[str]]) -> list[str] | None:
    """A form's fields ("State or other jurisdiction of incorporation: Delaware", "Large accelerated
    filer \u2612") and its other rows as lines, or None when the grid is no form."""
    fields: list[str] = []
    pending: list[list[str]] = []  # value rows waiting for the captions under them
    pairs = paired_rows = i = 0

    def flush(rows_: list[list[str]]) -> None:
        fields.extend(" ".join(c.strip() for c in r if c.strip()) for r in rows_)

    while i < len(rows):
        row = rows[i]
        if all(not c.strip() or set(c.strip()) <= _RULE_CHARS for c in row):
            i += 1
            continue
        if (found := _captions(rows, i)) is not None:
            captions, end = found
            made, used = _captioned(pending, captions)
            flush(pending[:len(pending) - used])
            fields += made
            pairs, paired_rows, pending, i = pairs + 1, paired_rows + used + end - i, [], end
            continue
        pieces, span = _pieces(row), 1
        boxed = _boxed(pieces)
        if boxed is None and pieces and all(p in CHECK_BOXES for p in pieces) and i + 1 < len(rows):
            boxed, span = _boxed(_merge_columns(row, rows[i + 1])), 2  # boxes in a row above their labels
        if boxed is not None:
            flush(pending)
            fields += boxed
            pairs, paired_rows, pending = pairs + 1, paired_rows + span, []
            i += span
        else:
            pending.append(row)
            i += 1
    flush(pending)
    kept = sum(1 for r in rows if any(c.strip() and set(c.strip()) - _RULE_CHARS for c in r))
    return fields if pairs >= FORM_MIN_PAIRS and paired_rows >= FORM_MIN_ROW_SHARE * kept else None


def _merge_columns(boxes: list[str], labels: list[str]) -> list[str]:
    """A row of boxes and the row of labels under it as one row's pieces, column by column."""
    return [p for b, lab in zip(boxes, labels) for p in _pieces([lab, b] if lab.strip() else [b])]


def form_block(lines: list[Line], page: int, bbox: Box, fields: list[str],
               source: str) -> TableBlock:
    """A form's fields as one paragraph ("label: value; label: value"), `meta['form']` its detector."""
    return TableBlock(lines, page, kind="paragraph", extra=(("form", source),), box=bbox, rendered="; ".join(fields))


def grid_form(lines: list[Line], page: int, grid: Grid, rows: list[list[str]]) -> TableBlock | None:
    """The grid (read as `rows`) as a form's fields, or None when it is no form."""
    fields = grid_to_fields(rows)
    return None if fields is None else form_block(lines, page, grid.bbox, fields, grid.source)


def grid_block(lines: list[Line], page: int, grid: Grid) -> TableBlock:
    """The grid as a form's fields when it is a form, else as a Markdown `table` block."""
    rows = grid_to_rows(grid)
    form = grid_form(lines, page, grid, rows)
    return form or table_block(lines, page, grid.bbox, rows_to_markdown(rows), grid.source, grid=grid)


def table_block(lines: list[Line], page: int, bbox: Box, text: str,
                source: str, fallback: bool = False, grid: Grid | None = None) -> TableBlock:
    """A `table` block over `lines` with the frame `bbox`, its rendered text and its grid."""
    return TableBlock(lines, page, kind="table", extra=(("table", "fallback" if fallback else source),), box=bbox,
                      rendered=text, fallback=fallback, grid=grid)
