"""Worker: runs one system on a list of files inside that system's venv, printing JSON lines.

Usage: <venv python> bench/runner.py SYSTEM FORMAT JOB.json
JOB.json: {"files": [...], "timeout_s": float, "cap_s": float}. Output, one JSON object per line:
{"ready": startup seconds}, then per document {"path", "ok", "body", "notes", "comments", "footnoted", "seconds", "error"}
(comments: reader comments a system keeps apart from the body, None when it does not separate them;
footnoted: the body with the footnotes a system keeps apart put back where they are read, None likewise),
then {"done": true, "maxrss_kb": peak RSS of this process, "capped": files left unprocessed}.
Only the standard library is imported at module level; each system imports its own libraries.
"""
from __future__ import annotations

import json
import os
import re
import resource
import signal
import sys
import time

BODY_KINDS = {"title", "heading", "paragraph", "list_item", "table", "caption", "code", "callout"}
NOT_SEPARATED = None  # notes value when a system does not label speaker notes


class DocTimeout(Exception):
    """Raised by SIGALRM when one document exceeds its time limit."""


def _alarm(signum, frame):  # noqa: ARG001
    raise DocTimeout("timeout")


# --- docclean: the same path as `docclean extract` (extract/clean.py, the one clean chain) ---------
def load_docclean(fmt):
    from docclean_assets.extract.clean import clean_document
    from docclean_assets.extract.settings import Settings

    settings = Settings()
    backend = {"pdf": "pdf.document", "docx": "office.docx", "pptx": "office.pptx", "html": "html.document"}[fmt]
    __import__(f"docclean_assets.extract.{backend}")  # warm: imports are not charged to document 1

    def run(path):
        data = open(path, "rb").read()
        blocks = sorted(clean_document(data, settings).blocks, key=lambda b: b.seq)
        body = "\n\n".join(b.text for b in blocks if b.drop_reason is None and b.kind in BODY_KINDS)
        notes = "\n\n".join(b.text for b in blocks
                            if b.kind == "speaker_notes" and b.drop_reason is None)
        comments = "\n\n".join(b.text for b in blocks if b.kind == "comment" and b.drop_reason is None)
        footnoted = "\n\n".join(b.text for b in blocks
                                 if b.drop_reason is None and (b.kind in BODY_KINDS or b.kind == "footnote"))
        return body, notes, comments, footnoted
    return run


# --- the floor of each format ---------------------------------------------------------------------
def load_floor(fmt):
    if fmt == "pdf":
        import pdfplumber

        def run(path):
            with pdfplumber.open(path) as pdf:
                return "\n".join((p.extract_text() or "") for p in pdf.pages), NOT_SEPARATED
    elif fmt == "docx":
        import docx

        def run(path):
            return "\n".join(p.text for p in docx.Document(path).paragraphs), NOT_SEPARATED
    elif fmt == "pptx":
        import pptx

        def run(path):
            out = []
            for slide in pptx.Presentation(path).slides:
                out.extend(s.text_frame.text for s in slide.shapes if s.has_text_frame)
            return "\n".join(out), NOT_SEPARATED
    elif fmt == "html":
        import trafilatura

        def run(path):
            return trafilatura.extract(open(path, "rb").read()) or "", NOT_SEPARATED
    else:
        raise ValueError(fmt)
    return run


def load_trafilatura_recall(fmt):
    import trafilatura

    def run(path):
        text = trafilatura.extract(open(path, "rb").read(), favor_recall=True, include_tables=True)
        return text or "", NOT_SEPARATED
    return run


# --- MarkItDown: pptx output labels notes as '### Notes:' up to the next slide marker -----------
_MD_SLIDE = re.compile(r"^<!-- Slide number: \d+ -->\s*$")


def split_markitdown_notes(md: str) -> tuple[str, str]:
    """Split MarkItDown's pptx Markdown into (body, notes) using its '### Notes:' sections."""
    body, notes, in_notes = [], [], False
    for line in md.splitlines():
        if _MD_SLIDE.match(line):
            in_notes = False
        elif line.strip() == "### Notes:":
            in_notes = True
            continue
        (notes if in_notes else body).append(line)
    return "\n".join(body), "\n".join(notes)


def load_resiliparse(fmt):
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding

    def run(path):
        data = open(path, "rb").read()
        html = bytes_to_str(data, detect_encoding(data))
        return extract_plain_text(html, main_content=True), NOT_SEPARATED
    return run


def load_markitdown(fmt):
    from markitdown import MarkItDown

    md = MarkItDown(enable_plugins=False)

    def run(path):
        text = md.convert(path).text_content or ""
        if fmt == "pptx":
            return split_markitdown_notes(text)
        return text, NOT_SEPARATED
    return run


# --- Unstructured: partition(strategy="fast"); notes only if an element is labelled as notes ----
def load_unstructured(fmt):
    from unstructured.partition.auto import partition

    def run(path):
        els = partition(filename=path, strategy="fast")
        body, notes = [], []
        for el in els:
            md = getattr(el, "metadata", None)
            is_note = bool(md is not None and getattr(md, "is_note", None))
            (notes if is_note else body).append(str(el))
        return "\n\n".join(body), ("\n\n".join(notes) if fmt == "pptx" and notes else NOT_SEPARATED)
    return run


# --- pymupdf4llm 2.0: PyMuPDF 2's Markdown with its layout model, page headers and footers left out ---
def load_pymupdf4llm(fmt):
    import importlib

    importlib.import_module("pymupdf.layout")  # importing it activates the layout model
    import pymupdf4llm

    def run(path):
        return pymupdf4llm.to_markdown(path, header=False, footer=False, use_ocr=False), NOT_SEPARATED
    return run


# --- opendataloader-pdf: its Java CLI to Markdown (headers and footers excluded, its default) -------
def load_opendataloader(fmt):
    import shutil
    import tempfile

    import opendataloader_pdf

    def run(path):
        out = tempfile.mkdtemp(prefix="odl-")
        try:
            opendataloader_pdf.convert(input_path=path, output_dir=out, format="markdown", quiet=True,
                                       image_output="off")
            md = [p for p in os.listdir(out) if p.endswith(".md")]
            if not md:
                raise RuntimeError("opendataloader-pdf wrote no Markdown")
            return open(os.path.join(out, md[0]), encoding="utf-8").read(), NOT_SEPARATED
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return run


LOADERS = {
    "docclean": load_docclean,
    "floor": load_floor,
    "trafilatura_recall": load_trafilatura_recall,
    "resiliparse": load_resiliparse,
    "markitdown": load_markitdown,
    "unstructured": load_unstructured,
    "pymupdf4llm": load_pymupdf4llm,
    "opendataloader": load_opendataloader,
}


def main() -> int:
    system, fmt, job_path = sys.argv[1], sys.argv[2], sys.argv[3]
    job = json.load(open(job_path, encoding="utf-8"))
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # libraries that print to stdout must not corrupt the protocol

    def emit(obj):
        proto.write(json.dumps(obj) + "\n")  # ASCII: lone surrogates survive
        proto.flush()

    t0 = time.perf_counter()
    run = LOADERS[system](fmt)
    emit({"ready": time.perf_counter() - t0})
    signal.signal(signal.SIGALRM, _alarm)
    started, files = time.perf_counter(), job["files"]
    capped = 0
    for i, path in enumerate(files):
        if time.perf_counter() - started > job.get("cap_s", 1e9):
            capped = len(files) - i
            break
        rec = {"path": path, "ok": False, "body": "", "notes": None, "comments": None, "footnoted": None, "error": None}
        t = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, float(job.get("timeout_s", 120)))
        try:
            out = run(path)
            rec["body"], rec["notes"] = out[:2]
            rec["comments"] = out[2] if len(out) > 2 else None
            rec["footnoted"] = out[3] if len(out) > 3 else None
            rec["ok"] = True
        except DocTimeout:
            rec["error"] = "timeout"
        except Exception as exc:  # a bad document is recorded, never fatal
            rec["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        rec["seconds"] = time.perf_counter() - t
        emit(rec)
    emit({"done": True, "capped": capped,
          "maxrss_kb": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                           resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
