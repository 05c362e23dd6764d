"""The article and its relatives: the container holding the body, the rest of an article a site
split into several same-shaped containers (chunks between ad slots) of which the extractor kept only
one, the social posts it quotes (embedded tweets), and the articles nested in it (related posts),
which are not it."""
from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.html.dom import Unit
from docclean_assets.extract.html.lede import SENTENCE_END
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.model import DropReason, Kind

# The markup each platform's embed code writes (documented by the platform), before its script turns
# it into an iframe: the post's text, its author and date, quoted by the article.
EMBEDDED_POST_SELECTOR = ", ".join(f"blockquote.{c}" for c in (
    "twitter-tweet", "instagram-media", "tiktok-embed", "bluesky-embed", "mastodon-embed", "reddit-embed-bq"))
_RESCUABLE = frozenset({Kind.PARAGRAPH, Kind.HEADING, Kind.LIST_ITEM, Kind.TABLE, Kind.CODE, Kind.CAPTION})


def main_container(units: list[Unit], body: list[bool], share: float) -> int | None:
    """mem_id of the deepest element holding `share` of the body's paragraph characters."""
    count: dict[int, int] = {}
    depth: dict[int, int] = {}
    total = 0
    for u, keep in zip(units, body):
        if keep and u.kind in ("paragraph", "list_item"):
            total += len(u.text)
            for d, mid in enumerate(u.path):
                count[mid] = count.get(mid, 0) + len(u.text)
                depth[mid] = d
    if not total:
        return None
    best = max((mid for mid, c in count.items() if c >= share * total), key=lambda m: depth[m], default=None)
    return best if best is not None and depth[best] > 0 else None  # the <body> itself is no container


def page_body_units(units: list[Unit], status: list, readable: list[bool], hs: HtmlSettings) -> list[int]:
    """Indices of dropped readable units that are body after all: inside the extractor's own
    container (the deepest element holding all of its paragraphs), when it kept less than
    `page_body_max_extracted_share` of that container's readable words. The caller asks only on pages
    that declare neither an article nor a product."""
    region = main_container(units, [st is None for st in status], 1.0)
    if region is None:
        return []
    inside = [i for i, u in enumerate(units) if readable[i] and region in u.path]
    words = {i: len(units[i].plain.split()) for i in inside}
    kept = sum(words[i] for i in inside if status[i] is None)
    if kept >= hs.page_body_max_extracted_share * sum(words.values()):
        return []
    return [i for i in inside if status[i] == DropReason.BOILERPLATE]


def prose_units(units: list[Unit], status: list, readable: list[bool], hs: HtmlSettings) -> list[int]:
    """Indices of dropped readable prose paragraphs after the page's title (its first h1 when none
    matches <title>) on a page where the extractor kept no prose: it took a strip of menus or links
    for the page, and the running text under the title is its content. Before the title sit the
    site's banner, its menus and notices (a network's blurb, a cookie notice)."""
    if any(status[i] is None and is_prose(u, hs) for i, u in enumerate(units)):
        return []
    title = next((i for i, u in enumerate(units) if u.kind == Kind.TITLE), None)
    if title is None:
        title = next((i for i, u in enumerate(units) if u.tag == "h1"), None)
    if title is None:
        return []
    return [i for i, u in enumerate(units[title + 1:], start=title + 1)
            if readable[i] and status[i] == DropReason.BOILERPLATE and is_prose(u, hs)]


def heading_units(units: list[Unit], status: list, readable: list[bool]) -> list[int]:
    """Indices of readable headings the extractor dropped right before a unit it kept, or before such
    a heading (a section's heading over its subsection's): the headings of that text (extractors drop
    short headings between the sections they keep)."""
    found: list[int] = []
    body_next = False  # whether the unit after i is body, counting the headings found so far
    for i in range(len(units) - 1, -1, -1):
        u = units[i]
        if u.kind == Kind.HEADING and readable[i] and status[i] == DropReason.BOILERPLATE and body_next:
            found.append(i)
            continue
        body_next = status[i] is None
    return found[::-1]


def _signature(node) -> tuple[str, frozenset[str]] | None:
    """An element's tag and class tokens; None for an element without classes (too common to pair)."""
    classes = frozenset((node.attributes.get("class") or "").split())
    return (node.tag, classes) if classes else None


def is_prose(u: Unit, hs: HtmlSettings) -> bool:
    """A paragraph of running text: long enough, a sentence, hardly any link text."""
    return (u.kind == Kind.PARAGRAPH and len(u.text.split()) >= hs.continuation_prose_min_words
            and u.link_chars <= hs.continuation_max_link_ratio * len(u.text) and bool(SENTENCE_END.search(u.text)))


def continuation_units(tree: LexborHTMLParser, units: list[Unit], status: list, hs: HtmlSettings) -> list[int]:
    """Indices of dropped units in the other chunks of the article: elements with the article
    container's tag, classes and depth, under a common ancestor at most `continuation_max_levels`
    above it, that hold running prose. A chunk's units are taken from its first to its last prose
    paragraph (a chunk that ends with a related-stories heading keeps it out), each with little
    link text and outside chrome."""
    main = main_container(units, [s is None for s in status], hs.main_container_share)
    if main is None:
        return []
    main_path = next(u.path for u in units if main in u.path)
    depth = main_path.index(main)
    top = main_path[max(0, depth - hs.continuation_max_levels)]
    chunks: dict[int, list[int]] = {}
    for i, u in enumerate(units):
        if len(u.path) > depth and u.path[depth] != main and top in u.path[:depth]:
            chunks.setdefault(u.path[depth], []).append(i)
    if not any(status[i] == DropReason.BOILERPLATE and is_prose(units[i], hs) for c in chunks.values() for i in c):
        return []
    wanted = {main, *chunks}
    sig = {n.mem_id: _signature(n) for n in tree.root.traverse() if n.mem_id in wanted}
    if sig.get(main) is None:
        return []
    out: list[int] = []
    for mid, idx in chunks.items():
        if sig.get(mid) != sig[main]:
            continue
        dropped = [i for i in idx if status[i] == DropReason.BOILERPLATE and not units[i].template
                   and not units[i].hidden]
        prose = [i for i in dropped if is_prose(units[i], hs)]
        if not prose or sum(len(units[i].text.split()) for i in prose) < hs.continuation_min_words:
            continue
        out += [i for i in dropped if prose[0] <= i <= prose[-1] and units[i].kind in _RESCUABLE
                and units[i].link_chars <= hs.continuation_max_link_ratio * max(1, len(units[i].plain))]
    return out


def nested_article_units(tree: LexborHTMLParser, units: list[Unit], status: list, hs: HtmlSettings) -> list[int]:
    """Indices of body units inside <article> elements nested in another <article>, when the body
    has at least `nested_article_min_own_words` words outside them: per the HTML standard, nested
    articles are related to the outer one (related posts, cards), not part of it. At least
    `nested_article_min_count` of them: a lone inner article may be the story a page wraps. An outer
    article holding nothing of its own but a label ("You may like...") is the related box; its label
    goes too."""
    box_of: dict[int, int] = {}  # inner article -> the article it is nested in
    for node in tree.css("article article"):
        up = node.parent
        while up.tag != "article":
            up = up.parent
        box_of[node.mem_id] = up.mem_id
    inner = set(box_of)
    if len(inner) < hs.nested_article_min_count:
        return []
    own = [i for i, u in enumerate(units) if status[i] is None and inner.isdisjoint(u.path)]
    if sum(len(units[i].text.split()) for i in own) < hs.nested_article_min_own_words:
        return []
    out = [i for i, u in enumerate(units) if status[i] is None and not inner.isdisjoint(u.path)]
    boxes = set(box_of.values()) - inner
    own_of: dict[int, list[int]] = {}  # box -> its own body units (one pass: boxes may be thousands)
    for i in own:
        for mid in boxes.intersection(units[i].path):
            own_of.setdefault(mid, []).append(i)
    for label in own_of.values():
        if sum(len(units[i].text.split()) for i in label) <= hs.toc_label_max_words:
            out += label
    return sorted(set(out))


def embedded_post_units(tree: LexborHTMLParser, units: list[Unit], status: list, hs: HtmlSettings) -> list[int]:
    """Indices of dropped units of social posts embedded in the article container (a tweet the
    story quotes): extractors drop them for their link density, yet the article cites them. The
    post's wrapper is often classed "social" or "embed", so chrome words do not veto it here."""
    posts = {n.mem_id for n in tree.css(EMBEDDED_POST_SELECTOR)}
    main = main_container(units, [s is None for s in status], hs.main_container_share) if posts else None
    if main is None:
        return []
    return [i for i, u in enumerate(units) if status[i] == DropReason.BOILERPLATE and main in u.path
            and not posts.isdisjoint(u.path) and not u.hidden]
