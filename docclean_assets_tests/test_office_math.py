"""Equations (OMML) as linear text in DOCX paragraphs and PPTX a14:m, built with python-docx /
python-pptx and injected Office Math XML."""
from __future__ import annotations

import io

import docx
from lxml import etree
from pptx import Presentation
from pptx.util import Pt

from docclean_assets.extract.office.pptx import extract_pptx
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.docx import body_blocks, extract_doc, inject_xml
from docclean_assets_tests.support.office import M, QUADRATIC, r, sub, sup


SUM = (
    '<m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr><m:sub>' + r("i=1") + "</m:sub><m:sup>" + r("n")
    + "</m:sup><m:e>" + sub(r("x"), r("i")) + "</m:e></m:nary>"
)
MISC = (
    '<m:d><m:dPr><m:begChr m:val="["/><m:endChr m:val="]"/><m:sepChr m:val=","/></m:dPr>'
    "<m:e>" + r("a") + "</m:e><m:e>" + r("b") + "</m:e></m:d>"
    + r("+") + "<m:func><m:fName>" + r("sin") + "</m:fName><m:e>" + r("θ") + "</m:e></m:func>"
    + r("+") + "<m:func><m:fName>" + r("cos") + "</m:fName><m:e><m:f><m:num>" + r("πx") + "</m:num><m:den>"
    + r("L") + "</m:den></m:f></m:e></m:func>"
    + r("+") + "<m:rad><m:deg>" + r("3") + "</m:deg><m:e>" + r("y") + "</m:e></m:rad>"
    + r("+") + "<m:sSubSup><m:e>" + r("z") + "</m:e><m:sub>" + r("k") + "</m:sub><m:sup>" + r("2")
    + "</m:sup></m:sSubSup>"
    + r("+") + "<m:m><m:mr><m:e>" + r("1") + "</m:e><m:e>" + r("0") + "</m:e></m:mr><m:mr><m:e>" + r("0")
    + "</m:e><m:e>" + r("1") + "</m:e></m:mr></m:m>"
)


def test_docx_inline_and_display_equations_as_linear_text():
    d = docx.Document()
    inject_xml(
        d,
        f'<w:p {M}><w:r><w:t xml:space="preserve">The roots are </w:t></w:r><m:oMath>{QUADRATIC}</m:oMath>'
        '<w:r><w:t>.</w:t></w:r></w:p>'
        f'<w:p {M}><m:oMathPara><m:oMath>{SUM}</m:oMath><m:oMath>{MISC}</m:oMath></m:oMathPara></w:p>',
    )
    texts = [b.text for b in body_blocks(extract_doc(d))]
    assert texts == [
        "The roots are x=(−b±sqrt(b^2−4ac))/(2a).",
        "∑_(i=1)^n x_i\n[a,b]+sin(θ)+cos((πx)/(L))+sqrt[3](y)+z_k^2+[1, 0; 0, 1]",
    ]


def test_pptx_a14_equation_as_linear_text():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = slide.shapes.add_textbox(Pt(40), Pt(40), Pt(400), Pt(80))
    box.text_frame.text = "Energy:"
    para = box.text_frame.paragraphs[0]._p
    mc = etree.fromstring(
        '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
        '<mc:Choice xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main" Requires="a14">'
        f'<a14:m><m:oMathPara {M}><m:oMath>{r("E=")}{sup(r("mc"), r("2"))}</m:oMath></m:oMathPara></a14:m>'
        '</mc:Choice><mc:Fallback><a:r xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
        "<a:t>picture of the equation</a:t></a:r></mc:Fallback></mc:AlternateContent>"
    )
    para.append(mc)
    buf = io.BytesIO()
    prs.save(buf)
    ex = extract_pptx(buf.getvalue(), Settings())
    assert [b.text for b in ex.blocks] == ["Energy:E=mc^2"]
