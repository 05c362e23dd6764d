"""PDF backend against awkward and hostile pages (issue 14): pages turned by /Rotate or drawn
sideways read in order, glyphs that expand to long strings stay linear and capped, and every text
stage of the PDF path finishes on long runs of one character."""
from __future__ import annotations

import multiprocessing

import pytest
from PIL import Image

from docclean_assets.cli import main as cli_main
from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.extract.guard import check_html_bytes, merge_flooded
from docclean_assets.extract.pdf.inspect import LEGEND_PX
from docclean_assets.extract.model import DocReport, Extraction
from docclean_assets.extract.normalize import LINE_BREAK_HYPHEN
from docclean_assets.extract.ocr.engine import engine_available
from docclean_assets.extract.pdf.document import PAGE_TURN_META
from docclean_assets.extract.pdf.model import PBlock, Word, join_lines
from docclean_assets.extract.pdf.chars import Char, PageInfo
from docclean_assets.extract.pdf.footnotes import page_footnotes
from docclean_assets.extract.pdf.kinds import blocks_to_kinds
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.ocr_pages import page_needs_ocr, unmapped_count
from docclean_assets.extract.pdf.pullquotes import fold, pages_to_pull_quotes
from docclean_assets.extract.pdf.table_grid import cells_read_as_math
from docclean_assets.extract.pdf.table_model import rows_to_markdown
from docclean_assets.extract.ocr.settings import OcrSettings
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.settings import LimitSettings
from docclean_assets_tests.fixtures import build_ocr
from docclean_assets_tests.hostile import cases_pdf as P
from docclean_assets_tests.support.recall import MIN_RECALL, recall

TURNS = (90, 180, 270)


def _extract(data: bytes, **kw):
    return extract_document(data, "pdf", ocr=kw.pop("ocr", "off"), **kw)


def _body(blocks) -> list[str]:
    return [b.text for b in blocks if b.drop_reason is None and b.kind == "paragraph"]


def _turn(blocks) -> set[str | None]:
    return {b.get_meta(PAGE_TURN_META) for b in blocks}


# ------------------------------------------------------------------------------- rotated pages
@pytest.mark.parametrize("rotate", TURNS)
def test_page_rotated_by_its_rotate_entry_reads_its_upright_text_in_order(rotate):
    """/Rotate shows text that is upright in user space sideways or upside down: it is read in
    the frame where it is upright (user space), column by column."""
    result = _extract(P.rotated_page_pdf(rotate, 0))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    assert result.report.columns == 2
    assert _turn(result.blocks) == {str((360 - rotate) % 360)}
    for b in result.blocks:  # boxes and page size in the frame of the text: portrait user space
        assert (b.get_meta("page_width"), b.get_meta("page_height")) == ("612.0", "792.0")
        assert 0 <= b.bbox.x0 < b.bbox.x1 <= 612 and 0 <= b.bbox.y0 < b.bbox.y1 <= 792
    left, right = result.blocks[0], result.blocks[3]
    assert left.bbox.x1 < right.bbox.x0 and abs(left.bbox.y0 - right.bbox.y0) < 1


@pytest.mark.parametrize("rotate", TURNS)
def test_text_drawn_turned_and_shown_upright_by_rotate_reads_as_displayed(rotate):
    """A landscape page stored portrait: the text matrix turns the text, /Rotate turns it back."""
    result = _extract(P.rotated_page_pdf(rotate, rotate))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    assert _turn(result.blocks) == {None}
    width, height = (612.0, 792.0) if rotate == 180 else (792.0, 612.0)
    assert float(result.blocks[0].get_meta("page_width")) == width
    assert float(result.blocks[0].get_meta("page_height")) == height


@pytest.mark.parametrize("turn", TURNS)
def test_page_whose_text_is_all_drawn_turned_reads_in_its_own_frame(turn):
    result = _extract(P.rotated_page_pdf(0, turn))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    assert _turn(result.blocks) == {str(turn)}


@pytest.mark.parametrize("rotate, turn", [(0, 0), (90, 0), (180, 0), (270, 0), (90, 90), (0, 270)])
def test_a_sideways_stamp_beside_the_text_stays_a_rotated_margin_note(rotate, turn):
    """Sideways text that is a minority of the page (an arXiv stamp) keeps today's reading: one
    margin note at 90 degrees to the text, the body unchanged."""
    result = _extract(P.rotated_page_pdf(rotate, turn, stamp=1))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    notes = [b for b in result.blocks if b.kind == "margin_note"]
    assert [(b.text, b.get_meta("rotation_deg")) for b in notes] == [(P.STAMP, "90")]
    assert notes[0].bbox.x1 < result.blocks[0].bbox.x0  # in the left margin of the text's frame


@pytest.mark.parametrize("rotate, turn", [(0, 0), (90, 0), (270, 270)])
def test_two_sideways_stamps_drawn_one_after_the_other_are_two_lines(rotate, turn):
    """A run of chars at one vertical angle holding two lines is split into them, not read as one
    line whose letters interleave."""
    result = _extract(P.rotated_page_pdf(rotate, turn, stamp=2))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    notes = sorted((b for b in result.blocks if b.kind == "margin_note"), key=lambda b: b.bbox.x0)
    assert [(b.text, b.get_meta("rotation_deg")) for b in notes] == [(P.STAMP_2, "90"), (P.STAMP, "90")]


def test_inspect_draws_a_turned_page_in_the_frame_of_its_boxes(tmp_path):
    pdf = tmp_path / "turned.pdf"
    pdf.write_bytes(P.rotated_page_pdf(90, 0))
    out = tmp_path / "page.png"
    assert cli_main(["inspect", str(pdf), "--page", "1", "--out", str(out), "--dpi", "72"]) == 0
    image = Image.open(out).convert("L")
    # portrait, as the boxes are (plus the legend strip to the page's right)
    assert abs(image.width - LEGEND_PX - 612) <= 1 and abs(image.height - 792) <= 1
    first = _extract(pdf.read_bytes()).blocks[0]
    inside = image.crop((round(first.bbox.x0) + 3, round(first.bbox.y0) + 3,
                         round(first.bbox.x1) - 3, round(first.bbox.y1) - 3))
    assert inside.getextrema()[0] < 80  # the paragraph's glyphs are under its box


@pytest.mark.skipif(not engine_available(OcrSettings()), reason="no tesseract models (tesseract-ocr-eng)")
def test_picture_on_a_turned_page_is_read_upright_and_boxed_in_the_page_frame():
    picture = build_ocr.text_image(build_ocr.PICTURE_LINES)
    result = _extract(P.rotated_page_pdf(90, 0, paragraphs=P.ROTATED_PARAGRAPHS[:4], picture=picture), ocr="auto")
    pics = [b for b in result.blocks if b.kind == "image_text"]
    assert len(pics) == 1 and pics[0].get_meta(PAGE_TURN_META) == "270"
    assert recall(" ".join(build_ocr.PICTURE_LINES), pics[0].text) >= MIN_RECALL
    x0, top, x1, bottom = P.picture_box(picture, 792.0)
    box = pics[0].bbox
    assert x0 - 2 <= box.x0 < box.x1 <= x1 + 2 and top - 2 <= box.y0 < box.y1 <= bottom + 2
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS[:4]


@pytest.mark.skipif(not engine_available(OcrSettings()), reason="no tesseract models (tesseract-ocr-eng)")
def test_forced_ocr_renders_a_turned_page_upright():
    paragraphs = P.ROTATED_PARAGRAPHS[:2]
    result = _extract(P.rotated_page_pdf(90, 0, paragraphs=paragraphs), ocr="force")
    read = [b for b in result.blocks if b.get_meta("ocr") == "tesseract"]
    assert read and {b.get_meta(PAGE_TURN_META) for b in read} == {"270"}
    assert recall(" ".join(paragraphs), " ".join(b.text for b in read)) >= MIN_RECALL


# ---------------------------------------------------------------------- text stages, long runs
DEADLINE_S = 60.0  # a hang guard, far above the linear cost (well under a second per input here)


def _finishes_within(seconds: float, fn, *args) -> None:  # noqa: ANN001 - any callable
    """Run fn(*args) in a forked child: fail when it raises or is still running after `seconds`."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            fn(*args)
            send.send("ok")
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            send.send(f"{type(exc).__name__}: {exc}")

    proc = ctx.Process(target=child)
    proc.start()
    proc.join(seconds)
    if proc.is_alive():
        proc.kill()
        proc.join()
        pytest.fail(f"{getattr(fn, '__name__', fn)} still running after {seconds:g} s")
    assert recv.poll() and recv.recv() == "ok", f"child exit code {proc.exitcode}"


def _block(text: str, size: float, top: float, column: int = 0) -> PBlock:
    word = Word(text, 72.0, top, 300.0, top + size, size, len(text), 0, 0, size)
    blk = PBlock([make_line([word])], 1, column=column)
    return blk


def _text_stages(s: str) -> None:
    """Every stage of the PDF path that reads text, fed `s`: line assembly (bidi), line joining
    (hyphens), kinds, footnotes, pull quotes, table cells, OCR triage, the flooded-page fallback
    and the guard's tag scan; each result checked so the call cannot be skipped."""
    settings = PdfSettings()
    info = PageInfo(1, 612.0, 792.0)
    line = make_line([Word(s, 0, 0, 9, 9, 10.0, len(s), 0, 0, 10.0), Word("abc", 10, 0, 19, 9, 10.0, 3, 0, 0, 10.0)])
    assert len(line.text) == len(s) + 4
    assert len(join_lines([s, s, "tail"])) >= 2 * len(s.strip())
    assert join_lines([s[:1] + "-"] * 1000).count(LINE_BREAK_HYPHEN) == (999 if s[:1].isalpha() else 0)
    body, display, note = _block(s, 10.0, 100.0), _block(s, 20.0, 300.0), _block(s, 7.0, 700.0)
    pages = [(info, [body, display, note])]
    [kinded] = blocks_to_kinds(pages, 10.0, settings)
    assert sum(b.kind == "footnote" for b in page_footnotes(kinded, info, 10.0, settings)) <= 1
    assert pages_to_pull_quotes([kinded], 10.0, settings).count <= 1
    assert len(fold(s).offsets) <= len(s)
    assert cells_read_as_math([s, s, "x"], settings) in (True, False)
    assert rows_to_markdown([[s, "a"], ["b", s]]).count("\n") == 2
    char = Char(s, 0, 0, 9, 9, 10.0, "Helvetica", 0.0, 0, 0, 0.0, 0, 9.0)
    assert unmapped_count([char]) <= len(s)
    assert page_needs_ocr([char], OcrSettings()) in (None, "no_text", "unmapped")
    merged = merge_flooded(Extraction([], DocReport(format="pdf"), {}), {1: s + "\n" + s})
    assert all(len(b.text) <= len(s) for b in merged.blocks)
    try:
        check_html_bytes(s.encode(), LimitSettings())
    except ExtractionError as exc:
        assert "nested" in str(exc)


@pytest.mark.parametrize("name", sorted(P.LONG_RUNS))
def test_every_pdf_text_stage_finishes_on_a_long_run(name):
    _finishes_within(DEADLINE_S, _text_stages, P.LONG_RUNS[name])


def _pull_quote_searches() -> None:
    """Display quotes against bodies made of their words in reverse order (every passage holds all
    of them, none in order): one of `pull_quote_max_tokens` words, one far longer (a standfirst set
    large, never matched); an abridged quote whose first piece is everywhere and its second nowhere,
    and the same quote found at the very end of the body."""
    settings = PdfSettings()
    for n in (settings.pull_quote_max_tokens, 1500):
        words = [f"w{i}" for i in range(n)]
        quote = _block(" ".join(words), 20.0, 20.0)
        none = pages_to_pull_quotes([[quote, _block(" ".join(words[::-1] * (60_000 // n)), 10.0, 100.0)]],
                                    10.0, settings)
        assert none.count == 0 and none.pages[0][0] is quote and quote.kind == "paragraph"
    lead = "the harbour board met on tuesday " * 20_000
    abridged = _block("the harbour board met ... voted to close the quay", 20.0, 20.0)
    assert pages_to_pull_quotes([[abridged, _block(lead, 10.0, 100.0)]], 10.0, settings).count == 0
    found = _block(lead + "the harbour board met and at last voted to close the quay", 10.0, 100.0)
    result = pages_to_pull_quotes([[abridged, found]], 10.0, settings)
    quote = result.pages[0][0]
    assert result.count == 1 and quote.kind == "pull_quote" and ("match", "abridged") in quote.extra
    assert quote.anchor_to is found and abridged.kind == "paragraph"


def test_pull_quote_search_finishes_on_bodies_built_against_it():
    _finishes_within(DEADLINE_S, _pull_quote_searches)


# ------------------------------------------------------------------------ expanding glyphs
def _expansion_under_the_cap() -> None:
    """150 glyphs of one code mapped to 250 letters each: 37,500 letters, one line of text each
    60 glyphs, read whole through layout analysis; one glyph mapped to 10,000 letters likewise."""
    result = _extract(P.expanding_glyph_pdf(250, 150, per_line=60))
    assert "page_char_cap" not in result.report.flags and result.report.raw_chars == 150 * 250
    run = "".join(P.ALPHABET[k % 26] for k in range(250))
    assert [b.text for b in result.blocks] == [" ".join([run * 60, run * 60, run * 30])]
    long = _extract(P.expanding_glyph_pdf(10_000, 4, per_line=4))
    assert [b.text for b in long.blocks] == ["".join(P.ALPHABET[k % 26] for k in range(10_000)) * 4]


def test_glyphs_expanding_to_long_strings_are_read_whole_under_the_cap():
    _finishes_within(DEADLINE_S, _expansion_under_the_cap)


def _expansion_flood() -> None:
    """600 glyphs x 250 letters: 150,000 characters on a page, over `pdf_max_page_chars`; the page
    is set aside as plain lines (flag page_char_cap) with all its text."""
    result = _extract(P.expanding_glyph_pdf(250, 600, per_line=60))
    assert "page_char_cap" in result.report.flags and result.report.raw_chars == 150_000
    run = "".join(P.ALPHABET[k % 26] for k in range(250))
    assert [b.text for b in result.blocks] == [run * 60] * 10
    assert all(b.get_meta("degraded") == "page_char_cap" for b in result.blocks)


def test_a_page_flooded_by_glyph_expansion_degrades_like_a_dense_page():
    _finishes_within(DEADLINE_S, _expansion_flood)


def _blank_expansion_flood() -> None:
    """Glyphs mapped to one letter and thousands of tabs: few non-space characters, but 240,000
    characters in all, over `pdf_max_page_codepoints`; set aside, its blanks collapsed."""
    blanks = "x" + "\t" * 3999
    result = _extract(P.expanding_glyph_pdf(4000, 60, per_line=6, alphabet=blanks))
    assert "page_char_cap" in result.report.flags and result.report.raw_chars == 60
    assert [b.text for b in result.blocks] == [" ".join("x" * 6)] * 10


def test_a_page_of_glyphs_expanding_to_blanks_is_capped_on_all_its_characters():
    _finishes_within(DEADLINE_S, _blank_expansion_flood)


def _long_token_pages(run: str) -> None:
    """A page whose text is one token broken only by line ends: 45,000 characters go through layout
    analysis, 200,000 (over `pdf_max_page_chars`) come back as the flooded page's plain lines."""
    for n, capped in ((45_000, False), (200_000, True)):
        result = _extract(P.long_token_pdf(run[:n]))
        assert ("page_char_cap" in result.report.flags) is capped
        assert "".join("".join(b.text for b in result.blocks).split()) == run[:n]


@pytest.mark.parametrize("name", ["letters", "digits", "dots", "hyphens", "numbering"])
def test_a_page_of_one_long_token_is_read_whole(name):
    _finishes_within(DEADLINE_S, _long_token_pages, P.LONG_RUNS[name])
