"""Body integrity of PDFs (issue 38, a first measure; not part of `make bench` yet): the share of the
ground truth's body sentences that come out whole inside one kept block, on the corpus PDFs with
docling's reviewed Markdown (`pdf/docling/gt/*.md`).

A sentence (8 words or more, from a ground-truth paragraph or list item) is
- whole: its words, in order, are inside one kept block;
- broken: its words are all in the kept text, but only across two or more blocks (a paragraph split
  at a column or page break, around a float or a footnote area);
- missing: otherwise (dropped, or extracted differently).

    .venv/bin/python -m bench.pdf_integrity            # per document and overall
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bench.datasets import CORPUS

MIN_WORDS = 8  # shorter sentences (headings, table cells, captions) say little about splits
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")
_WORD = re.compile(r"\w+", re.UNICODE)
_NOT_PROSE = re.compile(r"^\s*(#|\||!\[|<|```|\$\$)")


def gt_sentences(markdown: str) -> list[str]:
    """The ground truth's prose sentences of MIN_WORDS words or more."""
    out = []
    for line in markdown.splitlines():
        if not line.strip() or _NOT_PROSE.match(line):
            continue
        text = re.sub(r"^\s*([-*+]|\d+[.)])\s+", "", line)  # a list item's marker
        text = re.sub(r"[*_`]", "", text)
        out += [s for s in _SENTENCE_END.split(text) if len(_WORD.findall(s)) >= MIN_WORDS]
    return out


def words(text: str) -> str:
    """Lower-case words joined by one space (hyphenation, punctuation and spacing left out)."""
    return " ".join(w.lower() for w in _WORD.findall(text.replace("-\n", "")))


def classify(sentence: str, blocks: list[str], joined: str) -> str:
    """whole, broken or missing (see the module docstring)."""
    target = words(sentence)
    if any(target in b for b in blocks):
        return "whole"
    return "broken" if target in joined else "missing"


def measure(pdf: Path, gt: Path) -> dict:
    """The counts of one document."""
    from docclean_assets.cli import clean_file

    _, _, blocks = clean_file(str(pdf))
    kept = [words(b.text) for b in blocks if b.drop_reason is None and b.text.strip()]
    joined = " ".join(kept)
    counts = {"whole": 0, "broken": 0, "missing": 0}
    for sentence in gt_sentences(gt.read_text(encoding="utf-8")):
        counts[classify(sentence, kept, joined)] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench.pdf_integrity", description=__doc__.split("\n\n")[0])
    ap.add_argument("--folder", type=Path, default=CORPUS / "pdf" / "docling")
    args = ap.parse_args(argv)
    if not args.folder.is_dir():
        print(f"no corpus folder {args.folder}", file=sys.stderr)
        return 1
    total = {"whole": 0, "broken": 0, "missing": 0}
    print("| document | sentences | whole | broken | missing | integrity |\n|---|---|---|---|---|---|")
    for pdf in sorted(args.folder.glob("*.pdf")):
        gt = args.folder / "gt" / f"{pdf.stem}.md"
        if not gt.exists():
            continue
        counts = measure(pdf, gt)
        n = sum(counts.values())
        for k in total:
            total[k] += counts[k]
        found = counts["whole"] + counts["broken"]
        print(f"| {pdf.name} | {n} | {counts['whole']} | {counts['broken']} | {counts['missing']} | "
              f"{counts['whole'] / found:.3f} |" if found else f"| {pdf.name} | {n} | 0 | 0 | {n} | - |")
    found = total["whole"] + total["broken"]
    print(f"| **all** | {sum(total.values())} | {total['whole']} | {total['broken']} | {total['missing']} | "
          f"**{total['whole'] / max(found, 1):.3f}** |")
    print("\nintegrity = whole / (whole + broken): of the sentences found, the share that stayed in one block")
    return 0


if __name__ == "__main__":
    sys.exit(main())
