"""The chunker (extract/chunk.py) on inline blocks: each rule of issue 34's first point."""
from __future__ import annotations

import pytest

from docclean_assets.extract.chunk import (
    OVER_BUDGET, blocks_to_chunks, chunk_ids, linearized_table, token_counter,
)
from docclean_assets.extract.chunk_tables import is_figure, labels_only, parse_markdown_table
from docclean_assets.extract.model import BBox, Block
from docclean_assets.extract.settings import ChunkSettings, Settings


def para(seq: int, words: int, tag: str = "w", page: int | None = None, end: str = ".") -> Block:
    """A paragraph of `words` words as sentences of ten."""
    sentences = [" ".join(f"{tag}{seq}x{i + k}" for k in range(10)).capitalize() + end for i in range(0, words, 10)]
    return Block("paragraph", " ".join(sentences), seq=seq, page=page,
                 bbox=BBox(10, 10 * seq, 100, 10 * seq + 8) if page else None)


def head(seq: int, text: str, level: int = 1) -> Block:
    return Block("heading", text, seq=seq, level=level)


def table_text(rows: int) -> str:
    lines = ["| | 2023 | 2022 |", "|---|---|---|", "| | Net sales | Net sales |"]
    return "\n".join(lines + [f"| Item {i} revenue line | {100 + i} | {90 + i} |" for i in range(rows)])


S = ChunkSettings(max_tokens=60)


def test_heading_path_follows_levels_and_a_heading_never_ends_a_chunk():
    blocks = [Block("title", "Annual Report", seq=0), head(1, "Part II", 1), head(2, "Liquidity", 2), para(3, 20),
              head(4, "Cash flows", 3), para(5, 20), head(6, "Risk", 2), para(7, 10)]
    chunks = blocks_to_chunks(blocks, S)
    assert [c.heading_path for c in chunks] == [
        ("Annual Report", "Part II", "Liquidity"), ("Annual Report", "Part II", "Liquidity", "Cash flows"),
        ("Annual Report", "Part II", "Risk")]
    # the opening headings are in the first chunk's text, never alone at the end of a chunk
    assert chunks[0].text.startswith("Annual Report\n\nPart II\n\nLiquidity\n\n")
    assert chunks[0].seqs == (0, 1, 2, 3)
    for c in chunks:
        assert c.kinds[-1] != "heading"
    # the embed text carries the ancestors not already in the text
    assert chunks[1].embed_text.startswith("Annual Report > Part II > Liquidity\n\nCash flows")


def test_small_neighbours_under_one_heading_merge_up_to_the_budget_not_across_headings():
    blocks = [head(0, "A"), para(1, 10), para(2, 10), para(3, 10), head(4, "B"), para(5, 10)]
    chunks = blocks_to_chunks(blocks, S)
    assert [c.seqs for c in chunks] == [(0, 1, 2, 3), (4, 5)]
    wide = [head(0, "A")] + [para(i, 20) for i in range(1, 7)]
    packed = blocks_to_chunks(wide, S)
    assert all(c.tokens <= S.max_tokens for c in packed) and len(packed) > 1
    assert sorted(q for c in packed for q in c.seqs) == list(range(7))


def test_long_paragraph_split_at_sentences_into_balanced_parts():
    chunks = blocks_to_chunks([head(0, "H"), para(1, 130)], S)
    assert [c.part for c in chunks] == list(range(1, len(chunks) + 1)) and chunks[0].parts == len(chunks)
    assert all(c.tokens <= S.max_tokens for c in chunks)
    assert max(c.tokens for c in chunks) - min(c.tokens for c in chunks) <= 12  # balanced, no stub
    assert all(c.text.rstrip().endswith(".") for c in chunks)  # cut at sentence ends
    assert " ".join(c.text for c in chunks).split() == ["H"] + para(1, 130).text.split()


def test_a_sentence_without_seams_is_cut_at_words_and_a_row_without_one_is_kept_and_flagged():
    run_on = Block("paragraph", " ".join(f"w{i}" for i in range(150)), seq=0)
    chunks = blocks_to_chunks([run_on], S)
    assert len(chunks) == 3 and not any(OVER_BUDGET in c.flags for c in chunks)
    wide_row = "| a | b |\n|---|---|\n| " + " ".join(f"v{i}" for i in range(80)) + " | x |"
    chunks = blocks_to_chunks([Block("table", wide_row, seq=0)], S)
    assert len(chunks) == 1 and OVER_BUDGET in chunks[0].flags and "v79" in chunks[0].text


def test_list_items_stay_with_their_lead_in_even_when_split():
    items = [Block("list_item", " ".join(f"i{n}w{k}" for k in range(12)), seq=2 + n) for n in range(10)]
    blocks = [para(0, 10), Block("paragraph", "The risks we face include:", seq=1), *items]
    chunks = blocks_to_chunks(blocks, S)
    listed = [c for c in chunks if 1 in c.seqs]
    assert len(listed) >= 2 and all(c.text.startswith("The risks we face include:") for c in listed)
    assert sorted({q for c in listed for q in c.seqs}) == list(range(1, 12))
    assert 0 not in listed[0].seqs  # the paragraph before the lead-in is not part of the list


def test_a_call_out_between_list_items_does_not_cut_the_list():
    blocks = [Block("paragraph", "Our segments:", seq=0), Block("list_item", "Industrial", seq=1),
              Block("callout", "New in 2023", seq=2, anchor=1), Block("list_item", "Health Care", seq=3)]
    chunks = blocks_to_chunks(blocks, S)
    listed = next(c for c in chunks if c.role == "body")
    assert listed.seqs == (0, 1, 3) and listed.text == "Our segments:\nIndustrial\nHealth Care"
    assert chunks[next(c for c in chunks if c.role == "callout").anchor] is listed


def test_table_whole_with_its_caption_or_split_with_the_header_in_every_part():
    small = [para(0, 10), Block("caption", "Table 1. Revenue", seq=1), Block("table", table_text(2), seq=2)]
    chunks = blocks_to_chunks(small, S)
    table = [c for c in chunks if c.role == "table"]
    assert len(table) == 1 and table[0].seqs == (1, 2) and table[0].text.startswith("Table 1. Revenue\n\n| | 2023")
    big = [Block("paragraph", "Revenue by line:", seq=0), Block("table", table_text(30), seq=1)]
    parts = blocks_to_chunks(big, S)
    assert len(parts) > 1 and all(c.role == "table" for c in parts)
    for c in parts:
        assert c.text.startswith("Revenue by line:\n\n| | 2023 | 2022 |\n|---|---|---|\n| | Net sales")
        assert c.tokens <= S.max_tokens
    rows = [line for c in parts for line in c.text.splitlines() if line.startswith("| Item")]
    assert len(rows) == 30 and len(set(rows)) == 30  # every row once


def test_a_split_table_repeats_its_title_lines_from_the_same_page_not_a_sentence_before_them():
    title = [Block("paragraph", "Consolidated Statements of Cash Flows", seq=1, page=3),
             Block("paragraph", "(in millions)", seq=2, page=3)]
    blocks = [Block("paragraph", "Cash flows are shown below.", seq=0, page=3), *title,
              Block("table", table_text(30), seq=3, page=3)]
    parts = [c for c in blocks_to_chunks(blocks, S) if c.role == "table"]
    assert len(parts) > 1
    for c in parts:
        assert c.text.startswith("Consolidated Statements of Cash Flows\n\n(in millions)\n\n| | 2023 | 2022 |")
        assert 0 not in c.seqs and c.tokens <= S.max_tokens
    # a line on the page before, or one that ends a sentence, is no title of the table
    elsewhere = [Block("paragraph", "Consolidated Statements of Cash Flows", seq=1, page=2),
                 Block("table", table_text(2), seq=2, page=3)]
    assert [c.seqs for c in blocks_to_chunks(elsewhere, S)] == [(1,), (2,)]
    sentence = [Block("paragraph", "Revenue grew in every segment.", seq=1, page=3),
                Block("table", table_text(2), seq=2, page=3)]
    assert [c.seqs for c in blocks_to_chunks(sentence, S)] == [(1,), (2,)]


def test_a_statements_unit_and_year_rows_are_its_header_but_a_section_label_is_data():
    statement = "\n".join(["| Consolidated Statements of Income | | |", "|---|---|---|",
                           "| ($ in millions) | | |", "| For the years ended June 30, | 2023 | 2022 |"]
                          + [f"| Item {i} revenue line | {100 + i} | {90 + i} |" for i in range(30)])
    parsed = parse_markdown_table(statement, 4)
    assert [r[0] for r in parsed.header_cells] == [
        "Consolidated Statements of Income", "($ in millions)", "For the years ended June 30,"]
    parts = blocks_to_chunks([Block("table", statement, seq=0)], S)
    assert len(parts) > 1
    for c in parts:
        assert "| For the years ended June 30, | 2023 | 2022 |" in c.text
        assert "For the years ended June 30, 2023 2022" in c.embed_text  # the header in every part
    sections = parse_markdown_table("| | 2023 |\n|---|---|\n| Current assets | |\n| Cash | 5 |", 4)
    assert [r[0] for r in sections.row_cells] == ["Current assets", "Cash"]


def test_embed_text_writes_a_table_as_its_labels_or_with_each_value_beside_its_labels():
    text = "| | Three months ended | |\n|---|---|---|\n| | 2023 | 2022 |\n| Net sales | $ 1,200 | 1,100 |"
    out = linearized_table(text)
    assert "|" not in out and "---" not in out
    assert "Net sales: 2023 $ 1,200, 2022 1,100" in out and out.startswith("Three months ended")
    blocks = [Block("paragraph", "Consolidated Statements of Income", seq=0), Block("table", text, seq=1),
              Block("caption", "Source: segment reports", seq=2)]
    default = blocks_to_chunks(blocks, S)[0]  # figures left out: title, labels, years, caption
    assert default.text.startswith("Consolidated Statements of Income\n\n" + text)
    assert default.embed_text == ("Consolidated Statements of Income\n\nThree months ended\n2023 2022\nNet sales"
                                  "\n\nSource: segment reports")
    figures = blocks_to_chunks(blocks, ChunkSettings(max_tokens=60, embed_table_figures=True))[0]
    assert figures.text == default.text and "Net sales: 2023 $ 1,200, 2022 1,100" in figures.embed_text
    assert figures.boxes == default.boxes  # the setting changes the embedded form only


def test_labels_only_keeps_labels_words_and_years_of_table_rows_and_every_other_line():
    assert [is_figure(c) for c in ("$ 5,363", "(1,577)", "3.6 %", "-", "\u2014", "$", "", "2018", "Net sales",
                                   "Note 16", "1,577 million")] == [True] * 7 + [False] * 4
    text = ("Balance Sheet\n\n| (Millions) | 2018 | 2017 |\n|---|---|---|\n| Current assets | | |\n"
            "| Cash | $ 2,853 | $ 3,053 |\n| | 12 | 14 |\n| Status | Active | Closed |")
    assert labels_only(text) == "Balance Sheet\n\n(Millions) 2018 2017\nCurrent assets\nCash\nStatus Active Closed"


def test_a_fallback_table_keeps_its_captions():
    blocks = [Block("table", "A table we could not align: a b c", seq=0), Block("caption", "Source: staff", seq=1)]
    chunks = blocks_to_chunks(blocks, S)
    assert [q for c in chunks for q in c.seqs] == [0, 1] and all(c.role == "table" for c in chunks)


def test_a_first_row_of_data_is_no_header():
    parsed = parse_markdown_table("| Industrial | 3.6 % | 4.4 % |\n|---|---|---|\n| Safety | 5.1 | 7.3 |", 4)
    assert parsed is not None and parsed.header_cells == () and len(parsed.rows) == 2
    assert parse_markdown_table("A table we could not align: a b c", 4) is None


def test_callouts_and_footnotes_are_their_own_chunks_anchored_or_appended():
    blocks = [head(0, "H"), para(1, 20), Block("callout", "Key figure: 42", seq=2, anchor=1), para(3, 10),
              Block("footnote", "1 Restated.", seq=4, anchor=3), head(5, "Next"), para(6, 10)]
    own = blocks_to_chunks(blocks, S)
    callout = next(c for c in own if c.role == "callout")
    note = next(c for c in own if c.role == "footnote")
    assert 1 in own[callout.anchor].seqs and 3 in own[note.anchor].seqs
    body = [c for c in own if c.role == "body"]
    assert body[0].seqs == (0, 1, 3)  # the call-out did not cut the section's text
    appended = blocks_to_chunks(blocks, ChunkSettings(max_tokens=60, footnotes="append"))
    assert not any(c.role == "footnote" for c in appended)
    host = next(c for c in appended if 4 in c.seqs)
    assert host.text.endswith("1 Restated.") and "footnotes_appended" in host.flags
    anchored = next(c for c in appended if c.role == "callout")
    assert 1 in appended[anchored.anchor].seqs  # anchors renumbered after the footnote left


def test_only_kept_chunkable_blocks_and_nothing_lost():
    blocks = [para(0, 10), Block("paragraph", "Page 3", seq=1, drop_reason="page_number"),
              Block("comment", "fix this", seq=2), Block("paragraph", "   ", seq=3), para(4, 10)]
    chunks = blocks_to_chunks(blocks, S)
    assert [q for c in chunks for q in c.seqs] == [0, 4]
    assert "Page 3" not in chunks[0].text and "fix this" not in chunks[0].text


def test_provenance_pages_and_boxes():
    chunks = blocks_to_chunks([para(0, 10, page=1), para(1, 10, page=2)], S)
    assert chunks[0].pages == (1, 2)
    assert [(q, p) for q, p, _ in chunks[0].boxes] == [(0, 1), (1, 2)] and chunks[0].boxes[1][2] == BBox(10, 10, 100, 18)


def test_chunk_ids_stable_and_distinct():
    blocks = [head(0, "A"), para(1, 10), head(2, "B"), para(3, 10)]
    first = chunk_ids("doc", blocks_to_chunks(blocks, S))
    assert first == chunk_ids("doc", blocks_to_chunks(list(reversed(blocks)), S))  # order of input irrelevant
    renumbered = [Block(b.kind, b.text, seq=b.seq + 5, level=b.level) for b in blocks]
    assert chunk_ids("doc", blocks_to_chunks(renumbered, S)) == first  # seqs are no part of the id
    assert chunk_ids("other", blocks_to_chunks(blocks, S)) != first
    twice = [head(0, "A"), para(1, 10), head(2, "A"), para(3, 10, tag="w")]
    ids = chunk_ids("doc", blocks_to_chunks(twice, S))
    assert len(set(ids)) == len(ids)


def test_tokenizer_file_counts_its_own_tokens(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tok = tokenizers.Tokenizer(WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()  # splits punctuation off: "a,b" is three tokens
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    assert token_counter(str(path))("a,b c") == 4 and token_counter("words")("a,b c") == 2
    chunks = blocks_to_chunks([Block("paragraph", "x, " * 50, seq=0)], ChunkSettings(max_tokens=60, tokenizer=str(path)))
    assert len(chunks) == 2  # 100 tokens by the file, 50 by words


def test_settings_validated():
    with pytest.raises(ValueError, match="footnotes"):
        ChunkSettings(footnotes="inline")
    with pytest.raises(ValueError, match="max_tokens"):
        ChunkSettings(max_tokens=4)
    assert Settings.from_dict({"chunk": {"max_tokens": 300}}).chunk.max_tokens == 300


def test_headings_that_fill_a_budget_never_shrink_the_parts_under_them_to_words():
    # a run of 8 bold clauses of 10 words each taken for headings (80 tokens, over the 60 budget), then a
    # 90-word paragraph with no sentence seam: parts of at least half the budget, the headings in the first
    heads = [head(i, " ".join(f"clause{i}w{k}" for k in range(10)), 3) for i in range(8)]
    run_on = Block("paragraph", " ".join(f"word{k}" for k in range(90)), seq=8)
    chunks = blocks_to_chunks([*heads, run_on], S)
    assert 2 <= len(chunks) <= 3 and all(c.tokens >= S.max_tokens // 2 for c in chunks)
    assert chunks[0].text.startswith(heads[0].text) and all(h.text not in c.text for c in chunks[1:] for h in heads)
    assert " ".join(" ".join(c.text.split("\n\n")[-1:]) for c in chunks).split() == run_on.text.split()
    # only the first part carries the headings and runs over the budget
    assert chunks[0].tokens > S.max_tokens and all(c.tokens <= S.max_tokens for c in chunks[1:])


def test_a_table_under_long_headings_is_cut_into_parts_of_several_rows():
    heads = [head(i, " ".join(f"clause{i}w{k}" for k in range(10)), 3) for i in range(8)]
    table = Block("table", table_text(40), seq=8)
    parts = blocks_to_chunks([*heads, table], S)
    rows = [[line for line in c.text.splitlines() if line.startswith("| Item")] for c in parts]
    assert sum(map(len, rows)) == 40
    # each part holds rows for half the budget, two of these (before: one row a part, 40 parts)
    assert min(map(len, rows)) >= 2 and len(parts) <= 20
