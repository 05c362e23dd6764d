"""`docclean inspect`: the page drawn with each block's box in its kind's colour, drops hatched."""
from PIL import Image, ImageDraw

from docclean_assets.cli import clean_file
from docclean_assets.cli import main as cli_main
from docclean_assets.extract.pdf.inspect import KIND_COLOURS, LEGEND_PX
from docclean_assets_tests.fixtures.build import two_column_report_pdf

DPI = 72.0  # one pixel per point, so block boxes map onto pixels directly


def test_inspect_draws_boxes_by_kind_and_hatches_drops(tmp_path, capsys, monkeypatch):
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(two_column_report_pdf())
    out = tmp_path / "page.png"
    assert cli_main(["inspect", str(pdf), "--page", "1", "--out", str(out), "--dpi", str(DPI)]) == 0
    assert "page 1" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)  # the default picture lands in the current folder, and says where that is
    assert cli_main(["inspect", str(pdf), "--dpi", str(DPI)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'page.png'}: page 1, ")
    image = Image.open(out).convert("RGB")
    _, _, blocks = clean_file(str(pdf))
    on_page = [b for b in blocks if b.page == 1 and b.bbox is not None]
    size = (float(on_page[0].get_meta("page_width")), float(on_page[0].get_meta("page_height")))
    # points at 72 dpi (PDFium rounds up), plus the legend strip to the page's right
    assert abs(image.height - size[1]) <= 1 and abs(image.width - LEGEND_PX - size[0]) <= 1
    title = next(b for b in on_page if b.kind == "title")
    # The title's right border is drawn in the title colour (the label sits at its top-left).
    x, y = round(title.bbox.x1), round((title.bbox.y0 + title.bbox.y1) / 2)
    assert any(image.getpixel((x + dx, y)) == KIND_COLOURS["title"] for dx in (-1, 0, 1))
    dropped = next(b for b in on_page if b.drop_reason == "watermark")
    assert dropped.bbox.width > 100
    # The legend names each kind on the page in its colour: a swatch per row in the strip.
    strip = [image.getpixel((round(size[0]) + 8 + dx, 8 + dy)) for dx in range(12) for dy in range(10)]
    assert KIND_COLOURS[min({b.kind for b in on_page}, key=list(KIND_COLOURS).index)] in strip


def test_labels_stay_on_the_page(tmp_path):
    """A block at the page's top edge and one at its right edge keep their labels inside the page."""
    from docclean_assets.extract.pdf.inspect import Drawn, draw_boxes
    from docclean_assets.extract.model import BBox

    page = Image.new("RGB", (200, 100), (255, 255, 255))
    colour = (200, 0, 120)
    out = draw_boxes(page, [Drawn(BBox(10, 0, 150, 20), "0 heading", colour), Drawn(BBox(180, 50, 199, 70), "1 heading", colour)], DPI)
    width = int(ImageDraw.Draw(page).textlength("0 heading")) + 4  # a label strip's width
    assert out.getpixel((10 + width - 1, 6)) == colour  # the top block's strip drawn inside its box
    assert out.getpixel((200 - width + 1, 45)) == colour  # the right one's strip moved left to end at the edge


def test_hatching_marks_dropped_boxes_but_never_covers_kept_ones():
    """A watermark's box spans the page: its hatching shows around the kept block, not over it."""
    from docclean_assets.extract.pdf.inspect import Drawn, draw_boxes
    from docclean_assets.extract.model import BBox

    page = Image.new("RGB", (200, 200), (255, 255, 255))
    grey, blue = (120, 120, 120), (0, 90, 200)
    out = draw_boxes(page, [Drawn(BBox(0, 0, 200, 200), "", grey, True), Drawn(BBox(50, 50, 150, 150), "", blue)], DPI)
    inside = [out.getpixel((x, y)) for x in range(55, 145) for y in range(55, 145)]
    around = [out.getpixel((x, y)) for x in range(5, 45) for y in range(5, 195)]
    assert grey not in inside and around.count(grey) > 100


def test_inspect_refuses_other_formats_and_bad_pages(tmp_path, capsys):
    import docx

    from docclean_assets_tests.support.docx import docx_bytes

    document = docx.Document()
    document.add_paragraph("Hello there, a short document.")
    word = tmp_path / "a.docx"
    word.write_bytes(docx_bytes(document))
    assert cli_main(["inspect", str(word), "--out", str(tmp_path / "x.png")]) == 1
    assert "inspect draws PDF pages and lists HTML stages; this file is docx" in capsys.readouterr().err
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


def test_inspect_draws_a_stage_from_the_trace(tmp_path, capsys):
    """`--stage lines` draws each line of the page's trace in the line colour; `--stage kinds`
    labels the blocks as the kinds stage left them."""
    from docclean_assets.extract.pdf.inspect import LINE_COLOUR
    from docclean_assets.extract.pdf.document import extract_pdf
    from docclean_assets.extract.settings import Settings

    data = two_column_report_pdf()
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(data)
    page = extract_pdf(data, Settings()).trace.page(1)
    out = tmp_path / "lines.png"
    assert cli_main(["inspect", str(pdf), "--page", "1", "--stage", "lines", "--out", str(out), "--dpi", str(DPI)]) == 0
    assert f"stage lines, {len(page.lines)} boxes" in capsys.readouterr().out
    image = Image.open(out).convert("RGB")
    line = max(page.lines, key=lambda ln: ln.x1 - ln.x0)
    x, y = round(line.x1), round((line.top + line.bottom) / 2)
    assert any(image.getpixel((x + dx, y)) == LINE_COLOUR for dx in (-1, 0, 1))
    kinds = tmp_path / "kinds.png"
    assert cli_main(["inspect", str(pdf), "--stage", "kinds", "--out", str(kinds), "--dpi", str(DPI)]) == 0
    title = next(b for b in page.kinds if b.kind == "title")
    image = Image.open(kinds).convert("RGB")
    x, y = round(title.x1), round((title.top + title.bottom) / 2)
    assert any(image.getpixel((x + dx, y)) == KIND_COLOURS["title"] for dx in (-1, 0, 1))


def test_inspect_names_the_stages_for_a_wrong_one(tmp_path, capsys):
    from docclean_assets.extract.pdf.trace import STAGES

    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(two_column_report_pdf())
    out = tmp_path / "x.png"
    assert cli_main(["inspect", str(pdf), "--stage", "paragraphs", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown stage 'paragraphs'" in err
    assert all(name in err for name in STAGES) and not out.exists()
