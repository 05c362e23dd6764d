"""One entry point: any supported document's bytes to an Extraction."""
from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from docclean_assets.extract.errors import ExtractionError  # noqa: F401 - re-exported: api.ExtractionError
from docclean_assets.extract.guard import check_html_bytes
from docclean_assets.extract.html.rules import HtmlRules
from docclean_assets.extract.model import Extraction
from docclean_assets.extract.ocr.engine import OcrRun
from docclean_assets.extract.settings import Settings


def _code_version() -> str:
    """A digest of the extraction library's own source: any change to a backend, a stage or a
    default threshold makes re-ingestion parse unchanged files again (nobody has to remember)."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


PARSER_VERSION = _code_version()
# The extraction path of formats whose backend has only one.
_DEFAULT_METHOD = {"pdf": "text_layer", "docx": "ooxml", "pptx": "ooxml"}


def extract_document(
    data: bytes,
    fmt: str,
    settings: Settings | None = None,
    *,
    html_rules: HtmlRules | None = None,
    url: str | None = None,
    speaker_notes: bool = True,
    ocr: str = "auto",
    ocr_scanned_body: bool = True,
) -> Extraction:
    """Dispatch to the backend for `fmt`; raises ExtractionError for unreadable input. `html_rules`
    and `url` apply to HTML, `speaker_notes` (emit the notes of slides) to PPTX; `ocr` (auto | off |
    force) and `ocr_scanned_body` (a scanned page's text is body) to PDF, DOCX and PPTX."""
    settings = settings or Settings()
    run = OcrRun(settings.ocr, ocr, ocr_scanned_body)
    result = _dispatch(data, fmt, settings, html_rules=html_rules, url=url, speaker_notes=speaker_notes,
                       ocr=run if run.enabled else None)
    if result.report.method:
        return result
    return replace(result, report=replace(result.report, method=_DEFAULT_METHOD.get(fmt, "")))


def _dispatch(data: bytes, fmt: str, settings: Settings, *, html_rules: HtmlRules | None, url: str | None,
              speaker_notes: bool, ocr: OcrRun | None) -> Extraction:
    """The backend's Extraction for `fmt`."""
    if not data:
        raise ExtractionError("empty file (0 bytes)")
    # Each backend is imported on first use: a source of web pages never loads PDFium, pdfplumber,
    # numpy or python-docx (~26 MB of peak RSS in the bench's HTML run). The import-graph test
    # counts these imports too; the backends never import this module.
    if fmt == "pdf":
        from docclean_assets.extract.pdf.document import extract_pdf

        return extract_pdf(data, settings, ocr)  # the page and character caps are checked in its pass
    if fmt == "docx":
        from docclean_assets.extract.office.docx import extract_docx

        return extract_docx(data, settings, ocr)
    if fmt == "pptx":
        from docclean_assets.extract.office.pptx import extract_pptx

        return extract_pptx(data, settings, speaker_notes=speaker_notes, ocr=ocr)
    if fmt == "html":
        from docclean_assets.extract.html.document import extract_html

        check_html_bytes(data, settings.limits)
        return extract_html(data, settings, rules=html_rules, url=url)
    raise ExtractionError(f"unsupported format {fmt!r}")
