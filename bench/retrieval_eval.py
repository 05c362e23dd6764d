"""The retrieval benchmark's pure parts: the common chunker, the two retrievers and page-hit recall.

Every system's page text is cut by the same chunker (`pages_to_chunks`) unless a row says it uses the
system's own chunks; both kinds of chunk are `Passage`s (a document, the pages it covers, its text).
"""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

# The common chunker's budget, in whitespace words: the size the issue measured with (~200 words is
# the middle of what RAG loaders default to: LangChain's 1,000 characters to LlamaIndex's 1,024 tokens).
COMMON_MAX_WORDS = 200
RECALL_KS = (1, 5, 10)
BOOTSTRAP_SAMPLES = 2000  # resamples of the questions for each 95% interval
_BLANK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Passage:
    """One retrievable chunk: its document, its 1-based pages, the text indexed (and the one BM25
    indexes, when a system writes a text for each: docclean's `lexical_text`)."""

    doc: str
    pages: tuple[int, ...]
    text: str
    lexical: str = ""

    @property
    def bm25_text(self) -> str:
        return self.lexical or self.text


@dataclass(frozen=True)
class Question:
    """One question: its filing and the 1-based pages that hold its evidence."""

    qid: str
    doc: str
    text: str
    pages: frozenset[int]


def _pieces(block: str, max_words: int) -> list[str]:
    """A block as it stands when it fits; else its lines packed, a line over the budget cut at words."""
    if len(block.split()) <= max_words:
        return [block]
    lines: list[str] = []
    for line in block.splitlines():
        words = line.split()
        lines.extend(" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words))
    return pack(lines, max_words)


def pack(blocks: Sequence[str], max_words: int, sep: str = "\n") -> list[str]:
    """Consecutive blocks joined while the total stays within max_words (a block is never cut here)."""
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for block in blocks:
        n = len(block.split())
        if n == 0:
            continue
        if cur and size + n > max_words:
            out.append(sep.join(cur))
            cur, size = [], 0
        cur.append(block)
        size += n
    if cur:
        out.append(sep.join(cur))
    return out


def page_blocks(text: str) -> list[str]:
    """A page's text as blocks: its blank-line paragraphs (a text layer without blank lines is one block
    that `_pieces` then packs by lines)."""
    return [b.strip() for b in _BLANK.split(text or "") if b.strip()]


def pages_to_chunks(doc: str, pages: Sequence[Sequence[str]], max_words: int = COMMON_MAX_WORDS) -> list[Passage]:
    """The common chunker: each page's blocks packed up to max_words, blocks kept whole where they fit,
    never across pages. `pages[i]` holds page i+1's blocks."""
    out = []
    for number, blocks in enumerate(pages, start=1):
        pieces = [p for b in blocks for p in _pieces(b, max_words)]
        out.extend(Passage(doc, (number,), text) for text in pack(pieces, max_words, sep="\n\n"))
    return out


def without_figures(passage: Passage) -> Passage:
    """A control for a text without table structure: the passage with every whitespace token that is a
    figure left out (chunk_tables.is_figure: amounts, percentages, lone symbols; years stay), which
    docclean's index texts do for its tables' cells only."""
    from docclean_assets.extract.chunk_tables import is_figure

    text = "\n".join(" ".join(w for w in line.split() if not is_figure(w)) for line in passage.text.splitlines())
    return Passage(passage.doc, passage.pages, text)


# --- retrievers: each returns, per question, the indices of the passages ranked best first -----------
def bm25_rank(passages: Sequence[Passage], queries: Sequence[str], k: int) -> list[list[int]]:
    """BM25 as `docclean search` runs it (bm25s, English stopwords, Snowball stemmer), top k per query."""
    from docclean_assets.pipeline.search import Bm25

    index = Bm25([p.bm25_text for p in passages])
    return [[i for i, _ in index.top(query, k)] for query in queries]


class Embedder:
    """wordllama's static word embeddings (l2_supercat, 256 dims), loaded from its wheel, no download."""

    def __init__(self) -> None:
        from pathlib import Path

        import wordllama

        # the wheel ships its weights and tokenizer; as cache_dir, the package folder is where
        # wordllama looks for both (its "project root" lookup misses the tokenizer's folder name)
        self.model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)

    def embed(self, texts: Sequence[str]):  # noqa: ANN201 - numpy array
        return self.model.embed(list(texts), norm=True)


def embedding_rank(vectors, query_vectors, k: int) -> list[list[int]]:  # noqa: ANN001 - numpy arrays
    """Cosine similarity (the vectors are unit length), top k per query."""
    import numpy as np

    if len(vectors) == 0:
        return [[] for _ in range(len(query_vectors))]
    scores = query_vectors @ vectors.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return [[int(i) for i in row] for row in top]


# --- scoring ---------------------------------------------------------------------------------------
def hit_ranks(questions: Sequence[Question], ranked: Sequence[Sequence[Passage]]) -> list[int | None]:
    """Per question, the 1-based rank of the first passage of its filing on an evidence page (None: none)."""
    out: list[int | None] = []
    for q, passages in zip(questions, ranked):
        out.append(next((r for r, p in enumerate(passages, start=1)
                         if p.doc == q.doc and q.pages.intersection(p.pages)), None))
    return out


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of questions whose first hit is within the top k."""
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def bootstrap_interval(values: Sequence[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the mean over question resamples."""
    if not values:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    return (means[int(0.025 * samples)], means[min(samples - 1, int(0.975 * samples))])


def recall_table(ranks: Sequence[int | None], ks: Sequence[int] = RECALL_KS) -> dict[str, dict]:
    """recall@k with its bootstrap interval, per k."""
    out = {}
    for k in ks:
        hits = [1.0 if r is not None and r <= k else 0.0 for r in ranks]
        lo, hi = bootstrap_interval(hits)
        out[f"r@{k}"] = {"value": round(recall_at(ranks, k), 3), "ci95": [round(lo, 3), round(hi, 3)]}
    return out


def paired_difference(a: Sequence[int | None], b: Sequence[int | None], k: int) -> dict:
    """recall@k of a minus b on the same questions, with a paired bootstrap interval."""
    diffs = [float(x is not None and x <= k) - float(y is not None and y <= k) for x, y in zip(a, b)]
    lo, hi = bootstrap_interval(diffs)
    return {"value": round(sum(diffs) / len(diffs), 3) if diffs else 0.0, "ci95": [round(lo, 3), round(hi, 3)]}


# --- furniture left in the chunks -------------------------------------------------------------------
EDGE_LINES = 3  # lines at the top and at the bottom of a page's raw text layer searched for furniture
FURNITURE_MIN_PAGES = 5  # a line there on at least this many pages of a filing (digits as '#') is furniture
_DIGITS = re.compile(r"\d+")


def line_pattern(line: str) -> str:
    """A line compared across pages: case-folded, spaces collapsed, digit runs as '#'."""
    return _DIGITS.sub("#", " ".join(line.split()).casefold())


def furniture_patterns(page_texts: Sequence[str]) -> set[str]:
    """The lines of a filing's raw text layer that open or close at least FURNITURE_MIN_PAGES pages:
    its running heads, feet and page numbers, found independently of every system measured."""
    seen: dict[str, set[int]] = {}
    for number, text in enumerate(page_texts):
        lines = [ln for ln in (text or "").splitlines() if ln.strip()]
        for ln in lines[:EDGE_LINES] + lines[-EDGE_LINES:]:
            seen.setdefault(line_pattern(ln), set()).add(number)
    return {p for p, where in seen.items() if len(where) >= FURNITURE_MIN_PAGES and p.strip("# ")}


def furniture_share(passages: Sequence[Passage], patterns: dict[str, set[str]]) -> float:
    """Share of the passages' words on lines (or blocks) that are one of their filing's furniture lines."""
    total = found = 0
    for p in passages:
        known = patterns.get(p.doc, set())
        for line in p.text.splitlines():
            n = len(line.split())
            total += n
            if n and line_pattern(line) in known:
                found += n
    return found / total if total else 0.0
