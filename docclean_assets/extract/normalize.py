"""The normalisation pass, all formats: ligatures, quotes, dashes, invisible characters,
whitespace, line-break hyphens (also across a column or page break). `orig_text` keeps what the
backend read."""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

from docclean_assets.extract.continuations import blocks_to_joined_paragraphs
from docclean_assets.extract.model import LINE_BREAK_HYPHEN, Block, Kind
from docclean_assets.extract.settings import NormalizeSettings

_LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
_QUOTES = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
}
# Hyphen and dash variants to ASCII: hyphen, non-breaking hyphen, figure dash, en dash, minus sign;
# em and horizontal-bar dashes separate clauses, so they become a spaced hyphen.
_DASHES = {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-", "\u2014": " - ", "\u2015": " - "}
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
_SPACES = {ord(c): " " for c in "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\t"}
# Control codes a backend passes on for a glyph its font maps to nothing (a check box drawn from a
# symbol font reads as NUL): the unreadable-glyph mark, never a control code in the text (PostgreSQL
# text refuses NUL; JSON and XML writers escape or reject the rest). Line breaks, tabs, vertical
# tabs and form feeds are whitespace and stay.
_CONTROLS = {chr(c): "\ufffd" for c in [*range(0x00, 0x09), *range(0x0e, 0x20), *range(0x7f, 0xa0)]}
_TABLE = str.maketrans({**_LIGATURES, **_QUOTES, **_DASHES, **_CONTROLS})
# The three tables above applied in turn, as one table (each key's result through all three): one pass.
_CLEAN = {k: chr(k).translate(_TABLE).translate(_INVISIBLE).translate(_SPACES)
          for k in {*_TABLE, *_INVISIBLE, *_SPACES}}
_WORD = re.compile(r"[^\W\d_]+(?:[-\u00ad][^\W\d_]+)*", re.UNICODE)
# A match can only start where a run of letters starts (the look-behind), and no quantifier gives
# back what it took (possessive): linear on a 200,000-letter token, where trying every start inside
# the run was quadratic. Letters never match U+00AD or a space, so the matches are the same.
_BROKEN = re.compile(r"(?<![^\W\d_])([^\W\d_]++)\u00ad\s*+([^\W\d_]++)", re.UNICODE)
# Kinds whose line structure is meaning (Markdown tables, code, the paragraphs of a call-out panel):
# only spaces within lines are touched.
_LINE_KINDS = frozenset({Kind.TABLE, Kind.CODE, Kind.CALLOUT})


def clean_chars(text: str) -> str:
    """Expand ligatures, straighten quotes and dashes, remove zero-width characters, unify spaces,
    mark control codes as unreadable glyphs."""
    return text.translate(_CLEAN)


def collapse_whitespace(text: str, keep_lines: bool) -> str:
    """Runs of spaces to one; newlines kept only when the block's lines carry meaning."""
    if keep_lines:
        lines = (re.sub(r" {2,}", " ", line).strip() for line in text.split("\n"))
        return "\n".join(line for line in lines if line)
    return " ".join(text.split())  # str.split() and re's \s agree on what whitespace is


def vocabulary(texts: Iterable[str]) -> Counter[str]:
    """Lower-cased word counts of a document, with line-break hyphens still in place."""
    counts: Counter[str] = Counter()
    for text in texts:
        for word in _WORD.findall(text):
            if LINE_BREAK_HYPHEN not in word:
                counts[word.lower()] += 1
    return counts


@lru_cache(maxsize=8)
def word_plausibility(languages: tuple[str, ...]) -> Callable[[str], float]:
    """Zipf frequency of a word in the most familiar of `languages` (0 when unknown to all)."""
    from wordfreq import zipf_frequency

    @lru_cache(maxsize=65536)
    def zipf(word: str) -> float:
        return max(zipf_frequency(word, lang) for lang in languages)

    return zipf


def dehyphenate(text: str, vocab: Counter[str], s: NormalizeSettings | None = None) -> str:
    """Join "distri-|bution", keep "well-|known": the document's own spelling decides first, then
    word frequencies (wordfreq), then the case of the continuation."""
    if LINE_BREAK_HYPHEN not in text:  # nothing to join or drop (most blocks)
        return text
    s = s or NormalizeSettings()

    def join(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        joined, hyphenated = (left + right).lower(), f"{left}-{right}".lower()
        if vocab[hyphenated] != vocab[joined]:
            keep = vocab[hyphenated] > vocab[joined]
        else:
            zipf = word_plausibility(s.languages)
            zj, zh = zipf(joined), zipf(hyphenated)
            if zj or zh:
                keep = zh > zj + s.keep_hyphen_margin_zipf
            else:  # unknown both ways: a lower-case continuation is syllabification
                keep = right[:1].isupper()
        return f"{left}-{right}" if keep else left + right

    return _BROKEN.sub(join, text).replace(LINE_BREAK_HYPHEN, "")


# "af ected": letters ending in "f", one space, lower-case letters; whole words only.
_MAX_ZIPF = 7.8  # above "the", the most frequent word wordfreq knows (7.73 in English)
_LOST_LIGATURE = re.compile(r"(?<![^\W\d_])([^\W\d_]*f) ([a-z]++)(?![^\W\d_])")


def relink_ligatures(text: str, s: NormalizeSettings) -> str:
    """Make "af ected" whole again ("affected"): a ligature glyph mapped to a single "f" leaves one
    letter out and a gap in; word frequencies decide (see `lost_ligature_min_zipf`)."""
    if "f " not in text:
        return text
    zipf = word_plausibility(s.languages)
    floor, margin = s.lost_ligature_min_zipf, s.lost_ligature_margin_zipf

    def join(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        zr = zipf(right)
        if zr + margin > _MAX_ZIPF:  # no word is that frequent: "of the" costs one cached lookup
            return m.group(0)
        joined = left + "f" + right
        zj = zipf(joined.lower())
        return joined if zj >= floor and zj >= zr + margin else m.group(0)

    return _LOST_LIGATURE.sub(join, text)


# "ofDecember": two or more lower-case letters run into a capitalised word; whole tokens only.
_GLUED = re.compile(r"(?<![^\W\d_])([a-z]{2,})([A-Z][a-z]+)(?![^\W\d_])")


def split_glued_words(text: str, s: NormalizeSettings) -> str:
    """Split "ofDecember" into "of December" where word frequencies say two words were run together
    (see `glued_left_min_zipf`)."""
    zipf = word_plausibility(s.languages)

    def split(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        if (zipf(left) >= s.glued_left_min_zipf and zipf(right.lower()) >= s.glued_right_min_zipf
                and not zipf(m.group(0).lower())):
            return f"{left} {right}"
        return m.group(0)

    return _GLUED.sub(split, text)


# "Incom e", "OVERVI EW": a run of letters, one space, and the run after it (looked at, not taken, so
# that each word is tried with the word before it and the word after it).
_SPLIT = re.compile(r"(?<![^\W\d_])([^\W\d_]+) (?=([^\W\d_]+)(?![^\W\d_]))")


def rejoin_split_words(text: str, s: NormalizeSettings) -> str:
    """Make "Incom e", "Balance Shee t" whole again, where the file itself draws a gap inside a word: the
    second part lower-case (or both capitals), the joined word known (`split_word_min_zipf`) and far
    more frequent than the rarer part (`split_word_margin_zipf`), which "can not", "any one" or "is a"
    never are."""
    zipf = word_plausibility(s.languages)
    floor, margin, rare = s.split_word_min_zipf, s.split_word_margin_zipf, s.split_word_part_max_zipf

    def join(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        if not (right.islower() or (left.isupper() and right.isupper())) or not (left + right).isalpha():
            return m.group(0)
        rarer = min(zipf(left.lower()), zipf(right.lower()))
        if rarer > rare and min(len(left), len(right)) > 1:  # two common words: not looked up as one
            return m.group(0)
        joined = zipf((left + right).lower())
        return left if joined >= floor and joined >= rarer + margin else m.group(0)

    return _SPLIT.sub(join, text)


def repair_text_layer(text: str, s: NormalizeSettings) -> str:
    """A PDF text layer's words made whole: lost ligatures relinked, words split by a drawn gap
    rejoined, run-together words split."""
    return split_glued_words(rejoin_split_words(relink_ligatures(text, s), s), s)


def normalize_blocks(blocks: list[Block], s: NormalizeSettings | None = None, fmt: str | None = None) -> list[Block]:
    """Every block with normalised text; `orig_text` keeps the backend's text when it changed. A PDF's
    (`fmt` "pdf") words are also repaired where its text layer lost a ligature or a space, except
    in code."""
    s = s or NormalizeSettings()  # validated once, not once per block
    repair = fmt == "pdf"
    blocks = blocks_to_joined_paragraphs(blocks)
    # the counts serve only dehyphenate, which returns at once without a line-break hyphen
    vocab = vocabulary(b.text for b in blocks) if any(LINE_BREAK_HYPHEN in b.text for b in blocks) else Counter()
    out = []
    for b in blocks:
        text = clean_chars(b.text)
        text = dehyphenate(repair_text_layer(text, s) if repair and b.kind != Kind.CODE else text, vocab, s)
        nb = b.with_text(collapse_whitespace(text, keep_lines=b.kind in _LINE_KINDS))
        out.append(nb.dropped("empty") if not nb.text and nb.drop_reason is None else nb)
    return out
