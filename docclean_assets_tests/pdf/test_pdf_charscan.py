"""The native char reader (pdf/_charscan.c) returns what the ctypes reader returns, char by char and
run by run, and the PDF path extracts the same blocks with either."""
from __future__ import annotations

import io
import os

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.pdf import charscan
from docclean_assets_tests.support.corpus import CORPUS, corpus_files, corpus_params
from docclean_assets_tests.fixtures.build import three_column_pdf, two_column_report_pdf

needs_native = pytest.mark.skipif(not charscan.native(), reason="the C reader was not built (no compiler)")
LONG_FONT = "Docclean" + "X" * 200  # past the 128-byte buffer both readers start with


def _mixed_pdf() -> bytes:
    """Upright, turned, sheared and coloured text on pages shown turned (/Rotate 90; reportlab makes
    the MediaBox 792 x 612 for it), grey and black text in two fonts on the second."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    c.setPageRotation(90)
    c.setFont("Helvetica", 11)
    c.drawString(72, 560, "Upright words on a turned page")
    c.saveState()
    c.translate(300, 400)
    c.rotate(30)
    c.setFillColorRGB(0.8, 0.1, 0.1)
    c.drawString(0, 0, "Turned and red")
    c.restoreState()
    c.saveState()
    c.transform(1, 0, 0.4, 1, 100, 200)  # sheared glyphs
    c.drawString(0, 0, "Sheared line")
    c.restoreState()
    c.showPage()
    c.setFont("Times-Bold", 14)
    c.setFillGray(0.6)
    c.drawString(72, 560, "Grey heading")
    c.setFillGray(0)
    c.setFont("Times-Roman", 10)
    c.drawString(72, 540, "Body text with an \u00e9 and numbers 12,345.")
    c.save()
    return buf.getvalue()


def _long_font_pdf() -> bytes:
    """One page whose font's /BaseFont is 208 characters long (a non-embedded Type1 font)."""
    stream = b"BT /F1 12 Tf 72 700 Td (Long font name) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /" + LONG_FONT.encode() + b" >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for k, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


DOCS = {"two_column_report": two_column_report_pdf, "three_column": three_column_pdf, "mixed": _mixed_pdf,
        "long_font": _long_font_pdf}


def _numbered(scan: charscan.CharScan) -> charscan.CharScan:
    """The scan with each text object's address replaced by its order of appearance (addresses
    differ between two loads of one document)."""
    ids: dict[int, int] = {0: 0}
    return scan._replace(obj=[ids.setdefault(o, len(ids)) for o in scan.obj])


def _scans(data: bytes, use_native: bool) -> list[charscan.CharScan]:
    pdf = pdfium.PdfDocument(data)
    scans = []
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            tp = page.get_textpage()
            scans.append(_numbered(charscan.scan_textpage(tp.raw, pdfium_c.FPDFText_CountChars(tp.raw), use_native)))
            tp.close()
            page.close()
    finally:
        pdf.close()
    return scans


@needs_native
@pytest.mark.parametrize("name", sorted(DOCS))
def test_native_reader_matches_ctypes(name: str) -> None:
    data = DOCS[name]()
    native, slow = _scans(data, True), _scans(data, False)
    assert sum(len(s.obj) for s in slow) > 10
    assert native == slow


def test_reader_columns_describe_the_page() -> None:
    """Both readers: a run per text object with its font and fill; generated chars flagged."""
    for use_native in (True, False) if charscan.native() else (False,):
        first, second = _scans(_mixed_pdf(), use_native)
        assert len(first.obj) == len(first.left) == len(first.oy) == len(first.flags)
        assert all(first.obj[run.index] for run in first.styles)
        red = [run for run in first.styles if (run.r, run.g, run.bl) == (204, 26, 26)]
        assert red and red[0].fill_ok and abs(red[0].b - 0.5) < 1e-6  # sin 30 degrees
        assert {run.fontname for run in second.styles} == {b"Times-Bold", b"Times-Roman"}
        assert any(f & charscan.GENERATED for f in second.flags)  # PDFium's inferred spaces and line ends
        assert all(f & charscan.ORIGIN_OK for f, o in zip(second.flags, second.obj) if o)
        (long_page,) = _scans(_long_font_pdf(), use_native)
        assert {run.fontname for run in long_page.styles} == {LONG_FONT.encode()}


@needs_native
@pytest.mark.parametrize("name", ["two_column_report", "mixed"])
def test_extraction_is_the_same_without_the_native_reader(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = DOCS[name]()
    fast = extract_document(data, "pdf", ocr="off")
    monkeypatch.setattr(charscan, "_charscan", None)
    assert not charscan.native()
    slow = extract_document(data, "pdf", ocr="off")
    assert [(b.text, b.kind, b.bbox, b.drop_reason) for b in fast.blocks] == [
        (b.text, b.kind, b.bbox, b.drop_reason) for b in slow.blocks]
    assert len(fast.blocks) >= 4


@needs_native
@pytest.mark.corpus
@pytest.mark.parametrize("rel", corpus_params(corpus_files("pdf", ".pdf"), {}))
def test_native_reader_matches_ctypes_on_the_corpus(rel: str) -> None:
    """Every page of every corpus PDF, both readers on one load of the document (same addresses)."""
    pdf = pdfium.PdfDocument((CORPUS / rel).read_bytes())
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            tp = page.get_textpage()
            n = pdfium_c.FPDFText_CountChars(tp.raw)
            assert charscan.scan_textpage(tp.raw, n, True) == charscan.scan_textpage(tp.raw, n, False), (rel, i)
            tp.close()
            page.close()
    finally:
        pdf.close()


@needs_native
def test_native_reader_rejects_a_null_page() -> None:
    with pytest.raises(ValueError, match="null"):
        charscan._charscan.scan(0, 5, *charscan._FUNCTIONS)


def test_native_reader_is_built_in_ci() -> None:
    """CI installs a compiler: there, the C reader must have been built (else the speed figures
    of bench/pdf_speed.py would silently be the ctypes reader's)."""
    if not os.environ.get("CI"):
        pytest.skip("only required in CI")
    assert charscan.native()
