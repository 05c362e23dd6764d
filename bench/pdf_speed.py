"""PDF path speed: pdfplumber vs raw PDFium text vs docclean's full PDF path, one process, one core.

For every PDF of the shared corpus (all its folders; `--papers` for the academic papers only:
papermage, pdfminer, pdfplumber, olmocr_bench_sample, docling) it times, sequentially and side by side:

  (a) pdfplumber: open + `page.extract_text()` for every page;
  (b) pypdfium2: open + `page.get_textpage().get_text_range()` for every page;
  (c) docclean: `extract_document(data, "pdf")` then `normalize_blocks` (parse, layout, OCR of the
      pictures that hold text with the default `ocr: auto`, normalisation);
  (d) docclean_ocr_off: the same with `ocr: off`.

and prints pages/s of each, the ratios of docclean (both modes) to pdfplumber and to pdfium, the
aggregate pages/s (total pages / total seconds) and the process's peak RSS.

    .venv/bin/python bench/pdf_speed.py [--papers] [--repeat N] [--only SUBSTR] [--skip-plumber] [--json OUT]

Run it pinned to one core for the single-core requirement: `taskset -c 0 .venv/bin/python ...`.
"""
from __future__ import annotations

import argparse
import gc
import io
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"
PAPERS = ("papermage", "pdfminer", "pdfplumber", "olmocr_bench_sample", "docling")


def _best(fn, data: bytes, repeat: int) -> tuple[float, int]:  # noqa: ANN001
    """Fastest wall time of `repeat` runs of fn(data) and the page count it returns."""
    best, pages = float("inf"), 0
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        pages = fn(data)
        best = min(best, time.perf_counter() - t)
    return best, pages


def run_pdfplumber(data: bytes) -> int:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        n = 0
        for page in pdf.pages:
            page.extract_text()
            page.close()
            n += 1
    return n


def run_pdfium(data: bytes) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    try:
        n = len(doc)
        for i in range(n):
            page = doc[i]
            tp = page.get_textpage()
            tp.get_text_range()
            tp.close()
            page.close()
    finally:
        doc.close()
    return n


def run_docclean(data: bytes, ocr: str = "auto") -> int:
    from docclean_assets.extract.api import extract_document
    from docclean_assets.extract.normalize import normalize_blocks

    ex = extract_document(data, "pdf", ocr=ocr)
    normalize_blocks(ex.blocks)
    return ex.report.pages


def run_docclean_ocr_off(data: bytes) -> int:
    return run_docclean(data, "off")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--papers", action="store_true", help="only the academic papers (the folders in PAPERS)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per tool and file; the fastest counts")
    ap.add_argument("--only", default="", help="only files whose path contains this")
    ap.add_argument("--skip-plumber", action="store_true", help="skip (a), the slow pdfplumber pass")
    ap.add_argument("--json", type=Path, help="also write the per-file numbers here")
    args = ap.parse_args()

    folders = PAPERS if args.papers else sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    files = [p for f in folders for p in sorted((CORPUS / f).glob("*.pdf")) if args.only in str(p)]
    if not files:
        raise SystemExit(f"no PDFs under {CORPUS} for {folders}")
    run_docclean(files[0].read_bytes())  # warm imports (and the OCR engine) so the first file is not charged
    tools = [("pdfium", run_pdfium), ("docclean", run_docclean), ("docclean_ocr_off", run_docclean_ocr_off)]
    if not args.skip_plumber:
        tools.insert(0, ("pdfplumber", run_pdfplumber))
    totals = {name: 0.0 for name, _ in tools}
    total_pages = 0
    rows = []
    hdr = f"{'file':52s} {'pages':>5s} " + " ".join(f"{n + ' p/s':>15s}" for n, _ in tools)
    hdr += f" {'dc/plumber':>10s} {'off/plumber':>11s} {'dc/pdfium':>9s}"
    print(hdr)
    for path in files:
        data = path.read_bytes()
        row: dict[str, object] = {"file": f"{path.parent.name}/{path.name}"}
        pages = 0
        for name, fn in tools:
            try:
                secs, pages = _best(fn, data, args.repeat)
            except Exception as exc:  # noqa: BLE001 - report and continue
                print(f"  {path.name}: {name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                secs = float("nan")
            row[name] = secs
            totals[name] += secs if secs == secs else 0.0
        row["pages"] = pages
        total_pages += pages
        rows.append(row)
        rates = {n: pages / row[n] if row[n] else float("nan") for n, _ in tools}  # type: ignore[operator]
        line = f"{row['file']:52s} {pages:5d} " + " ".join(f"{rates[n]:15.1f}" for n, _ in tools)
        plumber = rates.get("pdfplumber", float("nan"))
        line += (f" {rates['docclean'] / plumber:10.2f} {rates['docclean_ocr_off'] / plumber:11.2f}"
                 f" {rates['docclean'] / rates['pdfium']:9.2f}")
        print(line, flush=True)
    agg = {n: total_pages / t if t else float("nan") for n, t in totals.items()}
    print("-" * len(hdr))
    line = f"{'AGGREGATE (total pages / total seconds)':52s} {total_pages:5d} "
    line += " ".join(f"{agg[n]:15.1f}" for n, _ in tools)
    plumber = agg.get("pdfplumber", float("nan"))
    line += (f" {agg['docclean'] / plumber:10.2f} {agg['docclean_ocr_off'] / plumber:11.2f}"
             f" {agg['docclean'] / agg['pdfium']:9.2f}")
    print(line)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    from docclean_assets.extract.pdf.charscan import native

    reader = "native (pdf/_charscan.c)" if native() else "ctypes: the C reader was not built, figures are the fallback's"
    print(f"peak RSS: {peak_kib / 1024:.0f} MiB; PDF char reader: {reader}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "aggregate": agg, "peak_rss_mib": peak_kib / 1024,
                                         "native_char_reader": native()}, indent=1))


if __name__ == "__main__":
    main()
