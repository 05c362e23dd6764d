"""HTML backend: the whole page as typed blocks; the article is the body, the rest is kept as dropped.

Body choice per page, first that applies:
1. JSON-LD articleBody of an Article-like node, when consistent with the visible page;
2. per-source CSS rules (`HtmlRules.keep` / `.drop`), loud on a miss (flag `selector_miss`);
3. trafilatura, aligned back to the DOM units so that everything it left out stays as a block with
   `drop_reason='boilerplate'`, and reference tables in the article container are rescued.
Reader comments found in the markup (comments.py) become `kind='comment'` blocks on every path;
a standfirst the extractor dropped is body again (lede.py).

`extract_html` chains the stages, each an `a_to_b` function whose output the trace keeps
(html/trace.py): bytes_to_decoded, decoded_to_segmented, segmented_to_chosen (body.py's helpers),
chosen_to_rescued, rescued_to_routed, routed_to_blocks.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import replace

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.guard import check_html_depth
from docclean_assets.extract.html.articles import (continuation_units, embedded_post_units, heading_units, is_prose,
                                                   nested_article_units, page_body_units, prose_units)
from docclean_assets.extract.html.body import choose_jsonld, extractor_segments, segments_to_status, select_nodes
from docclean_assets.extract.html.comments import Comment, units_to_comments
from docclean_assets.extract.html.dom import Unit, close_noscript_raw_text, key, place_streamed_slots, segment
from docclean_assets.extract.html.inpage import code_toolbar_units, teaser_units, toc_units
from docclean_assets.extract.html.jsonld import jsonld_scripts
from docclean_assets.extract.html.lede import units_to_standfirst
from docclean_assets.extract.html.match import Seg
from docclean_assets.extract.html.pagekind import (DECLARED_ARTICLE_TYPES, PRODUCT_TYPES, SCHEMA_ARTICLE_TYPES,
                                                   THREAD, THREAD_TYPES, PageKind, declared_types, lists_entries,
                                                   page_kind)
from docclean_assets.extract.html.rules import HtmlRules
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.html.trace import (COMMENT, Chosen, Decoded, HtmlTrace, Notes, Rescued, Routed,
                                                Segmented)
from docclean_assets.extract.model import Block, DocReport, DropReason, Extraction, Kind, count_chars, renumber
from docclean_assets.extract.settings import Settings
from docclean_assets.extract.sniff import HTML_SNIFF_BYTES, bom_encoding, html_encoding

_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""", re.I)
# WHATWG: these labels mean windows-1252 in browsers.
_WHATWG_ALIASES = {"iso8859-1": "cp1252", "latin-1": "cp1252", "ascii": "cp1252", "iso8859-9": "cp1254"}
_SHELL_ROOT_IDS = ("root", "app", "__next", "__nuxt", "___gatsby", "svelte", "main-app", "application")
_NOSCRIPT_JS = re.compile(r"(enable|activate|turn on)\s+javascript|javascript\s+(is\s+)?(required|disabled|needed)", re.I)
# Bytes the charset detector reads: enough prose to tell windows-1252 from its neighbours.
_DETECT_BYTES = 256 * 1024
SOFT_HYPHEN = "\u00ad"  # &shy;: where a browser may break a word (see _without_soft_hyphens)


# ---------------------------------------------------------------- decoding
def decode_html(data: bytes) -> tuple[str, str, bool]:
    """(text, encoding used, whether bytes had to be replaced): BOM, then markup in UTF-16 without a
    BOM, then <meta charset>, then UTF-8, then charset detection."""
    head = data[:HTML_SNIFF_BYTES]
    found = bom_encoding(data)
    if found is None and (unmarked := html_encoding(head)) in ("utf-16-le", "utf-16-be"):
        found = unmarked, 0
    if found is not None:
        enc, skip = found
        body = data[skip:]
        text = body.decode(enc, errors="replace")
        return text, enc, "\ufffd" in text and "\ufffd".encode(enc) not in body
    declared = None
    m = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if m:
        try:
            declared = codecs.lookup(m.group(1).decode("ascii", "ignore")).name
        except LookupError:
            declared = None
        declared = _WHATWG_ALIASES.get(declared or "", declared)
        if declared in ("utf-16-le", "utf-16-be", "utf-16"):  # a meta tag read as ASCII cannot be UTF-16
            declared = "utf-8"
    for enc in (declared, "utf-8"):
        if enc:
            try:
                return data.decode(enc), enc, False
            except UnicodeDecodeError:
                continue
    if declared is None:  # undeclared and not UTF-8: detect (windows-1252 and ISO-8859-1 pages)
        from charset_normalizer import from_bytes

        matches = list(from_bytes(data[:_DETECT_BYTES]))
        if matches:
            best = min(matches, key=lambda m: (m.chaos, -m.coherence))
            # Ties are common on short pages (cp1250 and cp1252 read French equally well); the web's
            # default for undeclared Western pages, windows-1252, wins a tie.
            tied = [m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
            enc = "cp1252" if "cp1252" in tied else codecs.lookup(best.encoding).name
            return data.decode(enc, errors="replace"), enc, False
    return data.decode(declared or "utf-8", errors="replace"), declared or "utf-8", True


def _page_title(tree: LexborHTMLParser) -> tuple[str, str]:
    """(title, where it came from): og:title, <title>, or the first h1."""
    og = tree.css_first('meta[property="og:title"], meta[name="og:title"], meta[name="twitter:title"]')
    if og is not None and (og.attributes.get("content") or "").strip():
        return " ".join((og.attributes.get("content") or "").split()), "og:title"
    t = tree.css_first("title")
    if t is not None and t.text(strip=True):
        return " ".join(t.text().split()), "title"
    h1 = tree.css_first("h1")
    if h1 is not None and h1.text(strip=True):
        return " ".join(h1.text().split()), "h1"
    return "", ""


def _is_shell(tree: LexborHTMLParser, visible_chars: int, hs: HtmlSettings) -> bool:
    """A client-rendered page: almost no visible text, and an empty app root, a "enable JavaScript"
    notice, or a script bundle with no text-bearing content element at all. (A short page that
    has scripts but also an article or paragraphs, e.g. the rendered DOM of an app, is not one.)"""
    if visible_chars >= hs.shell_max_chars:
        return False
    for rid in _SHELL_ROOT_IDS:
        node = tree.css_first(f'[id="{rid}"]')
        if node is not None and not node.text(strip=True):
            return True
    if any(n.text(strip=True) for n in tree.css("article, main, p, h1, h2, h3, li, td")):
        return False  # scripts ran (or were never needed): there is content
    bundle = tree.css_first("script[src]") is not None or tree.css_first("script#__NEXT_DATA__") is not None
    return bundle or any(_NOSCRIPT_JS.search(n.text() or "") for n in tree.css("noscript"))


# ---------------------------------------------------------------- the stages
def extract_html(data: bytes, settings: Settings, rules: HtmlRules | None = None, url: str | None = None) -> Extraction:
    """The page's blocks in document order; body per JSON-LD, rules or trafilatura (see module doc).
    Each stage's output is kept in the extraction's trace (html/trace.py)."""
    report = DocReport(format="html")
    decoded = bytes_to_decoded(data, settings, report)
    segmented = decoded_to_segmented(decoded, rules, settings, report)
    chosen = segmented_to_chosen(decoded, segmented, rules, url, settings, report)
    rescued = chosen_to_rescued(decoded, segmented, chosen, settings)
    report.method = chosen.method
    routed = rescued_to_routed(decoded, segmented, rescued, rules, settings, report)
    blocks = routed_to_blocks(segmented, chosen, rescued, routed, report)
    trace = HtmlTrace(decoded, segmented, chosen, rescued, routed, blocks)
    return Extraction(blocks, report, trace)


def bytes_to_decoded(data: bytes, settings: Settings, report: DocReport) -> Decoded:
    """The page decoded (ExtractionError when mostly undecodable), parsed within the depth and size
    caps, its streamed-in slots placed; its JSON-LD scripts and its title."""
    text, encoding, replaced = decode_html(data)
    bad = text.count("\ufffd") + text.count("\x00")
    if text and bad > settings.html.undecodable_max_fraction * len(text):
        raise ExtractionError(f"not decodable as HTML text ({bad} of {len(text)} characters invalid in {encoding})")
    text = text.replace("\x00", "")
    if replaced:
        report.flag("encoding_replaced")
    text = close_noscript_raw_text(text)  # the extractor reads the same markup
    tree = LexborHTMLParser(text)
    elements = check_html_depth(tree.root, settings.limits)
    streamed = place_streamed_slots(tree)
    if streamed:  # the extractor reads the page as its scripts leave it
        text = tree.html or ""
    scripts = jsonld_scripts(tree, report)
    title, title_source = _page_title(tree)
    return Decoded(text, encoding, tree, elements, scripts, title, title_source, streamed)


def decoded_to_segmented(d: Decoded, rules: HtmlRules | None, settings: Settings, report: DocReport) -> Segmented:
    """The page as text units (a unit starts at every node a rule matches), the page's title unit
    marked, and what the rules matched (flag selector_miss when the keep rule matched nothing)."""
    hs = settings.html
    keep_nodes: list | None = None
    drop_nodes: list = []
    if rules is not None:
        if rules.keep:
            keep_nodes = select_nodes(d.tree, rules.keep, report) or []
            if not keep_nodes:
                report.flag("selector_miss")
        for sel in rules.drop:
            drop_nodes += select_nodes(d.tree, sel, report) or []
    keep_ids = frozenset(n.mem_id for n in keep_nodes or [])
    drop_ids = frozenset(n.mem_id for n in drop_nodes)
    units = segment(d.tree, keep_ids | drop_ids, hs)
    # soft hyphens are not characters of the text (_without_soft_hyphens): not counted as read either
    report.raw_chars = sum(count_chars(u.plain) - u.plain.count(SOFT_HYPHEN) for u in units)
    if _is_shell(d.tree, report.raw_chars, hs):
        report.flag("client_rendered_shell")
    keys = [key(u.plain) for u in units]
    tkey = key(d.title)  # the title: the first h1 that is the page's title
    for i, (u, k) in enumerate(zip(units, keys)):
        if u.tag == "h1" and k and tkey and (k == tkey or k in tkey or tkey in k):
            units[i] = replace(u, kind=Kind.TITLE, meta={**u.meta, "page_title": d.title})
            break
    in_drop = tuple(bool(drop_ids.intersection(u.path)) for u in units)
    return Segmented(units, keys, keep_nodes, drop_nodes, keep_ids, in_drop)


def segmented_to_chosen(d: Decoded, sg: Segmented, rules: HtmlRules | None, url: str | None, settings: Settings,
                        report: DocReport) -> Chosen:
    """The body by the first path that applies: a JSON-LD articleBody consistent with the page, the
    keep rule's matches, the extractor's text aligned to the units, else the page without its chrome
    (flag extractor_empty). In-page furniture is set aside first: a TOC entry must not take its
    heading's match. The extractor runs on every page: it is also the yardstick for JSON-LD."""
    hs, units = settings.html, sg.units
    furniture = _inpage_furniture(units, hs)
    main_segs, error = extractor_segments(d.text, rules, sg.keep_nodes, sg.drop_nodes, d.elements, url, hs, report)
    main_text = " ".join(s.text for s in main_segs if s.kind != "cell")
    keep_missed = bool(rules and rules.keep and not sg.keep_nodes)
    jsonld = None if keep_missed else choose_jsonld(d.scripts, units, main_text, report, settings)
    extra: dict[int, list[Block]] = {}
    notes: Notes = {}
    if jsonld is not None:
        method = "jsonld"
        segs = [Seg("paragraph", p, key(p)) for p in jsonld]
        status, extra, notes = segments_to_status(segs, units, sg.keys, hs, report, method, frozenset(furniture))
    elif sg.keep_nodes is not None:
        method = "rules"
        status = tuple(None if sg.keep_ids.intersection(u.path) else DropReason.BOILERPLATE for u in units)
    elif main_segs:
        method = "trafilatura"
        status, extra, notes = segments_to_status(main_segs, units, sg.keys, hs, report, method, frozenset(furniture))
    else:
        # the extractor found nothing (tiny or unusual page) or did not run (too many elements):
        # the page minus its chrome is the body, flagged, rather than an empty document
        if "extractor_skipped" not in report.flags:
            report.flag("extractor_empty")
        method = "whole_page"
        status = tuple(DropReason.BOILERPLATE if u.template else None for u in units)
    return Chosen(method, status, furniture, extra, notes, len(main_text), error)


def chosen_to_rescued(d: Decoded, sg: Segmented, c: Chosen, settings: Settings) -> Rescued:
    """What the extractor left out but the page holds as its own made body again (notes say why);
    teaser cards among the body as the page's entries or dropped; then in-page furniture and the
    drop rule's matches set out, whatever was chosen."""
    hs, units = settings.html, sg.units
    status = list(c.status)
    notes: Notes = {}
    types = declared_types(d.tree, d.scripts, hs.jsonld_max_depth)
    readable = [not (u.template or u.hidden or sg.in_drop[i] or i in c.furniture) for i, u in enumerate(units)]
    for i, why in _rescue(d.tree, units, status, readable, c.method, types, hs):
        notes.setdefault(i, {})["rescued"] = why
    entries, cards = _cards_to_entries(units, status, types, hs)
    for i in cards:
        if entries:
            notes.setdefault(i, {})["role"] = "entry"
        else:
            status[i] = DropReason.TEASER
    for i, reason in c.furniture.items():
        status[i] = reason
    for i in range(len(units)):
        if sg.in_drop[i]:
            status[i] = DropReason.SELECTOR_DROP
    return Rescued(tuple(status), types, entries, notes)


def rescued_to_routed(d: Decoded, sg: Segmented, r: Rescued, rules: HtmlRules | None, settings: Settings,
                      report: DocReport) -> Routed:
    """Comments and answers routed (a comment's author line is boilerplate even where the extractor
    kept it), the page's kind, articles nested in the page dropped as teasers, each comment's role."""
    hs, units = settings.html, sg.units
    status = list(r.status)
    comments, notes = _route_comments(d.tree, d.scripts, units, status, hs, report, r.types)
    page = _page_kind(r.types, units, status, comments, r.entries, hs)
    report.page_kind = page.name
    for i in nested_article_units(d.tree, units, status, hs):  # comments are routed already
        status[i] = DropReason.TEASER
    all_body = bool(rules is not None and rules.comments_as_body)
    roles = {c.units[0]: _comment_role(c, page, all_body) for c in comments}
    report.posts = sum(1 for role in roles.values() if role == "post")
    report.reader_comments = sum(1 for role in roles.values() if role is None)
    if report.reader_comments:
        report.flag("has_comments")
    return Routed(tuple(status), comments, page, roles, notes)


def routed_to_blocks(sg: Segmented, c: Chosen, r: Rescued, rt: Routed, report: DocReport) -> list[Block]:
    """The page's blocks in DOM order: each unit with its status and the notes the stages added, a
    comment as one block at its first unit, body text no unit held after the unit it follows; on a
    client-rendered shell, nothing is body."""
    units = sg.units
    first_of = {cm.units[0]: cm for cm in rt.comments}
    blocks: list[Block] = list(c.extra.get(-1, []))
    for i, u in enumerate(units):
        reason = rt.status[i]
        if reason == COMMENT:
            if i in first_of:
                blocks.append(_comment_block(first_of[i], units, rt.roles[i]))
            continue
        meta = dict(u.meta)
        for notes in (c.notes, r.notes, rt.notes):  # in the order the stages wrote them
            meta.update(notes.get(i, ()))
        if reason is None:
            meta["method"] = c.method
        blocks.append(Block(kind=str(u.kind), text=u.text, seq=len(blocks),  # renumber then keeps it as it is
                            drop_reason=None if reason is None else str(reason), level=u.level,
                            meta=tuple(meta.items())))
        blocks.extend(c.extra.get(i, []))
    blocks = [_without_soft_hyphens(b) for b in blocks]
    if "client_rendered_shell" in report.flags:  # a loader or noscript notice is not the page's content
        blocks = [b.dropped(DropReason.BOILERPLATE) if b.drop_reason is None else b for b in blocks]
    return renumber(blocks)


def _inpage_furniture(units: list[Unit], hs: HtmlSettings) -> dict[int, DropReason]:
    """Units that leave the body whatever the extractor decides, with their reasons: an in-page
    TOC, a code block's toolbar, and elements hidden from every reader."""
    found = dict.fromkeys(toc_units(units, hs), DropReason.TOC)
    found.update(dict.fromkeys(code_toolbar_units(units, hs), DropReason.CODE_TOOLBAR))
    found.update({i: DropReason.HIDDEN for i, u in enumerate(units) if u.hidden})
    return found


def _without_soft_hyphens(b: Block) -> Block:
    """The block without the page's soft hyphens (&shy;): a browser shows one only where it breaks a
    line, so it is never part of a word. Left in, normalisation would take each for the mark of a
    hyphen that ended a printed line (the PDF backend's use of U+00AD) and might keep a hyphen
    ("Not-fall" for "Not&shy;fall")."""
    if SOFT_HYPHEN not in b.text:
        return b
    return replace(b, text=b.text.replace(SOFT_HYPHEN, ""))


# ---------------------------------------------------------------- reader comments
def _route_comments(tree: LexborHTMLParser, scripts: list, units: list[Unit], status: list,
                    hs: HtmlSettings, report: DocReport, types: frozenset[str]) -> tuple[list[Comment], Notes]:
    """The page's comments and answers, their units marked in the stage's `status` (COMMENT; on a
    declared thread, posts told by their structure too; on a declared product, its reviews); the rest
    of a comment (author line, date, reply link) is boilerplate even where the extractor kept it
    (noted comment_part = meta)."""
    product = bool(types & PRODUCT_TYPES) and not types & DECLARED_ARTICLE_TYPES
    found = units_to_comments(tree, units, scripts, hs, report, bool(types & THREAD_TYPES), product)
    comments = [c for c in found if all(status[i] != DropReason.SELECTOR_DROP for i in c.units)]
    items = {c.node_id for c in comments if c.node_id}
    notes: Notes = {}
    for i, u in enumerate(units):
        if status[i] is None and items.intersection(u.path):
            status[i] = DropReason.BOILERPLATE
            notes[i] = {"comment_part": "meta"}
    for c in comments:
        for i in c.units:
            status[i] = COMMENT
    return comments, notes


def _rescue(tree: LexborHTMLParser, units: list[Unit], status: list, readable: list[bool], method: str,
            types: frozenset[str], hs: HtmlSettings) -> list[tuple[int, str]]:
    """Make body, in the stage's `status`, what the extractor left out but the page holds as its own;
    (unit, why) for each."""
    steps = []
    # an og:type of article alone does not make the page an article here (pagekind.OG_ARTICLE)
    if method == "trafilatura" and not types & (SCHEMA_ARTICLE_TYPES | PRODUCT_TYPES):
        steps.append(("prose", lambda: prose_units(units, status, readable, hs)))  # a menu taken for the page
        steps.append(("page_body", lambda: page_body_units(units, status, readable, hs)))  # one section taken
    if method in ("trafilatura", "jsonld"):
        steps += [("heading", lambda: heading_units(units, status, readable)),
                  ("standfirst", lambda: units_to_standfirst(tree, units, status, hs)),
                  ("continuation", lambda: continuation_units(tree, units, status, hs)),
                  ("embedded_post", lambda: embedded_post_units(tree, units, status, hs))]
    rescued = []
    for why, find in steps:  # in order: each step sees what the ones before it made body
        for i in find():
            status[i] = None
            rescued.append((i, why))
    return rescued


def _cards_to_entries(units: list[Unit], status: list, types: frozenset[str],
                      hs: HtmlSettings) -> tuple[bool, list[int]]:
    """Runs of teaser cards among the body, and whether they are a list page's entries (True, see
    pagekind.lists_entries) or, anywhere else, teasers of other pages (False)."""
    teasers = teaser_units(units, [st is None for st in status], hs)
    if not teasers:
        return False, []
    words = [len(units[i].plain.split()) if st is None else 0 for i, st in enumerate(status)]
    card_words = sum(words[i] for i in set(teasers))
    return lists_entries(types, card_words, sum(words) - card_words, hs.listing_min_entry_share), teasers


def _page_kind(types: frozenset[str], units: list[Unit], status: list, comments: list[Comment], entries: bool,
               hs: HtmlSettings) -> PageKind:
    """The page's kind, from its declared types, the words of its article against its comments', whether
    its article has prose, and whether its cards are its entries."""
    article_words = sum(len(units[i].plain.split()) for i, st in enumerate(status) if st is None)
    replies = [c for c in comments if c.kind == "comment"]  # answers are an FAQ's or a declared Q&A's
    comment_words = sum(len(units[i].plain.split()) for c in replies for i in c.units)
    prose = any(st is None and is_prose(units[i], hs) for i, st in enumerate(status))
    return page_kind(types, article_words, comment_words, len(replies), hs.thread_min_comment_ratio, entries, prose)


def _comment_role(c: Comment, kind: PageKind, all_body: bool) -> str | None:
    """What a comment is in the body: a thread's post, an answer (an FAQ's, or a Q&A's outside a
    thread), a comment kept as body by the source's rules; None for a reader comment kept apart."""
    if kind.name == THREAD:
        return "post"
    if c.kind == "answer":
        return "answer"
    return "comment" if all_body else None


def _comment_block(c: Comment, units: list[Unit], role: str | None) -> Block:
    """One comment as one block: kind 'comment', or a body paragraph with its role."""
    meta = [("author", c.author), ("date", c.date), ("comment_id", c.cid), ("reply_to", c.reply_to),
            ("comment_kind", c.kind if c.kind == "review" else "")]
    meta = [(k, v) for k, v in meta if v] + [("method", "comments")]
    return Block(kind=str(Kind.PARAGRAPH if role else Kind.COMMENT), text="\n\n".join(units[i].text for i in c.units),
                 meta=tuple(meta + ([("role", role)] if role else [])))


