"""The shared corpus of real documents (../shared/corpus beside the repository) as pytest parameters:
one test id per file (its path under the corpus), expected failures marked strictly, a clean skip
where the corpus is absent. Built at collection time; nothing is extracted here."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


def corpus_files(folder: str, suffix: str) -> list[str]:
    """Paths relative to the corpus of the `suffix` files under `folder` (ground-truth folders excluded)."""
    root = CORPUS / folder
    if not root.is_dir():
        return []
    return sorted(str(p.relative_to(CORPUS)) for p in root.rglob(f"*{suffix}") if "gt" not in p.relative_to(root).parts)


def corpus_params(files: list[str], expected_failures: dict[str, str]) -> list:
    """One pytest.param per file, id = its path; a file in `expected_failures` (path -> why) is a strict
    xfail, so it fails the suite when it starts passing. With no corpus, one skipped parameter."""
    if not files:
        return [pytest.param(None, id="corpus-absent", marks=pytest.mark.skip(reason=f"corpus absent: {CORPUS}"))]
    return [pytest.param(rel, id=rel, marks=[pytest.mark.xfail(strict=True, reason=expected_failures[rel])]
                         if rel in expected_failures else []) for rel in files]


def stale_expectations(files: list[str], expected_failures: dict[str, str]) -> list[str]:
    """Expected-failure entries that name no corpus file (empty when the corpus is absent)."""
    return sorted(set(expected_failures) - set(files)) if files else []
