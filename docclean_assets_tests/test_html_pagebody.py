"""Issue 35: what an article extractor leaves out of pages that are no article. The headings of the
sections it keeps, and, on a page that declares neither an article nor a product, the rest of its own
container when it kept less than half of it (service and documentation pages are runs of sections),
and the running text under the page's title when it kept no prose at all (a menu taken for the page)."""
from __future__ import annotations

import pytest

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.html import body as html_body
from docclean_assets.extract.html.articles import heading_units, page_body_units, prose_units
from docclean_assets.extract.html.dom import Unit, key
from docclean_assets.extract.html.match import Seg
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.model import DropReason

SECTIONS = [
    ("Contract talent", "Expand your team quickly with short and long term finance professionals who can start "
                        "within days of your first call, on site or remotely, for as long as you need them."),
    ("Permanent talent", "Zero in on highly skilled professionals from our network of permanent candidates, "
                         "screened for their skills and for the way your team works before you meet them."),
    ("Executive search", "Pinpoint your next senior leader with a dedicated search team customised to your "
                         "needs, your market and the board you report to, from the brief to the first day."),
    ("Payroll support", "Improve the timeliness and accuracy of compensation with experienced payroll staff "
                        "who know the rules of every region you pay people in and the systems you use."),
]
JSONLD_ARTICLE = ('<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Article", '
                  '"headline": "Finance staffing"}</script>')


def _page(head: str = "") -> bytes:
    secs = "".join(f'<section class="band"><h2>{h}</h2><div class="copy"><p>{p}</p></div></section>' for h, p in SECTIONS)
    return (f'<!doctype html><html><head><title>Finance staffing</title>{head}</head><body><header><nav>'
            f'<a href="/">Home</a> <a href="/jobs">Jobs</a></nav></header><div class="page"><h1>Finance and '
            f'accounting talent</h1>{secs}</div><footer><p>Copyright 2026 Staffing Co.</p></footer></body></html>'
            ).encode()


def _keeping(monkeypatch: pytest.MonkeyPatch, *texts: str) -> None:
    """Make the extractor keep exactly these paragraphs."""
    segs = [Seg("paragraph", t, key(t)) for t in texts]
    monkeypatch.setattr(html_body, "_trafilatura", lambda html, url: (list(segs), None))


def _body(data: bytes) -> dict[str, str | None]:
    """Body texts with the rule that rescued each (None: the extractor kept it)."""
    return {b.text: b.get_meta("rescued") for b in extract_document(data, "html").blocks if b.drop_reason is None}


def test_the_headings_of_the_sections_the_extractor_keeps_are_body(monkeypatch):
    _keeping(monkeypatch, *(p for _h, p in SECTIONS))
    body = _body(_page())
    assert {h: body.get(h) for h, _p in SECTIONS} == {h: "heading" for h, _p in SECTIONS}
    assert body["Finance and accounting talent"] == "heading"  # over the first section's heading
    assert not {"Home Jobs", "Copyright 2026 Staffing Co."} & set(body)


def test_a_page_of_sections_keeps_its_container_when_the_extractor_took_a_corner(monkeypatch):
    first, last = SECTIONS[0][1], SECTIONS[-1][1]
    _keeping(monkeypatch, first, last)  # two of four sections: the container is the page's wrapper
    body = _body(_page())
    assert [body.get(p) for _h, p in SECTIONS] == [None, "page_body", "page_body", None]
    assert "Copyright 2026 Staffing Co." not in body
    # a declared article keeps the extractor's choice (and the headings of what it kept)
    body = _body(_page(JSONLD_ARTICLE))
    assert [p in body for _h, p in SECTIONS] == [True, False, False, True]
    assert body.get(SECTIONS[-1][0]) == "heading" and SECTIONS[1][0] not in body
    # an Open Graph og:type article alone (set by content systems on every page) is no such declaration
    ex = extract_document(_page('<meta property="og:type" content="article">'), "html")
    body = {b.text: b.get_meta("rescued") for b in ex.blocks if b.drop_reason is None}
    assert [body.get(p) for _h, p in SECTIONS] == [None, "page_body", "page_body", None]
    assert ex.report.page_kind == "article" and "Open Graph" in ex.trace.page_kind


def _units(words: list[int], paths: list[tuple[int, ...]], kinds: list[str] | None = None) -> list[Unit]:
    kinds = kinds or ["paragraph"] * len(words)
    return [Unit(k, " ".join(["w"] * n), "p", path) for n, path, k in zip(words, paths, kinds)]


def test_page_body_takes_only_readable_units_inside_the_extractors_container():
    paths = [(1, 9, 90), (1, 2, 20), (1, 2, 21), (1, 2, 22), (1, 2, 23)]
    units = _units([50, 10, 30, 30, 10], paths)
    B = DropReason.BOILERPLATE
    status = [B, None, B, B, None]  # kept 20 of the container's 80 words
    readable = [True, True, True, False, True]  # unit 3 is chrome
    assert page_body_units(units, status, readable, HtmlSettings()) == [2]  # never unit 0: outside
    status = [B, None, B, B, None]
    units = _units([50, 10, 10, 30, 10], paths)  # kept 20 of 30 readable words: the choice stands
    assert page_body_units(units, status, readable, HtmlSettings()) == []
    units = _units([50, 20, 30, 30, 10], [(1, 9, 90), (1, 2, 20), (1, 2, 21), (1, 2, 22), (1, 3, 23)])
    assert page_body_units(units, [B, None, B, B, B], readable, HtmlSettings()) == []  # one kept: its own element


def test_heading_units_climb_a_run_of_headings_to_kept_text_only():
    B = DropReason.BOILERPLATE
    units = _units([3, 2, 20, 2, 20, 2], [(1, i) for i in range(6)],
                   ["heading", "heading", "paragraph", "heading", "paragraph", "heading"])
    status = [B, B, None, B, B, B]
    assert heading_units(units, status, [True] * 6) == [0, 1]  # not 3 (before dropped text), not 5 (last)
    assert heading_units(units, status, [False, True, True, True, True, True]) == [1]


def _shop_page() -> bytes:
    """A collection page: a banner notice before the title, an introduction under it, a store menu."""
    intro = "".join(f"<p>{p}</p>" for _h, p in SECTIONS[:2])
    return ('<!doctype html><html><head><title>Finance staffing</title></head><body><div class="bar">'
            f'<p>{SECTIONS[3][1]}</p><a href="/stores">Stores</a> <a href="/bag">Bag</a></div><div class="page">'
            f'<h1>Finance staffing</h1><div class="intro">{intro}</div><ul class="grid"><li>Contract</li>'
            '<li>Permanent</li></ul></div></body></html>').encode()


def test_running_text_under_the_title_is_body_when_the_extractor_kept_a_menu(monkeypatch):
    _keeping(monkeypatch, "Stores", "Bag")
    body = _body(_shop_page())
    assert [body.get(p) for _h, p in SECTIONS[:2]] == ["prose", "prose"]
    assert SECTIONS[3][1] not in body  # before the title: the banner's notice
    # an extractor that kept a paragraph of prose made its choice: nothing is taken
    _keeping(monkeypatch, "Stores", SECTIONS[0][1])
    body = _body(_shop_page())
    assert SECTIONS[1][1] not in body and body[SECTIONS[0][1]] is None


def test_prose_units_need_a_title_and_readable_sentences():
    B = DropReason.BOILERPLATE
    sentence = "This paragraph of running text tells the reader what the page offers and why it matters."
    units = [Unit("paragraph", sentence, "p", (1, 2)), Unit("title", "Shop", "h1", (1, 3)),
             Unit("paragraph", sentence, "p", (1, 4)), Unit("paragraph", "Stores Bag Account", "p", (1, 5)),
             Unit("paragraph", sentence, "p", (1, 6)), Unit("paragraph", sentence.rstrip("."), "p", (1, 7))]
    status = [B, None, B, B, B, B]
    readable = [True, True, True, True, False, True]
    assert prose_units(units, status, readable, HtmlSettings()) == [2]  # not 0 (before the title), 3 (no
    # sentence), 4 (chrome) or 5 (no sentence end)
    units[1].kind = "paragraph"  # no title: the first h1 stands for it
    assert prose_units(units, status, readable, HtmlSettings()) == [2]
    units[1].tag = "h2"  # no title and no h1: nothing to start from
    assert prose_units(units, status, readable, HtmlSettings()) == []
