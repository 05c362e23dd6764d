"""The standfirst of an article: the lede paragraph between its title and its first body paragraph,
which density-based extractors tend to drop (set apart in larger type, often in a header block)."""
from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.html.dom import Unit, key
from docclean_assets.extract.model import DropReason, Kind
from docclean_assets.extract.html.settings import HtmlSettings

# elements around a photo or a byline: their prose is a caption or a credit, never the lede
_NOT_LEDE_TAGS = frozenset({"figure", "figcaption", "picture", "time", "address"})
_NOT_LEDE_WORDS = frozenset({"caption", "credit", "credits", "photo", "image", "img", "figure", "media", "byline",
                             "author", "date", "dateline", "timestamp", "updated", "published", "meta", "gallery"})
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
SENTENCE_END = re.compile(r"[.!?…:»\"”')]\s*$")
_NOT_LEDE_SEL = ", ".join([*_NOT_LEDE_TAGS, *(f'[class*="{w}" i], [id*="{w}" i]' for w in sorted(_NOT_LEDE_WORDS))])


def _excluded(tree: LexborHTMLParser) -> set[int]:
    """mem_ids of figure, caption, credit and byline elements."""
    out = set()
    for n in tree.css(_NOT_LEDE_SEL):
        attrs = n.attributes
        words = set(_WORD_SPLIT.split(f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()))
        if n.tag in _NOT_LEDE_TAGS or words & _NOT_LEDE_WORDS:
            out.add(n.mem_id)
    return out


def _description(tree: LexborHTMLParser) -> str:
    """Key of the page's own summary (meta description, og:description, twitter:description)."""
    for sel in ('meta[name="description"]', 'meta[name="Description"]', 'meta[property="og:description"]',
                'meta[name="twitter:description"]'):
        n = tree.css_first(sel)
        if n is not None and (n.attributes.get("content") or "").strip():
            return key(n.attributes.get("content") or "")
    return ""


def units_to_standfirst(tree: LexborHTMLParser, units: list[Unit], status: list, hs: HtmlSettings) -> list[int]:
    """Indices of dropped units that are the article's standfirst: after the title unit, before the
    first body paragraph of `lede_min_words` words or more (at most `lede_max_gap_units` units
    apart), outside template regions and figure/caption/byline elements, a sentence of at least
    `lede_min_words` words with little link text, not already in the body, and the text the page
    gives as its own description."""
    title = next((i for i, u in enumerate(units) if u.kind == Kind.TITLE), None)
    desc = _description(tree)
    if title is None or not desc:
        return []
    first = next((i for i in range(title + 1, len(units)) if status[i] is None  # a photo credit is not it
                  and units[i].kind in (Kind.PARAGRAPH, Kind.LIST_ITEM)
                  and len(units[i].text.split()) >= hs.lede_min_words), None)
    if first is None or first - title - 1 > hs.lede_max_gap_units:
        return []
    body_text = " ".join(units[i].plain for i, s in enumerate(status) if s is None)
    n = hs.lede_description_key_chars
    out = []
    for i in range(title + 1, first):
        u = units[i]
        if (status[i] != DropReason.BOILERPLATE or u.template or u.kind not in (Kind.PARAGRAPH, Kind.HEADING)
                or len(u.text.split()) < hs.lede_min_words or u.link_chars > hs.lede_max_link_ratio * len(u.text)
                or u.text in body_text or not SENTENCE_END.search(u.text)):
            continue
        k = key(u.text)
        if desc[:n] in k or k[:n] in desc:
            out.append(i)
    if out:
        excluded = _excluded(tree)
        out = [i for i in out if not excluded.intersection(units[i].path)]
    return out
