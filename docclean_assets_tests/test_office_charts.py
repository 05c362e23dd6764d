"""Chart data as a caption and a Markdown table: PPTX charts made with python-pptx, a DOCX chart part
written by python-pptx's chart XML writer and related from the document with python-docx."""
from __future__ import annotations

import io

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from pptx import Presentation
from pptx.chart.data import XyChartData
from pptx.chart.xmlwriter import ChartXmlWriter
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Pt

from docclean_assets.extract.office.pptx import extract_pptx
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.docx import extract_doc, inject_xml
from docclean_assets_tests.support.office import category_data

CHART_CT = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"
TABLE = (
    "| Category | Revenue | Cost |\n"
    "| --- | --- | --- |\n"
    "| Q1 | 1.5 | 1 |\n"
    "| Q2 | 2.25 | 1.75 |\n"
    "| Q3 | 3 | 2.5 |"
)


def _pptx(build) -> list:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    build(slide)
    buf = io.BytesIO()
    prs.save(buf)
    return extract_pptx(buf.getvalue(), Settings()).blocks


def test_pptx_chart_title_series_categories_and_values_as_a_table():
    def build(slide):
        _box = slide.shapes.add_textbox(Pt(40), Pt(20), Pt(600), Pt(40))
        _box.text_frame.text = "Results"
        chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Pt(40), Pt(80), Pt(600), Pt(300),
                                       category_data()).chart
        chart.has_title = True
        chart.chart_title.text_frame.text = "Revenue and cost"

    blocks = _pptx(build)
    assert [(b.kind, b.text) for b in blocks] == [
        ("paragraph", "Results"), ("caption", "Revenue and cost"), ("table", TABLE),
    ]
    assert blocks[1].anchor == blocks[2].seq  # the caption refers to its table


def test_pptx_xy_chart_without_title():
    def build(slide):
        data = XyChartData()
        series = data.add_series("Trial")
        series.add_data_point(0.5, 10)
        series.add_data_point(1.25, 12.5)
        slide.shapes.add_chart(XL_CHART_TYPE.XY_SCATTER, Pt(40), Pt(80), Pt(600), Pt(300), data)

    blocks = _pptx(build)
    assert [(b.kind, b.text) for b in blocks] == [
        ("caption", "Scatter chart"),
        ("table", "| Series | X | Y |\n| --- | --- | --- |\n| Trial | 0.5 | 10 |\n| Trial | 1.25 | 12.5 |"),
    ]


def test_docx_chart_part_as_a_table_after_its_paragraph():
    d = docx.Document()
    d.add_paragraph("Figures for the year.")
    xml = ChartXmlWriter(XL_CHART_TYPE.LINE, category_data()).xml
    xml = xml.replace("<c:chart>", '<c:chart><c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>Revenue and cost'
                                   "</a:t></a:r></a:p></c:rich></c:tx></c:title>", 1)
    part = Part(PackURI("/word/charts/chart1.xml"), CHART_CT, xml.encode("utf-8"), d.part.package)
    rid = d.part.relate_to(part, RT.CHART)
    inject_xml(
        d,
        '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="1" name="Chart 1"/>'
        '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
        f'<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="{rid}"/>'
        "</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"
        "<w:p><w:r><w:t>After the chart.</w:t></w:r></w:p>",
    )
    ex = extract_doc(d)
    got = [(b.kind, b.text) for b in ex.blocks if b.in_body]
    assert got == [
        ("paragraph", "Figures for the year."), ("caption", "Revenue and cost"), ("table", TABLE),
        ("paragraph", "After the chart."),
    ]
    assert ex.report.embedded_objects == 1
