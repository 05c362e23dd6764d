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

from docclean_assets.extract.pdf.blocks import PBlock
from docclean_assets.extract.pdf.lines import Line


class Cell(NamedTuple):
    """One cell of a grid: its first row and column, how many it spans, its text."""

    row: int
    col: int
    rowspan: int
    colspan: int
    text: str


class Grid(NamedTuple):
    """A recovered table: its cells, its size in grid slots, its frame in top-left points, and
    which detector found it ("ruled" or "borderless")."""

    cells: list[Cell]
    nrows: int
    ncols: int
    bbox: tuple[float, float, float, float]
    source: str


@dataclass(frozen=True, slots=True, eq=False)
class TableBlock(PBlock):
    """A table in the page flow: its cell lines (for geometry and size) and its rendered text."""

    rendered: str = ""
    fallback: bool = False

    @property
    def text(self) -> str:  # type: ignore[override]
        return self.rendered


def grid_to_rows(grid: Grid) -> list[list[str]]:
    """The grid as rows of slot texts, a merged cell's text in its first slot, the others empty."""
    rows = [[""] * grid.ncols for _ in range(grid.nrows)]
    for c in grid.cells:
        rows[c.row][c.col] = c.text
    return rows


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


def table_block(lines: list[Line], page: int, bbox: tuple[float, float, float, float], text: str,
                source: str, fallback: bool = False) -> TableBlock:
    """A `table` block over `lines` with the frame `bbox` and its rendered text."""
    return TableBlock(lines, page, kind="table", extra=(("table", "fallback" if fallback else source),), box=bbox,
                      rendered=text, fallback=fallback)
