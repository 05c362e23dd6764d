"""A document's kept blocks as Markdown and plain text (extract/markdown.py), on inline blocks."""
from __future__ import annotations

from docclean_assets.extract.markdown import blocks_to_markdown, blocks_to_pieces, blocks_to_text
from docclean_assets.extract.model import Block


def _b(seq: int, kind: str, text: str, **kw) -> Block:
    return Block(kind=kind, text=text, seq=seq, **kw)


def test_headings_take_contiguous_depths_under_the_title():
    # levels 2 and 4 only (no 1, no 3): the title is #, the two heading levels ## and ###
    md = blocks_to_markdown([_b(0, "title", "Report"), _b(1, "heading", "Intro", level=2),
                             _b(2, "paragraph", "Text."), _b(3, "heading", "Detail", level=4)])
    assert md == "# Report\n\n## Intro\n\nText.\n\n### Detail\n"
    # without a title the top heading level is #
    assert blocks_to_markdown([_b(0, "heading", "Intro", level=2)]) == "# Intro\n"


def test_dropped_blocks_and_non_content_kinds_are_left_out():
    blocks = [_b(0, "paragraph", "Journal of Things", drop_reason="running_head"), _b(1, "paragraph", "Body."),
              _b(2, "comment", "Reviewer: check this.", anchor=1), _b(3, "pull_quote", "Body.", anchor=1),
              _b(4, "paragraph", "CONFIDENTIAL", drop_reason="watermark")]
    assert blocks_to_markdown(blocks) == "Body.\n"
    assert blocks_to_markdown([_b(0, "paragraph", "x", drop_reason="boilerplate")]) == ""


def test_a_note_on_a_joined_paragraph_and_its_dropped_part_show_once():
    blocks = [_b(0, "paragraph", "The crossing opens once the signals are tested.", page=1,
                 meta=(("column", "0"), ("parts", "1:50.0,700.0,290.0,760.0 2:50.0,60.0,290.0,80.0"))),
              _b(1, "footnote", "1 A note.", page=1, anchor=0, meta=(("marker", "1"),)),
              _b(2, "paragraph", "Page 1", page=1, drop_reason="page_number"),
              _b(3, "paragraph", "the signals are tested.", page=2, drop_reason="continued",
                 meta=(("column", "0"), ("continues", "0"))),
              _b(4, "paragraph", "A new paragraph.", page=2)]
    md = blocks_to_markdown(blocks)
    assert md == "The crossing opens once the signals are tested.[^1]\n\nA new paragraph.\n\n[^1]: A note.\n"


def test_list_items_keep_their_numbers_and_depth_without_the_printed_label():
    blocks = [_b(0, "paragraph", "Steps:"),
              _b(1, "list_item", "1. Open the valve.", level=1, meta=(("list_label", "1."),)),
              _b(2, "list_item", "• Slowly.", level=2, meta=(("list_label", "•"),)),
              _b(3, "list_item", "2) Close it.", level=1, meta=(("list_label", "2)"),)),
              _b(4, "paragraph", "Done.")]
    assert blocks_to_markdown(blocks) == "Steps:\n\n1. Open the valve.\n  - Slowly.\n2. Close it.\n\nDone.\n"


def test_side_content_follows_the_block_it_is_anchored_to():
    blocks = [_b(0, "paragraph", "First."), _b(1, "callout", "Box 1. Watch out.", anchor=2),
              _b(2, "paragraph", "Second."), _b(3, "speaker_notes", "Say hello.")]
    md = blocks_to_markdown(blocks)
    assert md == "First.\n\nSecond.\n\n> **Call-out:** Box 1. Watch out.\n\n> **Speaker notes:** Say hello.\n"
    assert blocks_to_text(blocks) == "First.\n\nSecond.\n\nCall-out: Box 1. Watch out.\n\nSpeaker notes: Say hello.\n"


def test_side_content_anchored_to_what_is_not_shown_on_its_own_stays_where_it_stands():
    # a call-out anchored to a footnote, one anchored to a dropped block, and one to another call-out
    blocks = [_b(0, "paragraph", "Body."), _b(1, "footnote", "1 Note.", anchor=0, meta=(("marker", "1"),)),
              _b(2, "callout", "Box A.", anchor=1), _b(3, "paragraph", "Gone.", drop_reason="boilerplate"),
              _b(4, "callout", "Box B.", anchor=3), _b(5, "callout", "Box C.", anchor=4)]
    md = blocks_to_markdown(blocks)
    assert [line for line in md.splitlines() if line.startswith(">")] == \
        ["> **Call-out:** Box A.", "> **Call-out:** Box B.", "> **Call-out:** Box C."]


def test_footnote_labels_are_unique_and_cited_where_anchored():
    blocks = [_b(0, "paragraph", "Claim."), _b(1, "paragraph", "Other claim."),
              _b(2, "footnote", "1 First note.", anchor=0, meta=(("marker", "1"),)),
              _b(3, "footnote", "1 Chapter two's first note.", anchor=1, meta=(("marker", "1"),)),
              _b(4, "footnote", "* A starred note.", anchor=1, meta=(("marker", "*"),)),
              _b(5, "footnote", "Word-style note.", anchor=0, meta=(("id", "7"),))]
    pieces, notes = blocks_to_pieces(blocks)
    assert [n.label for n in notes] == ["1", "1-2", "3", "7"]
    assert [n.text for n in notes] == ["First note.", "Chapter two's first note.", "A starred note.", "Word-style note."]
    assert [p.notes for p in pieces] == [("1", "7"), ("1-2", "3")]
    assert blocks_to_text(blocks).startswith("Claim.[1][7]\n\nOther claim.[1-2][3]\n\n[1] First note.\n")


def test_tables_code_and_captions():
    table = "| Month | Rate |\n|---|---|\n| May | 4\\|5 |"
    blocks = [_b(0, "caption", "Table 1. Rates"), _b(1, "table", table), _b(2, "code", "x = 1\n\ny = 2")]
    assert blocks_to_markdown(blocks) == f"*Table 1. Rates*\n\n{table}\n\n```\nx = 1\n\ny = 2\n```\n"
    # plain text: cells between bars, no rule line, an escaped bar stays inside its cell
    assert blocks_to_text(blocks) == "Table 1. Rates\n\nMonth | Rate\nMay | 4\\|5\n\nx = 1\n\ny = 2\n"
