"""Golden files: the normalized blocks of a document as readable JSONL, compared line by line.

One line per block (seq, page, kind, level, drop_reason, anchor, bbox rounded to 0.1 pt or null, text,
orig_text, meta in the block's own order), then one line with the extraction report. The blocks come
the pipeline's way (extract/clean.py's chain): extract_document -> page repeats -> (for a site: the
template across its pages) -> normalize_blocks, with default Settings() and OCR off, so a golden
does not depend on the installed tesseract's version. ``DOCCLEAN_REGEN_GOLDEN=1`` (``make golden``)
rewrites the files instead of comparing; under CI (the ``CI`` variable set) that flag is refused.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.boilerplate import docs_to_template_repeats
from docclean_assets.extract.clean import extraction_to_kept
from docclean_assets.extract.model import Block, Extraction
from docclean_assets.extract.settings import Settings

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
REGEN_ENV = "DOCCLEAN_REGEN_GOLDEN"
REGEN_HINT = f"regenerate with `make golden` ({REGEN_ENV}=1 on docclean_assets_tests/test_golden.py), " \
             "review the diff (git diff docclean_assets_tests/golden), commit"
DIFF_LINES = 40  # lines of unified diff shown on a mismatch


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no")


def regen_requested() -> bool:
    """True when the environment asks for the golden files to be rewritten."""
    return _truthy(os.environ.get(REGEN_ENV))


def in_ci() -> bool:
    """True under continuous integration (the `CI` variable, as CI services and .ci/run set it)."""
    return _truthy(os.environ.get("CI"))


def extract(data: bytes, fmt: str, settings: Settings) -> Extraction:
    """The document's extraction, OCR off where the format has OCR."""
    return extract_document(data, fmt, settings, **({} if fmt == "html" else {"ocr": "off"}))


def normalized(ex: Extraction, settings: Settings, template: Iterable = ()) -> list[Block]:
    """The blocks the pipeline keeps for one document: page repeats (and a site's template) then normalisation."""
    return extraction_to_kept(ex, settings, template)


def site_template(extractions: dict[str, Extraction], settings: Settings) -> list:
    """The site-template repeats across the pages of one HTML source (path -> extraction)."""
    return docs_to_template_repeats(((p, ex.blocks) for p, ex in sorted(extractions.items())), settings.boilerplate)


def _bbox(b: Block) -> list[float] | None:
    return None if b.bbox is None else [round(v, 1) + 0.0 for v in (b.bbox.x0, b.bbox.y0, b.bbox.x1, b.bbox.y1)]


def block_record(b: Block) -> dict:
    """One block as a JSON-ready dict, keys in a fixed order."""
    return {"seq": b.seq, "page": b.page, "kind": str(b.kind), "level": b.level,
            "drop_reason": None if b.drop_reason is None else str(b.drop_reason), "anchor": b.anchor,
            "bbox": _bbox(b), "text": b.text, "orig_text": b.orig_text, "meta": dict(b.meta)}


def to_jsonl(blocks: list[Block], ex: Extraction) -> str:
    """The golden text: one line per block, then the report."""
    lines = [json.dumps(block_record(b), ensure_ascii=False) for b in blocks]
    lines.append(json.dumps({"report": dataclasses.asdict(ex.report)}, ensure_ascii=False, sort_keys=True, default=str))
    return "\n".join(lines) + "\n"


def mismatch(expected: str, actual: str, name: str) -> str | None:
    """None when equal; otherwise a readable message: the first differing lines and how to regenerate."""
    if expected == actual:
        return None
    diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"golden/{name}", "extracted now",
                                     n=1, lineterm=""))
    shown = diff[:DIFF_LINES] + ([f"... ({len(diff) - DIFF_LINES} more diff lines)"] if len(diff) > DIFF_LINES else [])
    return f"golden {name} differs from the extraction:\n" + "\n".join(shown) + f"\nIf the change is intended, {REGEN_HINT}."


def check_or_write(path: Path, actual: str) -> str | None:
    """Compare `actual` with the golden at `path`, or rewrite it when regeneration is asked (never under CI).
    Returns a failure message, or None when it matches (or was rewritten)."""
    name = str(path.relative_to(GOLDEN_DIR)) if path.is_relative_to(GOLDEN_DIR) else path.name
    if regen_requested() and not in_ci():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8")
        return None
    if not path.is_file():
        return f"golden {name} is missing; {REGEN_HINT}."
    return mismatch(path.read_text(encoding="utf-8"), actual, name)
