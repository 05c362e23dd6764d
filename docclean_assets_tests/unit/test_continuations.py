"""A paragraph continued across a column, a page or a float becomes one block (extract/continuations.py),
on inline blocks: which breaks join, what the joined block records, and what never joins."""
from __future__ import annotations

from dataclasses import replace

from docclean_assets.extract.continuations import blocks_to_joined_paragraphs, part_boxes
from docclean_assets.extract.model import BBox, Block
from docclean_assets.extract.normalize import normalize_blocks


def _p(text, seq, page, column="0", kind="paragraph", drop=None, top=100.0, anchor=None):
    return Block(kind, text, seq=seq, page=page, drop_reason=drop, anchor=anchor,
                 bbox=BBox(50, top, 290, top + 40), meta=(("column", column),))


def test_a_word_hyphenated_across_a_page_break_is_made_whole_in_one_block():
    blocks = [_p("AF-toxin is a polyketide mol-", 0, 1), _p("Page 1", 1, 1, drop="page_number"),
              _p("A footnote in small print.", 2, 1, kind="footnote"),
              _p("ecule, and so a functional PKS is needed.", 3, 2, top=60)]
    out = normalize_blocks(blocks)
    assert out[0].text == "AF-toxin is a polyketide molecule, and so a functional PKS is needed."
    assert out[0].orig_text == "AF-toxin is a polyketide mol- ecule, and so a functional PKS is needed."
    assert out[3].drop_reason == "continued" and out[3].get_meta("continues") == "0"
    assert out[3].text == "ecule, and so a functional PKS is needed."  # the dropped part keeps its text
    assert [(p, b.y0) for p, b in part_boxes(out[0])] == [(1, 100.0), (2, 60.0)]
    assert [b.seq for b in out if b.in_body] == [0]


def test_a_compound_split_at_a_column_break_keeps_its_hyphen():
    blocks = [_p("We studied long-form answers and long-", 0, 1, "0"), _p("form summaries of papers.", 1, 1, "1")]
    out = normalize_blocks(blocks)
    assert out[0].text == "We studied long-form answers and long-form summaries of papers."


def test_a_paragraph_over_three_columns_is_one_block_and_notes_on_its_parts_follow_it():
    blocks = [_p("The survey began in the north and", 0, 1, "0"), _p("continued along the coast for", 1, 1, "1"),
              _p("A note on the coast.", 2, 1, "1", kind="footnote", anchor=1),
              _p("three more weeks.", 3, 2, "0")]
    out = blocks_to_joined_paragraphs(blocks)
    assert out[0].text == "The survey began in the north and continued along the coast for three more weeks."
    assert [b.drop_reason for b in out] == [None, "continued", None, "continued"]
    assert [b.get_meta("continues") for b in out[1::2]] == ["0", "0"]
    assert out[2].anchor == 0  # the note anchored on the second part now points at the whole paragraph
    assert [p for p, _ in part_boxes(out[0])] == [1, 1, 2]


def test_a_float_within_a_column_breaks_the_paragraph_and_the_parts_join_around_it():
    blocks = [_p("The gauges were read each morning and", 0, 1), _p("Figure 2. Daily readings.", 1, 1, kind="caption"),
              _p("each evening by the same clerk.", 2, 1, top=300)]
    out = blocks_to_joined_paragraphs(blocks)
    assert out[0].text == "The gauges were read each morning and each evening by the same clerk."
    assert out[1].in_body and out[2].drop_reason == "continued"


def test_a_capital_or_a_digit_continues_only_a_sentence_left_open_on_a_lower_case_word_or_a_comma():
    def joined(first: str, second: str) -> bool:
        out = blocks_to_joined_paragraphs([_p(first, 0, 1, "0"), _p(second, 1, 1, "1")])
        return out[1].drop_reason == "continued"

    assert joined("The bias was first reported by", "Lindqvist and colleagues in a survey.")
    assert joined("The samples were collected in", "2019 and stored frozen.")
    assert joined("The samples came from Oslo, Bergen,", "Trondheim and Tromsø.")
    assert not joined("Right1 alpha0 bravo1 charlie2 juliet59", "Left2 alpha0 bravo1 charlie2.")  # no sentence
    assert not joined("Samples and drift per site in Table", "The next section discusses them.")


def test_in_an_indented_document_a_flush_part_after_a_full_stop_joins_only_if_it_can_end_the_paragraph():
    def flush(text, seq, page, indent="0.0", top=100.0):
        b = _p(text, seq, page, top=top)
        return replace(b, meta=(*b.meta, ("first_indent_em", indent)))

    body = [flush(f"Paragraph {n} opens indented and runs on for a while.", n, 1, "1.5", top=100.0 + 50 * n)
            for n in range(3)]
    last = flush("The audit was done in line with the standards.", 3, 1, "1.5", top=300)
    rest = flush("It ended in March, as planned.", 4, 2, top=60)  # the paragraph runs on at the next page
    title = flush("Acme Inc. and Subsidiaries Consolidated Balance Sheets (In millions, except share data)", 4, 2, top=60)
    table = _p("| | 2023 |\n|---|---|\n| Cash | 5 |", 5, 2, kind="table", top=120)
    after = flush("The accompanying notes are an integral part of these statements.", 6, 2, "1.5", top=300)
    out = blocks_to_joined_paragraphs([*body, last, rest, table, after])
    assert out[4].drop_reason == "continued" and out[3].text.endswith("standards. It ended in March, as planned.")
    out = blocks_to_joined_paragraphs([*body, last, title, table, after])
    assert out[4].drop_reason is None and out[3].text == last.text  # a title line ends no paragraph
    marked = flush("It ended in March, as planned.12", 4, 2, top=60)  # a note's marker after the full stop
    assert blocks_to_joined_paragraphs([*body, last, marked, table, after])[4].drop_reason == "continued"
    dated = flush("Consolidated Statements of Income 2023", 4, 2, top=60)
    assert blocks_to_joined_paragraphs([*body, last, dated, table, after])[4].drop_reason is None


def test_what_never_joins():
    def continued(blocks):
        return [b.seq for b in blocks_to_joined_paragraphs(blocks) if b.drop_reason == "continued"]

    same_column = [_p("A sentence left open and", 0, 1), _p("continued below.", 1, 1, top=200)]
    ended = [_p("A sentence that ends.", 0, 1, "0"), _p("lower-case start of another.", 1, 1, "1")]
    heading = [_p("Left open and", 0, 1, "0"), _p("Results", 1, 1, "1", kind="heading"), _p("carried on.", 2, 1, "1")]
    label = [_p("30", 0, 1, "0"), _p("mm", 1, 1, "0"), _p("carried on in the next column.", 2, 1, "1")]
    docx = [Block("paragraph", "Left open and", seq=0), Block("paragraph", "carried on.", seq=1)]
    slides = [Block("paragraph", "Left open and", seq=0, page=1), Block("paragraph", "carried on.", seq=1, page=2)]
    # the page's foot line (a licence under the last column) is no column's last paragraph of prose
    foot = [_p("The first column ends here and", 0, 1, "0"), _p("the second column holds the rest.", 1, 1, "1"),
            _p("licensed under CC BY 4.0 by the authors of this", 2, 1, "0", top=800),
            _p("text on the next page.", 3, 2, "0")]
    for blocks in (same_column, ended, heading, label, docx, slides):
        assert continued(blocks) == []
    assert continued(foot) == [1]


def test_without_parts_a_block_has_its_own_box():
    b = _p("One part.", 0, 3)
    assert part_boxes(b) == [(3, BBox(50, 100, 290, 140))]


def test_parts_without_a_page_or_a_box_still_read_back():
    first = Block("paragraph", "A note that runs on to", seq=0, meta=(("column", "0"),))
    second = Block("paragraph", "the next column.", seq=1, page=2, meta=(("column", "1"),))
    joined = blocks_to_joined_paragraphs([first, second])[0]
    assert part_boxes(joined) == [(None, None), (2, None)]


def test_a_list_item_left_open_at_a_page_break_runs_on_in_a_lower_case_paragraph_only():
    def joined(item: str, second: str) -> bool:
        out = blocks_to_joined_paragraphs([_p(item, 0, 1, kind="list_item"), _p(second, 1, 2, top=60)])
        return out[1].drop_reason == "continued"

    # i1040nr.pdf: "4. You are a partner ... and the partnership, estate, or trust" | "reports the ..."
    out = blocks_to_joined_paragraphs([_p("4. You are a partner and the estate, or trust", 0, 1, kind="list_item"),
                                       _p("reports the required information on its return.", 1, 2, top=60)])
    assert out[0].kind == "list_item" and out[0].text.endswith("or trust reports the required information on its return.")
    assert out[1].drop_reason == "continued"
    # a capital or a figure after an item is as often the next paragraph or a transcript's line number
    assert not joined("- Cubitus valgus: obstructed jugular lymphatics with", "Lymphedema may occur at any age.")
    assert not joined("- - - - - - - - x", "8")
    assert not joined("(a) The notes are due in 2030.", "the trustee acts for the holders.")  # a sentence closed
    # nor does a paragraph after a closed item run on because the document indents its paragraphs
    assert not joined("(b) The plan ends.", "Payment is made at once.")
