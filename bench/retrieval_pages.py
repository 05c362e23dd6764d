"""Worker: one system's text of each page of a list of PDFs, inside that system's venv, as JSON lines.

Usage: <venv python> bench/retrieval_pages.py SYSTEM JOB.json
JOB.json: {"files": [...]}. Output, one JSON object per line: {"ready": startup seconds}, then per file
{"path", "ok", "pages": [text of page 1, ...], "seconds", "error"}, then {"done": true}.
Only the standard library is imported at module level; each system imports its own library.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time


def load_pypdfium2():
    """The raw text layer, as PDFium orders it (what most RAG loaders read)."""
    import pypdfium2 as pdfium

    def run(path):
        pdf = pdfium.PdfDocument(path)
        try:
            return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
        finally:
            pdf.close()
    return run


def load_pdfplumber():
    """pdfplumber's extract_text per page (LangChain's PDFPlumberLoader does the same)."""
    import pdfplumber

    def run(path):
        with pdfplumber.open(path) as pdf:
            out = []
            for page in pdf.pages:
                out.append(page.extract_text() or "")
                page.close()  # frees the page's cached objects: filings run to 300 pages
            return out
    return run


_WORD = re.compile(r"[A-Za-z0-9]+")
ALIGN_WORDS = 8  # words of a Markdown block looked up in the page texts to place it on a page


def markdown_to_pages(markdown: str, page_texts: list[str]) -> list[str]:
    """kreuzberg's Markdown (which carries no page markers) cut back into pages: each blank-line block
    goes to the first page, from the current one on, whose text holds its first words; a block found
    nowhere stays on the current page."""
    flat = [" ".join(_WORD.findall(t)).lower() for t in page_texts]
    pages: list[list[str]] = [[] for _ in page_texts] or [[]]
    current = 0
    for block in re.split(r"\n\s*\n", markdown):
        words = _WORD.findall(block)
        if not words:
            continue
        key = " ".join(words[:ALIGN_WORDS]).lower()
        found = next((i for i in range(current, len(flat)) if key in flat[i]), None)
        current = found if found is not None else current
        pages[current].append(block.strip())
    return ["\n\n".join(p) for p in pages]


def load_kreuzberg():
    """kreuzberg 4's Markdown (its headings, paragraphs and tables), placed on pages by its own per-page
    text: its per-page text alone is PDFium's text layer, and its Markdown has no page markers."""
    from kreuzberg import ExtractionConfig, PageConfig, extract_file_sync

    config = ExtractionConfig(output_format="markdown", pages=PageConfig(extract_pages=True), use_cache=False,
                              disable_ocr=True)

    def run(path):
        result = extract_file_sync(path, config=config)
        pages = sorted(result.pages or [], key=lambda p: p["page_number"])
        return markdown_to_pages(result.content or "", [p["content"] or "" for p in pages])
    return run


def load_pymupdf4llm():
    """pymupdf4llm 2.0's Markdown per page, its layout model on, page headers and footers left out."""
    import importlib

    importlib.import_module("pymupdf.layout")  # importing it activates the layout model
    import pymupdf4llm

    def run(path):
        chunks = pymupdf4llm.to_markdown(path, page_chunks=True, header=False, footer=False, use_ocr=False)
        return [c.get("text") or "" for c in chunks]
    return run


LOADERS = {"pypdfium2": load_pypdfium2, "pdfplumber": load_pdfplumber, "kreuzberg": load_kreuzberg,
           "pymupdf4llm": load_pymupdf4llm}


def main() -> int:
    system, job_path = sys.argv[1], sys.argv[2]
    job = json.load(open(job_path, encoding="utf-8"))
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # libraries that print to stdout must not corrupt the protocol

    def emit(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    start = time.perf_counter()
    run = LOADERS[system]()
    emit({"ready": time.perf_counter() - start})
    for path in job["files"]:
        t0 = time.perf_counter()
        try:
            emit({"path": path, "ok": True, "pages": run(path), "seconds": time.perf_counter() - t0})
        except Exception as exc:  # noqa: BLE001 - one failed file is one error row
            emit({"path": path, "ok": False, "pages": [], "seconds": time.perf_counter() - t0,
                  "error": f"{type(exc).__name__}: {exc}"[:500]})
    emit({"done": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
