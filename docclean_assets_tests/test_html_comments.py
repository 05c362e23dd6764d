"""HTML reader comments (kind 'comment', not body), the standfirst, disclosure rescue and JSON-LD escapes."""
from __future__ import annotations

import json

import pytest
from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.api import HtmlRules
from docclean_assets.extract.html.document import decode_html, extract_html
from docclean_assets.extract.html.dom import segment
from docclean_assets.extract.html.jsonld import body_paragraphs
from docclean_assets.extract.html.lede import units_to_standfirst
from docclean_assets.extract.model import DropReason, Kind
from docclean_assets.extract.settings import Settings
from docclean_assets.ingest.sources import SourceConfigError, load_sources
from docclean_assets_tests.support.html import PARAS, article_page, body_of, body_text_of
from docclean_assets_tests.support.html import THREAD, wordpress_page

S = Settings()


def comments_of(ex):
    return [b for b in ex.blocks if b.kind == Kind.COMMENT]


def test_wordpress_thread_becomes_comment_blocks_with_author_date_and_reply():
    ex = extract_html(wordpress_page(), S)
    cs = comments_of(ex)
    assert [b.text for b in cs] == [t[3] for t in THREAD]  # DOM order, text only (no "says:", no "Reply")
    assert [b.get_meta("author") for b in cs] == [t[1] for t in THREAD]
    assert [b.get_meta("date") for b in cs] == [t[2] for t in THREAD]
    assert [b.get_meta("comment_id") for b in cs] == [f"div-comment-{t[0]}" for t in THREAD]
    assert cs[1].get_meta("reply_to") == "comment-7" and cs[0].get_meta("reply_to") is None
    assert all(b.drop_reason is None and not b.in_body for b in cs)
    assert "has_comments" in ex.report.flags and ex.report.reader_comments == 3
    text = body_text_of(ex)
    assert all(p in text for p in PARAS)
    assert "allotment well" not in text and "Leave a Reply" not in text and "Ada Lovelace" not in text


def test_comments_as_body_puts_them_in_the_body():
    ex = extract_html(wordpress_page(), S, rules=HtmlRules(comments_as_body=True))
    assert not comments_of(ex)
    routed = [b for b in body_of(ex) if b.get_meta("role") == "comment"]
    assert [b.text for b in routed] == [t[3] for t in THREAD]
    assert all(b.kind == Kind.PARAGRAPH and b.get_meta("author") for b in routed)
    assert body_text_of(ex).index(PARAS[-1]) < body_text_of(ex).index(THREAD[0][3])  # after the article


def test_a_drupal_comment_body_is_its_text_though_its_class_says_name():
    """Drupal names a comment's text `field-name-comment-body`: "name" there is no author line."""
    def item(cid, author, text):
        return (f'<div class="comment comment-container" id="cid-{cid}"><div class="post-header">'
                f'<span class="author-details__username">{author}</span></div><div class="comment-content">'
                f'<div class="formatted-text field field-name-comment-body"><p>{text}</p></div></div></div>')
    thread = "".join(item(cid, author, text) for cid, author, _date, text, _to in THREAD)
    ex = extract_html(article_page(article_extra=f'<div id="comments">{thread}</div>').encode(), S)
    assert [b.text for b in comments_of(ex)] == [t[3] for t in THREAD]


def test_microdata_comment_outside_any_comment_section():
    block = ('<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author" itemscope '
             'itemtype="https://schema.org/Person"><span itemprop="name">Dana Scully</span></span>'
             '<meta itemprop="dateCreated" content="2024-04-02"><div itemprop="text"><p>The abstraction '
             'licences were never meant to cover the new orchards north of the ridge.</p></div></div>')
    ex = extract_html(article_page(article_extra=f"<section>{block}</section>").encode(), S)
    cs = comments_of(ex)
    assert len(cs) == 1 and cs[0].get_meta("author") == "Dana Scully" and cs[0].get_meta("date") == "2024-04-02"
    assert cs[0].text.startswith("The abstraction licences") and "Dana Scully" not in cs[0].text


def test_jsonld_comment_marks_unclassed_markup():
    text = "I measured the well behind the church every week last year and it fell by almost two metres."
    node = {"@type": "NewsArticle", "headline": "Water levels fall again",
            "comment": [{"@type": "Comment", "text": text, "author": {"@type": "Person", "name": "Eve Moss"},
                         "dateCreated": "2024-05-05"}]}
    script = f'<script type="application/ld+json">{json.dumps(node)}</script>'
    page = article_page(extra_head=script, article_extra=f'<div class="c-item"><p>{text}</p></div>').encode()
    cs = comments_of(extract_html(page, S))
    assert [(b.text, b.get_meta("author"), b.get_meta("date")) for b in cs] == [(text, "Eve Moss", "2024-05-05")]


def test_page_without_comments_has_none():
    # "comment" as a class of an opinion-piece teaser, with a date but no author, is no reader comment
    teaser = ('<ul class="related"><li class="comment premium"><time datetime="2024-01-01">1 Jan</time>'
              '<h3><a href="/x">Comment: why the reservoir plan is a mistake</a></h3></li></ul>')
    for page in (article_page(), article_page(article_extra=teaser)):
        ex = extract_html(page.encode(), S)
        assert not comments_of(ex)
        assert "has_comments" not in ex.report.flags and ex.report.reader_comments == 0
        assert all(p in body_text_of(ex) for p in PARAS)


def test_comments_as_body_option_in_sources_yaml(tmp_path):
    (tmp_path / "docs").mkdir()
    f = tmp_path / "sources.yaml"
    f.write_text("sources:\n  blog:\n    path: docs\n    html: {comments_as_body: true}\n")
    assert load_sources(f).sources["blog"].html.comments_as_body is True
    f.write_text("sources:\n  blog:\n    path: docs\n    html: {comments_as_body: often}\n")
    with pytest.raises(SourceConfigError, match="source 'blog': key 'html.comments_as_body'"):
        load_sources(f)


# ---------------------------------------------------------------- standfirst
LEDE = ("The northern basin has lost water for a third year running, and the authority now admits that "
        "abstraction upstream is the cause.")


CREDIT = "Photo: Kim Lee (copyright)"


def _lede_units(description: str, lede_wrapper: str = "div"):
    html = (f'<html><head><meta name="description" content="{description}"></head><body><article>'
            f'<h1>Water levels fall again</h1><p>{CREDIT}</p><{lede_wrapper} class="intro"><p>{LEDE}</p>'
            f'</{lede_wrapper}><p class="byline">By Kim Lee, 3 March 2024</p>' + "".join(f"<p>{p}</p>" for p in PARAS)
            + "</article></body></html>")
    tree = LexborHTMLParser(html)
    units = segment(tree)
    units[0].kind = Kind.TITLE
    # the extractor kept the photo credit above the lede, and the article
    status = [None if u.text in PARAS or u.text == CREDIT else DropReason.BOILERPLATE for u in units]
    return tree, units, status


def test_standfirst_matching_the_description_is_rescued():
    tree, units, status = _lede_units(LEDE)
    found = units_to_standfirst(tree, units, status, S.html)
    assert [units[i].text for i in found] == [LEDE]  # the byline between them is not


@pytest.mark.parametrize("description, wrapper", [
    ("A page about water.", "div"),  # the page describes itself otherwise
    (LEDE, "figure"),  # a photo caption that happens to repeat the description
])
def test_standfirst_needs_the_description_and_no_caption(description, wrapper):
    tree, units, status = _lede_units(description, wrapper)
    assert units_to_standfirst(tree, units, status, S.html) == []


# ---------------------------------------------------------------- disclosure widgets, JSON-LD escapes
def test_control_panels_and_toggles_are_not_rescued_as_disclosure_panels():
    extra = ('<div class="control-panel"><p>Photo: Kim Lee, agency picture desk</p></div>'
             '<div class="js-accordion"><div class="accordion-toggle">Hide the sources of this article</div>'
             '<div class="accordion-content"><p>Sources: river authority annual report, council minutes and '
             'the wetlands survey of the estuary trust.</p></div></div>')
    units = segment(LexborHTMLParser(decode_html(article_page(article_extra=extra).encode())[0]))
    flags = {u.text[:12]: u.disclosure for u in units}
    assert flags["Photo: Kim L"] is False and flags["Hide the sou"] is False and flags["Sources: riv"] is True


def test_jsonld_body_escaped_twice_is_unescaped():
    paras, _ = body_paragraphs("&amp;quot;Markets run ahead&amp;quot; &amp;ndash; he said.\\n\\nSecond &amp;amp; last.")
    assert paras == ['"Markets run ahead" \u2013 he said.', "Second & last."]


def test_a_closed_panel_is_rescued_only_where_it_continues_the_body():
    from docclean_assets.extract.html.body import continues_body
    from docclean_assets.extract.html.dom import Unit

    def unit(text, disclosure=False, template=False):
        return Unit("paragraph", text, "p", (1,), disclosure=disclosure, template=template)

    appeal = unit("We do this work every day at no cost to you, but it is far from free.", disclosure=True)
    toggle, menu = unit("Read the letter"), unit("Support us and make a difference for readers everywhere today.")
    story = unit("The river authority said the level would keep falling through the summer months.")
    hs = Settings().html
    # after text the extractor left out (an appeal card), past the panel's toggle: not the article's
    assert not continues_body([story, menu, toggle, appeal], [None, "boilerplate", "boilerplate", "boilerplate"], 3, hs)
    # right after the article's text, past the toggle: a closed panel of the article
    assert continues_body([menu, story, toggle, appeal], ["boilerplate", None, "boilerplate", "boilerplate"], 3, hs)
    # a second panel after a rescued one continues the body too (panels and chrome are looked past)
    chrome = unit("Share this story with your friends and family on social media", template=True)
    assert continues_body([story, appeal, chrome, appeal], [None, None, "boilerplate", "boilerplate"], 3, hs)
