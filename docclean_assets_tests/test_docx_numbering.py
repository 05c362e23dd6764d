"""DOCX list labels rendered from numbering.xml (docx_numbering): fixtures built with python-docx,
the numbering part replaced with hand-written WordprocessingML."""
from __future__ import annotations

import docx
from docx.enum.style import WD_STYLE_TYPE
from lxml import etree

from docclean_assets.extract.office.numbering import format_number
from docclean_assets_tests.support.docx import NSDECL, body_blocks, extract_doc, inject_xml

SYMBOL_BULLET = "\uf0b7"  # the Symbol font's bullet, stored in the private use area
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _lvl(ilvl: int, fmt: str, text: str, start: int = 1, extra: str = "") -> str:
    return (f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>{extra}'
            f'<w:lvlText w:val="{text}"/></w:lvl>')


NUMBERING = f"""<w:numbering {W}>
  <w:abstractNum w:abstractNumId="10">
    {_lvl(0, "decimal", "%1.")}{_lvl(1, "decimal", "%1.%2.")}{_lvl(2, "lowerLetter", "%3)")}
    {_lvl(3, "lowerRoman", "%4.")}{_lvl(4, "upperLetter", "(%5)")}
  </w:abstractNum>
  <w:abstractNum w:abstractNumId="11">
    {_lvl(0, "upperRoman", "%1.", start=4)}{_lvl(1, "bullet", SYMBOL_BULLET)}{_lvl(2, "bullet", "o")}
  </w:abstractNum>
  <w:abstractNum w:abstractNumId="12">
    {_lvl(0, "decimal", "Article %1")}{_lvl(1, "decimal", "%1.%2", extra='<w:lvlRestart w:val="0"/>')}
    {_lvl(2, "decimal", "%1-%3", extra='<w:isLgl/>')}
  </w:abstractNum>
  <w:num w:numId="1"><w:abstractNumId w:val="10"/></w:num>
  <w:num w:numId="2"><w:abstractNumId w:val="10"/>
    <w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
  <w:num w:numId="3"><w:abstractNumId w:val="10"/></w:num>
  <w:num w:numId="4"><w:abstractNumId w:val="11"/></w:num>
  <w:num w:numId="5"><w:abstractNumId w:val="12"/></w:num>
  <w:num w:numId="6"><w:abstractNumId w:val="11"/>
    <w:lvlOverride w:ilvl="0"><w:lvl w:ilvl="0"><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1]"/></w:lvl>
    </w:lvlOverride></w:num>
</w:numbering>"""


def _document(items: list[tuple[int, int, str]]):
    """A document whose numbering part is NUMBERING and whose body holds (numId, ilvl, text) items."""
    d = docx.Document()
    part = d.part.numbering_part
    part._element = etree.fromstring(NUMBERING)
    xml = "".join(
        f'<w:p><w:pPr><w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num}"/></w:numPr></w:pPr>'
        f"<w:r><w:t>{text}</w:t></w:r></w:p>"
        for num, ilvl, text in items
    )
    inject_xml(d, xml)
    return d


def _labels(d) -> list[tuple[str, str, int | None, str | None]]:
    return [(b.kind, b.text, b.level, dict(b.meta).get("list_label")) for b in body_blocks(extract_doc(d))]


def test_nested_multilevel_labels_and_reset_of_deeper_levels():
    d = _document([
        (1, 0, "Scope"), (1, 1, "Parties"), (1, 1, "Term"), (1, 2, "renewal"), (1, 2, "notice"),
        (1, 3, "in writing"), (1, 4, "signed"), (1, 0, "Fees"), (1, 1, "Invoices"), (1, 2, "monthly"),
    ])
    assert [(t, lbl) for _k, t, _lv, lbl in _labels(d)] == [
        ("1. Scope", "1."),
        ("1.1. Parties", "1.1."),
        ("1.2. Term", "1.2."),
        ("a) renewal", "a)"),
        ("b) notice", "b)"),
        ("i. in writing", "i."),
        ("(A) signed", "(A)"),
        ("2. Fees", "2."),
        ("2.1. Invoices", "2.1."),  # level 1 restarted when level 0 advanced
        ("a) monthly", "a)"),
    ]
    kinds = {(k, lv) for k, _t, lv, _l in _labels(d)}
    assert ("list_item", 1) in kinds and ("list_item", 3) in kinds


def test_restart_per_num_instance_and_continuation_of_the_abstract_list():
    d = _document([
        (1, 0, "first"), (1, 0, "second"),
        (2, 0, "restarted"), (2, 1, "child"),  # numId 2 overrides the start of level 0
        (3, 0, "continued"),  # numId 3 shares the abstract list without an override: continues
        (1, 0, "still continued"),
    ])
    assert [t for _k, t, _lv, _l in _labels(d)] == [
        "1. first", "2. second", "1. restarted", "1.1. child", "2. continued", "3. still continued",
    ]


def test_start_value_roman_bullets_and_level_override():
    d = _document([
        (4, 0, "Fourth"), (4, 1, "symbol bullet"), (4, 2, "letter bullet"), (4, 0, "Fifth"),
        (6, 0, "overridden format"), (6, 0, "again"),
    ])
    assert [t for _k, t, _lv, _l in _labels(d)] == [
        "IV. Fourth", "\u2022 symbol bullet", "o letter bullet", "V. Fifth",
        # numId 6 shares abstract 11 (at IV, V) but overrides level 0's format: the counter goes on
        "f] overridden format", "g] again",
    ]


def test_lvl_restart_never_and_legal_numbering():
    d = _document([
        (5, 0, "One"), (5, 1, "clause"), (5, 0, "Two"), (5, 1, "clause"), (5, 2, "legal"),
    ])
    assert [t for _k, t, _lv, _l in _labels(d)] == [
        "Article 1 One", "1.1 clause",
        "Article 2 Two", "2.2 clause",  # lvlRestart 0: level 1 never restarts
        "2-1 legal",
    ]


def test_numbering_from_the_paragraph_style_chain_and_numid_zero():
    d = docx.Document()
    d.part.numbering_part._element = etree.fromstring(NUMBERING)
    base = d.styles.add_style("Clause Base", WD_STYLE_TYPE.PARAGRAPH)
    clause = d.styles.add_style("Clause", WD_STYLE_TYPE.PARAGRAPH)
    clause.base_style = base
    base_ppr = base.element.get_or_add_pPr()
    base_ppr.append(etree.fromstring(f'<w:numPr {NSDECL}><w:numId w:val="1"/></w:numPr>'))
    d.add_paragraph("inherited", style="Clause")
    d.add_paragraph("inherited again", style="Clause")
    inject_xml(d, '<w:p><w:pPr><w:pStyle w:val="Clause"/><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr>'
               "<w:r><w:t>switched off</w:t></w:r></w:p>")
    texts = [t for _k, t, _lv, _l in _labels(d)]
    assert texts == ["1. inherited", "2. inherited again", "switched off"]


def test_deleted_numbered_paragraph_does_not_advance_the_counter():
    d = _document([(1, 0, "kept")])
    inject_xml(d, '<w:del w:id="9" w:author="r"><w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/>'
               "</w:numPr></w:pPr><w:r><w:delText>gone</w:delText></w:r></w:p></w:del>"
               '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>'
               "<w:r><w:t>next</w:t></w:r></w:p>")
    assert [t for _k, t, _lv, _l in _labels(d)] == ["1. kept", "2. next"]


def test_number_formats():
    assert [format_number(n, "lowerLetter") for n in (1, 26, 27, 28)] == ["a", "z", "aa", "bb"]
    assert [format_number(n, "upperRoman") for n in (4, 9, 14, 1994)] == ["IV", "IX", "XIV", "MCMXCIV"]
    assert format_number(7, "decimalZero") == "07" and format_number(3, "none") == ""
