"""Reader comments of a web page: found in the DOM (comment sections, schema.org Comment microdata)
or in JSON-LD, so they become `kind='comment'` blocks with author/date/id rather than body or
boilerplate."""
from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from docclean_assets.extract.html.dom import Unit, key
from docclean_assets.extract.html.jsonld import json_nodes
from docclean_assets.extract.html.match import SCAN_CHARS_PER_STEP
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.model import DocReport

# class/id tokens (whole, whitespace-separated) of the element holding a page's comment thread
_SECTION = re.compile(
    r"^(comments|commentlist|comment[-_]?list|comments[-_](area|list|section|thread|wrapper|container|block)"
    r"|comment[-_](section|thread|respond)|respond|disqus[-_]thread|user[-_]?comments)$", re.I)
# tokens of one comment
_ITEM = re.compile(
    r"^(comment|comment[-_](body|item|entry|container|wrap|wrapper|single)|(user|reader)[-_]?comment"
    r"|(div[-_])?comment[-_]?\d+|li[-_]comment[-_]?\d+)$", re.I)
# tokens of the comment's own text inside a comment
_CONTENT = re.compile(r"^(comment[-_]?(content|text|message|entry[-_]content)|commenttext)$", re.I)
# tokens of the parts of a comment that are about it, not it: author, date, reply links, votes
_META_WORDS = frozenset({"author", "meta", "metadata", "reply", "vcard", "avatar", "date", "time", "actions",
                         "footer", "header", "permalink", "votes", "vote", "like", "likes", "share", "byline",
                         "user", "username", "edit", "links", "name", "nick", "rating", "score"})
_AUTHOR_SEL = '[itemprop="author"], .fn, .comment-author, .comment_author, .author, cite, .username'
_POST_AUTHOR_SEL = f'{_AUTHOR_SEL}, [itemtype*="schema.org/Person" i], [data-author]'
_DATE_SEL = ('time, [itemprop="dateCreated"], [itemprop="datePublished"], .comment-date, .comment_date, '
             '.comment-metadata, .comment-time, .date')
# "Daniel Lemire says:", "Anna sagt:"; a match starts only where a run of spaces starts (linear)
_SAYS = re.compile(r"(?<!\s)\s+\S+:$")
_COMMENT_TYPES = frozenset({"comment", "answer"})
# every section or comment element matches this (the regexes above then decide)
_MARKED = ('[class*="comment" i], [id*="comment" i], [class*="respond" i], [id*="respond" i], '
           '[class*="disqus" i], [id*="disqus" i], [itemtype*="comment" i], [itemtype*="answer" i]')
_WORDS = re.compile(r"[^a-z0-9]+")


@dataclass(slots=True)
class Comment:
    """One reader comment: where it is in the DOM and what the markup says about it."""

    node_id: int  # mem_id of the comment element (0 for a JSON-LD comment)
    kind: str = "comment"  # comment | answer (schema.org Answer: a Q&A thread's post or an FAQ's answer) | review
    author: str = ""
    date: str = ""
    cid: str = ""
    reply_to: str = ""
    units: list[int] = field(default_factory=list)  # indices of its text units, in order


def _tokens(node: LexborNode) -> list[str]:
    attrs = node.attributes
    return f"{attrs.get('class') or ''} {attrs.get('id') or ''}".split()


def _itemtype(node: LexborNode) -> str:
    return (node.attributes.get("itemtype") or "").rsplit("/", 1)[-1].lower()


def _is_section(node: LexborNode) -> bool:
    return any(_SECTION.match(t) for t in _tokens(node)) or _itemtype(node) == "usercomments"


def _is_item(node: LexborNode) -> bool:
    if _itemtype(node) in _COMMENT_TYPES:
        return True
    return node.tag not in ("span", "a", "em", "strong", "code", "form", "input") and any(
        _ITEM.match(t) for t in _tokens(node))


# words that make a class token name the comment's own text, whatever else it says: Drupal's
# `field-name-comment-body` holds the body, though "name" is a meta word
_TEXT_WORDS = frozenset({"body", "content", "text", "message"})


def _is_meta(node: LexborNode) -> bool:
    """Whether an element inside a comment is about it (author, date, reply link): a footer, a header
    or a schema.org Person, or a class/id token with a meta word and no word of the comment's text."""
    if node.tag in ("footer", "header") or _itemtype(node) == "person":  # a Person: the author's card
        return True
    tokens = _tokens(node)
    if any(_CONTENT.match(t) for t in tokens):
        return False
    for t in tokens:
        words = {w for w in _WORDS.split(t.lower()) if w}
        if words & _META_WORDS and not words & _TEXT_WORDS:
            return True
    return False


# A comment's author and shown date are cut to their first line and at most this many characters
# (a name, a date: longer text there is a whole comment body mistaken for one).
_AUTHOR_MAX_CHARS = 120
_DATE_MAX_CHARS = 60


def _first_line(text: str, limit: int) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:limit]


def _own(node: LexborNode, item: LexborNode, items: set[int]) -> bool:
    """Whether `node` belongs to `item` itself, not to a reply nested in it."""
    p = node.parent
    while p is not None and p.mem_id != item.mem_id:
        if p.mem_id in items:
            return False
        p = p.parent
    return True


def _author(item: LexborNode, items: set[int]) -> str:
    """The comment's author name (schema.org author, hCard fn, author/username classes; else the
    element's data-author, else the name of a schema.org Person in it)."""
    for n in item.css(_AUTHOR_SEL):
        if not _own(n, item, items):
            continue
        name = n.css_first('[itemprop="name"]') if n.attributes.get("itemprop") == "author" else None
        text = _first_line((name or n).text(separator="\n") or "", _AUTHOR_MAX_CHARS)
        text = _SAYS.sub("", text) if " " in text else text
        if text:
            return text
    if (named := (item.attributes.get("data-author") or "").strip()):
        return _first_line(named, _AUTHOR_MAX_CHARS)
    for n in item.css('[itemtype*="schema.org/Person" i] [itemprop="name"]'):
        if _own(n, item, items) and (text := _first_line(n.text(separator="\n") or "", _AUTHOR_MAX_CHARS)):
            return text
    return ""


def _date(item: LexborNode, items: set[int]) -> str:
    """The comment's date: a machine-readable one (datetime, content) first, else the shown text."""
    nodes = [n for n in item.css(_DATE_SEL) if _own(n, item, items)]
    for n in nodes:
        value = n.attributes.get("datetime") or n.attributes.get("content")
        if value and value.strip():
            return value.strip()
    return next((v for v in (_first_line(n.text(separator="\n") or "", _DATE_MAX_CHARS) for n in nodes) if v), "")


def _cid(item: LexborNode) -> str:
    attrs = item.attributes
    return (attrs.get("id") or attrs.get("data-comment-id") or attrs.get("data-id") or "").strip()


def _marked_items(root: LexborNode) -> dict[int, LexborNode]:
    """Elements marked up as comments: a comment class/id inside a comment section, or carrying an
    author and a date of its own, or schema.org Comment microdata."""
    marked = root.css(_MARKED)  # in C: only elements that can be a section or a comment
    sections = {n.mem_id for n in marked if _is_section(n)}
    candidates = [n for n in marked if _is_item(n)]
    items: dict[int, LexborNode] = {}
    ids = {n.mem_id for n in candidates}
    for n in candidates:
        in_section, p = False, n.parent
        while p is not None:
            if p.mem_id in sections:
                in_section = True
                break
            p = p.parent
        # outside a comment section a "comment" class alone is too weak (opinion-piece teasers)
        if in_section or _itemtype(n) in _COMMENT_TYPES or (_author(n, ids) and _date(n, ids)):
            items[n.mem_id] = n
    return items


def structural_posts(root: LexborNode, min_repeats: int, max_levels: int) -> dict[int, LexborNode]:
    """A thread's posts told by their structure where the markup names no comment: the largest set
    of at least `min_repeats` elements of one tag and first class under one parent, each holding a
    <time> at most `max_levels` levels below it and an author (any of them: a forum theme's classes)."""
    groups: dict[tuple[int, str, str], dict[int, LexborNode]] = {}
    for t in root.css("time"):
        node = t.parent
        for _ in range(max_levels):
            if node is None or node.parent is None or node.mem_id == root.mem_id:
                break
            first_class = next(iter((node.attributes.get("class") or "").split()), "")
            groups.setdefault((node.parent.mem_id, node.tag or "", first_class), {})[node.mem_id] = node
            node = node.parent
    best: dict[int, LexborNode] = {}
    for members in groups.values():
        if len(members) >= max(min_repeats, len(best) + 1) and all(
                n.attributes.get("data-author") is not None or n.css_first(_POST_AUTHOR_SEL) is not None
                for n in members.values()):
            best = members
    return best


_CAMEL = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def _names_review(node: LexborNode) -> bool:
    """Whether the element is a review: schema.org Review microdata, or a class/id token whose last
    word is "review" ("individual-review", "customer-review", "reviews__review"; not "review-text")."""
    if _itemtype(node) == "review":
        return True
    return any((words := [w for w in _CAMEL.split(t) if w]) and words[-1].lower() == "review" for t in _tokens(node))


def review_items(root: LexborNode, min_repeats: int) -> dict[int, LexborNode]:
    """A product page's customer reviews: elements named reviews (_names_review), at least
    `min_repeats` of one tag under one parent (a lone "review" element is a link or a widget)."""
    groups: dict[tuple[int, str], dict[int, LexborNode]] = {}
    for n in root.css('[class*="review" i], [id*="review" i], [itemtype*="review" i]'):
        if n.parent is not None and _names_review(n):
            groups.setdefault((n.parent.mem_id, n.tag or ""), {})[n.mem_id] = n
    return {mid: n for group in groups.values() if len(group) >= min_repeats for mid, n in group.items()}


def dom_to_comments(tree: LexborHTMLParser, units: list[Unit], posts: tuple[int, int] | None = None,
                    reviews: int | None = None) -> list[Comment]:
    """Comments marked up as such (_marked_items); on a declared thread whose markup names none, its
    posts told by their structure (`posts`: structural_posts' min_repeats and max_levels); on a
    product page, its customer reviews (`reviews`: review_items' min_repeats). Each unit belongs to
    its innermost comment; units of its author line, date and reply links are not its text."""
    root = tree.body or tree.root
    if root is None:
        return []
    items = _marked_items(root)
    if not items and posts is not None:
        items = structural_posts(root, *posts)
    review_ids: set[int] = set()
    if reviews is not None:
        found = review_items(root, reviews)
        items.update(found)
        review_ids = set(found)
    if not items:
        return []
    item_ids = set(items)
    meta_ids, content_ids, has_content = set(), set(), set()
    for item in items.values():
        marked = [n for n in item.traverse() if n.mem_id != item.mem_id and n.tag and not n.tag.startswith("-")
                  and _own(n, item, item_ids)]
        content = [n for n in marked if any(_CONTENT.match(t) for t in _tokens(n))
                   or (n.attributes.get("itemprop") or "") in ("text", "commentText")]
        cids = {n.mem_id for n in content}
        # a content wrapper around the byline and the real content element is not the content
        content_ids |= {n.mem_id for n in content if not any(d.mem_id in cids for d in n.traverse()
                                                             if d.mem_id != n.mem_id)}
        meta_ids |= {n.mem_id for n in marked if _is_meta(n)}
        if content:
            has_content.add(item.mem_id)
    comments: dict[int, Comment] = {}
    for i, u in enumerate(units):
        owner = next((mid for mid in reversed(u.path) if mid in items), None)
        if owner is None:
            continue
        inner = u.path[u.path.index(owner) + 1:]
        marker = next((m for m in reversed(inner) if m in meta_ids or m in content_ids), None)
        if marker in meta_ids or (marker is None and owner in has_content):
            continue  # author line, date, reply link: about the comment, not its text
        c = comments.get(owner)
        if c is None:
            item = items[owner]
            kind = "review" if owner in review_ids else _item_kind(item)
            c = comments[owner] = Comment(owner, kind, _author(item, item_ids), _date(item, item_ids),
                                          _cid(item), _parent_id(item, u.path[:u.path.index(owner)], items))
        c.units.append(i)
    return [c for c in comments.values() if c.units]


def _item_kind(item: LexborNode) -> str:
    """answer for a schema.org Answer element, else comment."""
    return "answer" if _itemtype(item) == "answer" else "comment"


def _parent_id(item: LexborNode, ancestors: tuple[int, ...], items: dict[int, LexborNode]) -> str:
    """Id of the comment `item` replies to; a wrapper with the same number (WordPress li#comment-7
    around article#div-comment-7) is the same comment, not its parent."""
    own = re.findall(r"\d+", _cid(item))
    for mid in reversed(ancestors):
        if mid in items:
            pid = _cid(items[mid])
            if own and re.findall(r"\d+", pid) == own:
                continue
            return pid
    return ""


def jsonld_comments(scripts: list[Any], max_depth: int) -> list[tuple[str, str, str, str, str]]:
    """(text, author, date, id, kind) of every schema.org Comment or Answer node in the page's JSON-LD (parsed
    scripts, see jsonld.jsonld_scripts), down to `max_depth` levels."""
    out = []
    for node in json_nodes(scripts, max_depth):
        t = node.get("@type", "")
        types = {str(v).rsplit("/", 1)[-1].lower() for v in (t if isinstance(t, list) else [t])}
        text = node.get("text") or node.get("commentText")
        if not types & _COMMENT_TYPES or not isinstance(text, str) or not text.strip():
            continue
        author = node.get("author")
        if isinstance(author, list):
            author = author[0] if author else ""
        if isinstance(author, dict):
            author = author.get("name") or ""
        date = node.get("dateCreated") or node.get("datePublished") or ""
        kind = "comment" if "comment" in types else "answer"
        out.append((text, str(author or ""), str(date), str(node.get("@id") or node.get("url") or ""), kind))
    return out


def units_to_comments(tree: LexborHTMLParser, units: list[Unit], scripts: list[Any], hs: HtmlSettings,
                      report: DocReport | None = None, thread: bool = False, product: bool = False) -> list[Comment]:
    """The page's comments in document order: from the markup (on a declared `thread`, from its
    structure where the markup names none; on a `product` page, its reviews), plus units whose text is a JSON-LD
    Comment's text (at least `comment_jsonld_min_chars` letters and digits) where the markup does not
    say so. The search for those spends at most `match_max_steps` steps (flag `alignment_budget` when
    cut short)."""
    comments = dom_to_comments(tree, units, (hs.post_min_repeats, hs.post_max_levels) if thread else None,
                               hs.review_min_repeats if product else None)
    taken = {i for c in comments for i in c.units}
    found = jsonld_comments(scripts, hs.jsonld_max_depth)
    min_chars, max_steps = hs.comment_jsonld_min_chars, hs.match_max_steps
    if not found:
        return comments
    # every comment's key in one string: keys are letters and digits, so no match spans two comments
    keys = [key(text) for text, *_ in found]
    joined = "\x00".join(keys)
    starts = list(itertools.accumulate((len(k) + 1 for k in keys[:-1]), initial=0))
    extra: dict[int, Comment] = {}
    for i, u in enumerate(units):
        if i in taken:
            continue
        uk = key(u.plain)
        if len(uk) < min_chars:
            continue
        max_steps -= 1 + len(joined) // SCAN_CHARS_PER_STEP
        if max_steps < 0:
            if report is not None:
                report.flag("alignment_budget")
            break
        pos = joined.find(uk)
        if pos >= 0:  # the first comment holding it, as when each comment was tried in turn
            n = bisect.bisect_right(starts, pos) - 1
            _text, author, date, cid, kind = found[n]
            extra.setdefault(n, Comment(0, kind, author, date, cid)).units.append(i)
    comments += extra.values()
    return sorted(comments, key=lambda c: c.units[0])
