"""HTML backend: the whole page as typed blocks; the article is the body, the rest is kept as dropped.

Body choice per page, first that applies:
1. JSON-LD articleBody of an Article-like node, when consistent with the visible page;
2. per-source CSS rules (`HtmlRules.keep` / `.drop`), loud on a miss (flag `selector_miss`);
3. trafilatura, aligned back to the DOM units so that everything it left out stays as a block with
   `drop_reason='boilerplate'`, and reference tables in the article container are rescued.
Reader comments found in the markup (comments.py) become `kind='comment'` blocks on every path;
a standfirst the extractor dropped is body again (lede.py).
"""
from __future__ import annotations

import codecs
import re
from dataclasses import replace


from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.html.articles import (continuation_units, embedded_post_units, main_container,
                                                   heading_units, is_prose, nested_article_units,
                                                   page_body_units, prose_units)
from docclean_assets.extract.html.comments import Comment, units_to_comments
from docclean_assets.extract.html.dom import (Unit, close_noscript_raw_text, key, markdown_table, place_streamed_slots,
                                              segment)
from docclean_assets.extract.html.inpage import code_toolbar_units, teaser_units, toc_units
from docclean_assets.extract.html.lede import units_to_standfirst
from docclean_assets.extract.html.pagekind import (DECLARED_ARTICLE_TYPES, PRODUCT_TYPES, SCHEMA_ARTICLE_TYPES,
                                                   THREAD, THREAD_TYPES, PageKind, declared_types, lists_entries,
                                                   page_kind)
from docclean_assets.extract.html.jsonld import article_bodies, body_paragraphs, jsonld_scripts
from docclean_assets.extract.html.match import Matcher, Seg, segments
from docclean_assets.extract.guard import check_html_depth
from docclean_assets.extract.model import Block, DocReport, DropReason, Extraction, Kind, count_chars, renumber
from docclean_assets.extract.html.rules import HtmlRules
from docclean_assets.extract.html.settings import HtmlSettings
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


# ---------------------------------------------------------------- rules
def _select(tree: LexborHTMLParser, selector: str, report: DocReport) -> list | None:
    try:
        return list(tree.css(selector))
    except Exception:  # noqa: BLE001 - an invalid selector is a configuration error, reported loudly
        report.flag("selector_error")
        return None


def _extractor_segments(text: str, rules: HtmlRules | None, keep_nodes: list | None, drop_nodes: list,
                        elements: int, url: str | None, hs: HtmlSettings, report: DocReport,
                        trace: dict[str, object]) -> list[Seg]:
    """trafilatura's segments of the page, its drop rules applied first; none when the keep rule
    missed, or when the page has more than `extractor_max_elements` elements (flag extractor_skipped)."""
    if rules and rules.keep and not keep_nodes:
        return []
    if elements > hs.extractor_max_elements:
        report.flag("extractor_skipped")
        return []
    src = text
    if drop_nodes and keep_nodes is None:
        pruned = LexborHTMLParser(text)
        for sel in rules.drop if rules else ():
            for n in _select(pruned, sel, DocReport()) or []:
                n.decompose()
        src = pruned.html or ""
    segs, err = _trafilatura(src, url)
    if err:
        report.flag("extractor_error")
        trace["extractor_error"] = err
    return segs


def _trafilatura(html: str, url: str | None) -> tuple[list[Seg], str | None]:
    """Main-content segments, and an error message when trafilatura fails.

    include_comments=False: with True trafilatura 2.3 sometimes takes a comment thread for the
    article (scrapinghub_aeb token F1 0.959 without, 0.957 with); comments come from the markup."""
    import trafilatura

    try:
        doc = trafilatura.bare_extraction(html, url=url, include_tables=True, include_comments=False,
                                          include_formatting=False, include_links=False, deduplicate=False)
        if doc is None or not getattr(doc, "text", None):
            doc = trafilatura.bare_extraction(html, url=url, include_tables=True, include_comments=False,
                                              favor_recall=True, deduplicate=False) or doc
    except Exception as exc:  # noqa: BLE001 - a crash of the extractor must not lose the page
        return [], f"{type(exc).__name__}: {exc}"
    if doc is None:
        return [], None
    return segments(getattr(doc, "body", None)), None


def _is_data_table(u: Unit, hs: HtmlSettings) -> bool:
    rows = u.rows or []
    if len(rows) < hs.table_min_rows or max((len(r) for r in rows), default=0) < hs.table_min_cols:
        return False
    chars = sum(len(c) for r in rows for c in r)
    return chars > 0 and u.link_chars <= hs.table_max_link_ratio * chars


# ---------------------------------------------------------------- entry point
def extract_html(data: bytes, settings: Settings, rules: HtmlRules | None = None, url: str | None = None) -> Extraction:
    """The page's blocks in document order; body per JSON-LD, rules or trafilatura (see module doc)."""
    hs = settings.html
    text, encoding, replaced = decode_html(data)
    bad = text.count("\ufffd") + text.count("\x00")
    if text and bad > hs.undecodable_max_fraction * len(text):
        raise ExtractionError(f"not decodable as HTML text ({bad} of {len(text)} characters invalid in {encoding})")
    text = text.replace("\x00", "")
    report = DocReport(format="html")
    trace: dict[str, object] = {"encoding": encoding}
    if replaced:
        report.flag("encoding_replaced")
    text = close_noscript_raw_text(text)  # the extractor reads the same markup
    tree = LexborHTMLParser(text)
    elements = check_html_depth(tree.root, settings.limits)
    if place_streamed_slots(tree):  # the extractor reads the page as its scripts leave it
        text = tree.html or ""
        trace["streamed_slots"] = True
    scripts = jsonld_scripts(tree, report)
    title, title_src = _page_title(tree)
    trace["title"] = title

    keep_nodes: list | None = None
    drop_nodes: list = []
    if rules is not None:
        if rules.keep:
            keep_nodes = _select(tree, rules.keep, report) or []
            if not keep_nodes:
                report.flag("selector_miss")
        for sel in rules.drop:
            drop_nodes += _select(tree, sel, report) or []
    keep_ids = frozenset(n.mem_id for n in keep_nodes or [])
    drop_ids = frozenset(n.mem_id for n in drop_nodes)

    units = segment(tree, keep_ids | drop_ids, hs)
    # soft hyphens are not characters of the text (_without_soft_hyphens): not counted as read either
    report.raw_chars = sum(count_chars(u.plain) - u.plain.count(SOFT_HYPHEN) for u in units)
    if _is_shell(tree, report.raw_chars, hs):
        report.flag("client_rendered_shell")
    ukeys = [key(u.plain) for u in units]
    in_drop = [bool(drop_ids.intersection(u.path)) for u in units]

    # title: the first h1 that is the page's title
    tkey = key(title)
    for u, k in zip(units, ukeys):
        if u.tag == "h1" and k and tkey and (k == tkey or k in tkey or tkey in k):
            u.kind = Kind.TITLE
            u.meta["page_title"] = title
            break

    status: list[str | None] = [DropReason.BOILERPLATE] * len(units)  # None = body
    # in-page furniture is set aside before alignment: a TOC entry must not take its heading's match
    furniture = _inpage_furniture(units, hs)
    extra: dict[int, list[Block]] = {}
    method = "trafilatura"

    # the extractor runs on every page: it is also the yardstick for JSON-LD
    main_segs = _extractor_segments(text, rules, keep_nodes, drop_nodes, elements, url, hs, report, trace)
    main_text = " ".join(s.text for s in main_segs if s.kind != "cell")
    trace["extractor_chars"] = len(main_text)

    jsonld = None if (rules and rules.keep and not keep_nodes) else _choose_jsonld(scripts, units, main_text, report, settings)
    if jsonld is not None:
        method = "jsonld"
        segs = [Seg("paragraph", p, key(p)) for p in jsonld]
        _apply_segments(segs, units, ukeys, status, extra, hs, report, method, frozenset(furniture))
    elif keep_nodes is not None:
        method = "rules"
        for i, u in enumerate(units):
            if keep_ids.intersection(u.path):
                status[i] = None
    elif main_segs:
        _apply_segments(main_segs, units, ukeys, status, extra, hs, report, method, frozenset(furniture))
    else:
        # the extractor found nothing (tiny or unusual page) or did not run (too many elements):
        # the page minus its chrome is the body, flagged, rather than an empty document
        if "extractor_skipped" not in report.flags:
            report.flag("extractor_empty")
        method = "whole_page"
        for i, u in enumerate(units):
            if not u.template:
                status[i] = None

    types = declared_types(tree, scripts, hs.jsonld_max_depth)
    readable = [not (u.template or u.hidden or in_drop[i] or i in furniture) for i, u in enumerate(units)]
    _rescue(tree, units, status, readable, method, types, hs)
    entries = _cards_to_entries(units, status, types, hs)
    for i, reason in furniture.items():
        status[i] = reason
    for i in range(len(units)):
        if in_drop[i]:
            status[i] = DropReason.SELECTOR_DROP
    trace["method"] = method
    report.method = method
    comments = _route_comments(tree, scripts, units, status, hs, report, types)
    page = _page_kind(types, units, status, comments, entries, hs)
    report.page_kind, trace["page_kind"] = page.name, page.reason
    for i in nested_article_units(tree, units, status, hs):  # comments are routed already
        status[i] = DropReason.TEASER
    first_of = {c.units[0]: c for c in comments}
    all_body = bool(rules is not None and rules.comments_as_body)
    role_of = {c.units[0]: _comment_role(c, page, all_body) for c in comments}
    report.posts = sum(1 for r in role_of.values() if r == "post")
    report.reader_comments = sum(1 for r in role_of.values() if r is None)
    if report.reader_comments:
        report.flag("has_comments")

    blocks: list[Block] = list(extra.get(-1, []))
    for i, u in enumerate(units):
        reason = status[i]
        if reason == _COMMENT:
            if i in first_of:
                blocks.append(_comment_block(first_of[i], units, role_of[i]))
            continue
        kind = u.kind
        meta = dict(u.meta)
        if reason is None:
            meta["method"] = method
        blocks.append(Block(kind=str(kind), text=u.text, seq=len(blocks),  # renumber then keeps it as it is
                            drop_reason=None if reason is None else str(reason), level=u.level,
                            meta=tuple(meta.items())))
        blocks.extend(extra.get(i, []))
    trace["title_source"] = title_src
    blocks = [_without_soft_hyphens(b) for b in blocks]
    if "client_rendered_shell" in report.flags:  # a loader or noscript notice is not the page's content
        blocks = [b.dropped(DropReason.BOILERPLATE) if b.drop_reason is None else b for b in blocks]
        trace["message"] = ("client-rendered shell: the content is built by scripts; set `render: true` "
                            "on this URL source to take the DOM from headless Chromium")
    return Extraction(renumber(blocks), report, trace)


def _continues_body(units: list[Unit], status: list, i: int, hs: HtmlSettings) -> bool:
    """Whether the content before disclosure unit i (past its own panel, its toggle and other chrome)
    is body: a panel continues the article, not an appeal or a menu the extractor left out."""
    for k in range(i - 1, -1, -1):
        u = units[k]
        if u.disclosure or u.template or len(u.text.split()) <= hs.disclosure_control_max_words:
            continue
        return status[k] is None
    return False


def _inpage_furniture(units: list[Unit], hs: HtmlSettings) -> dict[int, DropReason]:
    """Units that leave the body whatever the extractor decides, with their reasons: an in-page
    TOC, a code block's toolbar, and elements hidden from every reader."""
    found = dict.fromkeys(toc_units(units, hs), DropReason.TOC)
    found.update(dict.fromkeys(code_toolbar_units(units, hs), DropReason.CODE_TOOLBAR))
    found.update({i: DropReason.HIDDEN for i, u in enumerate(units) if u.hidden})
    return found


# ---------------------------------------------------------------- reader comments
_COMMENT = "comment"  # status of a unit that is part of a reader comment (neither body nor dropped)


def _without_soft_hyphens(b: Block) -> Block:
    """The block without the page's soft hyphens (&shy;): a browser shows one only where it breaks a
    line, so it is never part of a word. Left in, normalisation would take each for the mark of a
    hyphen that ended a printed line (the PDF backend's use of U+00AD) and might keep a hyphen
    ("Not-fall" for "Not&shy;fall")."""
    if SOFT_HYPHEN not in b.text:
        return b
    return replace(b, text=b.text.replace(SOFT_HYPHEN, ""))


def _route_comments(tree: LexborHTMLParser, scripts: list, units: list[Unit], status: list,
                    hs: HtmlSettings, report: DocReport, types: frozenset[str]) -> list[Comment]:
    """Mark the units of comments and answers (status `_COMMENT`; on a declared thread, posts told
    by their structure too; on a declared product, its reviews); the rest of a comment (author line,
    date, reply link) is boilerplate even where the extractor kept it."""
    product = bool(types & PRODUCT_TYPES) and not types & DECLARED_ARTICLE_TYPES
    found = units_to_comments(tree, units, scripts, hs, report, bool(types & THREAD_TYPES), product)
    comments = [c for c in found if all(status[i] != DropReason.SELECTOR_DROP for i in c.units)]
    items = {c.node_id for c in comments if c.node_id}
    for i, u in enumerate(units):
        if status[i] is None and items.intersection(u.path):
            status[i] = DropReason.BOILERPLATE
            u.meta["comment_part"] = "meta"
    for c in comments:
        for i in c.units:
            status[i] = _COMMENT
    return comments


def _rescue(tree: LexborHTMLParser, units: list[Unit], status: list, readable: list[bool], method: str,
            types: frozenset[str], hs: HtmlSettings) -> None:
    """Make body what the extractor left out but the page holds as its own (meta.rescued says why)."""
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
    for why, find in steps:  # in order: each step sees what the ones before it made body
        for i in find():
            status[i] = None
            units[i].meta["rescued"] = why


def _cards_to_entries(units: list[Unit], status: list, types: frozenset[str], hs: HtmlSettings) -> bool:
    """Mark runs of teaser cards among the body: a list page's entries (meta.role = entry; True, see
    pagekind.lists_entries), or anywhere else teasers of other pages (dropped, reason teaser; False)."""
    teasers = teaser_units(units, [st is None for st in status], hs)
    if not teasers:
        return False
    words = [len(units[i].plain.split()) if st is None else 0 for i, st in enumerate(status)]
    card_words = sum(words[i] for i in set(teasers))
    entries = lists_entries(types, card_words, sum(words) - card_words, hs.listing_min_entry_share)
    for i in teasers:
        if entries:
            units[i].meta["role"] = "entry"
        else:
            status[i] = DropReason.TEASER
    return entries


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


# ---------------------------------------------------------------- JSON-LD
def _choose_jsonld(scripts: list, units: list[Unit], main_text: str, report: DocReport,
                   settings: Settings) -> list[str] | None:
    """Paragraphs of the first JSON-LD articleBody that is neither a teaser nor foreign to the page;
    one whose markup breaks the page's caps costs that body (report.part_failed)."""
    hs = settings.html
    candidates = article_bodies(scripts, hs.jsonld_max_depth)
    if not candidates:
        return None
    visible = " ".join(u.plain for u in units)
    visible_key = key(visible)
    yardstick = len(main_text) if main_text.strip() else len(visible)
    for _type, body in candidates:
        try:
            paras, _ = body_paragraphs(body, settings.limits, hs)
        except ExtractionError as exc:
            report.part_failed("json-ld", f"articleBody refused: {exc}")
            continue
        joined = " ".join(paras)
        if not joined:
            continue
        prefix = key(" ".join(joined.split()[: hs.jsonld_prefix_words]))
        if len(joined) < hs.jsonld_min_visible_ratio * yardstick:
            report.flag("jsonld_teaser")
            continue
        if not prefix or prefix not in visible_key:
            report.flag("jsonld_not_visible")
            continue
        return paras
    return None


# ---------------------------------------------------------------- alignment
def _apply_segments(main_segs: list[Seg], units: list[Unit], ukeys: list[str], status: list, extra: dict,
                    hs: HtmlSettings, report: DocReport, method: str, skip: frozenset[int] = frozenset()) -> None:
    """Units found in the chosen body text (JSON-LD or the extractor's) are body, in DOM order, with
    the DOM's own text and structure; body text no unit accounts for is inserted as blocks. Units
    in `skip` (in-page furniture) take no part."""
    matcher = Matcher(main_segs, hs.match_min_chars, hs.match_min_coverage, hs.match_max_steps)
    # units outside the page's chrome first: a breadcrumb repeating the title must not take the
    # title's text from the h1 (the chrome veto below would then drop both)
    for template in (False, True):
        for i, (u, k) in enumerate(zip(units, ukeys)):
            if u.template == template and i not in skip and u.kind != Kind.TABLE and matcher.match_exact(k, i):
                status[i] = None
    for i, (u, k) in enumerate(zip(units, ukeys)):
        if status[i] is None or i in skip:
            continue
        if u.kind == Kind.TABLE:
            cells = [key(c) for r in u.rows or [] for c in r]
            if matcher.match_table(cells, i):
                status[i] = None
        elif matcher.match(k, i) if k else matcher.match_symbols(u.text, i):
            status[i] = None

    if matcher.over_budget:
        report.flag("alignment_budget")

    # chrome markers veto the extractor, unless they wrap most of what it kept
    kept = [i for i, s in enumerate(status) if s is None]
    kept_chars = sum(len(units[i].plain) for i in kept) or 1
    chrome = [i for i in kept if units[i].template]
    if sum(len(units[i].plain) for i in chrome) < hs.template_max_share * kept_chars:
        for i in chrome:
            status[i] = DropReason.BOILERPLATE
            units[i].meta["vetoed"] = "template_region"

    # reference tables inside the article container survive the extractor's density heuristics
    main_id = main_container(units, [s is None for s in status], hs.main_container_share)
    if main_id is not None:
        for i, u in enumerate(units):
            if (status[i] is not None and u.kind == Kind.TABLE and not u.template and main_id in u.path
                    and _is_data_table(u, hs)):
                status[i] = None
                u.meta["rescued"] = "reference_table"
            elif (status[i] == DropReason.BOILERPLATE and u.disclosure and not u.template and main_id in u.path
                  and _continues_body(units, status, i, hs)):
                status[i] = None  # a closed tab or accordion panel of the article: extractors skip it
                u.meta["rescued"] = "disclosure_panel"

    # text the extractor found but no unit accounts for is body all the same
    furniture_keys = {ukeys[i] for i in skip}  # the extractor's copy of a TOC or a toolbar is no body either
    leftovers = [j for j in matcher.unmatched() if main_segs[j].key not in furniture_keys]
    anchors = matcher.anchors(leftovers)
    for j in leftovers:
        s = main_segs[j]
        text = markdown_table(s.rows) if s.kind == "table" and s.rows else s.text
        kind = {"cell": Kind.PARAGRAPH}.get(s.kind, s.kind)
        extra.setdefault(anchors[j], []).append(
            Block(kind=str(kind), text=text, level=s.level, meta=(("method", method), ("source", f"{method}_only")))
        )
    if leftovers:
        report.flag(f"{method}_text_unmatched")
