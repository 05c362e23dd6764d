"""Stage 8: pull quotes, display text that repeats the body, relabelled `pull_quote` (out of the body,
kept in the table) with the body block and offset it repeats.

Matching is on a hard normalisation (compatibility forms and ligatures folded, case folded,
decorative quotes removed, dashes and ellipses unified, whitespace collapsed) that keeps, for every
normalised character, its offset in the block's original text. An exact match comes first; an
abridged quote matches when its pieces between ellipses occur in order within one short passage, or
when `pull_quote_min_overlap` of its words occur in order in one passage of about its length. Display
text that matches nothing stays what it was (a heading or a paragraph).
"""
from __future__ import annotations

import heapq
import re
import unicodedata
from difflib import SequenceMatcher
from typing import NamedTuple

from docclean_assets.extract.normalize import LINE_BREAK_HYPHEN
from docclean_assets.extract.pdf.model import PBlock
from docclean_assets.extract.pdf.settings import PdfSettings

_QUOTES = frozenset("\"'`\u00ab\u00bb\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2039\u203a\u300c\u300d")
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212")
_ELLIPSIS = re.compile(r"\.\s*\.\s*\.|\u2026|\[\.\.\.\]")
_WORD = re.compile(r"\w+")
DISPLAY_KINDS = ("heading", "paragraph", "callout")


class Folded(NamedTuple):
    """Hard-normalised text and, per character, its offset in the original."""

    text: str
    offsets: list[int]


def fold(text: str) -> Folded:
    """`text` hard-normalised for matching, keeping each character's original offset."""
    out: list[str] = []
    offs: list[int] = []
    space = True
    for i, ch in enumerate(text):
        if ch == LINE_BREAK_HYPHEN or ch in _QUOTES:
            continue
        if ch in _DASHES:
            ch = "-"
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if c.isspace():
                if not space:
                    out.append(" ")
                    offs.append(i)
                space = True
            else:
                out.append(c)
                offs.append(i)
                space = False
    while out and out[-1] == " ":
        out.pop()
        offs.pop()
    return Folded("".join(out), offs)


class _Pool(NamedTuple):
    """The body text of a page window: folded, with the block and original offset of each char."""

    text: str
    block: list[PBlock | None]
    offset: list[int]


def _pool(blocks: list[PBlock]) -> _Pool:
    parts: list[str] = []
    owner: list[PBlock | None] = []
    offset: list[int] = []
    for b in blocks:
        f = fold(b.text)
        if not f.text:
            continue
        parts.append(f.text + " ")
        owner.extend([b] * len(f.text))
        offset.extend(f.offsets)
        owner.append(None)
        offset.append(-1)
    return _Pool("".join(parts), owner, offset)


class Match(NamedTuple):
    """Where a quote was found in the body pool and how."""

    start: int  # index in the pool text
    how: str  # exact | abridged | overlap
    score: float  # fraction of the quote's words found


def _find(quote: str, pool: str, s: PdfSettings) -> Match | None:
    """The first passage of `pool` that `quote` (folded) repeats, exactly or abridged."""
    core = _ELLIPSIS.sub(" ", quote).strip()
    k = pool.find(core)
    if k >= 0:
        return Match(k, "exact", 1.0)
    pieces = [p.strip() for p in _ELLIPSIS.split(quote) if _WORD.search(p)]
    if len(pieces) > 1:
        start = _abridged(pieces, pool, s.pull_quote_abridged_span_factor * len(quote))
        if start is not None:
            return Match(start, "abridged", 1.0)
    return _overlap(quote, pool, s)


def _abridged(pieces: list[str], pool: str, span: float) -> int | None:
    """The first start of `pieces[0]` in `pool` after which the other pieces follow in order within
    `span` characters. Each piece's next occurrence only moves forward as the start does, so it is
    searched again only once passed: the pool is scanned once per piece, not once per start."""
    after = [-1] * len(pieces)  # the first occurrence of each piece at or after the last position asked
    start = pool.find(pieces[0])
    while start >= 0:
        pos = start + len(pieces[0])
        for j in range(1, len(pieces)):
            if after[j] < pos:
                after[j] = pool.find(pieces[j], pos)
                if after[j] < 0:
                    return None  # nowhere after this start, so after no later one either
            if after[j] - start > span:
                break
            pos = after[j] + len(pieces[j])
        else:
            return start
        start = pool.find(pieces[0], start + 1)
    return None


def _overlap(quote: str, pool: str, s: PdfSettings) -> Match | None:
    """The best passage holding at least `pull_quote_min_overlap` of the quote's words in order."""
    qwords = _WORD.findall(quote)
    spans = [(m.start(), m.group()) for m in _WORD.finditer(pool)]
    if not qwords or not spans:
        return None
    words = [w for _s, w in spans]
    qset = set(qwords)
    window = max(int(s.pull_quote_overlap_window_factor * len(qwords)), len(qwords))
    need = s.pull_quote_min_overlap * len(qwords)
    held = [0]  # held[i]: words of the quote among the pool's first i words
    for w in words:
        held.append(held[-1] + (w in qset))
    counts = {i: held[min(i + window, len(words))] - held[i] for i, w in enumerate(words) if w in qset}
    starts = [i for i, n in counts.items() if n >= need]  # in pool order
    if len(starts) > s.pull_quote_overlap_max_passages:
        starts = sorted(heapq.nlargest(s.pull_quote_overlap_max_passages, starts, key=lambda i: (counts[i], -i)))
    best: Match | None = None
    for i in starts:
        cand = words[i:i + window]
        got = sum(m.size for m in SequenceMatcher(None, qwords, cand, autojunk=False).get_matching_blocks())
        if got >= need and (best is None or got / len(qwords) > best.score):
            best = Match(spans[i][0], "overlap", got / len(qwords))
    return best


_SECTION_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*|[IVXLC]+|[A-Z])[.)]?\s+\S")
_LONG_WORD = re.compile(r"[^\W\d_]{4,}")


def _heading_like(text: str, s: PdfSettings) -> bool:
    """True for a numbered section heading or title-case text: the body names a section ("see
    Community Income"), a pull quote repeats a sentence, which is set in sentence case."""
    if _SECTION_NUMBER.match(text):
        return True
    long_words = _LONG_WORD.findall(text)
    caps = sum(1 for w in long_words if w[0].isupper())
    return bool(long_words) and caps / len(long_words) > s.pull_quote_max_title_case_share


class PullQuotes(NamedTuple):
    """The pages with their pull quotes relabelled, and how many there are."""

    pages: list[list[PBlock]]
    count: int


def pages_to_pull_quotes(pages: list[list[PBlock]], body_size: float, s: PdfSettings) -> PullQuotes:
    """The pages with each display block that repeats body text of its page or the pages around it
    relabelled `pull_quote` (a copy: anchor and offset of the match in `anchor_to` and `extra`); the
    other blocks as they are."""
    big = s.pull_quote_min_size_ratio * body_size
    window = s.pull_quote_page_window
    display = [
        [
            b for b in blocks
            if b.drop_reason is None and b.kind in DISPLAY_KINDS and b.size >= big and not b.is_form
            and s.pull_quote_min_tokens <= len(_WORD.findall(fold(b.text).text)) <= s.pull_quote_max_tokens
            and not _heading_like(b.text, s)
        ]
        for blocks in pages
    ]
    if not any(display):
        return PullQuotes(pages, 0)
    prose = [
        [b for b in blocks if b.drop_reason is None and b.kind in ("paragraph", "list_item") and b.size < big]
        for blocks in pages
    ]
    quotes: dict[int, PBlock] = {}  # id(display block) -> its pull-quote copy
    for p, cands in enumerate(display):
        if not cands:
            continue
        pool = _pool([b for q in range(max(0, p - window), min(len(pages), p + window + 1)) for b in prose[q]])
        for b in cands:
            m = _find(fold(b.text).text, pool.text, s)
            if m is None:
                continue
            k = m.start
            while k < len(pool.block) and pool.block[k] is None:
                k += 1
            if k >= len(pool.block):
                continue
            extra = (("matched_offset", str(pool.offset[k])), ("match", m.how), ("match_score", f"{m.score:.2f}"))
            quotes[id(b)] = b.relabel(kind="pull_quote", level=None, anchor_to=pool.block[k], extra=(*b.extra, *extra))
    return PullQuotes([[quotes.get(id(b), b) for b in blocks] for blocks in pages], len(quotes))
