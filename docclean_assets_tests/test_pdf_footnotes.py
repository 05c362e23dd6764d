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
    found = [b for b in blocks if b.kind == "footnote"]
    assert [(b.get_meta("marker"), b.text.endswith(text)) for b, (_, text, _) in zip(found, notes)] == \
        [(marker, True) for marker, _, _ in notes]
    by_seq = {b.seq: b for b in blocks}
    assert [by_seq[b.anchor].text for b in found] == [paragraphs[p] for _, _, p in notes]
    assert ext.report.footnotes == len(notes)  # exact: a page's notes set without space are counted apart


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
