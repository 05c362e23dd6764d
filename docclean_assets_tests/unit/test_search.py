"""BM25 over chunks (pipeline/search.py): the analysis and the text each chunk is indexed by."""
import pyarrow as pa

from docclean_assets.pipeline.search import Bm25, lexical_text, search


def test_bm25_stems_so_a_question_finds_the_inflected_words_of_a_filing():
    texts = ["Consolidated Statements of Cash Flows", "cash and cash equivalents, cash on hand", "risk factors"]
    top = Bm25(texts).top("cash flow statement", 3)
    assert [i for i, _ in top] == [0, 1]  # flows/flow and statements/statement are one term each
    assert top[0][1] > top[1][1] > 0


def test_bm25_matches_nothing_on_stopwords_or_an_empty_index():
    assert Bm25(["the annual report"]).top("the of and", 5) == []
    assert Bm25([]).top("revenue", 5) == []
    assert Bm25(["the of", "and"]).top("revenue", 5) == []  # a corpus of stopwords: no index, no error
    assert Bm25(["revenue rose"]).top("revenue", 0) == []


def test_lexical_text_puts_the_heading_path_the_text_does_not_open_with_first():
    path = ["Annual Report", "Liquidity and Capital Resources"]
    assert lexical_text(path, "Cash rose.") == "Annual Report > Liquidity and Capital Resources\n\nCash rose."
    opened = "Liquidity and Capital Resources\n\nCash rose."  # a chunk that opens its section
    assert lexical_text(path, opened) == "Annual Report\n\n" + opened
    assert lexical_text([], "Cash rose.") == lexical_text(None, "Cash rose.") == "Cash rose."
    table = "Segment results\n\n| | 2023 |\n|---|---|\n| Revenue | $ 5,120 |"
    assert lexical_text(["Results"], table, "body") == "Results\n\n" + table  # text as it is, but for tables
    assert lexical_text(["Results"], table, "table") == "Results\n\nSegment results\n\n2023\nRevenue"


def test_search_finds_a_chunk_by_its_heading_path_and_returns_its_row():
    rows = {"path": ["a.pdf", "a.pdf"], "chunk_index": [0, 1], "heading_path": [["Report", "Liquidity"], ["Report", "Risks"]],
            "text": ["Cash rose to 4.2 billion.", "Demand may fall."], "pages": [[3], [7]]}
    hits = search(pa.table(rows), "liquidity", k=5)
    assert [h.row["chunk_index"] for h in hits] == [0]
    assert hits[0].row["pages"] == [3] and hits[0].score > 0


def test_search_finds_a_table_by_its_labels_though_its_figures_are_long():
    figures = " | ".join(f"{1000 + i:,}" for i in range(40))
    table = f"| | 2023 | 2022 |\n|---|---|---|\n| Cost of sales | {figures} |"
    rows = {"path": ["a.pdf"] * 2, "chunk_index": [0, 1], "heading_path": [["Report"]] * 2, "role": ["table", "body"],
            "text": [table, "Cost of sales rose on freight; sales grew in every region this year."], "pages": [[5], [6]]}
    hits = search(pa.table(rows), "cost of sales", k=2)
    assert [h.row["chunk_index"] for h in hits][0] == 0  # its 40 amounts do not lengthen the table in BM25's eyes
    assert [h.row["chunk_index"] for h in search(pa.table({**rows, "role": ["body"] * 2}), "cost of sales", k=2)][0] == 1
