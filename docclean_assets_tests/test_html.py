"""HTML backend: JSON-LD bodies, per-source rules, trafilatura alignment, tables, shells, decoding."""
from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from docclean_assets.extract.api import ExtractionError, HtmlRules, extract_document
from docclean_assets.extract.html.document import decode_html, extract_html
from docclean_assets.extract.model import count_chars
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.corpus import CORPUS, corpus_files, corpus_params, stale_expectations
from docclean_assets_tests.support.html import PARAS, article_page, body_of, body_text_of

S = Settings()


def dropped(ex, reason):
    return [b for b in ex.blocks if b.drop_reason == reason]


# ---------------------------------------------------------------- JSON-LD
def _jsonld_page(article_body: str, graph: bool = True) -> bytes:
    node = {"@type": "NewsArticle", "headline": "Water levels fall again", "articleBody": article_body}
    data = {"@context": "https://schema.org", "@graph": [{"@type": "WebSite", "name": "Daily"}, node]} if graph else node
    # a trailing comma makes it invalid JSON, as publishers often ship it
    script = f'<script type="application/ld+json">{json.dumps(data)[:-1]},}}</script>'
    return article_page(extra_head=script).encode()


def test_jsonld_body_in_graph_is_chosen():
    ex = extract_html(_jsonld_page("\n\n".join(PARAS)), S)
    assert ex.trace.method == "jsonld"
    paras = [b for b in body_of(ex) if b.kind == "paragraph"]
    assert [b.text for b in paras] == PARAS
    assert all(b.get_meta("method") == "jsonld" for b in body_of(ex))
    assert "cookies" not in body_text_of(ex) and "Privacy policy" not in body_text_of(ex)


def test_jsonld_top_level_array_and_text_only_in_jsonld():
    # the JSON-LD body has a paragraph the DOM lacks (paywall): it still lands in the body, in order
    node = [{"@type": "BreadcrumbList"}, {"@type": ["Article"], "articleBody": "\n".join(PARAS + ["Subscribers read on: "
            "the authority will also commission an independent review of abstraction licences next year."])}]
    page = article_page(extra_head=f'<script type="application/ld+json">{json.dumps(node)}</script>').encode()
    ex = extract_html(page, S)
    assert ex.trace.method == "jsonld"
    texts = [b.text for b in body_of(ex) if b.kind == "paragraph"]
    assert texts[:4] == PARAS and "independent review" in texts[4]


def test_jsonld_teaser_rejected():
    ex = extract_html(_jsonld_page(PARAS[0][:80] + "..."), S)
    assert ex.trace.method == "trafilatura"
    assert "jsonld_teaser" in ex.report.flags
    assert [b.text for b in body_of(ex) if b.kind == "paragraph"] == PARAS


def test_jsonld_not_on_page_rejected():
    foreign = " ".join(["An entirely different story about a football match that ended in a draw."] * 12)
    ex = extract_html(_jsonld_page(foreign), S)
    assert ex.trace.method == "trafilatura"
    assert "jsonld_not_visible" in ex.report.flags
    assert "football" not in body_text_of(ex)


# ---------------------------------------------------------------- rules
def test_keep_selector_picks_container_and_drop_removes_child():
    page = article_page(article_extra='<aside class="promo"><p>Subscribe now for only one euro a month and '
                        'get unlimited access.</p></aside>').encode()
    ex = extract_html(page, S, rules=HtmlRules(keep="article.story", drop=(".promo", ".feedback")))
    assert ex.trace.method == "rules"
    texts = [b.text for b in body_of(ex)]
    assert texts == ["Water levels fall again"] + PARAS
    sel = dropped(ex, "selector_drop")
    assert any("Subscribe now for only one euro" in b.text for b in sel)
    assert any(b.text == "Was this page helpful?" for b in sel)
    # outside the container: kept as boilerplate, not deleted
    assert any("Privacy policy" in b.text for b in dropped(ex, "boilerplate"))
    assert all(b.get_meta("method") == "rules" for b in body_of(ex))


def test_keep_selector_miss_is_loud():
    ex = extract_html(article_page().encode(), S, rules=HtmlRules(keep="div.no-such-container"))
    assert body_of(ex) == []
    assert "selector_miss" in ex.report.flags
    assert any(PARAS[0] == b.text for b in ex.blocks)  # the text is still there, dropped


def test_drop_only_rules_feed_the_extractor():
    page = article_page(article_extra=f"<p class='disclaimer'>{PARAS[0].upper()} DISCLAIMER TEXT.</p>").encode()
    ex = extract_html(page, S, rules=HtmlRules(drop=(".disclaimer",)))
    assert "DISCLAIMER" not in body_text_of(ex)
    assert any("DISCLAIMER" in b.text for b in dropped(ex, "selector_drop"))
    assert [b.text for b in body_of(ex) if b.kind == "paragraph"] == PARAS


# ---------------------------------------------------------------- trafilatura alignment
def test_template_parts_are_dropped_blocks_and_body_is_article():
    ex = extract_html(article_page().encode(), S, url="https://example.org/news/water")
    assert ex.trace.method == "trafilatura"
    assert [b.text for b in body_of(ex) if b.kind == "paragraph"] == PARAS
    assert [b.kind for b in body_of(ex)] == ["title"] + ["paragraph"] * len(PARAS)
    boiler = " | ".join(b.text for b in dropped(ex, "boilerplate"))
    for template_text in ("We use cookies", "Sport", "Environment", "Was this page helpful?", "Copyright 2024",
                          "Privacy policy"):
        assert template_text in boiler, template_text
    seqs = [b.seq for b in ex.blocks]
    assert seqs == list(range(len(ex.blocks)))
    # document order: cookie banner first, footer last
    assert "cookies" in ex.blocks[0].text and "Terms of use" in ex.blocks[-1].text
    assert ex.report.format == "html"
    assert all(b.page is None and b.bbox is None for b in ex.blocks)


def test_raw_chars_counts_visible_text_only():
    page = article_page(extra_head="<style>body{color:red}</style><script>var x='SCRIPTTEXT';</script>")
    ex = extract_html(page.encode(), S)
    visible = sum(count_chars(b.text) for b in ex.blocks)
    assert visible * 0.9 <= ex.report.raw_chars <= visible * 1.1
    assert all("SCRIPTTEXT" not in b.text and "color:red" not in b.text for b in ex.blocks)


def test_headings_lists_and_code_are_typed():
    extra = ("<h2>What happens next</h2><ul><li>The board meets in March to review the monthly figures.</li>"
             "<li>A public consultation opens in April for residents of the basin.</li></ul>"
             "<pre>level_m = 12.4\nchange = -0.8</pre>")
    ex = extract_html(article_page(article_extra=extra).encode(), S)
    kinds = {b.text: (b.kind, b.level) for b in body_of(ex)}
    assert kinds["What happens next"] == ("heading", 2)
    assert kinds["The board meets in March to review the monthly figures."] == ("list_item", 1)
    code = [b for b in body_of(ex) if b.kind == "code"]
    assert code and code[0].text == "level_m = 12.4\nchange = -0.8"


def test_reference_table_kept_as_markdown():
    rows = "".join(f"<tr><td>{y}</td><td>{lvl}</td><td>{d}</td></tr>" for y, lvl, d in
                   [(2021, "14.1", "-0.3"), (2022, "13.5", "-0.6"), (2023, "12.4", "-1.1")])
    table = f"<table><thead><tr><th>Year</th><th>Level (m)</th><th>Change</th></tr></thead><tbody>{rows}</tbody></table>"
    ex = extract_html(article_page(article_extra=table).encode(), S)
    tables = [b for b in body_of(ex) if b.kind == "table"]
    assert len(tables) == 1
    lines = tables[0].text.splitlines()
    assert lines[0] == "| Year | Level (m) | Change |"
    assert lines[1] == "|---|---|---|"
    assert "| 2023 | 12.4 | -1.1 |" in lines
    order = [b.kind for b in body_of(ex)]
    assert order.index("table") == len(order) - 1  # after the paragraphs, where it sits in the page


def test_layout_table_is_not_a_data_table():
    page = ("<html><body><table><tr><td><div><p>" + PARAS[0] + "</p><p>" + PARAS[1] + "</p></div></td>"
            "<td><a href='/a'>Menu</a></td></tr></table></body></html>")
    ex = extract_html(page.encode(), S)
    assert not [b for b in ex.blocks if b.kind == "table"]
    assert PARAS[0] in [b.text for b in ex.blocks]


# ---------------------------------------------------------------- shells and decoding
@pytest.mark.parametrize("shell_body", [
    '<div id="root"></div><script src="/static/js/main.3f2a.js"></script>',
    '<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{}}</script>',
    "<noscript>You need to enable JavaScript to run this app.</noscript><div id='app'></div>",
])
def test_client_rendered_shell_flagged(shell_body):
    page = f"<!doctype html><html><head><title>App</title></head><body>{shell_body}</body></html>"
    ex = extract_html(page.encode(), S)
    assert "client_rendered_shell" in ex.report.flags
    assert ex.report.raw_chars < HtmlSettings().shell_max_chars


def test_real_article_not_flagged_as_shell():
    ex = extract_html(article_page(extra_head='<script src="/app.js"></script>').encode(), S)
    assert "client_rendered_shell" not in ex.report.flags


def test_meta_charset_windows_1252_decoded():
    text = "Les élèves ont reçu « un prix » — 5 € chacun, à Noël, grâce à l’école."
    page = (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
            f"<title>Prix</title></head><body><article><p>{text} {PARAS[0]}</p><p>{PARAS[1]}</p>"
            f"<p>{PARAS[2]}</p></article></body></html>").encode("cp1252")
    ex = extract_html(page, S)
    assert any(text in b.text for b in body_of(ex))
    assert ex.trace.encoding == "cp1252"
    assert "encoding_replaced" not in ex.report.flags


def test_meta_charset_iso_8859_1_and_bom():
    assert decode_html('<meta charset="iso-8859-1"><p>café</p>'.encode("latin-1"))[0].endswith("café</p>")
    assert decode_html(b"\xef\xbb\xbf<p>na\xc3\xafve</p>")[:2] == ("<p>naïve</p>", "utf-8")
    utf16 = "\ufeff<p>Grüße</p>".encode("utf-16-le")
    assert decode_html(utf16)[0] == "<p>Grüße</p>"


def test_undeclared_non_utf8_bytes_are_detected_not_replaced():
    text, enc, replaced = decode_html(b"<p>caf\xe9 ok</p>")
    assert enc != "utf-8" and not replaced and "caf\u00e9 ok" in text


def test_binary_input_raises():
    with pytest.raises(ExtractionError):
        extract_document(bytes(range(256)) * 64, "html")


def test_title_meta_when_h1_is_not_the_title():
    page = "<html><head><title>Report on water</title></head><body><article>" + "".join(
        f"<p>{p}</p>" for p in PARAS) + "</article></body></html>"
    ex = extract_html(page.encode(), S)
    assert ex.trace.title == "Report on water"
    assert not [b for b in ex.blocks if b.kind == "title"]


def test_settings_validation():
    with pytest.raises(ValueError):
        HtmlSettings(match_min_coverage=1.5)
    with pytest.raises(ValueError):
        HtmlSettings(table_min_cols=0)


# ---------------------------------------------------------------- corpus
AEB = "html/scrapinghub_aeb"  # the article-extraction-benchmark pages, each with gt/<id>.json
AEB_FILES = [rel for rel in corpus_files(AEB, ".html") if (CORPUS / AEB / "gt" / f"{Path(rel).stem}.json").is_file()]
AEB_MEAN_F1_MIN = 0.85  # the whole set's mean token F1 (0.959 when the test was parametrized)
AEB_DOC_F1_MIN = 0.5  # one page's token F1: below it, most of the article was lost or buried in chrome
# path under the corpus -> why its F1 is below AEB_DOC_F1_MIN
AEB_EXPECTED_FAILURES: dict[str, str] = {}  # b3c19 (related posts as nested <article>s) passes since issue 21


def token_f1(pred: str, gold: str) -> float:
    """Whitespace-token F1 from token counts, as the article-extraction-benchmark computes it."""
    p, g = Counter(pred.split()), Counter(gold.split())
    if not p and not g:
        return 1.0
    common = sum((p & g).values())
    if not common:
        return 0.0
    precision, recall = common / sum(p.values()), common / sum(g.values())
    return 2 * precision * recall / (precision + recall)


@cache
def _aeb_f1(rel: str) -> float:
    """Token F1 of one benchmark page against its ground truth (extracted once per run)."""
    gt = json.loads((CORPUS / AEB / "gt" / f"{Path(rel).stem}.json").read_text(encoding="utf-8"))
    ex = extract_html((CORPUS / rel).read_bytes(), S, url=gt.get("url"))
    return token_f1(body_text_of(ex), gt["articleBody"])


@pytest.mark.corpus
@pytest.mark.parametrize("rel", corpus_params(AEB_FILES, AEB_EXPECTED_FAILURES))
def test_scrapinghub_page_token_f1(rel):
    assert _aeb_f1(rel) >= AEB_DOC_F1_MIN


@pytest.mark.corpus
def test_scrapinghub_mean_token_f1():
    if not AEB_FILES:
        pytest.skip(f"corpus absent: {CORPUS / AEB}")
    assert not stale_expectations(AEB_FILES, AEB_EXPECTED_FAILURES)
    mean = sum(map(_aeb_f1, AEB_FILES)) / len(AEB_FILES)
    print(f"scrapinghub_aeb token F1 over {len(AEB_FILES)} docs: {mean:.4f}")
    assert mean >= AEB_MEAN_F1_MIN


def test_tab_panels_are_body_but_a_hidden_cookie_modal_is_not():
    tabs = ('<div class="tabs"><div role="tabpanel" id="tab-1"><p>Step one: switch the pump off at the '
            'isolator before opening the housing.</p></div>'
            '<div role="tabpanel" id="tab-2" hidden><p>Step two: drain the sump into a bucket and check '
            'the impeller for grit.</p></div>'
            '<div class="accordion-item" style="display:none"><p>Step three: refit the cover and run the '
            'pump for five minutes while watching for leaks.</p></div></div>')
    modal = ('<div class="modal" aria-hidden="true"><p>Manage your privacy preferences for this site '
             'and choose which partners may store data.</p></div>')
    ex = extract_html(article_page(article_extra=tabs + modal).encode(), S)
    text = body_text_of(ex)
    assert "Step one" in text and "Step two" in text and "Step three" in text
    assert "privacy preferences" not in text
    assert any("privacy preferences" in b.text and b.drop_reason for b in ex.blocks)


def test_a_carousels_cells_are_shown_but_a_lone_aria_hidden_block_is_hidden():
    """aria-hidden hides nothing on screen: a carousel's cells (3+ siblings of one tag and class) are
    read when every one carries aria-hidden; a closed modal, two aria-hidden siblings beside one without,
    or cells also hidden by style are not."""
    from selectolax.lexbor import LexborHTMLParser

    from docclean_assets.extract.html.dom import segment

    homes = ["Three bedroom house near the park, garden and garage", "Flat above the bakery with two bedrooms",
             "Cottage by the river with a new roof", "Terraced house on Mill Lane, close to the school"]
    cells = "".join(f'<li class="cell" aria-hidden="{"false" if i == 0 else "true"}"><p>{h}</p></li>'
                    for i, h in enumerate(homes))
    pair = "".join(f'<div class="menu" aria-hidden="true"><p>Menu entry number {i}</p></div>' for i in range(2))
    pair += '<div class="menu"><p>A third menu is in view: it carries no aria-hidden</p></div>'
    styled = "".join(f'<li class="s" aria-hidden="true" style="display: none"><p>Styled away {i}</p></li>'
                     for i in range(3))
    page = (f'<html><body><ul class="carousel">{cells}</ul>{pair}<ul>{styled}</ul>'
            '<div class="modal" aria-hidden="true"><p>Manage your privacy preferences</p></div></body></html>')
    hidden = {u.text: u.hidden for u in segment(LexborHTMLParser(page))}
    assert [hidden[h] for h in homes] == [False] * 4
    assert hidden["Manage your privacy preferences"] and hidden["Menu entry number 0"]
    assert all(hidden[f"Styled away {i}"] for i in range(3))


def test_an_accordions_collapsed_answers_are_read_but_hidden_modals_are_not():
    """A panel hidden by an inline style inside one of 3+ sibling items of one tag and class is an
    accordion's collapsed answer (its script sets the style on click); hidden elements side by side
    under one parent (closed modals) and a lone collapsed item stay hidden."""
    from selectolax.lexbor import LexborHTMLParser

    from docclean_assets.extract.html.dom import segment

    faq = [("What does the plan cover?", "Accidents and illnesses, from the first day of the policy"),
           ("How much does it cost?", "Between twenty and sixty a month, by the age of the pet"),
           ("Can I cancel?", "At any time, with a refund of the months not yet started")]
    items = "".join(f'<div class="faq-item"><div class="q">{q}</div><div class="a" style="height:0; '
                    f'visibility: hidden"><p>{a}</p></div></div>' for q, a in faq)
    modals = "".join(f'<div class="modal" style="display:none"><p>Modal number {i}</p></div>' for i in range(3))
    lone = '<div class="faq-other"><div class="q">Who are we?</div><div style="display:none"><p>A lone panel</p></div></div>'
    page = f'<html><body><main><div class="faq">{items}</div>{lone}</main>{modals}</body></html>'
    hidden = {u.text: u.hidden for u in segment(LexborHTMLParser(page))}
    assert [hidden[a] for _q, a in faq] == [False] * 3
    assert all(hidden[f"Modal number {i}"] for i in range(3)) and hidden["A lone panel"]


def test_an_unclosed_iframe_in_a_noscript_does_not_swallow_the_page():
    """A tag manager's `<noscript><iframe ... /></noscript>`: read as markup (no scripts run here) the
    iframe's raw text would run to the end of the page; it is closed where its noscript ends, and a
    noscript's own markup (a crawler view) is still read."""
    gtm = '<noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-X" height="0" width="0" /></noscript>'
    ex = extract_html(article_page().replace("<body>", "<body>" + gtm, 1).encode(), S)
    assert all(p in body_text_of(ex) for p in PARAS)
    # the page itself was read, not only the extractor's copy: its chrome is there, dropped
    assert any(b.drop_reason and "cookie policy" in b.text for b in ex.blocks) and ex.report.raw_chars > 500
    from selectolax.lexbor import LexborHTMLParser

    from docclean_assets.extract.html.dom import close_noscript_raw_text

    kept = '<noscript><iframe src="x"></iframe><p>Crawler view</p></noscript><noscript><style>a{}</noscript><p>After</p>'
    fixed = close_noscript_raw_text(kept)
    assert fixed == kept.replace("a{}</noscript>", "a{}</style></noscript>")
    assert [p.text() for p in LexborHTMLParser(fixed).css("p")] == ["Crawler view", "After"]


def test_undeclared_windows_1252_page_is_detected():
    page = ("<html><body><article><h1>Caf\u00e9 prices</h1><p>Caf\u00e9 cr\u00e8me \u2013 \u201cna\u00efve\u201d fa\u00e7ade, "
            "\u20ac12 for the cr\u00eape and the r\u00e9sum\u00e9 of the \u0153uvre, served every morning at the "
            "market hall by the river.</p></article></body></html>")
    ex = extract_html(page.encode("cp1252"), S)
    assert "\u20ac12 for the cr\u00eape" in body_text_of(ex) and "\u201cna\u00efve\u201d" in body_text_of(ex)


def test_soft_hyphens_are_never_kept_as_hyphens() -> None:
    """&shy; marks where a browser may break a word: it is no hyphen of the text. Normalisation
    must not read it as a printed line-break hyphen and keep "Not-fall" (a frequent-looking split)."""
    from docclean_assets.extract.normalize import normalize_blocks

    words = ["Not&shy;fall", "Legitimations&shy;ideologie", "regis&shy;triertem", "well&shy;known"]
    html = ("<html><head><title>Silbentrennung</title></head><body><article><h1>Silbentrennung</h1>"
            f"<p>Im {words[0]} hilft die {words[1]} nicht, sagt der {words[2]} Verein. "
            "Ein langer Absatz mit genug Worten, damit er als Haupttext gilt, und noch mehr Worten "
            f"dazu, die nichts weiter sagen; {words[3]} steht am Ende.</p></article></body></html>")
    ext = extract_document(html.encode(), "html")
    blocks = normalize_blocks(ext.blocks)
    text = " ".join(b.text for b in blocks if b.drop_reason is None)
    for joined in ("Notfall", "Legitimationsideologie", "registriertem", "wellknown"):
        assert joined in text
    assert "\u00ad" not in text and "Not-fall" not in text
    # nor are they counted as characters read (the retention ratio compares kept with read)
    assert ext.report.raw_chars == extract_document(html.replace("&shy;", "").encode(), "html").report.raw_chars


@pytest.mark.parametrize("crumb_where", ["header", "nav"])
def test_a_breadcrumb_repeating_the_title_does_not_take_the_titles_place(crumb_where):
    # The extractor's text starts with the title; the breadcrumb's last item has the same words and
    # comes first in the DOM. It is page chrome: the title is matched to the h1, and the crumb stays out.
    title = "Winter moorings open for booking in the inner basin"
    crumbs = f"<ol class='breadcrumb'><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li><li>{title}</li></ol>"
    chrome = f"<header>{crumbs}</header>" if crumb_where == "header" else f"<nav aria-label='Breadcrumb'>{crumbs}</nav>"
    paras = "".join(f"<p>{p}</p>" for p in [
        "Boat owners can now book a winter mooring in the inner basin for the months from November to March. "
        "The basin is sheltered from easterly gales, and the pontoons were replaced last spring.",
        "Each berth has fresh water and a metered electricity point. Owners must show a current insurance "
        "certificate before the harbour master allocates a berth for the season.",
        "Bookings close at the end of September, and any berths left over are offered to visiting yachts on a "
        "weekly basis until the spring."])
    page = (f"<html><head><title>{title} | Kestrel Bay</title></head><body>{chrome}<main><article><h1>{title}</h1>"
            f"{paras}</article></main><footer><p>Port Authority of Kestrel Bay</p></footer></body></html>")
    blocks = extract_document(page.encode(), "html", Settings()).blocks
    body = [b for b in blocks if b.in_body]
    assert body[0].kind == "title" and body[0].text == title
    assert [b.drop_reason for b in blocks if b.kind == "list_item" and b.text == title] == ["boilerplate"]
