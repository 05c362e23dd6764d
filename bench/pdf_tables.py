"""Generated tables (issue 38, point 3): cell F1 of docclean's table blocks against the generator's
cells, per rule style (ruled, booktabs, borderless) and hard header (a cell spanning two columns, a
label wrapped onto two lines, a header row written as one text run, a statement's "Year Ended" over
three date columns, labels turned upright or slanted): docclean_assets_tests/fixtures/build_tables.py. A cell is (row, column, text) with its text normalised by `words`; empty cells
(the columns a spanning cell covers) do not count.

    .venv/bin/python -m bench.pdf_tables
"""
from __future__ import annotations

import sys

from bench.pdf_integrity import words


def cell_set(rows: list[list[str]]) -> set[tuple[int, int, str]]:
    """The (row, column, normalised text) of every non-empty cell."""
    return {(r, c, words(t)) for r, row in enumerate(rows) for c, t in enumerate(row) if words(t)}


def table_rows(text: str) -> list[list[str]]:
    """A Markdown table block's rows of cells, the separator left out."""
    from docclean_assets.extract.chunk_tables import cells, is_separator

    return [list(cells(ln)) for ln in text.splitlines() if ln.strip() and not is_separator(ln)]


def measure(case) -> tuple[int, int, int, str]:
    """(cells found, cells extracted, cells true, the table's text) of one case."""
    from docclean_assets.extract.pdf.document import extract_pdf
    from docclean_assets.extract.settings import Settings
    from docclean_assets_tests.fixtures.build_tables import table_pdf

    data, truth = table_pdf(case)
    blocks = extract_pdf(data, Settings()).blocks
    tables = [b for b in blocks if b.kind == "table"]
    want = cell_set(truth)
    got = [(cell_set(table_rows(t.text)), t.text) for t in tables]
    best, text = max(got, key=lambda g: len(g[0] & want), default=(set(), ""))
    return len(best & want), len(best), len(want), text


def for_bench() -> dict[str, float]:
    """Cell F1 over all the generated tables and per rule style, for `make bench`."""
    from docclean_assets_tests.fixtures.build_tables import CASES, RULES

    counts = {c.name: measure(c)[:3] for c in CASES}

    def f1(names: list[str]) -> float:
        found, extracted, true = (sum(counts[n][k] for n in names) for k in range(3))
        return 2 * found / (extracted + true) if extracted + true else 1.0

    out = {"cell_f1": f1(list(counts))}
    out.update({f"{r}_cell_f1": f1([c.name for c in CASES if c.rules == r]) for r in RULES})
    return {**out, "n": len(CASES)}


def main() -> int:
    from docclean_assets_tests.fixtures.build_tables import CASES

    total = [0, 0, 0]
    print("| case | cells found / extracted / true | F1 |\n|---|---|---|")
    for case in CASES:
        found, extracted, true, _ = measure(case)
        total = [total[0] + found, total[1] + extracted, total[2] + true]
        f1 = 2 * found / (extracted + true) if extracted + true else 1.0
        print(f"| {case.name} | {found} / {extracted} / {true} | {f1:.3f} |")
    f1 = 2 * total[0] / (total[1] + total[2])
    print(f"\ncell F1 {f1:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
