"""Issue 21: in-page tables of contents, hidden elements and code toolbars leave the body with their
own reasons, on generated documentation pages in three TOC and three toolbar house styles; prose that
looks like them stays (an in-text link to a heading, a short lead-in, a tab panel, screen-reader text)."""
from __future__ import annotations

import pytest

from docclean_assets.extract.api import extract_document
from docclean_assets_tests.fixtures.build_docs_site import CODE, TAB_TEXT, TOC_LABELS, TOOLBARS, page


def _extract(toc: str, toolbar: str):
    html, expected = page(toc, toolbar)
    blocks = extract_document(html, "html").blocks
    dropped: dict[str, list[str]] = {}
    for b in blocks:
        if b.drop_reason:
            dropped.setdefault(b.drop_reason, []).append(b.text)
    return blocks, dropped, expected


@pytest.mark.parametrize("toolbar", sorted(TOOLBARS))
@pytest.mark.parametrize("toc", sorted(TOC_LABELS))
def test_docs_page_body_is_exactly_its_prose_and_code(toc, toolbar):
    blocks, dropped, expected = _extract(toc, toolbar)
    assert [b.text for b in blocks if b.drop_reason is None and b.kind != "code"] == expected.body
    assert [b.text for b in blocks if b.drop_reason is None and b.kind == "code"] == expected.code  # whitespace intact
    for reason, texts in expected.dropped.items():
        assert dropped.get(reason) == texts, (reason, dropped)


def test_a_site_menu_linking_to_other_pages_is_navigation_not_a_toc():
    _, dropped, _ = _extract("nav", "header")
    assert {"Start guide", "Admin guide", "Api guide"} <= set(dropped["boilerplate"])
    assert not {"Start guide", "Admin guide"} & set(dropped["toc"])


def test_a_hidden_tab_panel_stays_body_and_hidden_notices_keep_their_text():
    blocks, dropped, _ = _extract("heading", "copied")
    body = [b.text for b in blocks if b.drop_reason is None]
    assert TAB_TEXT["windows"] in body  # role=tabpanel hidden: a panel the reader opens
    assert len(dropped["hidden"]) == 4 and all(dropped["hidden"])  # banner, display:none, aria-hidden, <template>


def test_a_pre_with_its_copy_button_inside_gives_the_code_alone():
    blocks, dropped, _ = _extract("sidebar", "button_in_pre")
    code = [b for b in blocks if b.kind == "code"]
    assert [b.text for b in code] == list(CODE.values()) and not any("Copy" in b.text for b in code)
    assert dropped["code_toolbar"] == ["Copy"] * len(CODE)


def test_related_stories_and_bare_related_links_leave_the_body_and_references_stay():
    from docclean_assets.extract.html.rules import HtmlRules
    from docclean_assets_tests.fixtures.build_docs_site import news_page

    html, body, teasers = news_page()
    # a source rule keeping the whole <article> keeps the related blocks inside it too: the teaser
    # rule must take them out (on this small page trafilatura alone drops the cards already)
    blocks = extract_document(html, "html", html_rules=HtmlRules(keep="article")).blocks
    assert [b.text for b in blocks if b.drop_reason is None] == body
    assert [b.text for b in blocks if b.drop_reason == "teaser"] == teasers


def test_a_list_page_keeps_its_cards_as_entries_and_an_article_keeps_them_out():
    """Cards holding most of a page's words are its entries (role entry, page kind listing) unless the
    page declares an article, whose cards are teasers of other pages."""
    from docclean_assets_tests.fixtures.build_docs_site import listing_page

    html, cards = listing_page(declares_article=False)
    ex = extract_document(html, "html")
    entries = [b for b in ex.blocks if dict(b.meta).get("role") == "entry"]
    assert [b.text for b in entries] == cards and all(b.drop_reason is None for b in entries)
    assert ex.report.page_kind == "listing"
    html, cards = listing_page(declares_article=True)
    ex = extract_document(html, "html")
    assert not {b.text for b in ex.blocks if b.drop_reason is None} & set(cards)
    assert ex.report.page_kind == "article"

