"""The body of a page: which of its text units are the article. Helpers of the stage that chooses it
(html/document.py): trafilatura's text, a JSON-LD articleBody that is neither a teaser nor foreign
to the page, and the chosen text aligned back to the units, with the vetoes and rescues that follow."""
from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.html.articles import main_container
from docclean_assets.extract.html.dom import Unit, key, markdown_table
from docclean_assets.extract.html.jsonld import article_bodies, body_paragraphs
from docclean_assets.extract.html.match import Matcher, Seg, segments
from docclean_assets.extract.html.rules import HtmlRules
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.html.trace import Notes, Status
from docclean_assets.extract.model import Block, DocReport, DropReason, Kind
from docclean_assets.extract.settings import Settings


def select_nodes(tree: LexborHTMLParser, selector: str, report: DocReport) -> list | None:
    """The nodes a CSS selector matches; None (flag selector_error) when the selector is invalid."""
    try:
        return list(tree.css(selector))
    except Exception:  # noqa: BLE001 - an invalid selector is a configuration error, reported loudly
        report.flag("selector_error")
        return None



def extractor_segments(text: str, rules: HtmlRules | None, keep_nodes: list | None, drop_nodes: list,
                       elements: int, url: str | None, hs: HtmlSettings,
                       report: DocReport) -> tuple[list[Seg], str | None]:
    """trafilatura's segments of the page, its drop rules applied first, and its error if it failed;
    none when the keep rule missed, or when the page has more than `extractor_max_elements` elements
    (flag extractor_skipped)."""
    if rules and rules.keep and not keep_nodes:
        return [], None
    if elements > hs.extractor_max_elements:
        report.flag("extractor_skipped")
        return [], None
    src = text
    if drop_nodes and keep_nodes is None:
        pruned = LexborHTMLParser(text)
        for sel in rules.drop if rules else ():
            for n in select_nodes(pruned, sel, DocReport()) or []:
                n.decompose()
        src = pruned.html or ""
    segs, err = _trafilatura(src, url)
    if err:
        report.flag("extractor_error")
    return segs, err


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


def is_data_table(u: Unit, hs: HtmlSettings) -> bool:
    """A table of reference data: enough rows and columns, few of its characters in links."""
    rows = u.rows or []
    if len(rows) < hs.table_min_rows or max((len(r) for r in rows), default=0) < hs.table_min_cols:
        return False
    chars = sum(len(c) for r in rows for c in r)
    return chars > 0 and u.link_chars <= hs.table_max_link_ratio * chars



def continues_body(units: list[Unit], status: list, i: int, hs: HtmlSettings) -> bool:
    """Whether the content before disclosure unit i (past its own panel, its toggle and other chrome)
    is body: a panel continues the article, not an appeal or a menu the extractor left out."""
    for k in range(i - 1, -1, -1):
        u = units[k]
        if u.disclosure or u.template or len(u.text.split()) <= hs.disclosure_control_max_words:
            continue
        return status[k] is None
    return False



def choose_jsonld(scripts: list, units: list[Unit], main_text: str, report: DocReport,
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


def segments_to_status(main_segs: list[Seg], units: list[Unit], ukeys: list[str], hs: HtmlSettings,
                       report: DocReport, method: str,
                       skip: frozenset[int] = frozenset()) -> tuple[Status, dict[int, list[Block]], Notes]:
    """Units found in the chosen body text (JSON-LD or the extractor's) are body, in DOM order, with
    the DOM's own text and structure; body text no unit accounts for becomes blocks after the unit it
    follows. Units in `skip` (in-page furniture) take no part. (statuses, those blocks, notes.)"""
    status: list[str | None] = [DropReason.BOILERPLATE] * len(units)
    extra: dict[int, list[Block]] = {}
    notes: Notes = {}
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
            notes.setdefault(i, {})["vetoed"] = "template_region"

    # reference tables inside the article container survive the extractor's density heuristics
    main_id = main_container(units, [s is None for s in status], hs.main_container_share)
    if main_id is not None:
        for i, u in enumerate(units):
            if (status[i] is not None and u.kind == Kind.TABLE and not u.template and main_id in u.path
                    and is_data_table(u, hs)):
                status[i] = None
                notes.setdefault(i, {})["rescued"] = "reference_table"
            elif (status[i] == DropReason.BOILERPLATE and u.disclosure and not u.template and main_id in u.path
                  and continues_body(units, status, i, hs)):
                status[i] = None  # a closed tab or accordion panel of the article: extractors skip it
                notes.setdefault(i, {})["rescued"] = "disclosure_panel"

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
    return tuple(status), extra, notes
