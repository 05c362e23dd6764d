"""Vector graphics of a PDF page (for the region stages), read from PDFium page objects."""
from __future__ import annotations

import io

import pypdfium2 as pdfium
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from docclean_assets.extract.pdf.graphics import page_to_graphics
from docclean_assets.extract.pdf.settings import PdfSettings


def _pdf() -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    c.setFillColorRGB(0.9, 0.9, 0.9)
    c.rect(100, 500, 200, 100, fill=1, stroke=0)  # shaded box
    c.setLineWidth(0.5)
    c.line(72, 400, 540, 400)  # a rule
    c.beginForm("f")
    c.setFillColorRGB(1, 0, 0)
    c.rect(0, 0, 50, 20, fill=1, stroke=0)
    c.endForm()
    c.saveState()
    c.translate(300, 100)
    c.doForm("f")  # a box inside a Form XObject, placed by the form's matrix
    c.restoreState()
    c.circle(400, 650, 30, stroke=1, fill=0)
    c.setCropBox((50, 50, 562, 742))
    c.save()
    return buf.getvalue()


def test_rects_and_rules_in_top_left_points_of_the_cropbox() -> None:
    pdf = pdfium.PdfDocument(_pdf())
    try:
        page = pdf[0]
        graphics = page_to_graphics(page, PdfSettings())
        page.close()
    finally:
        pdf.close()
    box, rule, form_box, circle = graphics
    assert box.kind == "rect" and box.fill == (230, 230, 230, 255) and box.stroke is None
    assert [round(v) for v in (box.x0, box.top, box.x1, box.bottom)] == [50, 142, 250, 242]
    assert rule.kind == "line" and rule.stroke == (0, 0, 0, 255) and rule.fill is None
    assert abs(rule.x0 - 22) < 1 and abs(rule.x1 - 490) < 1 and 341 < rule.top <= rule.bottom < 343
    assert rule.stroke_width == 0.5
    assert form_box.kind == "rect" and form_box.fill == (255, 0, 0, 255)
    assert [round(v) for v in (form_box.x0, form_box.top, form_box.x1, form_box.bottom)] == [250, 622, 300, 642]
    assert circle.kind == "path" and circle.fill is None and 319 < circle.x0 < 321
