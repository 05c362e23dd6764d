"""Tables for retrieval chunks: a Markdown pipe table read back into header and rows, cut into parts
that each repeat the header, and written for an index without pipes (they swamp averaged embeddings:
issue 34 measured recall@5 0.37 -> 0.30): as its labels alone (`labels_only`), or with every value
beside its row and column labels (`linearize`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")  # | --- | :---: |
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_ALNUM = re.compile(r"\w")
_DASH_VALUES = frozenset({"-", "\u2014", "\u2013", "--"})  # a dash in a financial table is a value (nil)
_YEAR = re.compile(r"^\s*(19|20)\d\d\s*$")  # fiscal years head statements' columns
_NUMERIC = re.compile(r"^[\s$€£¥(]*[-+]?[\d.,]+\s*%?\)?\s*%?$")


@dataclass(frozen=True, slots=True)
class ParsedTable:
    """A Markdown table: its header lines (Markdown header, separator, header rows) and data lines,
    with every line's cells."""

    header_lines: tuple[str, ...]
    header_cells: tuple[tuple[str, ...], ...]  # the header rows' cells (separator excluded)
    rows: tuple[str, ...]  # data lines as written
    row_cells: tuple[tuple[str, ...], ...]


def cells(line: str, unescape: bool = True) -> tuple[str, ...]:
    """The cells of one pipe-table line, stripped (and an escaped bar inside a cell unescaped)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return tuple(c.strip().replace("\\|", "|") if unescape else c.strip() for c in _CELL_SPLIT.split(body))


def is_separator(line: str) -> bool:
    """A pipe table's header rule (| --- | :---: |)."""
    return bool(_SEPARATOR.match(line.strip()))


def parse_markdown_table(text: str, header_max_rows: int) -> ParsedTable | None:
    """Header and rows of a Markdown pipe table; None when the text is no such table (a fallback's
    description and text). Rows after the Markdown header that head the columns are header rows too
    (up to `header_max_rows`, see `_is_header_row`): stacked period, year and unit labels over a
    statement's columns. A first row that reads as data (a label, then numbers) is data, with no
    column labels."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith("|") or not is_separator(lines[1]):
        return None
    first, rest = cells(lines[0]), lines[2:]
    if _looks_like_data(first):
        return ParsedTable((), (), (lines[0], *rest), tuple(cells(r) for r in (lines[0], *rest)))
    n = 0
    while n < min(header_max_rows, len(rest) - 1) and _is_header_row(cells(rest[n])):
        n += 1
    header_rows = (first, *(cells(r) for r in rest[:n]))
    data = rest[n:]
    return ParsedTable((lines[0], lines[1], *rest[:n]), header_rows, tuple(data), tuple(cells(r) for r in data))


def _is_header_row(row: tuple[str, ...]) -> bool:
    """A row over a statement's data: no label (stacked period labels), years beside a label ("For the
    years ended June 30, | 2023 | 2022"), or a unit alone ("($ in millions)"). A label alone with no
    parentheses is a section of the data ("Current assets:"), not a header."""
    values = [c for c in row[1:] if c]
    if not row or not row[0]:
        return True
    if values:
        return all(_YEAR.match(v) for v in values)
    return row[0].startswith("(") and row[0].endswith(")")


def _looks_like_data(row: tuple[str, ...]) -> bool:
    """A label followed by values most of which are numbers (a year is a column label: "2023")."""
    values = [c for c in row[1:] if c]
    numbers = sum(bool(_NUMERIC.match(v)) and not _YEAR.match(v) for v in values)
    return bool(row and row[0] and values) and numbers * 2 > len(values)


def column_labels(header: tuple[tuple[str, ...], ...], width: int) -> tuple[list[str], list[list[str]]]:
    """The labels over the whole table (said once) and each column's own labels, top to bottom. A
    header cell spans the empty cells after it in its row (PDF tables put a span's text in its first
    column); a cell spanning every value column ("Three months ended December 31, 2018") labels the
    whole table."""
    whole: list[str] = []
    labels: list[list[str]] = [[] for _ in range(width)]
    for row in header:
        padded = [row[j] if j < len(row) else "" for j in range(width)]
        starts = [j for j in range(width) if padded[j]]
        for k, j in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else width
            if j <= 1 and stop == width and width > 2:
                whole.append(padded[j])  # spans all value columns
                continue
            for col in range(j, stop):
                if padded[j] not in labels[col]:
                    labels[col].append(padded[j])
    return whole, labels


def _is_value(cell: str) -> bool:
    """A cell that says something: letters or digits, or a dash (nil); not a lone "$" or "%"."""
    return bool(_ALNUM.search(cell)) or cell in _DASH_VALUES


def is_figure(cell: str) -> bool:
    """A cell that holds an amount rather than a label: a number that is no year ("$ 5,363", "(1,577)",
    "3.6 %"), or no letter or digit at all (a dash for nil, "$", "%", empty)."""
    return not _ALNUM.search(cell) or (bool(_NUMERIC.match(cell)) and not _YEAR.match(cell))


def labels_only(text: str) -> str:
    """A text with each pipe-table row written as its cells that are no figures, space-separated (the
    separator rule and rows of figures alone left out); other lines as they are. What a question
    names is a table's title, its row and column labels and its years, rarely an amount."""
    out = []
    for line in text.splitlines():
        body = line.strip()
        if not body.startswith("|"):
            out.append(line)
        elif not is_separator(body) and (kept := [c for c in cells(body) if not is_figure(c)]):
            out.append(" ".join(kept))
    return "\n".join(out)


def linearize_rows(table: ParsedTable) -> tuple[str, list[str]]:
    """The table's whole-table labels, and each row for embedding (empty for a row with nothing in
    it): "row label: group: label value, label value; group: ...", a column's upper labels said once
    per run of columns under them, its lowest label beside each value."""
    width = max([len(r) for r in (*table.header_cells, *table.row_cells)] or [0])
    whole, labels = column_labels(table.header_cells, width)
    out = []
    for row in table.row_cells:
        label = row[0] if row and _ALNUM.search(row[0]) else ""
        groups: list[tuple[tuple[str, ...], list[str]]] = []
        for j, cell in enumerate(row[1:] if label else row, start=1 if label else 0):
            if not _is_value(cell):
                continue
            parts = labels[j] if j < len(labels) else []
            group, own = tuple(parts[:-1]), (parts[-1] if parts else "")
            said = f"{own} {cell}" if own and own != cell else cell
            if groups and groups[-1][0] == group:
                groups[-1][1].append(said)
            else:
                groups.append((group, [said]))
        values = "; ".join((" ".join(g) + ": " if g else "") + ", ".join(vs) for g, vs in groups)
        out.append(f"{label}: {values}" if label and values else label or values)
    return " ".join(whole), out


def linearize(table: ParsedTable) -> str:
    """The table for embedding: its whole-table labels, then one line per row."""
    whole, rows = linearize_rows(table)
    return "\n".join(t for t in (whole, *rows) if t)


def table_part(table: ParsedTable, start: int, stop: int) -> ParsedTable:
    """Rows start..stop of a table, with its whole header."""
    return ParsedTable(table.header_lines, table.header_cells, table.rows[start:stop], table.row_cells[start:stop])


def markdown(table: ParsedTable) -> str:
    """A (part of a) table as Markdown again: its header lines, then its rows (a table without
    header rows gets a separator under its first row, as Markdown needs one)."""
    if table.header_lines or not table.rows:
        return "\n".join((*table.header_lines, *table.rows))
    width = max(len(r) for r in table.row_cells)
    return "\n".join((table.rows[0], "|" + "---|" * width, *table.rows[1:]))
