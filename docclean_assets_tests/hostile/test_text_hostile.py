"""Hostile text and HTML (issue 14): long tokens through every text stage, pages of 200,000
elements, UTF-16 pages, deeply nested JSON-LD and markup. Hang guards run in docclean's own
worker processes with a deadline far above the linear cost; no test times anything."""
import pytest

from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.extract.guard import check_html_bytes
from docclean_assets.extract.html.dom import key
from docclean_assets.extract.html.match import Matcher, Seg
from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.normalize import dehyphenate, vocabulary
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets.extract.sniff import sniff_file, sniff_format
from docclean_assets_tests.hostile import cases_text as T

# Deadlines per stage and token, seconds: about 100 times what the stage costs when linear on a
# 2-core machine (under 0.1 s; normalisation and a whole page under 0.5 s, 2 s where wordfreq first
# loads). The quadratic regexes this guards against took 17 s (articleBody markup on "<b<b<b"), 30 s
# (tidy on a run of spaces) and 3 to 10 minutes (line-break hyphens, "says:") on the same tokens.
STAGE_DEADLINE_S = 10.0
HEAVY_STAGE_DEADLINE_S = {"normalize_blocks": 30.0, "dehyphenate": 30.0, "extract_html": 30.0}


def _body(result) -> str:
    return " ".join(b.text for b in result.blocks if b.drop_reason is None)


def test_every_text_stage_stays_linear_on_200000_character_tokens(tmp_path):
    jobs = []
    for shape, token in T.tokens().items():
        blob = tmp_path / f"{shape}.txt"
        blob.write_text(token, encoding="utf-8")
        jobs += [Job(f"{stage} / {shape}", str(blob), stage, {}, HEAVY_STAGE_DEADLINE_S.get(stage, STAGE_DEADLINE_S))
                 for stage in T.STAGE_NAMES]
    limits = LimitSettings(timeout_s=STAGE_DEADLINE_S, memory_mb=2048, workers=2)
    outcomes = {job.key: o for job, o in run_jobs(jobs, limits, T.run_stage)}
    failed = {name: (o.kind, o.error) for name, o in outcomes.items() if o.kind != "ok"}
    assert not failed
    assert len(outcomes) == len(T.tokens()) * len(T.STAGE_NAMES)


def test_the_regex_stage_sees_the_regexes_of_every_text_module():
    names = {name for name, _ in T.module_regexes()}
    for expected in ("normalize._BROKEN", "normalize._WORD", "boilerplate._PAGE_NUMBER", "html.jsonld._MARKUP_TAG",
                     "html.jsonld._ARTICLE_BODY", "html.comments._SAYS", "html.lede.SENTENCE_END", "guard._TAG"):
        assert expected in names


def test_long_tokens_keep_their_meaning():
    token = T.tokens()["spaces"]  # a soft hyphen, 200,000 spaces, then the word's end
    assert dehyphenate(token, vocabulary([token])) == "distribution 12"
    letters = T.tokens()["letters"]
    assert dehyphenate(letters, vocabulary([letters])) == letters
    joined = dehyphenate(letters + "\u00ad" + letters, vocabulary([letters]))
    # unknown to the document and to wordfreq: the case of the continuation decides
    assert joined == (letters + "-" + letters if letters[0].isupper() else letters + letters)


def test_pages_of_200000_elements_finish_within_the_default_timeout(tmp_path):
    # past extractor_max_elements (200,000), under it (25,000 repeated units: 82 s for 20,000 on main)
    pages = {"div": T.sibling_page("div"), "p": T.sibling_page("p"), "deep_wide": T.deep_wide_page(400, 100_000),
             "text_node": T.text_node_page(), "repeated": T.repeated_page(25_000)}
    jobs = []
    for name, data in pages.items():
        assert len(data) < LimitSettings().html_max_mib * (1 << 20)
        (tmp_path / f"{name}.html").write_bytes(data)
        jobs.append(Job(name, str(tmp_path / f"{name}.html"), "html", {"settings": Settings()}))
    outcomes = {job.key: o for job, o in run_jobs(jobs, LimitSettings(workers=2))}
    assert {k: o.kind for k, o in outcomes.items()} == dict.fromkeys(pages, "ok"), [o.error for o in outcomes.values()]
    for name in ("div", "p"):  # past extractor_max_elements: the page minus its chrome
        result = outcomes[name].result
        assert "extractor_skipped" in result.report.flags and result.report.method == "whole_page"
        body = [b.text for b in result.blocks if b.drop_reason is None]
        assert len(body) > 199_000 and "Item 199999" in body
    assert "Item 99999" in _body(outcomes["deep_wide"].result)
    repeated = outcomes["repeated"].result
    assert repeated.report.method == "trafilatura" and _body(repeated).count("Same text") == 25_000
    assert "extractor_skipped" not in outcomes["text_node"].result.report.flags
    assert len(_body(outcomes["text_node"].result)) > 3_900_000


def test_many_elements_nested_deep_are_refused_before_their_paths_fill_memory():
    page = T.deep_wide_page(100, 200)
    with pytest.raises(ExtractionError, match="depths add up to more than 10,000 .limit html_max_ancestors."):
        extract_document(page, "html", Settings(limits=LimitSettings(html_max_ancestors=10_000)))
    assert "Item 199" in _body(extract_document(page, "html"))


def test_past_the_element_cap_the_page_minus_its_chrome_is_the_body():
    page = T.html_page("<p>A short paragraph after the article.</p>", title="Harbour works")
    page = page.replace(b"<main>", b"<nav><a href='/'>Home</a> <a href='/news'>News</a></nav><main>")
    capped = extract_document(page, "html", Settings(html=HtmlSettings(extractor_max_elements=5)))
    assert "extractor_skipped" in capped.report.flags and "extractor_empty" not in capped.report.flags
    assert capped.report.method == "whole_page"
    assert "harbour board met on Tuesday" in _body(capped) and "Home" not in _body(capped)
    full = extract_document(page, "html")
    assert "extractor_skipped" not in full.report.flags and full.report.method == "trafilatura"


def test_the_alignment_budget_keeps_exact_matches():
    texts = ["The harbour board met on Tuesday to approve the footbridge.", "Menu", "Share this page"]
    segs = [Seg("paragraph", t, key(t)) for t in texts]
    part = key("approve the footbridge")  # a unit the extractor merged into a longer paragraph
    assert Matcher(segs, 20, 0.5).match(part, 0)
    spent = Matcher(segs, 20, 0.5, max_steps=0)
    assert spent.match_exact(key("Menu"), 1)  # dictionary look-ups cost no steps
    assert not spent.match(part, 0) and spent.over_budget
    assert spent.match(key("Share this page"), 2)  # still found whole


@pytest.mark.parametrize("encoding, bom", [("utf-16-le", True), ("utf-16-be", True), ("utf-8", True),
                                           ("utf-16-le", False), ("utf-16-be", False)])
def test_utf16_and_bom_pages_are_html_and_read_right(tmp_path, encoding, bom):
    data = T.utf16_page(encoding, bom)
    path = tmp_path / "page.bin"
    path.write_bytes(data)
    assert sniff_format(data) == "html"
    assert sniff_file(path) == "html"
    result = extract_document(data, "html")
    text = _body(result)
    assert "Die Brücke über den Fluß öffnet im März" in text and "東京の橋は三月に開通します" in text
    assert "encoding_replaced" not in result.report.flags
    assert result.blocks[0].text == "Café Überblick"


def test_zero_bytes_alone_do_not_make_html():
    assert sniff_format(bytes(range(256)) * 16) is None
    assert sniff_format("plain text, no markup at all".encode("utf-16-le")) is None
    assert sniff_format("plain text, no markup".encode("utf-16")) is None


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_nesting_is_refused_from_the_bytes(encoding):
    page = "<html><body>" + "<div>" * 5000 + "<p>deep</p>" + "</div>" * 5000 + "</body></html>"
    with pytest.raises(ExtractionError, match="nested more than 512 levels"):
        check_html_bytes(page.encode(encoding), LimitSettings())


def test_deeply_nested_jsonld_costs_that_script_not_the_page():
    result = extract_document(T.jsonld_page(100_000), "html")
    assert result.report.method == "jsonld"  # the other, well-formed script still gives the body
    assert "harbour board met on Tuesday" in _body(result)
    assert result.report.broken_parts == 1
    assert result.report.part_errors == ["json-ld: script 2 of 2 is nested too deep to parse"]
    assert "broken_part" in result.report.flags
    fine = extract_document(T.jsonld_page(200), "html")
    assert fine.report.broken_parts == 0 and fine.report.method == "jsonld"


def test_hostile_jsonld_costs_little_and_only_its_part(tmp_path):
    jobs = []
    for shape in ("brackets", "nested", "digits", "deep_markup"):
        (tmp_path / f"{shape}.html").write_bytes(T.broken_jsonld_page(shape))
        jobs.append(Job(shape, str(tmp_path / f"{shape}.html"), "html", {"settings": Settings()}))
    # linear: about a second each; retrying at every bracket took minutes, parsing the deep body hours
    outcomes = dict((job.key, o) for job, o in run_jobs(jobs, LimitSettings(timeout_s=30, workers=2)))
    for shape, o in outcomes.items():
        assert o.kind == "ok", (shape, o.error)
        assert o.result.report.method == "jsonld", shape
        assert "harbour board met on Tuesday" in _body(o.result)
    assert outcomes["deep_markup"].result.report.part_errors == [
        "json-ld: articleBody refused: html: elements nested more than 512 levels deep (limit html_max_depth)"]


@pytest.mark.parametrize("tag", ["b", "span", "div", "blockquote", "ul><li", "a href='#'", "section", "q"])
def test_markup_nested_just_under_the_depth_cap_is_read(tag):
    depth = 500 // (tag.count("><") + 1)
    result = extract_document(T.deep_markup_page(tag, depth), "html")
    assert "harbour board met on Tuesday" in _body(result)
