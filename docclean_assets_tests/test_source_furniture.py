"""Page furniture learned across a source's documents: a journal's masthead, DOI line and licence
line, printed on the first page of each article only (so no document repeats them across its own
pages), are dropped as `source_furniture` once enough of the source's documents carry them; the
articles' own text stays, and a source of one article keeps them."""
from __future__ import annotations

import io
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docclean_assets.extract.boilerplate import apply_repeats, band_patterns
from docclean_assets.extract.model import BBox, Block
from docclean_assets.extract.settings import BoilerplateSettings
from docclean_assets_tests.support.pipeline import run_ingest, sql_rows

TOPICS = ["tidal gauges", "ferry timetables", "harbour dredging", "lighthouse lamps", "pier pilings"]
WIDTH, HEIGHT = A4


def _masthead(n: int) -> str:
    return f"Journal of Irreproducible Results · Vol. 3 · No. {n} · 2024"


def _doi(n: int) -> str:
    return f"https://doi.org/10.5555/jir.2024.{n:04d}"


LICENCE = "© 2024 The Authors. Open access under CC BY 4.0."


def _article(n: int, topic: str) -> bytes:
    """Three A4 pages: the first with masthead (top band), DOI and licence lines (bottom band); every
    page with a page number and its own paragraphs. Nothing a single document shows marks them as
    furniture: they are on one page only, set larger than the body (11 pt over 10 pt), one per line."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    for page in range(1, 4):
        if page == 1:
            c.setFont("Helvetica", 11)
            c.drawString(72, HEIGHT - 40, _masthead(n))
            c.setFont("Helvetica-Bold", 16)
            c.drawString(72, HEIGHT - 130, f"On {topic}, part {page}")
            c.setFont("Helvetica", 11)
            c.drawString(72, 62, _doi(n))
            c.drawString(72, 40, LICENCE)
        c.setFont("Helvetica", 10)
        y = HEIGHT - 170
        for k in range(12):
            c.drawString(72, y, f"Observation {k + 1} on {topic} in article {n}, page {page}, was recorded twice.")
            y -= 14
        c.setFont("Helvetica", 9)
        c.drawString(WIDTH / 2, 20, str(page))
        c.showPage()
    c.save()
    return buf.getvalue()


def write_source(tmp_path: Path, articles: int) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(parents=True)
    for n in range(1, articles + 1):
        (docs / f"article-{n}.pdf").write_bytes(_article(n, TOPICS[n - 1]))
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  journal:\n    path: docs\n")
    return cfg


def test_a_journals_first_page_furniture_is_learned_from_its_other_articles(tmp_path):
    cfg, out = write_source(tmp_path, 5), tmp_path / "out"
    assert run_ingest(cfg, out, "journal").success
    dropped = dict(sql_rows(out, "SELECT text, drop_reason FROM normalized_blocks WHERE path = 'article-2.pdf' "
                              "AND drop_reason IS NOT NULL"))
    assert dropped.get(_masthead(2)) == "source_furniture"
    assert dropped.get(_doi(2)) == "source_furniture"
    assert dropped.get(LICENCE) == "source_furniture"
    body = " ".join(t for (t,) in sql_rows(out, "SELECT text FROM normalized_blocks WHERE drop_reason IS NULL"))
    assert all(f"On {t}, part 1" in body for t in TOPICS)  # each article's own title and text stay
    assert body.count("was recorded twice.") == 5 * 3 * 12
    assert "Journal of Irreproducible" not in body and "doi.org" not in body and "CC BY" not in body
    learned = sql_rows(out, "SELECT band, pattern, count, out_of, drop_reason FROM boilerplate_sets "
                         "WHERE scope = 'source_pages' ORDER BY band, pattern")
    assert ("top", "journal of irreproducible results · vol. # · no. # · #", 5, 5, "source_furniture") in learned
    assert ("bottom", "https://doi.org/#.#/jir.#.#", 5, 5, "source_furniture") in learned
    # quality_report counts it as boilerplate removed (with the page numbers), not as lost body
    removed = dict(sql_rows(out, "SELECT path, boilerplate_removed FROM quality_report WHERE path = 'article-2.pdf'"))
    assert removed["article-2.pdf"] >= 3 + 3
    _inspect_draws_the_stored_verdicts(cfg, out, tmp_path)


def _inspect_draws_the_stored_verdicts(cfg: Path, out: Path, tmp_path: Path) -> None:
    """`docclean inspect --stored` draws the committed blocks: the masthead, which article 2 alone
    cannot prove furniture, is hatched as dropped there and not in a fresh extraction."""
    from PIL import Image

    from docclean_assets.cli import main as cli_main
    from docclean_assets.extract.pdf.inspect import KIND_COLOURS

    [(x0, y0, x1, y1)] = sql_rows(out, f"SELECT x0, y0, x1, y1 FROM normalized_blocks WHERE path = 'article-2.pdf' "
                                    f"AND text = '{_masthead(2)}'")
    pdf = str(cfg.parent / "docs" / "article-2.pdf")
    colour = KIND_COLOURS["paragraph"]

    def marked(args: list[str]) -> int:  # pixels of the box interior (label strip left out) in its kind's colour
        png = tmp_path / "page.png"
        assert cli_main(["inspect", pdf, "--out", str(png), "--dpi", "72", *args]) == 0
        image = Image.open(png).convert("RGB")
        return sum(image.getpixel((x, y)) == colour for x in range(round(x0) + 3, round(x1) - 3)
                   for y in range(round(y0) + 2, round(y1) - 1))

    assert marked(["--stored", "--data-dir", str(out), "--sources", str(cfg)]) > 10 + marked([])
    assert cli_main(["inspect", pdf, "--stored", "--data-dir", str(tmp_path / "empty"), "--sources", str(cfg),
                     "--out", str(tmp_path / "x.png")]) == 1


def test_a_source_of_one_article_learns_nothing_across_documents(tmp_path):
    cfg, out = write_source(tmp_path, 1), tmp_path / "out"
    assert run_ingest(cfg, out, "journal").success
    assert sql_rows(out, "SELECT count(*) FROM boilerplate_sets WHERE scope = 'source_pages'") == [(0,)]
    reasons = dict(sql_rows(out, "SELECT text, drop_reason FROM normalized_blocks WHERE path = 'article-1.pdf'"))
    assert reasons[_masthead(1)] != "source_furniture"


def _line(text: str, page: int, y0: float, y1: float, kind: str = "paragraph") -> Block:
    return Block(kind, text, seq=int(y0), page=page, bbox=BBox(72, y0, 500, y1),
                 meta=(("page_height", "842.0"), ("page_width", "595.0")))


def test_band_lines_are_read_with_digits_as_hashes_and_a_pages_only_line_is_never_one():
    s = BoilerplateSettings()
    blocks = [_line("Vol. 3, No. 7", 1, 20, 30), _line("A paragraph of body text.", 1, 300, 320),
              _line("Lonely page", 2, 20, 30)]
    assert band_patterns(blocks, s) == {("top", "vol. #, no. #"): "Vol. 3, No. 7"}


def test_a_heading_every_document_shares_stays_when_its_own_text_follows():
    from docclean_assets.extract.boilerplate import Repeat

    blocks = [_line("Abstract", 1, 40, 52, kind="heading"), _line("What this article found.", 1, 60, 80),
              _line("Vol. 3, No. 7", 1, 20, 30)]
    repeats = [Repeat("source_pages", None, "top", "abstract", "Abstract", 5, 5, (), "source_furniture"),
               Repeat("source_pages", None, "top", "vol. #, no. #", "Vol. 3, No. 7", 5, 5, (), "source_furniture")]
    out = {b.text: b.drop_reason for b in apply_repeats("d", blocks, repeats, BoilerplateSettings())}
    assert out == {"Abstract": None, "What this article found.": None, "Vol. 3, No. 7": "source_furniture"}
