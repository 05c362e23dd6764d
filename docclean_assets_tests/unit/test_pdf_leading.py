"""Paragraphs on pages set with a wide leading (1.5- or double-spaced contracts in filings' exhibits):
a line gap at the page's own leading continues the paragraph (pdf/blocks.py, `paragraph_gap_of`)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from docclean_assets.extract.pdf.blocks import lines_to_blocks, page_leading_em
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.model import Word
from docclean_assets.extract.pdf.settings import PdfSettings

S = PdfSettings()
SIZE = 11.0
CHAR_W = 5.5

PARAGRAPHS = [
    ["The notes will be issued in fully registered form and the", "trustee will act as paying agent for the notes until", "we appoint another paying agent in accordance with", "the provisions of the indenture."],
    ["Currency of Payment. The principal and interest payments", "in respect of the notes will be made in sterling, and", "if sterling is unavailable to us then the payments", "will be made in U.S. dollars."],
    ["Redemption. We may redeem the notes at any time, in", "whole or in part, at the redemption price set out in", "this section and in the notes themselves."],
]


RIGHT = 400.0  # the column's right edge: justified lines end there


def _line(text: str, top: float, x0: float = 72.0, justified: bool = False):
    """One line of words; a justified one has its spaces widened to end at `RIGHT`."""
    parts = text.split()
    space = CHAR_W
    if justified and len(parts) > 1:
        space = (RIGHT - x0 - CHAR_W * sum(len(w) for w in parts)) / (len(parts) - 1)
    words, x = [], x0
    for w in parts:
        words.append(Word(w, x, top, x + CHAR_W * len(w), top + SIZE, SIZE, len(w), 0, 0, SIZE))
        x += CHAR_W * len(w) + space
    return make_line(words)


def _page(line_gap_em: float, paragraph_gap_em: float, indent: float = 0.0, top: float = 72.0):
    """The three paragraphs' lines, justified but the last, `line_gap_em` apart within a paragraph and
    `paragraph_gap_em` between."""
    lines = []
    for p, texts in enumerate(PARAGRAPHS):
        for i, text in enumerate(texts):
            if i == 0 and p:
                top += (paragraph_gap_em - line_gap_em) * SIZE
            lines.append(_line(text, top, 72.0 + (indent if i == 0 else 0.0), justified=i < len(texts) - 1))
            top += SIZE + line_gap_em * SIZE
    return lines


def test_a_one_and_a_half_spaced_page_keeps_its_paragraphs_whole():
    lines = _page(0.75, 1.74)  # PepsiCo's indentures: 11 pt, 0.75 em leading, 1.74 em between paragraphs
    assert page_leading_em(lines, S) == pytest.approx(0.75)
    blocks = lines_to_blocks(lines, 1, S)
    assert [b.text for b in blocks] == [" ".join(texts) for texts in PARAGRAPHS]
    # measured from too few certain pairs, the page keeps the usual gap: every line a paragraph
    assert len(lines_to_blocks(lines, 1, replace(S, paragraph_leading_min_pairs=20))) == len(lines)


def test_double_spacing_with_indented_paragraphs_and_no_extra_skip():
    # double-spaced (1.3 em between lines) where only a first-line indent marks a new paragraph
    lines = _page(1.3, 1.3, indent=4 * SIZE)
    assert [b.text for b in lines_to_blocks(lines, 1, S)] == [" ".join(texts) for texts in PARAGRAPHS]
    assert len(lines_to_blocks(lines, 1, replace(S, paragraph_leading_min_pairs=20))) == len(lines)


def test_on_a_wide_page_a_short_last_line_ends_its_paragraph():
    # definitions in a pension plan: no skip and no indent between paragraphs, only the last line's
    # full stop short of the edge (a justified line that ends a sentence at the edge runs on)
    lines = _page(0.75, 0.75)
    assert [b.text for b in lines_to_blocks(lines, 1, S)] == [" ".join(texts) for texts in PARAGRAPHS]


def test_on_a_wide_page_a_title_line_keeps_to_itself_though_its_gap_is_under_the_paragraph_gap():
    # PepsiCo's plan: "Foreword" centred 1.54 em above a paragraph, on a page at 1.17 em leading
    title = _line("Foreword", 72.0, x0=214.0)
    lines = [title, *_page(1.17, 1.8, indent=6 * SIZE, top=72.0 + SIZE + 1.54 * SIZE)]
    assert [b.text for b in lines_to_blocks(lines, 1, S)] == ["Foreword"] + [" ".join(t) for t in PARAGRAPHS]


def test_a_page_at_ordinary_leading_is_cut_as_before():
    lines = _page(0.2, 0.7)
    assert page_leading_em(lines, S) == pytest.approx(0.2)
    # a paragraph gap of 0.7 em on a page at 0.2 em leading still splits, as `paragraph_gap_em` does
    assert [b.text for b in lines_to_blocks(lines, 1, S)] == [" ".join(texts) for texts in PARAGRAPHS]
    assert len(lines_to_blocks(lines, 1, replace(S, paragraph_gap_em=0.8))) == 1


@pytest.mark.parametrize("texts", [
    # a contents page: capitalised lines
    ["Item 1. Business", "Item 1A. Risk Factors", "Item 2. Properties", "Item 3. Legal Proceedings",
     "Item 4. Mine Safety Disclosures", "Item 5. Market for Registrant's Common Equity", "Item 6. Reserved"],
    # a glossary of abbreviations (GeoTopo-komprimiert.pdf): lower case, but no line runs to the edge
    ["bzgl. bezüglich", "bzw. beziehungsweise", "ca. circa", "d. h. das heißt", "etc. et cetera",
     "ex. existieren", "o. B. d. A. ohne Beschränkung der Allgemeinheit", "sog. sogenannte", "vgl. vergleiche"],
])
def test_widely_spaced_lines_that_each_stand_alone_stay_apart(texts):
    lines = [_line(t, 72.0 + i * SIZE * 1.8) for i, t in enumerate(texts)]  # 0.8 em apart
    assert page_leading_em(lines, S) is None
    assert len(lines_to_blocks(lines, 1, S)) == len(lines)


def test_the_leading_needs_at_least_one_pair():
    with pytest.raises(ValueError, match="paragraph_leading_min_pairs"):
        PdfSettings(paragraph_leading_min_pairs=0)


def test_a_short_last_line_left_of_a_deep_first_line_indent_joins_its_paragraph():
    # PepsiCo's definitions: first line indented 6 em, and "the Plan." ends the paragraph under it
    def blocks(indent_em: float, first_text: str = "Pension: One or more payments payable to a person who is",
               justified: bool = True) -> list[str]:
        above = _line("the column's full measure, set well above the paragraph", 20.0, justified=True)
        first = _line(first_text, 72.0, x0=72.0 + indent_em * SIZE, justified=justified)
        last = _line("the Plan.", 72.0 + 1.2 * SIZE)
        return [b.text for b in lines_to_blocks([above, first, last], 1, S)][1:]

    assert blocks(6) == ["Pension: One or more payments payable to a person who is the Plan."]
    assert len(blocks(6, "A short line", justified=False)) == 2  # it did not wrap: a line of its own
    assert len(blocks(9)) == 2  # further right than an indent goes (`indent_max_em`)
