"""What kind of page this is, and so what its content is: a forum or Q&A thread's posts are its
content, where the same markup under an article is reader comments kept apart from the body.

The kind comes first from what the page declares (schema.org types in JSON-LD or microdata), then
from how its text is shared: a page whose comments far outweigh the article around them is a thread
whose first post the extractor took for an article. The kind is recorded in `DocReport.page_kind`,
its reason in the document's trace; each post carries `meta.role = 'post'`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.html.jsonld import json_nodes

# schema.org types that make the page a thread: its posts are the content
THREAD_TYPES = frozenset({"discussionforumposting", "qapage"})
# An Open Graph og:type of article or product, kept apart from schema.org's types: a content system
# often sets og:type article on every page of a site (category archives, listings), where a
# schema.org type is written for the page it describes.
OG_ARTICLE, OG_PRODUCT = "og:article", "og:product"
# schema.org types that declare an article (the page's own text, comments under it stay comments)
SCHEMA_ARTICLE_TYPES = frozenset({"article", "newsarticle", "blogposting", "report", "scholarlyarticle",
                                  "techarticle", "reportagenewsarticle", "analysisnewsarticle",
                                  "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle",
                                  "liveblogposting"})
DECLARED_ARTICLE_TYPES = SCHEMA_ARTICLE_TYPES | {OG_ARTICLE}
PRODUCT_TYPES = frozenset({"product", "productgroup", "productmodel", "individualproduct", OG_PRODUCT})
LISTING_TYPES = frozenset({"collectionpage", "searchresultspage"})
THREAD, ARTICLE, PRODUCT, LISTING, PAGE = "thread", "article", "product", "listing", "page"


@dataclass(frozen=True, slots=True)
class PageKind:
    """The page's kind and why it was decided."""

    name: str  # thread | article | product | listing | page
    reason: str


def declared_types(tree: LexborHTMLParser, scripts: list[Any], max_depth: int) -> frozenset[str]:
    """schema.org types the page declares, lowercased without their vocabulary URL: every JSON-LD
    node's @type, every microdata itemtype; and an Open Graph og:type of article or product, as
    OG_ARTICLE or OG_PRODUCT."""
    found: set[str] = set()
    for node in json_nodes(scripts, max_depth):
        t = node.get("@type", "")
        found.update(str(v).rsplit("/", 1)[-1].lower() for v in (t if isinstance(t, list) else [t]) if v)
    for node in tree.css("[itemtype]"):
        found.update(v.rsplit("/", 1)[-1].lower() for v in (node.attributes.get("itemtype") or "").split())
    og = tree.css_first('meta[property="og:type"], meta[name="og:type"]')
    og_type = ((og.attributes.get("content") or "") if og is not None else "").strip().lower()
    if og_type in ("article", "product"):
        found.add(OG_ARTICLE if og_type == "article" else OG_PRODUCT)
    return frozenset(found)


def lists_entries(types: frozenset[str], card_words: int, other_words: int, min_share: float) -> bool:
    """Whether a page's runs of teaser cards are its entries (a listing, collection or search page)
    rather than teasers of other pages beside its own text: they hold at least `min_share` of the
    body's words and the page declares no article (an article's related stories stay teasers)."""
    total = card_words + other_words
    return total > 0 and card_words >= min_share * total and not types & DECLARED_ARTICLE_TYPES


def page_kind(types: frozenset[str], article_words: int, comment_words: int, comments: int,
              min_comment_ratio: float, entries: bool = False, article_prose: bool = True) -> PageKind:
    """The page's kind: declared thread types first; then a page of at least two comments holding
    `min_comment_ratio` times the article's words, unless it declares an article that has prose (a
    declared article without a paragraph of running text is a link post: an aggregator's title, link
    and byline over its thread); then a page whose cards are its entries (lists_entries); then declared
    products, listings and articles; else a page."""
    if thread := sorted(types & THREAD_TYPES):
        return PageKind(THREAD, f"declares schema.org {thread[0]}")
    if (comments >= 2 and comment_words >= min_comment_ratio * max(article_words, 1)
            and not (types & DECLARED_ARTICLE_TYPES and article_prose)):
        link_post = " (its declared article has no prose: a link post)" if types & DECLARED_ARTICLE_TYPES else ""
        return PageKind(THREAD, f"{comments} comments hold {comment_words} words against the article's "
                                f"{article_words}{link_post}")
    if entries:
        return PageKind(LISTING, "its cards of links to other pages hold most of its words: they are its entries")
    for kind, declared in ((PRODUCT, PRODUCT_TYPES), (LISTING, LISTING_TYPES), (ARTICLE, DECLARED_ARTICLE_TYPES)):
        if found := sorted(types & declared, key=lambda t: (t.startswith("og:"), t)):
            said = f"Open Graph og:type {found[0][3:]}" if found[0].startswith("og:") else f"schema.org {found[0]}"
            return PageKind(kind, f"declares {said}")
    return PageKind(PAGE, "declares no kind")
