"""Sources of N unique documents for the scale bench, made from the bundled samples (data/samples/).

Every copy keeps its sample's structure (so the site template is still learned across copies) and
gets a paragraph of its own plus a varied date, so no two documents have the same bytes or text.
"""
from __future__ import annotations

import datetime as dt
import html
import io
import random
import re
import zipfile
from collections import Counter
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
FILES_PER_FOLDER = 1000  # documents per sub-folder of a generated source
# Words the unique paragraph is made of: index digits in base len(VOCAB), then seeded filler.
VOCAB = ("harbour", "north", "river", "market", "garden", "library", "school", "bridge", "station", "park",
         "meadow", "quay", "chapel", "mill", "orchard", "square", "tower", "lane", "court", "field",
         "forest", "hill", "lake", "road", "street", "valley", "wharf", "yard", "abbey", "beacon",
         "canal", "dock", "estate", "ferry", "grange", "heath", "island", "junction", "keep", "lodge",
         "manor", "newton", "oak", "pier", "quarry", "ridge", "shore", "terrace", "union", "vale",
         "well", "cross", "birch", "cedar", "elm", "hazel", "maple", "rowan", "willow", "alder",
         "ash", "beech", "holly", "poplar")
INDEX_WORDS = 3  # 64**3 = 262,144 indices spelled distinctly; a larger index is refused
FILLER_WORDS = 8  # seeded words after the index words, so phrases do not differ by one word only
BASE_DATE = dt.date(2020, 1, 1)
DATE_SPAN_DAYS = 3650  # dates vary over ten years
_TIME = re.compile(r'<time datetime="[^"]*">[^<]*</time>')
_TAGS = re.compile(r"<[^>]+>")
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_ARTICLE = re.compile(r"<article>(.*?)</article>", re.S)
_LD_BODY = '"articleBody": "'  # a JSON-LD article's body: the text the HTML backend takes when present
_LD_DATE = re.compile(r'"datePublished": "[^"]*"')
# The first text run of at least 40 characters of a DOCX (w:t) or PPTX (a:t) part: body text,
# not a title, a slide number or a label.
_OOXML_RUN = re.compile(r"(<([wa]):t(?: [^>]*)?>[^<]{40,})(</\2:t>)")
PDF_MARGIN_PT = 72  # left margin and top of the body, points
PDF_BODY_PT, PDF_LEADING_PT = 10, 13  # body font size and line spacing, points
PDF_HEAD_PT, PDF_HEAD_Y_PT, PDF_FOOT_Y_PT = 8, 40, 30  # running head size; head and page number from the edges
PDF_LINES_PER_PAGE = 50  # body lines per A4 page between the head and the page number
PDF_REPEATS = 3  # the sample text thrice: three pages or more, so running heads repeat (min_pages)


def unique_phrase(i: int) -> str:
    """A sentence no other index gets: i spelled in VOCAB words, then filler seeded by i."""
    digits, rest = [], i
    for _ in range(INDEX_WORDS):
        rest, d = divmod(rest, len(VOCAB))
        digits.append(VOCAB[d])
    if rest:
        raise ValueError(f"index {i} needs more than {INDEX_WORDS} words")
    filler = random.Random(i).choices(VOCAB, k=FILLER_WORDS)
    return (f"Local notice for the {' '.join(digits)} ward: residents near the {' '.join(filler[:4])} "
            f"should read the {' '.join(filler[4:])} guidance.")


def unique_date(i: int) -> str:
    """An ISO date that varies with i."""
    return (BASE_DATE + dt.timedelta(days=i % DATE_SPAN_DAYS)).isoformat()


def html_templates() -> list[tuple[str, str]]:
    """(stem, text) of the sample pages with an article to add to (the client-rendered shell has none)."""
    pages = sorted((SAMPLES / "site").glob("*.html"))
    return [(p.stem, t) for p in pages if "</article>" in (t := p.read_text(encoding="utf-8"))]


def unique_html(template: str, i: int) -> bytes:
    """The page with its own paragraph at the end of the article (and of a JSON-LD body) and its own date."""
    date, phrase = unique_date(i), unique_phrase(i)
    page = _TIME.sub(f'<time datetime="{date}">{date}</time>', template, count=1)
    page = _LD_DATE.sub(f'"datePublished": "{date}"', page, count=1)
    page = page.replace(_LD_BODY, f"{_LD_BODY}{phrase}\\n\\n", 1)
    page = page.replace("</article>", f"  <p>{html.escape(phrase)}</p>\n    </article>", 1)
    return page.encode("utf-8")


def unique_ooxml(data: bytes, part: str, i: int) -> bytes:
    """The DOCX/PPTX package with the unique phrase appended to the first body-text run of one part."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == part:
                phrase = " " + html.escape(unique_phrase(i))
                body = _OOXML_RUN.sub(lambda m: m.group(1) + phrase + m.group(3), body.decode("utf-8"), count=1).encode("utf-8")
            dst.writestr(info, body)
    return out.getvalue()


def sample_paragraphs() -> list[str]:
    """The plain text of every article paragraph of the HTML samples (body text for generated PDFs)."""
    texts = []
    for _, page in html_templates():
        for article in _ARTICLE.findall(page):
            texts.extend(html.unescape(_TAGS.sub("", p)).strip() for p in _PARAGRAPH.findall(article))
    return [t for t in texts if len(t) > 40]


def unique_pdf(paragraphs: list[str], i: int) -> bytes:
    """A few pages of sample text with a running head and page numbers, and the unique phrase."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4, invariant=1)
    width, height = A4
    lines = [f"Council bulletin of {unique_date(i)}", ""]
    for text in [unique_phrase(i), *paragraphs * PDF_REPEATS]:
        lines.extend([*simpleSplit(text, "Helvetica", PDF_BODY_PT, width - 2 * PDF_MARGIN_PT), ""])
    for page, start in enumerate(range(0, len(lines), PDF_LINES_PER_PAGE), 1):
        pdf.setFont("Helvetica", PDF_HEAD_PT)
        pdf.drawString(PDF_MARGIN_PT, height - PDF_HEAD_Y_PT, "Harbour City Council - Community bulletin")
        pdf.drawString(width / 2, PDF_FOOT_Y_PT, str(page))
        pdf.setFont("Helvetica", PDF_BODY_PT)
        for k, line in enumerate(lines[start:start + PDF_LINES_PER_PAGE]):
            pdf.drawString(PDF_MARGIN_PT, height - PDF_MARGIN_PT - PDF_LEADING_PT * k, line)
        pdf.showPage()
    pdf.save()
    return out.getvalue()


def makers(mix: bool) -> list[tuple[str, str, object]]:
    """(stem, extension, i -> bytes) for each kind of document generated, cycled over the indices."""
    out: list[tuple[str, str, object]] = [(stem, "html", lambda i, t=text: unique_html(t, i))
                                          for stem, text in html_templates()]
    if not mix:
        return out
    for path in sorted((SAMPLES / "office").glob("*.docx")):
        out.append((path.stem, "docx", lambda i, d=path.read_bytes(): unique_ooxml(d, "word/document.xml", i)))
    for path in sorted((SAMPLES / "office").glob("*.pptx")):
        out.append((path.stem, "pptx", lambda i, d=path.read_bytes(): unique_ooxml(d, "ppt/slides/slide1.xml", i)))
    paragraphs = sample_paragraphs()
    out.append(("bulletin", "pdf", lambda i: unique_pdf(paragraphs, i)))
    return out


def generate_source(folder: Path, n: int, mix: bool = False) -> dict[str, int]:
    """Write n unique documents under folder (sub-folders of FILES_PER_FOLDER); documents per format."""
    kinds = makers(mix)
    formats: Counter[str] = Counter()
    for i in range(n):
        stem, ext, make = kinds[i % len(kinds)]
        sub = folder / f"part-{i // FILES_PER_FOLDER:04d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{i:06d}-{stem}.{ext}").write_bytes(make(i))  # type: ignore[operator]
        formats[ext] += 1
    return dict(formats)
