"""OCR accuracy and cost (issue 9): `python -m bench.ocr_eval [--pages N] [--out DIR]`.

1. Engines side by side on the same images: Debian's tesseract (what docclean runs) and
   rapidocr-onnxruntime (PP-OCR ONNX models bundled in its wheel; run in bench/.venvs/rapidocr, so
   its onnxruntime never enters the project). Images: the generated OCR fixtures' pictures, and the
   first page of N corpus PDFs rendered at OcrSettings.page_dpi, whose known text is the page's own
   text layer. Accuracy is token recall (lower-cased letters/digits, with multiplicity) of the known
   text; cost is seconds per image (model loading excluded, reported apart).
2. docclean end to end on the fixture documents (token recall of the recovered text).
3. What `ocr: auto` costs on the corpus: extraction seconds with ocr off and auto, and the OCR counts.
Writes ocr_eval.json and prints a Markdown summary.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench import datasets, deps

RAPIDOCR_REQS = ["rapidocr-onnxruntime==1.4.4"]
_RAPID_SCRIPT = r"""
import json, sys, time
t = time.perf_counter()
from rapidocr_onnxruntime import RapidOCR
engine = RapidOCR()
load = time.perf_counter() - t
out = {"_load_s": load}
for path in sys.argv[1:]:
    t = time.perf_counter()
    result, _ = engine(path)
    out[path] = {"text": " ".join(r[1] for r in (result or [])), "seconds": time.perf_counter() - t}
print(json.dumps(out))
"""


def tokens(text: str) -> list[str]:
    import re

    return re.findall(r"[a-z0-9]+", text.lower())


def recall(known: str, got: str) -> float | None:
    want, have = Counter(tokens(known)), Counter(tokens(got))
    total = sum(want.values())
    return sum(min(n, have[t]) for t, n in want.items()) / total if total else None


def fixture_images() -> list[tuple[str, object, str]]:
    """(name, PIL image, known text) of the generated fixtures' pictures."""
    from docclean_assets_tests.fixtures import build_ocr as F

    words = F.SLIDE_SENTENCE.split()
    half = len(words) // 2
    return [
        ("fixture:scan", F.text_image(F.SCAN_LINES), " ".join(F.SCAN_LINES)),
        ("fixture:picture", F.text_image(F.PICTURE_LINES), " ".join(F.PICTURE_LINES)),
        ("fixture:slide", F.text_image([" ".join(words[:half]), " ".join(words[half:])], px=24), F.SLIDE_SENTENCE),
        ("fixture:table", F.table_image(F.TABLE_ROWS), " ".join(c for r in F.TABLE_ROWS for c in r)),
    ]


def corpus_pages(n: int, dpi: int) -> list[tuple[str, object, str]]:
    """(name, rendered first page, its text layer) of n corpus PDFs spread over the sorted list."""
    import pypdfium2 as pdfium

    pdfs = sorted(p for p in (datasets.CORPUS / "pdf").rglob("*.pdf")) if datasets.CORPUS.is_dir() else []
    if not pdfs or n <= 0:
        return []
    picked = [pdfs[round(i * (len(pdfs) - 1) / max(1, n - 1))] for i in range(min(n, len(pdfs)))]
    out = []
    for path in dict.fromkeys(picked):
        try:
            pdf = pdfium.PdfDocument(str(path))
            page = pdf[0]
            known = page.get_textpage().get_text_range()
            image = page.render(scale=dpi / 72.0, grayscale=True).to_pil()
            pdf.close()
        except Exception as exc:  # noqa: BLE001 - an unreadable corpus file is left out, and said
            print(f"[ocr_eval] skipped {path.name}: {exc}", file=sys.stderr)
            continue
        if len(tokens(known)) >= 20:
            out.append((f"corpus:{path.relative_to(datasets.CORPUS).as_posix()}", image, known))
    return out


def run_tesseract(images, dpi_of) -> dict[str, dict]:
    """docclean's engine on each image, behind its text gate (a picture the gate turns away reads
    as nothing, so a gate that stopped text would lower the recall)."""
    from docclean_assets.extract.ocr.engine import image_to_words
    from docclean_assets.extract.ocr.gate import may_hold_text
    from docclean_assets.extract.ocr.settings import OcrSettings

    s = OcrSettings()
    out = {}
    for name, image, _known in images:
        t = time.perf_counter()
        gated = not may_hold_text(image, dpi_of(name), s)
        words = [] if gated else image_to_words(image, dpi_of(name), s)
        out[name] = {"text": " ".join(w.text for w in words), "seconds": time.perf_counter() - t, "gated": gated}
    return out


def run_rapidocr(images, tmp: Path) -> tuple[dict[str, dict], str | None, float | None]:
    """RapidOCR's texts in its own venv; (results, why unavailable, model load seconds)."""
    deps.PEER_VENVS.setdefault("rapidocr", RAPIDOCR_REQS)
    py, why = deps.ensure_venv("rapidocr")
    if py is None:
        return {}, why, None
    paths = {}
    for i, (name, image, _known) in enumerate(images):
        p = tmp / f"img{i}.png"
        image.save(p)
        paths[str(p)] = name
    proc = subprocess.run([str(py), "-c", _RAPID_SCRIPT, *paths], capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        return {}, f"rapidocr failed: {proc.stderr[-400:]}", None
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    return {paths[k]: v for k, v in raw.items() if k in paths}, None, raw.get("_load_s")


def end_to_end() -> list[dict]:
    """docclean's recall on the generated fixture documents, through extract_document."""
    from docclean_assets.extract.api import extract_document
    from docclean_assets_tests.fixtures import build_ocr as F

    cases = [("scanned.pdf", F.scanned_pdf(), "pdf", " ".join(F.SCAN_LINES)),
             ("unmapped.pdf", F.unmapped_pdf(), "pdf", " ".join(F.UNMAPPED_LINES)),
             ("picture-on-text-page.pdf", F.text_and_picture_pdf(), "pdf", " ".join(F.PICTURE_LINES)),
             ("picture.pptx", F.picture_pptx(), "pptx", F.SLIDE_SENTENCE),
             ("table-screenshot.docx", F.table_screenshot_docx(), "docx", " ".join(c for r in F.TABLE_ROWS for c in r))]
    rows = []
    for name, data, fmt, known in cases:
        t = time.perf_counter()
        ext = extract_document(data, fmt)
        got = " ".join(b.text for b in ext.blocks if b.get_meta("ocr") == "tesseract")
        rows.append({"document": name, "recall": recall(known, got), "seconds": time.perf_counter() - t,
                     "confidence": ext.report.ocr_confidence})
    return rows


def corpus_cost(formats: tuple[str, ...] = ("pdf", "docx", "pptx")) -> dict:
    """Extraction seconds per format with ocr off and auto, and what auto read."""
    from docclean_assets.extract.api import extract_document

    docs = [d for d in datasets.load_corpus() if d.fmt in formats] if datasets.CORPUS.is_dir() else []
    out: dict[str, dict] = {}
    for fmt in formats:
        files = [d.path for d in docs if d.fmt == fmt]
        row = {"documents": len(files)}
        for mode in ("off", "auto"):
            t = time.perf_counter()
            counts = Counter()
            for path in files:
                try:
                    rep = extract_document(path.read_bytes(), fmt, ocr=mode).report
                except Exception:  # noqa: BLE001 - refused documents cost what they cost
                    counts["errors"] += 1
                    continue
                counts["ocr_pages"] += rep.ocr_pages
                counts["ocr_pictures"] += rep.ocr_pictures
                counts["ocr_pictures_empty"] += rep.ocr_pictures_empty
                counts["ocr_pictures_skipped"] += rep.ocr_pictures_skipped  # photos, the text gate, budgets
                counts["docs_with_ocr"] += bool(rep.ocr_pages or rep.ocr_pictures)
                counts["budget_flags"] += sum(f in rep.flags for f in ("ocr_picture_budget", "ocr_time_budget"))
            row[mode] = {"seconds": round(time.perf_counter() - t, 2), **counts}
        out[fmt] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=8, help="corpus PDF first pages to OCR with both engines")
    ap.add_argument("--out", type=Path, default=deps.BENCH / "out")
    ap.add_argument("--no-cost", action="store_true", help="skip the corpus ocr off/auto timing")
    args = ap.parse_args(argv)
    from docclean_assets.extract.ocr.settings import OcrSettings

    dpi = OcrSettings().page_dpi
    images = fixture_images() + corpus_pages(args.pages, dpi)
    tess = run_tesseract(images, lambda name: dpi if name.startswith("corpus:") else 96)
    with tempfile.TemporaryDirectory() as tmp:
        rapid, rapid_why, rapid_load = run_rapidocr(images, Path(tmp))
    rows = []
    for name, _image, known in images:
        row = {"image": name, "known_tokens": len(tokens(known))}
        for engine, res in (("tesseract", tess), ("rapidocr", rapid)):
            if name in res:
                row[engine] = {"recall": recall(known, res[name]["text"]), "seconds": round(res[name]["seconds"], 3)}
        rows.append(row)

    def mean(engine: str, key: str, prefix: str = "") -> float | None:
        vals = [r[engine][key] for r in rows if engine in r and r["image"].startswith(prefix) and r[engine][key] is not None]
        return round(sum(vals) / len(vals), 3) if vals else None

    summary = {e: {"recall": mean(e, "recall"), "recall_fixtures": mean(e, "recall", "fixture:"),
                   "recall_corpus": mean(e, "recall", "corpus:"), "seconds_per_image": mean(e, "seconds"),
                   "seconds_per_corpus_page": mean(e, "seconds", "corpus:")} for e in ("tesseract", "rapidocr")}
    summary["rapidocr"]["unavailable"] = rapid_why
    summary["rapidocr"]["model_load_s"] = rapid_load
    result = {"images": rows, "summary": summary, "end_to_end": end_to_end(),
              "corpus_cost": {} if args.no_cost else corpus_cost()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ocr_eval.json").write_text(json.dumps(result, indent=2))
    print("| engine | token recall (all) | fixtures | corpus pages | s / image | s / corpus page |")
    print("|---|---|---|---|---|---|")
    for e in ("tesseract", "rapidocr"):
        s = summary[e]
        print(f"| {e} | {s['recall']} | {s['recall_fixtures']} | {s['recall_corpus']} | {s['seconds_per_image']} | "
              f"{s['seconds_per_corpus_page']} |")
    if rapid_why:
        print(f"rapidocr unavailable: {rapid_why}")
    for r in result["end_to_end"]:
        print(f"end to end: {r['document']}: recall {r['recall']:.2f}, {r['seconds']:.2f} s")
    for fmt, row in result["corpus_cost"].items():
        print(f"corpus {fmt}: {row}")
    print(f"[ocr_eval] wrote {args.out / 'ocr_eval.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
