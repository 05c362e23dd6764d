"""`docclean inspect`: the page drawn with each block's box in its kind's colour, drops hatched."""
from PIL import Image

from docclean_assets.cli import clean_file
from docclean_assets.cli import main as cli_main
from docclean_assets.extract.inspect import KIND_COLOURS
from docclean_assets_tests.fixtures.build import two_column_report_pdf

DPI = 72.0  # one pixel per point, so block boxes map onto pixels directly


def test_inspect_draws_boxes_by_kind_and_hatches_drops(tmp_path, capsys):
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(two_column_report_pdf())
    out = tmp_path / "page.png"
    assert cli_main(["inspect", str(pdf), "--page", "1", "--out", str(out), "--dpi", str(DPI)]) == 0
    assert "page 1" in capsys.readouterr().out
    image = Image.open(out).convert("RGB")
    _, _, blocks = clean_file(str(pdf))
    on_page = [b for b in blocks if b.page == 1 and b.bbox is not None]
    size = (float(on_page[0].get_meta("page_width")), float(on_page[0].get_meta("page_height")))
    assert all(abs(px - pt) <= 1 for px, pt in zip(image.size, size))  # points at 72 dpi (PDFium rounds up)
    title = next(b for b in on_page if b.kind == "title")
    # The title's right border is drawn in the title colour (the label sits at its top-left).
    x, y = round(title.bbox.x1), round((title.bbox.y0 + title.bbox.y1) / 2)
    assert any(image.getpixel((x + dx, y)) == KIND_COLOURS["title"] for dx in (-1, 0, 1))
    dropped = next(b for b in on_page if b.drop_reason == "watermark")
    assert dropped.bbox.width > 100


def test_inspect_refuses_other_formats_and_bad_pages(tmp_path, capsys):
    html = tmp_path / "a.html"
    html.write_text("<html><body><p>Hello there, a short page.</p></body></html>")
    assert cli_main(["inspect", str(html), "--out", str(tmp_path / "x.png")]) == 1
    assert "inspect draws PDF pages" in capsys.readouterr().err
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(two_column_report_pdf())
    assert cli_main(["inspect", str(pdf), "--page", "99", "--out", str(tmp_path / "y.png")]) == 1
    assert "out of range" in capsys.readouterr().err


MIN_COLOUR_DISTANCE = 60  # RGB Euclidean distance that keeps two kinds apart by eye on a page render


def test_region_kinds_have_their_own_colours_on_the_page(tmp_path):
    """Call-outs, pull quotes, margin notes and tables each in a colour far from every other kind's,
    and the report sample's call-out drawn in its colour."""
    import math

    for kind in ("callout", "pull_quote", "margin_note", "table", "image_text"):
        nearest = min(math.dist(KIND_COLOURS[kind], c) for k, c in KIND_COLOURS.items() if k != kind)
        assert nearest >= MIN_COLOUR_DISTANCE, kind
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(two_column_report_pdf())
    _, _, blocks = clean_file(str(pdf))
    box = next(b for b in blocks if b.kind == "callout")
    out = tmp_path / "page.png"
    assert cli_main(["inspect", str(pdf), "--page", str(box.page), "--out", str(out), "--dpi", str(DPI)]) == 0
    image = Image.open(out).convert("RGB")
    x, y = round(box.bbox.x1), round((box.bbox.y0 + box.bbox.y1) / 2)

    def nearest_kind(px: tuple[int, int, int]) -> str:  # other boxes' translucent fills may tint it
        return min(KIND_COLOURS, key=lambda k: math.dist(KIND_COLOURS[k], px))

    assert any(nearest_kind(image.getpixel((x + dx, y))) == "callout" for dx in (-1, 0, 1))
