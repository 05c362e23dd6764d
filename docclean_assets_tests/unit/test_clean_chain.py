"""The one clean chain (extract/clean.py): what it does to a document, and that nobody spells it again."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from docclean_assets.extract.clean import clean_document
from docclean_assets.extract.errors import ExtractionError
from docclean_assets_tests.support.pdf import make_pdf, para, words

ROOT = Path(__file__).resolve().parents[2]
# the chain's steps after extraction: a module calling both spells the chain out again
STEPS = {"apply_repeats", "normalize_blocks"}


def test_a_document_is_extracted_and_its_running_head_dropped_with_its_reason() -> None:
    """(The normalisation step is held by the golden files, which go through `extraction_to_kept`.)"""
    bodies = [words(f"Page{k}", 60) for k in range(3)]

    def draw(c) -> None:
        for text in bodies:
            c.setFont("Helvetica", 9)
            c.drawString(72, 760, "Journal of Repeated Heads")
            para(c, text, 72, 100, 468)
            c.showPage()

    cleaned = clean_document(make_pdf(draw))
    assert cleaned.fmt == "pdf" and cleaned.extraction.report.pages == 3
    heads = [b for b in cleaned.blocks if b.text == "Journal of Repeated Heads"]
    assert len(heads) == 3 and all(b.drop_reason == "running_head" for b in heads)
    kept = [b.text for b in cleaned.blocks if b.drop_reason is None]
    assert kept == bodies


def test_bytes_of_no_known_format_are_an_extraction_error() -> None:
    with pytest.raises(ExtractionError, match="unrecognised format"):
        clean_document(b"\x00\x01 not a document")


def _chaining_functions(path: Path) -> list[str]:
    """The functions of a module that call both steps after extraction themselves."""
    out = []
    for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        called = {c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", "")
                  for c in ast.walk(fn) if isinstance(c, ast.Call)}
        if STEPS <= called:
            out.append(fn.name)
    return out


def test_only_the_clean_module_chains_repeats_and_normalisation() -> None:
    """The CLI, the golden tests, the bench and the pipeline call extract/clean.py; no function
    elsewhere calls both steps itself (a stage test calling one of them is fine)."""
    files = [p for d in ("docclean_assets", "docclean_assets_tests", "bench") for p in (ROOT / d).rglob("*.py")
             if ".venvs" not in p.parts]
    spelled = [f"{p.relative_to(ROOT)}:{name}" for p in sorted(files) for name in _chaining_functions(p)]
    assert spelled == ["docclean_assets/extract/clean.py:blocks_to_kept"]
