"""DOCX backend: fixtures are built in code (python-docx plus injected WordprocessingML)."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from lxml import etree

from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.extract.model import count_chars
from docclean_assets_tests.support.corpus import CORPUS, corpus_files, corpus_params, stale_expectations
from docclean_assets_tests.support.docx import NSDECL, W_NS, body_blocks, docx_bytes, extract_doc, inject_xml


def _body_text(ex) -> str:
    return "\n".join(b.text for b in body_blocks(ex))


def test_word_split_across_runs_joins_including_hyperlink():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:r><w:t>Click the hyper</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>link</w:t></w:r>'
        '<w:r><w:t xml:space="preserve"> now</w:t></w:r></w:p>'
        '<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rIdX">'
        "<w:r><w:t>hyper</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t>link</w:t></w:r></w:hyperlink>"
        '<w:smartTag w:uri="u" w:element="e"><w:r><w:t xml:space="preserve"> tag</w:t></w:r></w:smartTag>'
        '<w:sdt><w:sdtPr><w:alias w:val="x"/></w:sdtPr><w:sdtContent><w:r><w:t xml:space="preserve"> ctrl</w:t></w:r>'
        '</w:sdtContent></w:sdt><w:fldSimple w:instr="PAGE"><w:r><w:t xml:space="preserve"> 7</w:t></w:r></w:fldSimple>'
        '<w:r><w:tab/><w:t>a</w:t><w:br/><w:t>b</w:t></w:r></w:p>',
    )
    texts = [b.text for b in body_blocks(extract_doc(d))]
    assert texts[0] == "Click the hyperlink now"
    assert texts[1] == "See hyperlink tag ctrl 7\ta\nb"


def test_tracked_change_accept_all_and_deleted_block():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:r><w:t xml:space="preserve">at least </w:t></w:r>'
        '<w:del w:id="1" w:author="A"><w:r><w:delText>99.5%</w:delText></w:r></w:del>'
        '<w:ins w:id="2" w:author="A"><w:r><w:t>99.9%</w:t></w:r></w:ins>'
        '<w:r><w:t xml:space="preserve"> measured monthly</w:t></w:r></w:p>',
    )
    ex = extract_doc(d)
    assert [b.text for b in body_blocks(ex)] == ["at least 99.9% measured monthly"]
    deleted = [b for b in ex.blocks if b.drop_reason == "deleted_revision"]
    assert len(deleted) == 1 and deleted[0].text == "99.5%"
    assert deleted[0].anchor == body_blocks(ex)[0].seq
    assert ex.report.deletions == 1 and ex.report.insertions == 1
    assert "has_revisions" in ex.report.flags
    assert ex.report.raw_chars == count_chars("at least 99.5%99.9% measured monthly")


def test_paragraph_mark_insertion_is_not_counted():
    d = docx.Document()
    inject_xml(d, '<w:p><w:pPr><w:rPr><w:ins w:id="1" w:author="A"/></w:rPr></w:pPr><w:r><w:t>plain</w:t></w:r></w:p>')
    ex = extract_doc(d)
    assert ex.report.insertions == 0 and "has_revisions" not in ex.report.flags


def test_move_from_excluded_move_to_kept():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:r><w:t>First stays.</w:t></w:r></w:p>'
        '<w:p><w:pPr><w:rPr><w:moveFrom w:id="0" w:author="e"/></w:rPr></w:pPr>'
        '<w:moveFrom w:id="2" w:author="e"><w:r><w:t>Moved sentence travels down.</w:t></w:r></w:moveFrom></w:p>'
        '<w:p><w:r><w:t>Middle stays.</w:t></w:r></w:p>'
        '<w:p><w:moveTo w:id="6" w:author="e"><w:r><w:t>Moved sentence travels down.</w:t></w:r></w:moveTo></w:p>',
    )
    ex = extract_doc(d)
    assert [b.text for b in body_blocks(ex)] == ["First stays.", "Middle stays.", "Moved sentence travels down."]
    assert ex.report.moves == 1
    assert any(b.drop_reason == "deleted_revision" and "Moved sentence" in b.text for b in ex.blocks)
    assert "has_revisions" in ex.report.flags


def test_deleted_paragraph_mark_merges_paragraphs():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:pPr><w:rPr><w:del w:id="1" w:author="A"/></w:rPr></w:pPr><w:r><w:t xml:space="preserve">one </w:t></w:r></w:p>'
        "<w:p><w:r><w:t>sentence</w:t></w:r></w:p>",
    )
    assert [b.text for b in body_blocks(extract_doc(d))] == ["one sentence"]


def test_comment_routed_with_author_and_anchor():
    d = docx.Document()
    d.add_paragraph("Intro paragraph.")
    p = d.add_paragraph("The budget is final.")
    d.add_comment(p.runs, text="Check the totals please", author="Ann Reviewer", initials="AR")
    ex = extract_doc(d)
    comments = [b for b in ex.blocks if b.kind == "comment"]
    assert len(comments) == 1
    c = comments[0]
    assert c.text == "Check the totals please"
    assert c.get_meta("author") == "Ann Reviewer"
    anchor = ex.blocks[c.anchor]
    assert anchor.text == "The budget is final."
    assert "Check the totals" not in _body_text(ex)
    assert not c.in_body
    assert ex.report.comment_refs == 1


def test_headings_title_custom_style_lists_caption():
    d = docx.Document()
    custom = d.styles.add_style("Abschnitt", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = d.styles["Heading 2"]
    deeper = d.styles.add_style("Abschnitt Klein", WD_STYLE_TYPE.PARAGRAPH)
    deeper.base_style = custom
    d.add_paragraph("Annual Report", style="Title")
    d.add_heading("Overview", level=1)
    d.add_paragraph("Localised section", style="Abschnitt")
    d.add_paragraph("Two levels down", style="Abschnitt Klein")
    d.add_paragraph("first point", style="List Bullet")
    d.add_paragraph("Figure 1: a chart", style="Caption")
    inject_xml(
        d,
        '<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>Outline heading</w:t></w:r></w:p>'
        '<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>nested</w:t></w:r></w:p>',
    )
    got = [(b.kind, b.level, b.text) for b in body_blocks(extract_doc(d))]
    assert got == [
        ("title", None, "Annual Report"),
        ("heading", 1, "Overview"),
        ("heading", 2, "Localised section"),
        ("heading", 2, "Two levels down"),
        ("list_item", 1, "\u2022 first point"),  # the List Bullet style's label from numbering.xml
        ("caption", None, "Figure 1: a chart"),
        ("heading", 3, "Outline heading"),
        ("list_item", 2, "nested"),
    ]


def test_table_with_merged_cells_as_markdown():
    d = docx.Document()
    t = d.add_table(rows=3, cols=3)
    for r in range(3):
        for c in range(3):
            t.cell(r, c).text = f"r{r}c{c}"
    t.cell(0, 0).merge(t.cell(0, 1))  # horizontal span in the header
    t.cell(1, 2).merge(t.cell(2, 2))  # vertical span
    t.cell(1, 0).text = "a|b"
    ex = extract_doc(d)
    tables = [b for b in ex.blocks if b.kind == "table"]
    assert len(tables) == 1
    lines = tables[0].text.split("\n")
    assert lines[1] == "| --- | --- | --- |"
    assert lines[0] == "| r0c0 r0c1 |  | r0c2 |"  # gridSpan: text in the first column, the other blank
    assert lines[2] == "| a\\|b | r1c1 | r1c2 r2c2 |"  # pipe escaped; merged cell holds both texts
    assert lines[3] == "| r2c0 | r2c1 |  |"  # vMerge continuation blanked
    assert all(line.count("|") - line.count("\\|") == 4 for line in lines)


def test_text_box_counted_once_after_anchor():
    d = docx.Document()
    d.add_paragraph("Before.")
    box = '<w:txbxContent><w:p><w:r><w:t>Boxed note</w:t></w:r></w:p></w:txbxContent>'
    inject_xml(
        d,
        '<w:p><w:r><w:t>Anchor paragraph.</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps">'
        '<w:drawing><wp:anchor><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
        f"<wps:wsp><wps:txbx>{box}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing>"
        f"</mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r></w:p>"
        "<w:p><w:r><w:t>After.</w:t></w:r></w:p>",
    )
    ex = extract_doc(d)
    texts = [b.text for b in ex.blocks]
    assert texts.count("Boxed note") == 1
    i = texts.index("Boxed note")
    box_block = ex.blocks[i]
    assert box_block.kind == "callout"
    assert ex.blocks[i - 1].text == "Anchor paragraph." and box_block.anchor == i - 1
    assert ex.blocks[i + 1].text == "After."
    # a call-out is body set apart: its own block, never spliced into the anchor paragraph
    assert _body_text(ex).count("Boxed note") == 1
    assert all(b.text == "Boxed note" for b in ex.blocks if "Boxed note" in b.text)
    assert ex.report.raw_chars == count_chars("Before.Anchor paragraph.Boxed noteAfter.")


def test_header_footer_dropped():
    d = docx.Document()
    d.add_paragraph("Body text.")
    d.sections[0].header.paragraphs[0].text = "ACME Confidential"
    d.sections[0].footer.paragraphs[0].text = "Page footer"
    ex = extract_doc(d)
    hf = {b.text: b for b in ex.blocks if b.drop_reason == "header_footer"}
    assert set(hf) == {"ACME Confidential", "Page footer"}
    assert all(b.kind == "paragraph" for b in hf.values())
    assert _body_text(ex) == "Body text."


def test_footnote_block_after_body():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:r><w:t>Claim.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>'
        "<w:p><w:r><w:t>Next.</w:t></w:r></w:p>",
    )
    notes = (
        f'<w:footnotes {NSDECL}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> Source: survey.</w:t></w:r></w:p>'
        "</w:footnote></w:footnotes>"
    ).encode()
    part = Part(
        PackURI("/word/footnotes.xml"),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml",
        notes,
        d.part.package,
    )
    d.part.relate_to(part, RT.FOOTNOTES)
    ex = extract_doc(d)
    fn = [b for b in ex.blocks if b.kind == "footnote"]
    assert [b.text for b in fn] == ["Source: survey."]
    assert fn[0].seq > max(b.seq for b in body_blocks(ex))
    assert ex.blocks[fn[0].anchor].text == "Claim."
    assert ex.report.footnotes == 1


def test_pictures_and_objects_counted():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:r><w:pict><v:shape><v:imagedata r:id="rId9"/></v:shape></w:pict></w:r>'
        '<w:r><w:object xmlns:o="urn:schemas-microsoft-com:office:office"><v:shape><v:imagedata r:id="rId8"/></v:shape>'
        '<o:OLEObject ProgID="Excel.Sheet.12"/></w:object></w:r><w:r><w:t>x</w:t></w:r></w:p>',
    )
    ex = extract_doc(d)
    assert ex.report.embedded_objects == 1
    assert ex.report.picture_shapes == 2


def test_corrupt_and_encrypted_raise_extraction_error():
    with pytest.raises(ExtractionError, match="encrypted or legacy OLE container"):
        extract_document(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "docx")
    with pytest.raises(ExtractionError):
        extract_document(b"this is not a zip file", "docx")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("hello.txt", "no content types")
    with pytest.raises(ExtractionError):
        extract_document(buf.getvalue(), "docx")
    good = docx_bytes(docx.Document())
    with pytest.raises(ExtractionError):
        extract_document(good[: len(good) // 2], "docx")


def _current_and_deleted(path: Path) -> tuple[str, list[str]]:
    w = f"{{{W_NS}}}"
    root = etree.fromstring(zipfile.ZipFile(path).read("word/document.xml"))
    deleted = [e.text for e in root.iter(w + "delText") if e.text and len(e.text.strip()) > 20]
    current = "".join(
        e.text or ""
        for e in root.iter(w + "t")
        if not any(a.tag in (w + "del", w + "moveFrom") for a in e.iterancestors())
    )
    return current, deleted


def _tracked_revisions() -> set[str]:
    """Corpus DOCX files that PHENOMENA.tsv lists with insertions, deletions or moves."""
    table = CORPUS / "PHENOMENA.tsv"
    if not table.is_file():
        return set()
    rows = [line.split("\t") for line in table.read_text(encoding="utf-8").splitlines()[1:]]
    return {cols[0] for cols in rows if len(cols) >= 3 and cols[1] == "docx"
            and any(t.split("=")[0] in ("ins", "del", "move") for t in cols[2].split())}


DOCX_FILES = corpus_files("docx", ".docx")
TRACKED = _tracked_revisions()
# path under the corpus -> why it fails. None today: every DOCX of the corpus extracts, and each one
# PHENOMENA.tsv lists with revisions is flagged and keeps its deleted text out of the body.
DOCX_EXPECTED_FAILURES: dict[str, str] = {}


@pytest.mark.corpus
@pytest.mark.parametrize("rel", corpus_params(DOCX_FILES, DOCX_EXPECTED_FAILURES))
def test_corpus_docx(rel):
    path = CORPUS / rel
    ex = extract_document(path.read_bytes(), "docx")
    assert [b.seq for b in ex.blocks] == list(range(len(ex.blocks)))
    if rel not in TRACKED:
        return
    assert "has_revisions" in ex.report.flags
    body = "\n".join(b.text for b in ex.blocks if b.in_body)
    current, deleted = _current_and_deleted(path)
    for text in deleted:
        if text not in current:
            assert text not in body, text


def test_corpus_docx_lists_are_current():
    assert not stale_expectations(DOCX_FILES, DOCX_EXPECTED_FAILURES)
    if DOCX_FILES and TRACKED:
        assert TRACKED & set(DOCX_FILES), "PHENOMENA.tsv lists no DOCX with revisions that the corpus holds"


def test_deletion_inside_a_table_cell_and_a_whole_inserted_paragraph():
    d = docx.Document()
    inject_xml(
        d,
        '<w:p><w:r><w:t>Service levels follow.</w:t></w:r></w:p>'
        '<w:p><w:pPr><w:rPr><w:ins w:id="3" w:author="A"/></w:rPr></w:pPr>'
        '<w:ins w:id="4" w:author="A"><w:r><w:t>A whole new clause was inserted here.</w:t></w:r></w:ins></w:p>'
        '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Metric</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Target</w:t></w:r></w:p></w:tc></w:tr>'
        '<w:tr><w:tc><w:p><w:r><w:t>Uptime</w:t></w:r></w:p></w:tc><w:tc><w:p>'
        '<w:del w:id="5" w:author="A"><w:r><w:delText>99.5%</w:delText></w:r></w:del>'
        '<w:ins w:id="6" w:author="A"><w:r><w:t>99.9%</w:t></w:r></w:ins></w:p></w:tc></w:tr></w:tbl>',
    )
    ex = extract_doc(d)
    body = body_blocks(ex)
    assert [b.text for b in body[:2]] == ["Service levels follow.", "A whole new clause was inserted here."]
    [table] = [b for b in body if b.kind == "table"]
    assert "99.9%" in table.text and "99.5%" not in table.text
    assert table.text.splitlines()[0] == "| Metric | Target |"
    assert ex.report.deletions == 1 and ex.report.insertions == 2
