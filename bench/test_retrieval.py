"""Unit tests of the retrieval bench's pure parts: the common chunker, page placement, ranks and recall."""
from __future__ import annotations

from bench.retrieval_eval import (
    Embedder,
    Passage,
    Question,
    bm25_rank,
    bootstrap_interval,
    embedding_rank,
    hit_ranks,
    page_blocks,
    pages_to_chunks,
    paired_difference,
    recall_at,
    recall_table,
    without_figures,
)
from bench.retrieval_pages import markdown_to_pages


def _words(n: int, word: str = "w") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


def test_common_chunker_packs_blocks_whole_and_never_across_pages():
    page1 = [_words(120, "a"), _words(60, "b"), _words(50, "c")]
    page2 = [_words(10, "d")]
    chunks = pages_to_chunks("doc", [page1, page2], max_words=200)
    assert [c.pages for c in chunks] == [(1,), (1,), (2,)]
    assert chunks[0].text == page1[0] + "\n\n" + page1[1]  # 180 words; the 50 more would pass 200
    assert chunks[1].text == page1[2]
    assert chunks[2].text == page2[0]  # page 1's last chunk had room, but a chunk never crosses a page


def test_common_chunker_cuts_a_block_over_budget_at_lines_then_words():
    block = "\n".join([_words(150, "x"), _words(150, "y"), _words(450, "z")])
    chunks = pages_to_chunks("doc", [[block]], max_words=200)
    assert all(len(c.text.split()) <= 200 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == block.split()  # nothing lost, order kept
    assert chunks[0].text == _words(150, "x")  # the first line whole: the second would pass the budget


def test_page_blocks_splits_at_blank_lines_only():
    assert page_blocks("a b\nc\n\n  \nd e\n") == ["a b\nc", "d e"]
    assert page_blocks("") == []


def test_markdown_is_placed_on_the_page_holding_its_first_words():
    pages = ["Cover page\nFORM 10-K", "Item 7. Management discussion\nRevenue grew 5%", "Balance sheet\nCash 10"]
    md = "# FORM 10-K\n\nCover page\n\n## Management discussion\n\nRevenue grew 5%\n\n**Balance sheet**\n\nUnplaced text"
    out = markdown_to_pages(md, pages)
    assert len(out) == 3
    assert "Cover page" in out[0] and "Revenue grew" in out[1]
    assert out[2] == "**Balance sheet**\n\nUnplaced text"  # a block found nowhere stays on the current page
    assert "Revenue grew" not in out[0]


def test_hit_rank_is_the_first_passage_of_the_filing_on_an_evidence_page():
    q = Question("q1", "A", "?", frozenset({5}))
    ranked = [[Passage("B", (5,), "x"), Passage("A", (4,), "y"), Passage("A", (4, 5), "z")]]
    assert hit_ranks([q], ranked) == [3]  # page 5 of another filing is no hit
    assert hit_ranks([q], [[Passage("A", (6,), "y")]]) == [None]


def test_recall_and_intervals():
    ranks = [1, 3, None, 7]
    assert recall_at(ranks, 1) == 0.25
    assert recall_at(ranks, 5) == 0.5
    assert recall_at(ranks, 10) == 0.75
    table = recall_table(ranks)
    assert table["r@5"]["value"] == 0.5
    lo, hi = table["r@5"]["ci95"]
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert bootstrap_interval([1.0] * 10) == (1.0, 1.0)
    diff = paired_difference([1, 1, 1, None], [None, None, 1, None], 5)
    assert diff["value"] == 0.5 and diff["ci95"][0] >= 0.0


def test_bm25_ranks_the_passage_with_the_question_terms_first():
    passages = [Passage("A", (1,), "cash flow statement purchases of property"),
                Passage("A", (2,), "risk factors competition"),
                Passage("A", (3,), "the and of")]
    assert bm25_rank(passages, ["risk factors"], 3) == [[1]]  # only passages scoring above zero
    assert bm25_rank(passages, ["the of"], 3) == [[]]  # stopwords only: nothing to match


def test_embeddings_load_offline_from_the_wheel_and_rank_by_meaning():
    embedder = Embedder()  # raises if wordllama would have to download anything
    vectors = embedder.embed(["quarterly revenue and net income", "the dog chased a ball in the park"])
    query = embedder.embed(["how much money did the company earn"])
    assert embedding_rank(vectors, query, 2) == [[0, 1]]


def test_furniture_is_what_opens_or_closes_enough_pages_and_its_share_is_counted():
    from bench.retrieval_eval import furniture_patterns, furniture_share

    body = "\n".join(f"body sentence number {k} about something" for k in range(8))
    pages = [f"Table of Contents\n{body}\nPfizer Inc. 2021 Form 10-K {i}" for i in range(6)]
    pages[0] = pages[0].replace("body sentence number 0", "a cover line")
    patterns = furniture_patterns(pages)
    assert "table of contents" in patterns and "pfizer inc. # form #-k #" in patterns
    assert "body sentence number # about something" in patterns  # inside the edge lines of 6 pages: repeated
    assert "a cover line about something" not in patterns  # on one page only
    assert furniture_patterns(pages[:4]) == set()  # on too few pages
    passages = [Passage("d", (1,), "Table of Contents\nRevenue grew five percent")]
    assert furniture_share(passages, {"d": patterns}) == 3 / 7
    assert furniture_share(passages, {}) == 0.0


def test_the_control_leaves_figures_out_of_a_raw_text_and_keeps_words_and_years():
    raw = Passage("A", (4,), "Net sales $ 34,229 $ 35,355\nPurchases of PP&E (1,577) 2018 3.6 % -")
    assert without_figures(raw) == Passage("A", (4,), "Net sales\nPurchases of PP&E 2018")


def test_differences_set_docclean_against_the_best_system_and_apart_from_the_control():
    from bench.retrieval import differences

    def row(ranks):
        return {"eval": {"bm25/filing": {"ranks": ranks, "r@5": {"value": recall_at(ranks, 5)}}}}

    rows = {"docclean chunks": row([1, 2, None, None]), "docclean blocks, common chunker": row([1, 1, 1, 1]),
            "pypdfium2 5": row([1, None, None, None]), "kreuzberg 4": row([None, None, None, None]),
            "control: pypdfium2 5, figures left out": row([1, 1, 1, None])}
    out = differences(rows)
    assert set(out) == {"bm25 r@5, docclean chunks - pypdfium2 5",
                        "bm25 r@5, docclean chunks - control: pypdfium2 5, figures left out"}
    assert out["bm25 r@5, docclean chunks - pypdfium2 5"]["value"] == 0.25  # the best other system, not the control
    assert out["bm25 r@5, docclean chunks - control: pypdfium2 5, figures left out"]["value"] == -0.25
