"""Segment a whole HTML page (selectolax/lexbor) into block-level text units, in document order.

Every piece of visible text lands in exactly one unit, so nothing the page shows can be lost
between the DOM and the blocks: the extractor only decides which units are body.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple
from functools import lru_cache
from urllib.parse import unquote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from docclean_assets.extract.html.settings import HtmlSettings

# Elements whose content is never text a reader sees.
SKIP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "head", "iframe", "object", "embed", "canvas",
     "select", "datalist", "map", "audio", "video", "title", "meta", "link", "base"}
)
# Block elements that make one unit of their own inline content.
LEAF_KINDS = {
    "p": "paragraph", "h1": "heading", "h2": "heading", "h3": "heading", "h4": "heading",
    "h5": "heading", "h6": "heading", "li": "list_item", "figcaption": "caption", "caption": "caption",
    "dt": "paragraph", "dd": "paragraph", "summary": "paragraph", "address": "paragraph",
    "legend": "paragraph",
}
# Block elements that only group other content; loose text inside them is a paragraph.
CONTAINER_TAGS = frozenset(
    {"html", "body", "div", "section", "article", "main", "header", "footer", "nav", "aside", "form",
     "fieldset", "figure", "blockquote", "ul", "ol", "dl", "menu", "details", "hgroup", "center",
     "table", "thead", "tbody", "tfoot", "tr", "td", "th", "noframes", "dialog", "search", "frameset"}
)
BREAK_TAGS = frozenset({"br", "hr"})
# Inline elements that browsers render as separate boxes: their words never run together.
SPACED_TAGS = frozenset({"button", "input", "label", "img", "option", "textarea"})
TEMPLATE_TAGS = frozenset({"nav", "footer", "aside"})
TEMPLATE_ROLES = frozenset({"navigation", "contentinfo", "complementary", "banner", "search", "menu", "menubar"})
# class/id words of site chrome: a unit under such an element is a boilerplate candidate.
TEMPLATE_WORDS = frozenset(
    {"cookie", "cookies", "consent", "gdpr", "breadcrumb", "breadcrumbs", "newsletter", "share", "sharing",
     "social", "related", "feedback", "helpful", "sidebar", "advert", "advertisement", "ads", "promo",
     "subscribe", "subscription", "navbar", "nav", "menu", "footer", "masthead", "banner", "popup", "modal",
     "toolbar", "pagination", "tags", "comments", "skip", "offcanvas"}
)
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
_NOT_ALNUM = re.compile(r"[\W_]+")  # \w is str.isalnum() plus "_" (re docs): what key() leaves out


def key(text: str) -> str:
    """Matching key: lower-case letters and digits only, so spacing and punctuation never matter."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


def clean_text(raw: str) -> str:
    """Collapse whitespace; line breaks from <br> survive as single newlines."""
    if "\n" not in raw and "\r" not in raw:  # one line, as most are
        return " ".join(raw.split())
    # str.split() and re's \s (less the newline) agree on what whitespace is (Py_UNICODE_ISSPACE)
    lines = [" ".join(line.split()) for line in raw.replace("\r", "").split("\n")]
    return "\n".join(line for line in lines if line)


@dataclass(slots=True)
class Unit:
    """One block-level run of visible text and where it sits in the DOM."""

    kind: str
    text: str
    tag: str  # the element that gave the unit its kind
    path: tuple[int, ...]  # mem_ids of the unit's element and all its ancestors
    level: int | None = None
    template: bool = False  # under nav/footer/aside, a chrome role or a chrome class word
    disclosure: bool = False  # inside a tab panel or accordion section (hidden until opened)
    hidden: bool = False  # under an element hidden from every reader (not a tab or accordion panel)
    rows: list[list[str]] | None = None  # table cells for kind == "table"
    link_chars: int = 0  # characters inside <a>
    toc_chars: int = 0  # characters inside links to this page's own headings (href="#<heading id>")
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def plain(self) -> str:
        """Text without Markdown table syntax."""
        if self.rows is None:
            return self.text
        return "\n".join(" ".join(c for c in row if c) for row in self.rows)


class Ctx(NamedTuple):
    """Where the walk is: what a unit started here would be, and the element path above it."""

    kind: str  # the unit's kind (paragraph, heading, list_item, ...)
    tag: str  # the element that gave it that kind
    path: tuple[int, ...]  # mem_ids of the element and all its ancestors
    level: int | None  # heading level or list depth
    template: bool  # under site chrome (or hidden)
    hidden: bool  # under an element hidden from every reader


def _is_template(node: LexborNode) -> bool:
    return _template(node.tag, node.attributes)


def _template(tag: str | None, attrs: dict) -> bool:
    """Site chrome by tag, role or a class/id word (see TEMPLATE_WORDS)."""
    if tag in TEMPLATE_TAGS:
        return True
    if (attrs.get("role") or "").lower() in TEMPLATE_ROLES:
        return True
    words = f"{attrs.get('class') or ''} {attrs.get('id') or ''}"
    return _template_words_cached(words) if len(words) <= _CACHED_CLASS_CHARS else _template_words(words)


def _template_words(words: str) -> bool:
    """Whether a class and id name site chrome (TEMPLATE_WORDS)."""
    return any(w in TEMPLATE_WORDS for w in _WORD_SPLIT.split(words.lower()))


_template_words_cached = lru_cache(maxsize=4096)(_template_words)


# Widgets that hide panels only until clicked: their hidden content is the page's content. Matched
# as whole parts of a class token ("tab-pane", "js-accordion-content", "panel-collapse"); the bare
# words "panel" and "details" are not enough ("control-panel", "recipe-card-details" are not widgets).
_DISCLOSURE_ROLES = {"tabpanel"}
_DISCLOSURE_TOKEN = re.compile(r"(^|[-_])(tabs?|tab[-_]?pane|tab[-_]?panel|tabpanel|accordion|collapse|collapsible)"
                               r"([-_]|$)")
# the toggle of such a widget ("Show sources", "Read more") is a control, not content
_TOGGLE_WORDS = frozenset({"toggle", "toggler", "trigger", "button", "btn"})


def _disclosure(tag: str | None, attrs: dict) -> bool:
    """A tab panel or accordion section: hidden until the reader opens it, not template."""
    if tag == "details" or (attrs.get("role") or "").lower() in _DISCLOSURE_ROLES:
        return True
    return _class_marks(attrs.get("class") or "")[0]


def _toggle(tag: str | None, attrs: dict) -> bool:
    """The button or toggle that opens a tab or accordion panel."""
    if tag == "button" or (attrs.get("role") or "").lower() == "button":
        return True
    return _class_marks(attrs.get("class") or "")[1]


# A page repeats a few class attributes on most of its elements: each is read once per process.
# Longer ones (no real page's; a hostile one's) are read every time and not kept.
_CACHED_CLASS_CHARS = 256


def _class_marks(classes: str) -> tuple[bool, bool]:
    """Whether a class attribute names a disclosure panel, and a toggle."""
    return _class_marks_cached(classes) if len(classes) <= _CACHED_CLASS_CHARS else _read_class(classes)


def _read_class(classes: str) -> tuple[bool, bool]:
    lowered = classes.lower()
    return (any(_DISCLOSURE_TOKEN.search(t) for t in lowered.split()),
            any(w in _TOGGLE_WORDS for w in _WORD_SPLIT.split(lowered)))


_class_marks_cached = lru_cache(maxsize=4096)(_read_class)


def _is_hidden(node: LexborNode) -> bool:
    """Hidden from every reader (a closed cookie modal); tab and accordion panels do not count."""
    attrs = node.attributes
    return not _disclosure(node.tag, attrs) and _hidden(attrs)


def _hidden(attrs: dict) -> bool:
    """Hidden by the `hidden` attribute, aria-hidden or an inline style."""
    if "hidden" in attrs or (attrs.get("aria-hidden") or "").lower() == "true":
        return True
    return _style_hides(attrs)


def _style_hides(attrs: dict) -> bool:
    """Hidden by an inline style (display:none, visibility:hidden)."""
    style = (attrs.get("style") or "").replace(" ", "").lower()
    return "display:none" in style or "visibility:hidden" in style


def inline_text(node: LexborNode) -> tuple[str, int]:
    """Visible text under `node` with <br> as newline, and how much of it is link text."""
    parts: list[str] = []
    link = 0
    stack = [(node.iter(include_text=True), node.tag == "a", False)]  # explicit stack: no recursion limit
    while stack:
        it, in_link, spaced = stack[-1]
        child = next(it, None)
        if child is None:
            stack.pop()
            if spaced:
                parts.append(" ")
            continue
        tag = child.tag
        if tag == "-text":
            t = child.text_content or ""
            parts.append(t)
            if in_link:
                link += len(t.strip())
        elif tag == "br":
            parts.append("\n")
        elif not (tag in SKIP_TAGS or tag is None or tag.startswith("-")):
            spaced = tag in CONTAINER_TAGS or tag in LEAF_KINDS or tag in SPACED_TAGS
            if spaced:
                parts.append(" ")
            stack.append((child.iter(include_text=True), in_link or tag == "a", spaced))
    return clean_text("".join(parts)), link


def table_rows(table: LexborNode, max_colspan: int) -> list[list[str]]:
    """Cell texts row by row (colspan, up to `max_colspan`, repeated as empty cells), nested tables excluded."""
    sections: dict[str, list[list[str]]] = {"thead": [], "body": [], "tfoot": []}
    for tr in table.css("tr"):
        # skip rows of nested tables
        anc = tr.parent
        while anc is not None and anc.tag != "table":
            anc = anc.parent
        if anc is None or anc.mem_id != table.mem_id:
            continue
        row: list[str] = []
        for cell in tr.iter():
            if cell.tag not in ("td", "th"):
                continue
            text, _ = inline_text(cell)
            row.append(text.replace("\n", " "))
            try:
                span = int(cell.attributes.get("colspan") or 1)
            except ValueError:
                span = 1
            row.extend([""] * max(0, min(span, max_colspan) - 1))
        if any(row):
            section = tr.parent.tag if tr.parent is not None and tr.parent.tag in ("thead", "tfoot") else "body"
            sections[section].append(row)
    return sections["thead"] + sections["body"] + sections["tfoot"]  # browsers draw tfoot last


def markdown_table(rows: list[list[str]]) -> str:
    """A Markdown pipe table; the first row is the header."""
    width = max(len(r) for r in rows)
    esc = [[c.replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(lines)


def is_layout_table(table: LexborNode, rows: list[list[str]], layout_cell_chars: int) -> bool:
    """A table used for page layout: nested tables, block content in long cells, or one column."""
    if any(t.mem_id != table.mem_id for t in table.css("table")):
        return True
    if not rows or max(len(r) for r in rows) < 2:
        return True
    for cell in table.css("td, th"):
        if cell.css_first("div, p, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, article, section") is not None:
            if len(cell.text(deep=True, separator=" ", strip=True)) > layout_cell_chars:
                return True
    return False


class Segmenter:
    """Walk the DOM once; `boundaries` are mem_ids that must start a new unit (rule matches)."""

    def __init__(self, boundaries: frozenset[int], hs: HtmlSettings, heading_ids: frozenset[str] = frozenset(),
                 in_template: bool = False, revealed_panels: frozenset[str] = frozenset(),
                 slides: frozenset[int] = frozenset()) -> None:
        self.boundaries = boundaries
        self.hs = hs
        self.heading_ids = heading_ids
        self.revealed_panels = revealed_panels  # ids of hidden panels a control opens (revealed_panels())
        self.slides = slides  # mem_ids a script shows: carousel_slides(), accordion_panels()
        self.in_template = in_template  # segmenting a <template>'s content (one level: no nested ones)
        self.layout_cell_chars = hs.layout_cell_chars
        self.max_colspan = hs.table_max_colspan
        self.units: list[Unit] = []
        self.disclosures: set[int] = set()  # mem_ids of tab panels and accordion sections
        self.toggles: set[int] = set()  # mem_ids of the controls that open them
        self._buf: list[str] = []
        self._link = 0
        self._toc = 0

    def run(self, root: LexborNode, path: tuple[int, ...] = ()) -> list[Unit]:
        hidden = self.in_template or _is_hidden(root)
        ctx = Ctx("paragraph", root.tag or "body", path or (root.mem_id,), None, _is_template(root) or hidden, hidden)
        self._walk(root, ctx, list_depth=0, in_link=False)
        self._flush(ctx)
        for unit in self.units:
            unit.disclosure = not self.disclosures.isdisjoint(unit.path) and self.toggles.isdisjoint(unit.path)
        return self.units

    def _flush(self, ctx: Ctx) -> None:
        if not self._buf:
            return
        text = clean_text("".join(self._buf))
        link, toc = self._link, self._toc
        self._buf, self._link, self._toc = [], 0, 0
        if not text:
            return
        kind, tag, path, level, template, hidden = ctx
        unit = Unit(kind=kind, text=text, tag=tag, path=path, level=level, template=template, hidden=hidden,
                    link_chars=link, toc_chars=toc)
        if tag == "blockquote":
            unit.meta["tag"] = "blockquote"
        self.units.append(unit)

    def _walk(self, node: LexborNode, ctx: Ctx, list_depth: int, in_link: bool) -> None:
        # explicit stack of (children, context, list depth, in a link, in a link to one of the
        # page's headings, what to do when done):
        # pages nest thousands of elements deep, beyond Python's recursion limit
        stack: list[tuple] = [(node.iter(include_text=True), ctx, list_depth, in_link, False, None)]
        while stack:
            it, ctx, list_depth, in_link, in_toc, done = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                if done == " ":
                    self._buf.append(" ")
                elif done is not None:
                    self._flush(done)
                continue
            tag = child.tag
            if tag == "-text":
                t = child.text_content or ""
                self._buf.append(t)
                if in_link:
                    self._link += len(t.strip())
                if in_toc:
                    self._toc += len(t.strip())
                continue
            if tag == "template" and not self.in_template:
                self._flush(ctx)
                self._template(child, ctx)
                continue
            if tag is None or tag.startswith("-") or tag in SKIP_TAGS:
                continue
            if tag in SPACED_TAGS:
                self._buf.append(" ")
            if tag in BREAK_TAGS:
                if tag == "br":
                    self._buf.append("\n")
                else:
                    self._flush(ctx)
                continue
            forced = child.mem_id in self.boundaries
            if tag == "pre":
                self._flush(ctx)
                self._pre(child, ctx)
                continue
            if tag == "table":
                self._flush(ctx)
                if self._table(child, ctx, list_depth):
                    continue
            kind = LEAF_KINDS.get(tag)
            link = in_link or tag == "a"
            toc = in_toc or (tag == "a" and self._is_toc_link(child))
            if kind is None and tag not in CONTAINER_TAGS and not forced:  # inline element
                stack.append((child.iter(include_text=True), ctx, list_depth, link, toc,
                              " " if tag in SPACED_TAGS else None))
                continue
            self._flush(ctx)
            attrs = child.attributes  # read once: each read builds a new dict
            disclosure = _disclosure(tag, attrs) or attrs.get("id") in self.revealed_panels
            hidden = ctx.hidden or (not disclosure and child.mem_id not in self.slides and _hidden(attrs))
            template = ctx.template or _template(tag, attrs) or hidden
            if disclosure:
                self.disclosures.add(child.mem_id)
            if _toggle(tag, attrs):
                self.toggles.add(child.mem_id)
            path = ctx.path + (child.mem_id,)
            depth = list_depth + 1 if tag in ("ul", "ol", "menu") else list_depth
            if kind is None:  # container (or a rule boundary): loose text stays a paragraph
                new_ctx = Ctx("paragraph", tag, path, None, template, hidden)
                if tag == "blockquote" or ctx.tag == "blockquote":
                    new_ctx = Ctx("paragraph", "blockquote", path, None, template, hidden)
                if tag in ("td", "th", "tr", "tbody", "thead", "tfoot", "table") and ctx.kind != "paragraph":
                    new_ctx = ctx._replace(path=path, template=template, hidden=hidden)
                if forced and ctx.kind != "paragraph" and tag not in CONTAINER_TAGS:
                    new_ctx = ctx._replace(path=path, template=template, hidden=hidden)  # a dropped span inside a <p>
            else:
                level = int(tag[1]) if kind == "heading" else (max(depth, 1) if kind == "list_item" else None)
                new_ctx = Ctx(kind, tag, path, level, template, hidden)
            stack.append((child.iter(include_text=True), new_ctx, depth, link, toc, new_ctx))

    def _is_toc_link(self, a: LexborNode) -> bool:
        """A link to one of this page's own headings (href="#<id>")."""
        href = (a.attributes.get("href") or "").strip()
        return len(href) > 1 and href[0] == "#" and unquote(href[1:]) in self.heading_ids

    def _template(self, node: LexborNode, ctx: Ctx) -> None:
        """A <template>'s content (inert: the parser keeps it out of the tree) as hidden units."""
        html = node.html or ""
        inner = html[html.find(">") + 1:html.rfind("<")] if html.endswith("</template>") else ""
        body = LexborHTMLParser(inner).body if inner.strip() else None
        if body is not None:
            sub = Segmenter(frozenset(), self.hs, in_template=True)
            for unit in sub.run(body, ctx.path + (node.mem_id,)):
                unit.path = ctx.path + (node.mem_id,)  # the sub-tree's ids are another document's
                self.units.append(unit)

    def _pre(self, node: LexborNode, ctx: Ctx) -> None:
        """The code, whitespace intact; buttons drawn inside the <pre> ("Copy") become a unit of
        their own after it, which the toolbar rule drops."""
        path = ctx.path + (node.mem_id,)
        hidden = ctx.hidden or _is_hidden(node)
        template = ctx.template or _is_template(node) or hidden
        buttons = node.css("button, [role=button]")
        controls = " ".join(t for b in buttons if (t := b.text(deep=True, separator=" ", strip=True)))
        if buttons:
            copy = LexborHTMLParser(f"<body>{node.html}</body>")
            for b in copy.css("button, [role=button]"):
                b.decompose()
            node = copy.css_first("pre") or node
        text = node.text(deep=True, separator="", strip=False)
        text = text.replace("\r\n", "\n").strip("\n")
        if text.strip():
            self.units.append(Unit("code", text.rstrip(), "pre", path, template=template, hidden=hidden))
        if controls:
            self.units.append(Unit("paragraph", controls, "button", path, template=template, hidden=hidden))

    def _table(self, node: LexborNode, ctx: Ctx, list_depth: int) -> bool:
        """Emit a data table as one unit (plus its caption); False for layout tables."""
        rows = table_rows(node, self.max_colspan)
        if is_layout_table(node, rows, self.layout_cell_chars):
            return False
        hidden = ctx.hidden or _is_hidden(node)
        template = ctx.template or _is_template(node) or hidden
        path = ctx.path + (node.mem_id,)
        caption = node.css_first("caption")
        if caption is not None:
            text, _ = inline_text(caption)
            if text:
                self.units.append(Unit("caption", text, "caption", path, template=template, hidden=hidden))
        link = sum(inline_text(a)[1] for a in node.css("a")) if node.css_first("a") is not None else 0
        self.units.append(Unit("table", markdown_table(rows), "table", path, template=template, hidden=hidden,
                               rows=rows, link_chars=link))
        return True


def segment(tree: LexborHTMLParser, boundaries: frozenset[int] = frozenset(), hs: HtmlSettings | None = None,
            ) -> list[Unit]:
    """All visible text of the page as units in document order."""
    root = tree.body or tree.root
    if root is None:
        return []
    hs = hs or HtmlSettings()
    return Segmenter(boundaries, hs, heading_ids(tree), revealed_panels=revealed_panels(tree),
                     slides=carousel_slides(tree, hs.carousel_min_cells)
                     | accordion_panels(tree, hs.accordion_min_items)).run(root)


_CONTROLS = ("button[aria-controls], a[aria-controls], summary[aria-controls], [role=button][aria-controls], "
             "[role=tab][aria-controls], [aria-expanded][aria-controls]")


def revealed_panels(tree: LexborHTMLParser) -> frozenset[str]:
    """Ids of the hidden panels the page's controls open: those named by the aria-controls of a button,
    link or tab (the ARIA disclosure, accordion and tab patterns). They are its content, not hidden
    from every reader."""
    return frozenset(v for n in tree.css(_CONTROLS) for v in (n.attributes.get("aria-controls") or "").split())


_SLIDE_TAGS = frozenset({"li", "div", "article", "section", "figure"})


def carousel_slides(tree: LexborHTMLParser, min_cells: int) -> frozenset[int]:
    """mem_ids of a carousel's or slider's cells: block elements hidden by aria-hidden alone, each
    one of at least `min_cells` sibling elements of its tag and class that all carry aria-hidden.
    aria-hidden hides nothing on screen; a carousel's script sets it on every cell (true while out
    of view) and shows them in turn. A lone aria-hidden block (a closed modal, a menu) stays hidden."""
    shapes: dict[tuple[int, str | None, str], int] = {}  # (parent, tag, class) of aria-hidden elements
    candidates = []
    for node in tree.css("[aria-hidden]"):  # each element once: linear in the page
        attrs, parent = node.attributes, node.parent
        if parent is None:
            continue
        shape = (parent.mem_id, node.tag, attrs.get("class") or "")
        shapes[shape] = shapes.get(shape, 0) + 1
        if (node.tag in _SLIDE_TAGS and (attrs.get("aria-hidden") or "").lower() == "true" and "hidden" not in attrs
                and not _style_hides(attrs)):
            candidates.append((node.mem_id, shape))
    return frozenset(mid for mid, shape in candidates if shapes[shape] >= min_cells)


def accordion_panels(tree: LexborHTMLParser, min_items: int) -> frozenset[int]:
    """mem_ids of an accordion's collapsed panels: elements hidden by an inline style, each inside
    one of at least `min_items` sibling items of one tag and class (a question and its answer per
    item, opened by a script on click). A lone hidden element (a closed modal) stays hidden."""
    items: dict[tuple[int, str | None, str], set[int]] = {}  # shape of the items -> the items
    candidates = []
    for node in tree.css('[style*="hidden" i], [style*="none" i]'):
        item = node.parent
        if item is None or item.parent is None or not _style_hides(node.attributes):
            continue
        shape = (item.parent.mem_id, item.tag, item.attributes.get("class") or "")
        items.setdefault(shape, set()).add(item.mem_id)
        candidates.append((node.mem_id, shape))
    return frozenset(mid for mid, shape in candidates if len(items[shape]) >= min_items)


# elements whose content the parser reads as raw text up to their own end tag
_RAW_TEXT_OPEN = re.compile(r"<(iframe|textarea|xmp|noembed|noframes|style|script|title)[\s/>]")


def close_noscript_raw_text(html: str) -> str:
    """The page with every raw-text element left open inside a <noscript> closed at the noscript's
    end. A parser that runs no scripts (like this one) reads a noscript's content as markup, and an
    unclosed `<iframe src=... />` there then swallows the rest of the page as its text; a browser
    that runs scripts never reads that content at all."""
    lower = html.lower()
    out: list[str] = []
    pos = 0
    while (start := lower.find("<noscript", pos)) >= 0 and (gt := lower.find(">", start)) >= 0:
        end = lower.find("</noscript", gt)
        if end < 0:
            break
        out.append(html[pos:end] + _left_open(lower, gt, end))
        pos = end + 1
        out.append(html[end:pos])
    out.append(html[pos:])
    return "".join(out)


def _left_open(lower: str, start: int, end: int) -> str:
    """The end tag of the raw-text element opened between start and end and not closed before end."""
    pos = start
    while (m := _RAW_TEXT_OPEN.search(lower, pos, end)) is not None:
        close = lower.find(f"</{m.group(1)}", m.end(), end)
        if close < 0:
            return f"</{m.group(1)}>"
        pos = close + 1
    return ""


# React's streamed server rendering sends late content as <div hidden id="S:x"> and a script call
# moves it where the reader sees it: $RC("B:y","S:x") into a Suspense boundary's <template id="B:y">,
# $RS("S:x","P:y") into a segment's <template id="P:y">. Ids are hexadecimal ("S:2e").
_STREAM_CALL = re.compile(r"""\$R([CS])\(\s*["']([A-Za-z0-9_:.-]+)["']\s*,\s*["']([A-Za-z0-9_:.-]+)["']""")
_STREAM_SLOT = re.compile(r"S:([0-9a-fA-F]+)")


def stream_moves(tree: LexborHTMLParser) -> list[tuple[str, str]]:
    """(slot id, placeholder id) of each move the page's scripts make between elements it holds, in
    their order; for a page saved without such calls, each slot and the placeholder of its number
    (B:, else P:)."""
    slots = [n.attributes.get("id") or "" for n in tree.css('[hidden][id^="S:"]')]
    if not slots:
        return []
    templates = {n.attributes.get("id") for n in tree.css('template[id]')}
    moves: list[tuple[str, str]] = []
    for script in tree.css("script:not([src])"):
        text = script.text() or ""
        if "$R" in text:
            moves += [(b, a) if kind == "C" else (a, b) for kind, a, b in _STREAM_CALL.findall(text)]
    present = set(slots)  # only moves between elements the page holds (a script may name thousands)
    moves = [mv for mv in dict.fromkeys(moves) if mv[0] in present and mv[1] in templates]
    if not moves:
        for slot in slots:
            if m := _STREAM_SLOT.fullmatch(slot):
                moves += [(slot, p) for p in (f"B:{m.group(1)}", f"P:{m.group(1)}") if p in templates][:1]
    return list(dict.fromkeys(moves))


def place_streamed_slots(tree: LexborHTMLParser) -> int:
    """Move each streamed slot's content into its placeholder, as the page's script does; the number
    moved. A slot without its placeholder on the page stays where it is, hidden."""
    moved = 0
    for slot_id, ph_id in stream_moves(tree):  # looked up again each time: a slot may hold another
        slot = tree.css_first(f'[hidden][id="{slot_id}"]')
        placeholder = tree.css_first(f'template[id="{ph_id}"]')
        if slot is None or placeholder is None or slot.css_first(f'template[id="{ph_id}"]') is not None:
            continue  # a placeholder inside its own slot would be moved into itself
        placeholder.insert_before(slot)  # a copy, at the placeholder
        slot.decompose()
        tree.css_first(f'[hidden][id="{slot_id}"]').unwrap()
        placeholder.decompose()
        moved += 1
    return moved


def heading_ids(tree: LexborHTMLParser) -> frozenset[str]:
    """The ids a link can jump to a heading of this page by: the heading's, an anchor's inside it,
    and its section's when the heading opens it."""
    ids: set[str] = set()
    for h in tree.css("h1, h2, h3, h4, h5, h6"):
        ids.update(v for v in (h.attributes.get("id"),) if v)
        ids.update(v for a in h.css("[id], a[name]") for v in (a.attributes.get("id"), a.attributes.get("name")) if v)
        parent = h.parent
        first = _first_element(parent) if parent is not None and parent.attributes.get("id") else None
        if first is not None and first.mem_id == h.mem_id:
            ids.add(parent.attributes["id"])
    return frozenset(ids)


def _first_element(node: LexborNode) -> LexborNode | None:
    """The node's first child element (text and comments skipped)."""
    child = node.child
    while child is not None and (child.tag or "-").startswith("-"):
        child = child.next
    return child
