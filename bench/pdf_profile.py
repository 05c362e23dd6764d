"""Where docclean's PDF time goes, stage by stage, on every corpus PDF (one process; pin it to one core).

Each stage function the PDF orchestrator (`extract/pdf/document.py`) chains, the page reading below it
(`pdf_to_pages`: PDFium's chars, then the vector graphics), the OCR pass and the normalisation are
wrapped with a wall-clock counter; nothing else changes, so the stages add up to the run (the rest is
the orchestrator's own bookkeeping). Prints seconds and shares per stage with `ocr: auto` (the
default) and `--ocr off`.

    taskset -c 0 .venv/bin/python bench/pdf_profile.py [--ocr auto|off] [--json OUT]
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"

# the orchestrator's stages, in the order they run (names in extract/pdf/document.py)
STAGES = ("pdf_to_pages", "split_chars", "page_to_ruled_tables", "graphics_to_panels", "chars_to_panels",
          "panel_to_callout", "chars_to_words", "words_to_lines", "lines_to_blocks", "blocks_to_gutters",
          "split_lines_at_gutters", "lines_to_borderless_tables", "blocks_to_margin_notes", "blocks_to_sidebars",
          "modal_size", "blocks_to_kinds", "blocks_to_reading_order", "page_footnotes", "notes_to_links",
          "place_asides", "captions_to_links", "pages_to_pull_quotes", "extraction_with_ocr", "merge_flooded")
# below pdf_to_pages: reading PDFium's chars and the page's vector graphics
READING = ("page_to_chars", "_graphics")
# below extraction_with_ocr: (module, function) rendering pages and pictures, the photo test, the text
# gate and the engine's reads
OCR_PARTS = (("pdf.ocr_pages", "_render"), ("ocr.engine", "is_photo"), ("ocr.gate", "may_hold_text"),
             ("ocr.engine", "image_to_words"))


def _timed(name: str, fn, spent: dict[str, float]):  # noqa: ANN001, ANN202 - any stage function
    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        t = time.perf_counter()
        try:
            out = fn(*args, **kwargs)
            if name == "pdf_to_pages":  # a generator: the pages are read while it is consumed
                out = list(out)
            return out
        finally:
            spent[name] += time.perf_counter() - t
    return wrapper


def profile(ocr: str) -> dict:
    """Seconds per stage over every corpus PDF, the total and the page count."""
    from docclean_assets.extract.api import extract_document
    from docclean_assets.extract.normalize import normalize_blocks
    from docclean_assets.extract.pdf import chars as chars_mod
    from docclean_assets.extract.pdf import document as doc_mod

    datas = [p.read_bytes() for p in sorted(CORPUS.glob("*/*.pdf"))]
    extract_document(datas[0], "pdf", ocr=ocr)  # imports, models and the OCR engine are not charged
    spent: dict[str, float] = defaultdict(float)
    for name in STAGES:
        setattr(doc_mod, name, _timed(name, getattr(doc_mod, name), spent))
    for name in READING:
        setattr(chars_mod, name, _timed(name, getattr(chars_mod, name), spent))
    for mod_name, name in OCR_PARTS:
        mod = importlib.import_module(f"docclean_assets.extract.{mod_name}")
        setattr(mod, name, _timed(name, getattr(mod, name), spent))
    pages, total = 0, 0.0
    for data in datas:
        t = time.perf_counter()
        ext = extract_document(data, "pdf", ocr=ocr)
        t2 = time.perf_counter()
        normalize_blocks(ext.blocks)
        spent["normalize_blocks"] += time.perf_counter() - t2
        total += time.perf_counter() - t
        pages += ext.report.pages
    return {"ocr": ocr, "documents": len(datas), "pages": pages, "seconds": total, "stages": dict(spent)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ocr", default="auto", choices=("auto", "off"))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    res = profile(args.ocr)
    total = res["seconds"]
    from docclean_assets.extract.pdf.charscan import native

    print(f"ocr: {res['ocr']}, {res['documents']} PDFs, {res['pages']} pages, {total:.2f} s, "
          f"{res['pages'] / total:.1f} pages/s, PDF char reader: {'native' if native() else 'ctypes (not built)'}")
    print("| stage | seconds | share |")
    print("|---|---|---|")
    ocr_parts = [name for _m, name in OCR_PARTS]
    ocr_at = STAGES.index("extraction_with_ocr") + 1
    order = [*STAGES[:1], *READING, *STAGES[1:ocr_at], *ocr_parts, *STAGES[ocr_at:], "normalize_blocks"]
    top = 0.0
    for name in order:
        sec = res["stages"].get(name, 0.0)
        inner = "pdf_to_pages" if name in READING else "extraction_with_ocr" if name in ocr_parts else None
        if inner is None:
            top += sec
        label = f"  {name} (in {inner})" if inner else name
        print(f"| {label} | {sec:.2f} | {sec / total:.0%} |")
    print(f"| the orchestrator's own work | {total - top:.2f} | {(total - top) / total:.0%} |")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
