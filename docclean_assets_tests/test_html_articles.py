"""Issue 21: the parts of an article extractors misjudge, on generated news pages. A story split into
same-shaped chunks is all body (trafilatura keeps the first chunk of a body class); social posts the
story embeds are body, the site's own feed is not; related posts nested as <article>s leave the body
with reason `teaser`, while a page wrapping its one story in a second <article> keeps it."""
from __future__ import annotations

import dataclasses

import pytest

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.fixtures.build_article_parts import (
    BIO, CHUNK_CLASSES, EMBED_WRAPPERS, POSTS, RELATED, STORY, YOU_MAY_LIKE, chunked_article, embedded_posts,
    nested_related_posts, wrapped_story)


def _html_settings(**changes) -> Settings:
    s = Settings()
    return dataclasses.replace(s, html=dataclasses.replace(s.html, **changes))


def _body(blocks) -> list[str]:
    """Kept texts in order, the page title aside (whether it is kept depends on the extractor)."""
    return [b.text for b in blocks if b.drop_reason is None and b.kind != "title"]


@pytest.mark.parametrize("style", sorted(CHUNK_CLASSES))
def test_an_article_in_chunks_is_all_body_and_the_last_chunks_related_links_are_not(style):
    html, body, out = chunked_article(style)
    blocks = extract_document(html, "html").blocks
    assert _body(blocks) == body[1:]
    dropped = {b.text: b.drop_reason for b in blocks if b.drop_reason}
    assert all(dropped.get(t) for t in out), dropped  # related heading and links, bio, newsletter box
    rescued = [b.text for b in blocks if dict(b.meta).get("rescued") == "continuation"]
    assert rescued == STORY[2:]


def test_without_the_continuation_rule_the_extractor_keeps_only_the_first_chunk():
    html, _, _ = chunked_article("bem")
    blocks = extract_document(html, "html", _html_settings(continuation_min_words=10_000)).blocks
    assert _body(blocks) == STORY[:2]  # the phenomenon the rule answers, so the test above can fail


def test_a_chunk_of_the_same_shape_holding_only_links_stays_out():
    html, _, _ = chunked_article("wordpress")
    related = "".join(f'<li><a href="/r/{i}">{t}</a></li>' for i, t in enumerate(RELATED))
    html = html.replace(b'<div class="author-box">',
                        f'<div class="row"><div class="entry-content"><ul>{related}</ul></div></div>'
                        '<div class="author-box">'.encode())
    blocks = extract_document(html, "html").blocks
    assert _body(blocks) == STORY and BIO not in _body(blocks)


@pytest.mark.parametrize("wrapper", sorted(EMBED_WRAPPERS))
def test_posts_the_story_embeds_are_body_and_the_sidebar_feed_is_not(wrapper):
    html, body, out = embedded_posts(wrapper)
    blocks = extract_document(html, "html").blocks
    assert _body(blocks) == body[1:]
    assert all(any(text in t for t in _body(blocks)) for text, _ in POSTS.values())
    assert not any(o in t for o in out for t in _body(blocks))


def test_related_posts_nested_as_articles_leave_the_body_as_teasers_with_their_label():
    html, body, related = nested_related_posts()
    blocks = extract_document(html, "html").blocks
    assert _body(blocks) == body[1:]
    reasons = {b.text: b.drop_reason for b in blocks}
    assert [reasons[t] for t in related] == ["teaser"] * len(YOU_MAY_LIKE)
    assert reasons["You may like..."] == "teaser"


def test_a_story_wrapped_in_a_second_article_stays_body():
    html, body, _ = wrapped_story()
    blocks = extract_document(html, "html").blocks
    assert _body(blocks) == body[1:]
    assert not any(b.drop_reason == "teaser" for b in blocks)


def test_nested_articles_without_body_outside_them_are_the_page_not_teasers():
    # a listing page of posts, each an <article> in the page's <article>: nothing else is body
    posts = "".join(f'<article class="p"><h2>Post {i}</h2><p>{t}</p></article>' for i, t in enumerate(STORY[:3]))
    html = f"<html><body><article class='list'>{posts}</article></body></html>".encode()
    blocks = extract_document(html, "html").blocks
    assert not any(b.drop_reason == "teaser" for b in blocks)
    assert set(STORY[:3]) <= set(_body(blocks))
