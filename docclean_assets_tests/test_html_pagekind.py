"""A page's kind decides its content (issue 35): a thread's posts are body, an FAQ's answers are
body, reader comments under an article stay apart; content that scripts reveal is not hidden; the
depth guard measures the depth the parser builds."""
from __future__ import annotations

import json

import pytest
from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.guard import check_html_bytes, check_html_depth
from docclean_assets.extract.html.document import extract_html
from docclean_assets.extract.html.pagekind import lists_entries, page_kind
from docclean_assets.extract.model import DropReason, Kind
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets_tests.support.html import PARAS, article_page, body_of, body_text_of
from docclean_assets_tests.support.html import wp_comment

S = Settings()

POSTS = [
    ("Ada Lovelace", "2024-03-01T09:15:00+00:00",
     "My well pump trips the breaker every time the pressure tank refills after a long dry week. The breaker "
     "is a twenty amp one and the pump is rated well under that, so I suspect the capacitor or the wiring."),
    ("Bram Stoker", "2024-03-01T11:40:00+00:00",
     "Check the start capacitor first: a weak one makes the motor draw locked rotor current for far too long, "
     "which looks exactly like an undersized breaker. A cheap meter with a capacitance range will tell you."),
    ("Chen Wei", "2024-03-02T08:05:00+00:00",
     "Also measure the voltage at the pressure switch while the pump starts. Long runs of thin cable drop the "
     "voltage enough to stall the motor, and the stall current then trips the breaker within a few seconds."),
]


def _post(author: str, date: str, text: str) -> str:
    return (f'<div class="post" itemprop="comment" itemscope itemtype="https://schema.org/Comment">'
            f'<div class="post-meta"><span itemprop="author" itemscope itemtype="https://schema.org/Person">'
            f'<span itemprop="name">{author}</span></span> <time datetime="{date}">{date[:10]}</time></div>'
            f'<div itemprop="text"><p>{text}</p></div></div>')


def forum_page(declare: bool = True) -> bytes:
    ld = {"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Pump trips breaker"}
    head = f'<script type="application/ld+json">{json.dumps(ld)}</script>' if declare else ""
    posts = "".join(_post(*p) for p in POSTS)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Pump trips breaker | Well Forum</title>
    {head}</head><body><header><nav class="main-nav"><a href="/">Forums</a> <a href="/new">New posts</a></nav></header>
    <main><h1>Pump trips breaker</h1><div class="thread">{posts}</div></main>
    <footer><p>Well Forum. All rights reserved.</p></footer></body></html>""".encode()


def posts_of(ex):
    return [b for b in body_of(ex) if b.get_meta("role") == "post"]


def test_a_declared_forum_thread_keeps_every_post_as_body_with_its_author_and_date():
    ex = extract_html(forum_page(), S)
    posts = posts_of(ex)
    assert [b.text for b in posts] == [p[2] for p in POSTS]  # in order, the first post too
    assert [(b.get_meta("author"), b.get_meta("date")) for b in posts] == [p[:2] for p in POSTS]
    assert all(b.kind == Kind.PARAGRAPH for b in posts) and not [b for b in ex.blocks if b.kind == Kind.COMMENT]
    assert ex.report.page_kind == "thread" and ex.report.posts == 3 and ex.report.reader_comments == 0
    assert "DiscussionForumPosting".lower() in ex.trace.page_kind.lower()
    assert "Well Forum. All rights reserved." not in body_text_of(ex)


def test_an_undeclared_thread_is_told_by_its_comments_outweighing_the_article():
    ex = extract_html(forum_page(declare=False), S)
    assert ex.report.page_kind == "thread" and "comments hold" in ex.trace.page_kind
    assert all(p[2] in body_text_of(ex) for p in POSTS[1:])


def _post_under_comments(paragraphs: list[str], extra_head: str = "") -> bytes:
    thread = "".join(wp_comment(str(i), a, d, t) for i, (a, d, t) in enumerate(POSTS))
    comments = f'<div id="comments" class="comments-area"><ol class="comment-list">{thread}</ol></div>'
    paras = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Pump trips breaker</title>{extra_head}
    </head><body><main><article><h1>Pump trips breaker</h1>{paras}{comments}</article></main></body></html>""".encode()


def test_comments_under_an_article_stay_comments_and_a_declared_article_stays_one():
    # a full article: its comments are a fraction of it
    full = extract_html(_post_under_comments(PARAS), S)
    assert full.report.page_kind == "page" and full.report.reader_comments == 3 and not posts_of(full)
    # one short paragraph under three long comments: a thread unless the page says it is an article
    short = ["Has anyone seen this with a submersible pump on a long cable run?"]
    thread = extract_html(_post_under_comments(short), S)
    assert thread.report.page_kind == "thread" and [b.text for b in posts_of(thread)] == [p[2] for p in POSTS]
    declared = extract_html(_post_under_comments(short, '<meta property="og:type" content="article">'), S)
    assert declared.report.page_kind == "article" and declared.report.reader_comments == 3
    assert not posts_of(declared) and POSTS[0][2] not in body_text_of(declared)


def test_a_declared_article_without_prose_is_a_link_post_whose_thread_is_the_content():
    # a link aggregator's story page: its "article" is a title, a link and a byline over the thread
    link = ['<a href="https://example.org/pumps">Why well pumps trip breakers</a> example.org',
            "via ada 1 year ago | hardware | 3 comments"]
    og = '<meta property="og:type" content="article">'
    ex = extract_html(_post_under_comments(link, og), S)
    assert ex.report.page_kind == "thread" and "link post" in ex.trace.page_kind
    assert [b.text for b in posts_of(ex)] == [p[2] for p in POSTS]


def test_page_kind_decides_on_declarations_first_then_on_the_words():
    assert page_kind(frozenset({"qapage"}), 500, 0, 0, 2.0).name == "thread"
    assert page_kind(frozenset(), 100, 199, 3, 2.0).name == "page"
    assert page_kind(frozenset(), 100, 200, 3, 2.0).name == "thread"
    assert page_kind(frozenset(), 100, 900, 1, 2.0).name == "page"  # one comment is no thread
    assert page_kind(frozenset({"blogposting"}), 100, 900, 5, 2.0).name == "article"
    assert page_kind(frozenset({"blogposting"}), 100, 900, 5, 2.0, article_prose=False).name == "thread"
    assert page_kind(frozenset({"blogposting"}), 500, 900, 5, 2.0, article_prose=False).name == "article"
    assert page_kind(frozenset({"product", "offer"}), 100, 0, 0, 2.0).name == "product"
    assert page_kind(frozenset({"collectionpage"}), 100, 0, 0, 2.0).name == "listing"
    assert page_kind(frozenset({"product"}), 100, 0, 0, 2.0, entries=True).name == "listing"


def test_cards_are_entries_when_they_hold_the_share_and_no_article_is_declared():
    assert lists_entries(frozenset(), 50, 50, 0.5) and not lists_entries(frozenset(), 49, 51, 0.5)
    assert not lists_entries(frozenset({"newsarticle"}), 95, 5, 0.5)
    assert not lists_entries(frozenset(), 0, 0, 0.5)


def test_the_answers_of_an_faq_are_body_not_reader_comments():
    qa = [("How long does delivery take?", "Orders placed before noon on a weekday leave our warehouse the "
           "same day and usually arrive within two working days anywhere on the mainland."),
          ("Can I return an opened item?", "Yes, within thirty days of delivery, as long as it is complete and "
           "undamaged; we refund the price and the original shipping once it reaches us.")]
    items = "".join(f'<div itemscope itemprop="mainEntity" itemtype="https://schema.org/Question">'
                    f'<h3 itemprop="name">{q}</h3><div itemscope itemprop="acceptedAnswer" '
                    f'itemtype="https://schema.org/Answer"><div itemprop="text"><p>{a}</p></div></div></div>'
                    for q, a in qa)
    faq = f'<section itemscope itemtype="https://schema.org/FAQPage"><h2>Questions</h2>{items}</section>'
    ex = extract_html(article_page(article_extra=faq).encode(), S)
    answers = [b for b in body_of(ex) if b.get_meta("role") == "answer"]
    assert [b.text for b in answers] == [a for _, a in qa]
    assert ex.report.reader_comments == 0 and ex.report.page_kind != "thread"
    assert not [b for b in ex.blocks if b.kind == Kind.COMMENT]


def test_a_panel_a_control_opens_is_content_and_a_panel_nothing_opens_stays_hidden():
    opened = "Delivery is free on orders over fifty pounds, and returns are free within thirty days of delivery."
    closed = "Manage your privacy preferences for this site before you continue to browse the articles here."
    extra = (f'<h2>Delivery</h2><button aria-controls="faq-1" aria-expanded="false">Shipping and returns</button>'
             f'<div id="faq-1" hidden><p>{opened}</p></div>'
             f'<div id="consent" hidden><p>{closed}</p></div>')
    ex = extract_html(article_page(article_extra=extra).encode(), S)
    assert opened in body_text_of(ex)
    assert [b.text for b in ex.blocks if b.drop_reason == DropReason.HIDDEN] == [closed]


def test_a_streamed_slot_is_read_where_its_placeholder_stands():
    late = "The final paragraph arrived late in the stream, but readers see it in its place in the article."
    page = article_page(article_extra='<template id="B:0"></template>')
    page = page.replace("</body>", f'<div hidden id="S:0"><p>{late}</p></div><script>$RC("B:0","S:0")</script></body>')
    ex = extract_html(page.encode(), S)
    text = body_text_of(ex)
    assert late in text and text.index(PARAS[-1]) < text.index(late)
    assert not [b for b in ex.blocks if b.drop_reason == DropReason.HIDDEN]
    # without its placeholder a hidden slot is hidden content like any other
    orphan = extract_html(page.replace('<template id="B:0"></template>', "").encode(), S)
    assert late not in body_text_of(orphan)


def test_streamed_slots_follow_the_scripts_calls_with_hexadecimal_ids_and_segment_placeholders():
    """$RC moves a slot into a boundary (B:), $RS into a segment placeholder (P:); ids are hexadecimal
    and a call may pair different numbers. Saved without the calls, a slot takes the placeholder of
    its number."""
    from selectolax.lexbor import LexborHTMLParser

    from docclean_assets.extract.html.dom import place_streamed_slots, stream_moves

    texts = ["The boundary content came late.", "The segment content came later.", "The last one, unnumbered."]
    page = ('<html><body><main><template id="B:1a"></template><template id="P:2b"></template>'
            '<template id="B:c"></template></main>'
            f'<div hidden id="S:2e"><p>{texts[0]}</p></div><script>$RC("B:1a","S:2e")</script>'
            f'<div hidden id="S:2b"><p>{texts[1]}</p></div><script>$RS("S:2b","P:2b")</script>'
            f'<div hidden id="S:c"><p>{texts[2]}</p></div><script>$RC("B:ff","S:ff")</script></body></html>')
    tree = LexborHTMLParser(page)
    assert stream_moves(tree) == [("S:2e", "B:1a"), ("S:2b", "P:2b")]  # a call naming no element is no move
    assert place_streamed_slots(tree) == 2
    assert [p.text() for p in tree.css("main p")] == texts[:2] and tree.css_first('[id="S:c"]') is not None
    saved = LexborHTMLParser(page.replace('<script>$RC("B:1a","S:2e")</script>', "")
                             .replace('<script>$RS("S:2b","P:2b")</script>', ""))
    assert stream_moves(saved) == [("S:2b", "P:2b"), ("S:c", "B:c")]  # S:2e has no placeholder of its number


TIGHT = LimitSettings(html_max_depth=40)


@pytest.mark.parametrize("markup, refused", [
    # 60 self-closed SVG shapes side by side: depth 3, not 60
    ("<div><svg>" + '<path d="M0 0L1 1"/>' * 60 + "</svg></div>", False),
    # in HTML the slash is ignored: 60 "<div/>" are 60 nested divs
    ("<section>" + "<div/>" * 60 + "</section>", True),
    # end tags that close nothing do not make room for more nesting
    ("<div>" * 30 + "</b>" * 30 + "<div>" * 30, True),
    # an end tag closes what is open inside its element
    ("<div><span><em><i>x</div>" * 60, False),
])
def test_the_depth_guard_estimates_the_depth_the_parser_builds(markup, refused):
    data = f"<!doctype html><html><body>{markup}</body></html>".encode()
    parsed_too_deep = False
    try:
        check_html_depth(LexborHTMLParser(data.decode()).root, TIGHT)
    except ExtractionError:
        parsed_too_deep = True
    assert parsed_too_deep is refused  # what the parser builds
    if refused:
        with pytest.raises(ExtractionError, match="nested more than 40 levels"):
            check_html_bytes(data, TIGHT)
    else:
        check_html_bytes(data, TIGHT)


def test_a_page_over_the_size_limit_is_refused_in_one_line():
    with pytest.raises(ExtractionError) as err:
        check_html_bytes(b"<p>" + b"x" * (2 << 20), LimitSettings(html_max_mib=1.0))
    assert str(err.value) == "html: page too large: 2.0 MiB (limit 1 MiB)"


def test_the_page_kind_is_a_quality_report_column_and_counted_per_source(tmp_path):
    from docclean_assets_tests.support.pipeline import run_ingest, template_page, sql_rows, write_source

    pages = {"thread.html": forum_page(), "notice.html": template_page("Ferries", "The ferry timetable changes.")}
    cfg = write_source(tmp_path, pages)
    result = run_ingest(cfg, tmp_path / "out", "web")
    assert result.success
    kinds = dict(sql_rows(tmp_path / "out", "SELECT path, page_kind FROM quality_report"))
    assert {p.rsplit("/", 1)[-1]: k for p, k in kinds.items()} == {"thread.html": "thread", "notice.html": "page"}
    posts = sql_rows(tmp_path / "out", "SELECT count(*) FROM normalized_blocks WHERE meta['role'] = 'post' "
                                    "AND drop_reason IS NULL")
    assert posts == [(3,)]
    [mat] = [m for m in result.asset_materializations_for_node("parsed_blocks")
             if m.asset_key.path == ["parsed_documents"]]
    table = mat.metadata["page_kinds"].value
    assert {r.data["page_kind"]: r.data["documents"] for r in table.records} == {"page": 1, "thread": 1}


def _xf_post(author: str, date: str, text: str, extra_class: str = "") -> str:
    """A post as a forum theme writes it: no comment class, the author's card as a schema.org Person."""
    return (f'<article class="message message--post {extra_class}" data-author="{author}"><div class="message-inner">'
            f'<section class="message-user" itemscope itemtype="https://schema.org/Person"><h4 class="message-name">'
            f'<a itemprop="name">{author}</a></h4><h5 class="userTitle">Well digger</h5></section>'
            f'<div class="message-main"><header class="message-attribution"><time datetime="{date}">{date[:10]}'
            f'</time></header><div class="message-body"><div class="bbWrapper">{text}</div></div></div></div></article>'
            '<div class="ad-slot">Advertisement</div>')


def themed_forum_page(declare: bool = True) -> bytes:
    ld = {"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Pump trips breaker"}
    head = f'<script type="application/ld+json">{json.dumps(ld)}</script>' if declare else ""
    posts = "".join(_xf_post(*p, extra_class="is-unread" if i == 1 else "") for i, p in enumerate(POSTS))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Pump trips breaker | Well Forum</title>
    {head}</head><body><header><nav><a href="/">Forums</a></nav></header><main><h1>Pump trips breaker</h1>
    <div class="block-body">{posts}</div></main><footer><p>Well Forum. All rights reserved.</p></footer>
    </body></html>""".encode()


def test_a_declared_thread_whose_markup_names_no_comment_has_its_posts_told_by_their_structure():
    ex = extract_html(themed_forum_page(), S)
    posts = posts_of(ex)
    assert [b.text for b in posts] == [p[2] for p in POSTS]
    assert [(b.get_meta("author"), b.get_meta("date")) for b in posts] == [p[:2] for p in POSTS]
    assert "Well digger" not in body_text_of(ex) and ex.report.posts == 3  # the author's card is about the post


def test_structural_posts_need_repeats_with_a_time_and_an_author_each():
    from docclean_assets.extract.html.comments import structural_posts

    def found(html: str, repeats: int = 3) -> int:
        root = LexborHTMLParser(f"<html><body><div>{html}</div></body></html>").body
        return len(structural_posts(root, repeats, 10))

    post = '<div class="post"><span class="username">ada</span><time>2024-03-01</time><p>Text</p></div>'
    assert found(post * 3) == 3
    assert found(post * 2) == 0  # a question and one reply: too few to tell from a page's parts
    assert found(post * 2 + post.replace('<span class="username">ada</span>', "")) == 0  # one without author
    assert found(post * 3 + '<div class="post"><p>no date</p></div>') == 3  # a post needs its time
    # the same markup on a page that declares no thread is left to the comment rules
    ex = extract_html(themed_forum_page(declare=False), S)
    assert ex.report.posts == 0 and ex.report.page_kind != "thread"


REVIEWS = ["Fits a full day of gear and the hip belt carries the weight well on long climbs, five stars from me.",
           "The side pockets are too shallow for a litre bottle, which fell out twice on my first hike with it.",
           "Bought a second one for my partner after a season of use: the zips and the fabric still look new."]


def product_page(declared: str = "Product") -> bytes:
    ld = {"@context": "https://schema.org", "@type": declared, "name": "Trail 25 pack"}
    reviews = "".join(f'<div class="individual-review"><div class="individual-review__name">hiker{i}</div>'
                      f'<p class="individual-review__text">{r}</p></div>' for i, r in enumerate(REVIEWS))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Trail 25 pack</title>
    <script type="application/ld+json">{json.dumps(ld)}</script></head><body><main><h1>Trail 25 pack</h1>
    <p>{PARAS[0]}</p><p>{PARAS[1]}</p><section class="reviews"><h2>Reviews</h2>{reviews}</section></main>
    </body></html>""".encode()


def test_a_product_pages_customer_reviews_are_kept_apart_like_reader_comments():
    ex = extract_html(product_page(), S)
    reviews = [b for b in ex.blocks if b.get_meta("comment_kind") == "review"]
    assert [b.kind for b in reviews] == [Kind.COMMENT] * 3 and all(r in b.text for r, b in zip(REVIEWS, reviews))
    assert not any(r in body_text_of(ex) for r in REVIEWS) and PARAS[0] in body_text_of(ex)
    assert ex.report.page_kind == "product" and ex.report.reader_comments == 3  # never a thread by their words
    # an article declaring itself keeps its text as the extractor decided: no review is taken out
    article = extract_html(product_page("Article"), S)
    assert not [b for b in article.blocks if b.get_meta("comment_kind") == "review"]
    # under an article, comments whose class also says "review" are reader comments, not reviews
    thread = "".join(f'<li class="comment user-review"><p class="comment-content">{r}</p></li>' for r in REVIEWS)
    page = product_page("Article").replace(b'<section class="reviews">', f'<ol id="comments">{thread}</ol><section>'.encode())
    kinds = [b.get_meta("comment_kind") for b in extract_html(page, S).blocks if b.kind == Kind.COMMENT]
    assert kinds == [None] * 3


def test_review_items_are_named_reviews_and_come_in_lists():
    from docclean_assets.extract.html.comments import review_items

    def found(html: str) -> int:
        return len(review_items(LexborHTMLParser(f"<html><body><div>{html}</div></body></html>").body, 2))

    assert found('<div class="customer-review">a</div>' * 2) == 2
    assert found('<li class="reviews__review">a</li><li class="reviews__review">b</li>') == 2
    assert found('<div itemtype="https://schema.org/Review">a</div>' * 2) == 2
    assert found('<div class="customerReview">a</div>' * 2) == 2  # camelCase words
    assert found('<div class="review-text">a</div>' * 2) == 0  # a review's part, not a review
    assert found('<div class="customer-review">a</div>') == 0  # one alone: a link or a widget
    assert found('<div class="customer-review">a</div><p class="customer-review">b</p>') == 0  # two tags
