"""Page furniture of generated journal papers, one document at a time: the first page's masthead,
"Available online" stamp, DOI and licence lines (printed there only), alternating running heads
(on a 3-page paper each printed once) and page numbers leave the body; the prose stays whole.
Papers vary in pages (3-7), columns (1-2) and body size (9-11 pt)."""
from __future__ import annotations

import io
import random

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from docclean_assets.cli import clean_file

WIDTH, HEIGHT = A4
MARGIN, GUTTER = 60.0, 18.0
VOCAB = ("the of harbour survey tide record clerk gauge measured reading office station pier weekly season "
         "storm water level report method annual change result north coast river data").split()


def _paper(seed: int, pages: int, columns: int, size: float) -> tuple[bytes, list[str], list[str]]:
    """(PDF bytes, furniture lines, body sentences) of one generated paper."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    furniture, sentences = [], []
    col_w = (WIDTH - 2 * MARGIN - GUTTER * (columns - 1)) / columns
    for page in range(1, pages + 1):
        top = HEIGHT - 70
        if page == 1:
            c.setFont("Helvetica", 8)
            furniture += [f"Journal of Coastal Records {seed} (2024) {100 + seed}-{110 + seed}",
                          "Available online at www.coastalrecords.example.org"]
            c.drawString(MARGIN, HEIGHT - 40, furniture[-2])
            c.drawRightString(WIDTH - MARGIN, HEIGHT - 40, furniture[-1])
            c.setFont("Helvetica-Bold", 16)
            c.drawString(MARGIN, HEIGHT - 90, f"Tide records of station {seed}")
            top = HEIGHT - 120
            c.setFont("Helvetica", 7.5)
            furniture += [f"https://doi.org/10.5555/jcr.2024.{seed:04d}", "© 2024 The Authors. Published under CC BY 4.0."]
            c.drawString(MARGIN, 50, furniture[-2])
            c.drawString(MARGIN, 40, furniture[-1])
        else:  # the journal on even pages (left), the short title on odd pages (right)
            c.setFont("Helvetica-Oblique", 8)
            head = "J. Coastal Rec." if page % 2 == 0 else f"Station {seed} tide records"
            furniture.append(head)
            if page % 2 == 0:
                c.drawString(MARGIN, HEIGHT - 40, head)
            else:
                c.drawRightString(WIDTH - MARGIN, HEIGHT - 40, head)
        c.setFont("Helvetica", 8)
        c.drawCentredString(WIDTH / 2, 25, str(page))
        c.setFont("Times-Roman", size)
        for col in range(columns):
            x, y = MARGIN + col * (col_w + GUTTER), top
            while y > 100:  # whole sentences only, one per line group
                words = [rng.choice(VOCAB) for _ in range(rng.randint(6, 14))]
                sentence = " ".join(words).capitalize() + "."
                lines, line = [], ""
                for w in sentence.split():
                    if line and stringWidth(f"{line} {w}", "Times-Roman", size) > col_w:
                        lines.append(line)
                        line = ""
                    line = f"{line} {w}".strip()
                lines.append(line)
                if y - size * 1.25 * (len(lines) - 1) < 90:
                    break
                for text in lines:
                    c.drawString(x, y, text)
                    y -= size * 1.25
                sentences.append(sentence)
        c.showPage()
    c.save()
    return buf.getvalue(), furniture, sentences


@pytest.mark.parametrize("seed, pages, columns, size", [
    (1, 3, 2, 11.0), (2, 3, 1, 10.0), (3, 4, 2, 9.0), (4, 5, 1, 11.0), (5, 7, 2, 10.0), (6, 6, 1, 9.5),
])
def test_a_papers_furniture_leaves_the_body_and_its_prose_stays(tmp_path, seed, pages, columns, size):
    data, furniture, sentences = _paper(seed, pages, columns, size)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(data)
    _, _, blocks = clean_file(str(pdf))
    body = " ".join(b.text for b in blocks if b.in_body)
    assert [f for f in furniture if f in body] == []
    assert not [b.text for b in blocks if b.in_body and b.text.strip().isdigit()]  # page numbers
    assert all(s in body for s in sentences)
