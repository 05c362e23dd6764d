"""The sample-document generator: deterministic, in sync with data/samples/, and every sample
opens with its library and carries the phenomena it exists to show."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import docx
import pdfplumber
import pptx
import pytest
from lxml import etree

from docclean_assets_tests.fixtures import build as B

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


@pytest.fixture(scope="module")
def samples() -> dict[str, bytes]:
    return B.all_samples()


def test_build_is_deterministic(samples):
    again = B.all_samples()
    assert sorted(again) == sorted(samples)
    for rel, data in samples.items():
        assert again[rel] == data, rel


def test_sizes(samples):
    for rel, data in samples.items():
        assert len(data) < 60_000, rel
    assert sum(map(len, samples.values())) < 400_000
    assert {rel.split("/")[0] for rel in samples} == {"reports", "office", "site"}


def test_make_samples_check_passes():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_samples.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_make_samples_check_reports_differences(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_samples
    finally:
        sys.path.pop(0)
    make_samples.write(tmp_path)
    (tmp_path / B.SHELL_HTML).write_bytes(b"changed")
    (tmp_path / "site" / "stray.html").write_bytes(b"x")
    assert make_samples.check(tmp_path) == [f"differs: {B.SHELL_HTML}", "unexpected: site/stray.html"]


# --------------------------------------------------------------------------- PDF
def _pdf(samples, rel):
    return pdfplumber.open(io.BytesIO(samples[rel]))


def _norm(s: str) -> str:
    for k, v in B.LIGATURES.items():
        s = s.replace(v, k)
    return re.sub(r"\s+", " ", s).strip()


def test_report_pdf_furniture_and_watermark(samples):
    with _pdf(samples, B.REPORT_PDF) as pdf:
        n = len(pdf.pages)
        assert 3 <= n <= 6
        for i, page in enumerate(pdf.pages, 1):
            lines = page.extract_text().splitlines()
            assert lines[0] == B.running_head(i)
            assert lines[-1] == f"{B.REPORT_DOI} {B.page_label(i, n)}"
            mark = [c for c in page.chars if c["size"] > 50]
            assert "".join(c["text"] for c in mark) == B.WATERMARK
            a, b, c, d = mark[0]["matrix"][:4]
            assert abs(b) > 0.5 and abs(c) > 0.5  # rotated text matrix
            assert mark[0]["non_stroking_color"][0] > 0.8  # light grey
        assert {B.running_head(i) for i in range(1, n + 1)} == {B.REPORT_JOURNAL, B.REPORT_ODD_HEAD}


def test_report_pdf_columns_ligatures_hyphens(samples):
    layout = B.two_column_report_layout()
    with _pdf(samples, B.REPORT_PDF) as pdf:
        text = "\n".join(p.extract_text() for p in pdf.pages)
        chars = "".join(c["text"] for p in pdf.pages for c in p.chars)
        page1 = pdf.pages[0]
        body = [c for c in page1.chars if 9.9 < c["size"] < 10.5 and c["upright"]]
        xs = {round(c["x0"]) for c in body}
        mid = float(page1.width) / 2
        assert any(x < mid - 20 for x in xs) and any(x > mid + 10 for x in xs)  # two columns
    assert "\ufb01" in chars and "\ufb02" in chars
    assert "\ufb01" not in "".join(B.report_paragraphs())  # ground truth is plain text
    assert len(layout.hyphenated) >= 3
    for head, tail in layout.hyphenated:
        assert re.search(re.escape(head.replace("fi", "\ufb01").replace("fl", "\ufb02")) + r"-\s", text) or \
            re.search(re.escape(head) + r"-\s", text)
        assert any(head + tail in p for p in B.report_paragraphs())
    assert "\u201c" in text and "\u2019" in text


def test_report_pdf_blocks(samples):
    layout = B.two_column_report_layout()
    assert set(layout.block_pages) == {"callout", "pull", "table"}
    assert B.REPORT_PULL_QUOTE in " ".join(B.report_paragraphs())
    with _pdf(samples, B.REPORT_PDF) as pdf:
        box_page = pdf.pages[layout.block_pages["callout"] - 1]
        filled = [r for r in box_page.rects if r["fill"]]
        assert len(filled) == 1
        inside = box_page.within_bbox((filled[0]["x0"], filled[0]["top"], filled[0]["x1"], filled[0]["bottom"]))
        assert _norm(inside.extract_text()).startswith(B.REPORT_CALLOUT_TITLE)
        pull_page = pdf.pages[layout.block_pages["pull"] - 1]
        big = "".join(c["text"] for c in pull_page.chars if 13 < c["size"] < 20)
        assert big.replace(" ", "") == B.REPORT_PULL_QUOTE.replace(" ", "")
        table_page = pdf.pages[layout.block_pages["table"] - 1]
        assert len(table_page.lines) >= len(B.REPORT_TABLE)
        ttext = table_page.extract_text()
        for row in B.REPORT_TABLE[1:]:
            assert all(cell in ttext for cell in row)
        for num, note in B.REPORT_FOOTNOTES.items():
            page = pdf.pages[layout.footnote_pages[num] - 1]
            small = [c for c in page.chars if c["size"] < 8 and c["top"] > page.height - 100]
            assert _norm(note) in _norm("".join(c["text"] for c in small))


def test_three_column_pdf(samples):
    layout = B.three_column_layout()
    with _pdf(samples, B.BULLETIN_PDF) as pdf:
        assert 1 <= len(pdf.pages) <= 2 and len(layout.pages) == len(pdf.pages)
        page = pdf.pages[0]
        starts = sorted({round(w["x0"]) for w in page.extract_words() if w["top"] > 120})
        width = float(page.width)
        thirds = {min(int(x // (width / 3)), 2) for x in starts}
        assert thirds == {0, 1, 2}
        text = page.extract_text()
        assert B.BULLETIN_TITLE in text
        for head in B.BULLETIN_HEADINGS:
            assert head in text


# --------------------------------------------------------------------------- DOCX
def _xml(data: bytes, part: str) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return etree.fromstring(z.read(part))


def test_zip_timestamps_fixed(samples):
    for rel in (B.CONTRACT_DOCX, B.POLICY_DOCX, B.DECK_PPTX):
        with zipfile.ZipFile(io.BytesIO(samples[rel])) as z:
            assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
            assert z.testzip() is None


def test_contract_docx(samples):
    data = samples[B.CONTRACT_DOCX]
    d = docx.Document(io.BytesIO(data))
    styles = [p.style.name for p in d.paragraphs]
    assert {"Title", "Heading 1", "Heading 2", "List Bullet"} <= set(styles)
    root = _xml(data, "word/document.xml")
    dels = root.findall(f".//{W}del")
    ins = root.findall(f".//{W}ins")
    assert ["".join(e.itertext()) for e in dels] == B.CONTRACT_DELETED
    assert ["".join(e.itertext()) for e in ins] == B.CONTRACT_INSERTED
    ids = [e.get(f"{W}id") for e in dels + ins]
    assert len(set(ids)) == len(ids)
    assert all(e.get(f"{W}author") == B.REV_AUTHOR and e.get(f"{W}date") == B.REV_DATE for e in dels + ins)
    assert root.findall(f".//{W}commentRangeStart") and root.findall(f".//{W}commentReference")
    [comment] = list(d.comments)
    assert (comment.author, comment.initials, comment.text) == (
        B.CONTRACT_COMMENT_AUTHOR, B.CONTRACT_COMMENT_INITIALS, B.CONTRACT_COMMENT)
    # words split across runs, and a hyperlink split in two runs
    runs = [r.text for p in d.paragraphs for r in p.runs]
    assert "Agree" in runs and "ment" in runs
    [link] = root.findall(f".//{W}hyperlink")
    assert ["".join(r.itertext()) for r in link.findall(f"{W}r")] == B.CONTRACT_HYPERLINK_RUNS
    assert d.part.rels[link.get("{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id")].target_ref \
        == B.CONTRACT_HYPERLINK_URL
    # text box: DrawingML with a VML fallback, each holding the same w:txbxContent
    boxes = root.findall(f".//{W}txbxContent")
    assert len(boxes) == 2 and {"".join(b.itertext()) for b in boxes} == {B.CONTRACT_TEXTBOX}
    assert root.find(".//{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback") is not None
    # table with a merged cell
    table = d.tables[0]
    assert table.cell(0, 0)._tc is table.cell(0, 1)._tc
    assert [c.text for c in table.rows[2].cells] == B.CONTRACT_TABLE[2]
    # header, footer, footnote
    sec = d.sections[0]
    assert sec.header.paragraphs[0].text == B.CONTRACT_HEADER
    assert sec.footer.paragraphs[0].text.startswith(B.CONTRACT_FOOTER)
    notes = _xml(data, "word/footnotes.xml")
    assert B.CONTRACT_FOOTNOTE in "".join(notes.itertext())
    assert root.find(f".//{W}footnoteReference").get(f"{W}id") == "1"
    accepted = B.contract_paragraphs(accept=True)
    assert any("99.9%" in p for p in accepted) and not any("99.5%" in p for p in accepted)


def test_policy_docx(samples):
    data = samples[B.POLICY_DOCX]
    d = docx.Document(io.BytesIO(data))
    root = _xml(data, "word/document.xml")
    assert root.find(f".//{W}ins") is None and root.find(f".//{W}del") is None
    texts = [p.text for p in d.paragraphs]
    assert texts == B.policy_paragraphs()
    assert d.sections[0].header.paragraphs[0].text == B.POLICY_HEADER
    assert d.tables[0].cell(0, 0)._tc is d.tables[0].cell(0, 1)._tc


# --------------------------------------------------------------------------- PPTX
def test_deck_pptx(samples):
    prs = pptx.Presentation(io.BytesIO(samples[B.DECK_PPTX]))
    slides = list(prs.slides)
    assert 3 <= len(slides) <= 5 and len(slides) == len(B.DECK_SLIDES)
    reversed_slide = slides[1]
    shapes = list(reversed_slide.shapes)
    assert shapes[-1] == reversed_slide.shapes.title or shapes[-1].shape_id == reversed_slide.shapes.title.shape_id
    assert shapes[-1].text_frame.text == B.DECK_SLIDES[1]["title"]
    cols = [s for s in shapes if s.name.endswith("column")]
    assert [s.name for s in cols] == ["Right column", "Left column"]
    assert cols[0].left > cols[1].left
    assert cols[1].text_frame.text.split("\n") == B.DECK_SLIDES[1]["left"]
    notes = [s.notes_slide.notes_text_frame.text if s.has_notes_slide else "" for s in slides]
    assert notes == B.deck_notes() and sum(bool(n) for n in notes) >= 3
    pics = [s for s in slides[2].shapes if s.shape_type == pptx.enum.shapes.MSO_SHAPE_TYPE.PICTURE]
    assert pics[0].name == B.DECK_PICTURE_NAME and pics[0].image.blob == B.bar_chart_png()
    [table] = [s for s in slides[2].shapes if s.has_table]
    assert [[c.text for c in r.cells] for r in table.table.rows] == B.DECK_SLIDES[2]["table"]
    [group] = [s for s in slides[3].shapes if s.shape_type == pptx.enum.shapes.MSO_SHAPE_TYPE.GROUP]
    assert [s.text_frame.text for s in group.shapes] == B.DECK_SLIDES[3]["group"]
    for i, slide in enumerate(slides, 1):
        nums = [s for s in slide.placeholders if "SLIDE_NUMBER" in str(s.placeholder_format.type)]
        assert [n.text_frame.text for n in nums] == [str(i)]
        ids = [s.shape_id for s in slide.shapes]
        assert len(ids) == len(set(ids))


# --------------------------------------------------------------------------- HTML
def test_site_pages(samples):
    pages = {rel.split("/", 1)[1]: data.decode("utf-8") for rel, data in samples.items()
             if rel.startswith("site/") and rel != B.SHELL_HTML}
    assert len(pages) == 4 and set(pages) == set(B.SITE_ARTICLES)
    for name, html in pages.items():
        for s in ("Was this page helpful?", "Accept all cookies", 'aria-label="Breadcrumb"',
                  "All rights reserved.", 'class="site-nav"'):
            assert s in html, (name, s)
    assert "<table" in pages["water-rates.html"]
    ld = re.search(r'<script type="application/ld\+json">(.*?)</script>', pages["bin-collection-changes.html"], re.S)
    data = json.loads(ld.group(1))
    assert data["@type"] == "Article" and data["articleBody"] == B.article_body("bin-collection-changes.html")
    lib = pages["library-history.html"]
    assert "&nbsp;" in lib and "\u201c" in lib and "\u2019" in lib
    # the template is shared: everything outside <main> is identical up to titles and crumbs
    skeletons = {" ".join(re.sub(r"<main.*</main>|<title>.*?</title>|<script.*?</script>|<nav class=\"breadcrumb\".*?</nav>",
                                 "", h, flags=re.S).split()) for h in pages.values()}
    assert len(skeletons) == 1


def test_shell_page(samples):
    html = samples[B.SHELL_HTML].decode("utf-8")
    assert '<div id="root"></div>' in html and f'src="{B.SHELL_SCRIPT}"' in html
    visible = re.sub(r"<script.*?</script>|<[^>]+>", " ", html, flags=re.S)
    assert 30 <= len(" ".join(visible.split())) <= 120


def test_written_samples_open(tmp_path):
    """The committed files (not just in-memory bytes) open with their libraries."""
    with pdfplumber.open(SAMPLES / B.REPORT_PDF) as pdf:
        assert pdf.pages[0].extract_text()
    docx.Document(str(SAMPLES / B.CONTRACT_DOCX))
    pptx.Presentation(str(SAMPLES / B.DECK_PPTX))
