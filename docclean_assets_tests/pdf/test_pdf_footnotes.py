"""Footnote reference markers leave the sentence and each note is linked to its paragraph, in every
generated house style (LaTeX, Word, symbol markers, two columns, notes set as "1."); the footnote
count is exact. Plus the rules on inline chars: what a superscript is and which ones are references."""
from __future__ import annotations

import pytest

from docclean_assets.extract.normalize import normalize_blocks
from docclean_assets.extract.pdf.chars import Char
from docclean_assets.extract.pdf.document import extract_pdf
from docclean_assets.extract.pdf.footnotes import _reference
from docclean_assets.extract.pdf.lines import chars_to_words, words_to_lines
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.fixtures.build_footnotes import STYLES, footnoted_pdf


@pytest.fixture(scope="module", params=STYLES, ids=lambda s: s.name)
def paper(request):
    data, paragraphs, notes = footnoted_pdf(request.param)
    ext = extract_pdf(data, Settings())
    return ext, normalize_blocks(ext.blocks), paragraphs, notes


def test_markers_leave_the_body_and_orig_text_keeps_them(paper):
    _, blocks, paragraphs, notes = paper
    body = [b for b in blocks if b.kind == "paragraph" and b.drop_reason is None and len(b.text) > 40]
    assert [b.text for b in body] == paragraphs  # no marker left, no word lost or moved
    holders = {b.seq: b for b in body}
    for marker, _text, _para in notes:
        assert any(marker in (h.orig_text or "") and marker in (h.get_meta("footnote_refs") or "").split()
                   for h in holders.values())


def test_each_note_is_one_block_anchored_to_the_paragraph_holding_its_marker(paper):
    ext, blocks, paragraphs, notes = paper
    found = [b for b in blocks if b.kind == "footnote" and b.drop_reason is None]
    assert [(b.get_meta("marker"), b.text.endswith(text)) for b, (_, text, _) in zip(found, notes)] == \
        [(marker, True) for marker, _, _ in notes]
    assert len(found) == len(notes)  # a note run on at the next page's foot is one block (its part: `continued`)
    by_seq = {b.seq: b for b in blocks}
    assert [by_seq[b.anchor].text for b in found] == [paragraphs[p] for _, _, p in notes]
    # exact: a page's notes set without space are counted apart, a note run on over a page once
    assert ext.report.footnotes == len(notes) and ext.report.unanchored_notes == []


def test_a_note_whose_reference_is_not_in_the_text_is_named_in_the_report():
    import io

    from reportlab.pdfgen import canvas

    from docclean_assets_tests.fixtures.build_footnotes import STYLES as NOTE_STYLES, NoteDoc, prose_paragraphs

    buf = io.BytesIO()
    doc = NoteDoc(NOTE_STYLES[0], canvas.Canvas(buf, invariant=1))
    top = 90.0
    for text in prose_paragraphs(1, 1):  # prose that holds no reference marker
        top = doc.draw_paragraph(text, 72, top, 450)
    doc.draw_notes([1], 72, 450)  # yet the page's foot has note 1
    doc.c.showPage()
    doc.c.save()
    ext = extract_pdf(buf.getvalue(), Settings())
    assert ext.report.footnotes == 1 and ext.report.unanchored_notes == ["1:1"]


def _run(text: str, x: float, baseline: float, size: float, seq: int) -> list[Char]:
    out, adv = [], 0.5 * size
    for i, ch in enumerate(text):
        x0 = x + i * adv
        top = 800.0 - baseline - 0.75 * size
        out.append(Char(ch, x0, top, x0 + adv, top + size, size, "Times", 0.0, x0, baseline, 0.0, seq + i, adv))
    return out


def test_a_raised_smaller_run_is_a_superscript_and_a_lowered_one_is_not():
    s = PdfSettings()
    chars = (_run("period,", 50, 500, 10, 0) + _run("12", 85, 503.5, 7, 10)  # raised 0.35 em
             + _run("H", 120, 500, 10, 20) + _run("2", 125, 497.5, 7, 30) + _run("O", 128.5, 500, 10, 40))
    [line] = words_to_lines(chars_to_words(chars, s), s)
    raised = {w.text: [w.text[a:b] for a, b in w.raised] for w in line.words}
    assert raised == {"period,12": ["12"], "H2O": []}
    assert line.text_without(frozenset({(0, 0)})) == "period, H2O" and line.text == "period,12 H2O"


@pytest.mark.parametrize("run, before, refs", [
    ("1", "period,", ["1"]), ("1,2", "word", ["1", "2"]), ("†", "claim", ["†"]), ("3–5", "", ["3", "5"]),
    ("2", "x", None),  # x²: a one-letter symbol's exponent
    ("2", "10", None),  # 10²
    ("th", "4", None), ("a", "word", None),  # ordinals and letters are no markers
])
def test_which_superscripts_are_references(run, before, refs):
    assert _reference(run, before) == refs


def test_a_marker_is_raised_above_its_own_words_baseline_when_the_row_holds_another_column():
    s = PdfSettings()
    left = _run("station", 50, 500, 10, 0) + _run("1", 85, 503.5, 6.5, 10) + _run(".", 88.5, 500, 10, 11)
    right = _run("columnofmanyletters", 300, 504, 10, 20)  # the other column's line, set 4 pt higher
    words = chars_to_words(left + right, s)
    station = next(w for w in words if w.text.startswith("station"))
    assert [station.text[a:b] for a, b in station.raised] == ["1"]


def test_notes_set_solid_keep_each_hung_marker_on_its_own_note():
    """Two notes at 7.5 pt on 9 pt leading under the first column, markers raised 0.4 em at the margin
    and hung 0.7 em before the text, beside a body line of the second column whose baseline lies
    between them (so one row holds both markers): the lower marker is no script of the note above."""
    s = PdfSettings()
    chars = (_run("1", 50, 703, 5, 0) + _run("First", 58, 700, 7.5, 10) + _run("note", 80, 700, 7.5, 20)
             + _run("2", 50, 694, 5, 30) + _run("Second", 58, 691, 7.5, 40) + _run("note", 84, 691, 7.5, 50)
             + _run("bodytextoftheothercolumn", 300, 697.5, 9.5, 60))
    lines = [ln for ln in words_to_lines(chars_to_words(chars, s), s) if ln.x0 < 200]
    assert [ln.text for ln in lines] == ["1 First note", "2 Second note"]
    assert all(ln.words[0].raised == ((0, 1),) for ln in lines)


def test_a_sub_and_a_superscript_stacked_at_one_x_stay_on_their_line():
    s = PdfSettings()
    chars = _run("x", 50, 500, 10, 0) + _run("2", 55, 503.5, 6.5, 10) + _run("i", 55, 497.5, 6.5, 20) \
        + _run("plus", 65, 500, 10, 30)
    assert len(words_to_lines(chars_to_words(chars, s), s)) == 1


def test_a_markerless_note_opening_a_page_runs_on_only_from_a_note_left_open_on_the_page_before():
    from docclean_assets.extract.continuations import blocks_to_joined_paragraphs
    from docclean_assets.extract.model import Block
    from docclean_assets.extract.pdf.footnotes import counted_notes, notes_to_continuations

    def note(seq, page, text, marker=None, anchor=0):
        meta = (("note", "footnote"), ("marker", marker)) if marker else ()
        return Block("footnote", text, seq=seq, page=page, anchor=anchor if marker else None, meta=meta)

    body = Block("paragraph", "Body text.", seq=0, page=1)
    run_on = [body, note(1, 1, "1 The clerks copied the figures between", "1"), note(2, 2, "the two books monthly."),
              note(3, 2, "2 Another note.", "2")]
    marked = notes_to_continuations(run_on)
    assert marked[2].get_meta("note") == "continued" and counted_notes(marked) == (2, [])
    joined = blocks_to_joined_paragraphs(marked)
    assert joined[1].text == "1 The clerks copied the figures between the two books monthly."
    assert joined[2].drop_reason == "continued"
    closed = [body, note(1, 1, "1 A whole note.", "1"), note(2, 2, "A note whose marker was not read.")]
    assert notes_to_continuations(closed)[2].get_meta("note") is None
    assert counted_notes(notes_to_continuations(closed)) == (2, ["2:-"])


def test_a_numbered_bibliography_cited_by_superscripts_is_no_endnotes():
    from docclean_assets_tests.fixtures.build_footnotes import BIBLIOGRAPHY

    data, _, _ = footnoted_pdf(BIBLIOGRAPHY)
    ext = extract_pdf(data, Settings())
    works = [b for b in ext.blocks if "Tide gauges of the northern harbours" in b.text]
    assert len(works) == 6 and all(b.kind == "list_item" and b.in_body for b in works)
    assert ext.report.footnotes == 0
