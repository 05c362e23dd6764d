"""Generated two-column journal articles (issue 38): what docclean keeps of them, measured against the
generator's exact ground truth, per house style (docclean_assets_tests/fixtures/build_articles.py).

- sentence integrity: the share of the ground truth's sentences (body paragraphs, the abstract and
  boxed panels) whose words, in order, sit inside one kept block (missing ones count against it);
- paragraphs whole: the share of body paragraphs whose every word, in order, is inside one kept block
  (a paragraph continued across a column, a page or a float is one block); exact: one kept block
  holds the paragraph and nothing else (paragraphs set apart by an indent alone are two blocks);
- leakage: the share of strings that must stay out of the body (running heads, page numbers, the first
  page's foot line, notes, pull quotes) found in the kept body more often than the ground truth's own
  body holds them;
- notes: `quality_report.footnotes` against the notes the generator set;
- table cells: cell F1 of each generated table against the kept table block that shares most of its
  cells, a cell being (row, column, text) with the text normalised by `words`.

    .venv/bin/python -m bench.pdf_articles
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bench.pdf_integrity import words
from bench.pdf_tables import cell_set, table_rows


def _occurrences(needle: str, hay: str) -> int:
    """Times the word sequence `needle` occurs in `hay` (both from `words`), at word boundaries."""
    if not needle:
        return 0
    return f" {hay} ".count(f" {needle} ")


def score(blocks, truth, footnotes: int) -> dict:
    """The figures of one article from its cleaned blocks."""
    kept = [words(b.text) for b in blocks if b.in_body and b.text.strip()]
    body = " ".join(kept)
    sentences = truth.sentences + truth.abstract + [s for _, sents in truth.panels for s in sents]
    whole = sum(1 for s in sentences if any(_occurrences(words(s), k) for k in kept))
    paragraphs = [words(" ".join(p)) for p in truth.paragraphs]
    paras_whole = sum(1 for p in paragraphs if any(_occurrences(p, k) for k in kept))
    paras_exact = sum(1 for p in paragraphs if p in set(kept))
    gt_body = " ".join(words(x) for x in [truth.title, truth.authors, *truth.headings, *truth.sentences, *truth.abstract,
                                          *truth.captions, *(t for title, sents in truth.panels for t in (title, *sents)),
                                          *(c for t in truth.tables for row in t for c in row)])
    outside = truth.furniture + [text for _, text in truth.notes] + truth.pull_quotes
    leaked = [s for s in outside if _occurrences(words(s), body) > _occurrences(words(s), gt_body)]
    return {"sentences": len(sentences), "whole": whole, "paragraphs": len(paragraphs),
            "paragraphs_whole": paras_whole, "paragraphs_exact": paras_exact, "outside": len(outside), "leaked": leaked,
            "notes": len(truth.notes), "footnotes": footnotes, "cells": table_cells(blocks, truth.tables)}


def table_cells(blocks, tables: list[list[list[str]]]) -> tuple[int, int, int]:
    """(cells found, cells extracted, cells true) over the generated tables: each matched with the
    kept table block holding most of its cells."""
    found = extracted = true = 0
    candidates = [cell_set(table_rows(b.text)) for b in blocks if b.kind == "table" and b.drop_reason is None]
    for rows in tables:
        want = cell_set(rows)
        best = max(candidates, key=lambda got: len(got & want), default=set())
        found, extracted, true = found + len(best & want), extracted + len(best), true + len(want)
    return found, extracted, true


def cleaned(style):
    """(ground truth, extraction, cleaned blocks) of one style's article, through `docclean extract`'s
    own chain (cli.clean_file)."""
    from docclean_assets.cli import clean_file
    from docclean_assets_tests.fixtures.build_articles import article_pdf

    data, truth = article_pdf(style)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{style.name}.pdf"
        path.write_bytes(data)
        _, ext, blocks = clean_file(str(path))
    return truth, ext, blocks


def measure(style) -> dict:
    """Generate, clean and score one style's article."""
    truth, ext, blocks = cleaned(style)
    return score(blocks, truth, ext.report.footnotes)


def measure_all() -> dict[str, dict]:
    """Every house style's figures."""
    from docclean_assets_tests.fixtures.build_articles import STYLES

    return {s.name: measure(s) for s in STYLES}


def totals(results: dict[str, dict]) -> dict[str, float]:
    """Integrity, paragraphs whole, leakage and the share of styles with an exact note count."""
    def ratio(a: str, b: str) -> float:
        return sum(r[a] for r in results.values()) / max(1, sum(r[b] for r in results.values()))

    leaked = sum(len(r["leaked"]) for r in results.values())
    found, extracted, true = (sum(r["cells"][k] for r in results.values()) for k in range(3))
    cell_f1 = 2 * found / (extracted + true) if extracted + true else 1.0
    return {"integrity": ratio("whole", "sentences"), "paragraphs_whole": ratio("paragraphs_whole", "paragraphs"),
            "paragraphs_exact": ratio("paragraphs_exact", "paragraphs"),
            "leakage": leaked / max(1, sum(r["outside"] for r in results.values())),
            "notes_exact": sum(r["notes"] == r["footnotes"] for r in results.values()) / max(1, len(results)),
            "table_cell_f1": cell_f1}


def for_bench() -> dict[str, float]:
    """docclean's figures on the generated articles for `make bench` (a quality group of its own,
    gated like the corpus figures; leakage as its complement, so that higher is better there too)."""
    results = measure_all()
    t = totals(results)
    return {"sentences_whole": t["integrity"], "paragraphs_whole": t["paragraphs_whole"],
            "paragraphs_exact": t["paragraphs_exact"], "leakage_free": 1.0 - t["leakage"],
            "notes_exact": t["notes_exact"], "table_cell_f1": t["table_cell_f1"], "n": len(results)}


def main() -> int:
    results = measure_all()
    print("| style | sentences whole | paragraphs whole | exact | leaked | notes (true / counted) |\n"
          "|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['whole']}/{r['sentences']} | {r['paragraphs_whole']}/{r['paragraphs']} | {r['paragraphs_exact']} | "
              f"{len(r['leaked'])}/{r['outside']} | {r['notes']} / {r['footnotes']} |")
    t = totals(results)
    print(f"\nintegrity {t['integrity']:.3f} · paragraphs whole {t['paragraphs_whole']:.3f} (exact {t['paragraphs_exact']:.3f}) · "
          f"leakage {t['leakage']:.3f} · exact note counts {t['notes_exact']:.2f} · table cell F1 {t['table_cell_f1']:.3f}")
    for name, r in results.items():
        for s in r["leaked"]:
            print(f"  leaked ({name}): {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
