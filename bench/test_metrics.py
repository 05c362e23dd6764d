"""Unit tests of the bench's metrics; they run with the suite (setup.cfg testpaths)."""
from __future__ import annotations

import io
import os
import subprocess
import zipfile

import pytest

from bench import deps

try:
    deps.ensure_evallib()  # olmOCR-bench's matchers (pinned rapidfuzz, fuzzysearch) under bench/.venvs/evallib
except (OSError, subprocess.CalledProcessError) as exc:
    if os.environ.get("CI"):
        raise
    pytest.skip(f"the bench's metric helpers could not be installed (offline?): {exc}", allow_module_level=True)

from bench import metrics as M  # noqa: E402
from bench.datasets import docx_revisions  # noqa: E402
from bench.runner import split_markitdown_notes  # noqa: E402


def test_aeb_identical_text_scores_one():
    text = "one two three four five six"
    assert M.aeb_tp_fp_fn(text, text) == (1.0, 0.0, 0.0)
    assert M.aeb_metrics([M.aeb_tp_fp_fn(text, text)])["f1"] == 1.0


def test_aeb_shingles_and_normalisation():
    # 4-gram shingles of 5 tokens: 2 true; prediction has 1 of them plus 2 extra shingles
    tp, fp, fn = M.aeb_tp_fp_fn("a b c d e", "a b c d x y")
    assert (tp, fp, fn) == pytest.approx((1 / 4, 2 / 4, 1 / 4))
    assert M.aeb_ngrams("a b") == [("a", "b")]  # shorter than n: one short shingle, as upstream
    assert M.aeb_tokenize("Don't-stop, 3.5") == ["Don", "t", "stop", "3", "5"]


def test_aeb_macro_averaging_and_empty_prediction():
    docs = [M.aeb_tp_fp_fn("a b c d e", "a b c d e"), M.aeb_tp_fp_fn("a b c d e", "")]
    m = M.aeb_metrics(docs)
    assert m["precision"] == 1.0  # the empty prediction has tp+fp == 0: left out of precision
    assert m["recall"] == 0.5
    assert m["f1"] == pytest.approx(2 * 0.5 / 1.5)


def test_olmo_normalize_markdown_and_quotes():
    assert M.olmo_normalize("**Bold**  \u201cq\u201d\n\u2013x") == 'Bold "q" -x'


def test_olmo_present_absent_order():
    body = "Title\nThe quick brown fox jumps. Page 3\nFooter text"
    assert M.olmo_check({"type": "present", "text": "quick brown fox"}, body)
    assert not M.olmo_check({"type": "present", "text": "quick brown cat"}, body)
    assert M.olmo_check({"type": "present", "text": "quick brown fix", "max_diffs": 2}, body)
    assert not M.olmo_check({"type": "present", "text": "QUICK brown fox"}, body)  # case-sensitive
    assert not M.olmo_check({"type": "absent", "text": "Footer text"}, body)
    assert M.olmo_check({"type": "absent", "text": "Title", "last_n": 20}, body)
    assert M.olmo_check({"type": "order", "before": "Title", "after": "Footer"}, body)
    assert not M.olmo_check({"type": "order", "before": "Footer", "after": "Title"}, body)
    assert M.olmo_check({"type": "table", "cell": "x"}, body) is False  # no table in the text
    assert M.olmo_check({"type": "math", "math": "x"}, body) is None


def test_olmo_table_checks_markdown_and_html():
    md = "Intro\n\n| Item | 2024 | 2023 |\n|---|---|---|\n| Cost | 178 | 141 |\n| R&D | 3,423 | 2,532 |\n\nEnd"
    assert M.olmo_check({"type": "table", "cell": "178", "top_heading": "2024", "left_heading": "Cost"}, md)
    assert M.olmo_check({"type": "table", "cell": "178", "right": "141", "down": "3,423"}, md)
    assert M.olmo_check({"type": "table", "cell": "2,532", "up": "141", "left": "3,423"}, md)
    assert not M.olmo_check({"type": "table", "cell": "178", "top_heading": "2023"}, md)
    assert not M.olmo_check({"type": "table", "cell": "178", "up": "R&D"}, md)
    html = ("<table><thead><tr><th></th><th colspan='2'>Year Ended</th></tr></thead>"
            "<tr><td>Cost</td><td>178</td><td>141</td></tr></table>")
    assert M.olmo_check({"type": "table", "cell": "141", "top_heading": "Year Ended", "left": "178"}, html)
    assert M.olmo_check({"type": "table", "cell": "Year Ended", "down": "141"}, html)
    assert not M.olmo_check({"type": "table", "cell": "141", "left_heading": "Year Ended"}, html)


def test_olmo_length_guard():
    assert not M.olmo_check({"type": "present", "text": "a long phrase"}, " ")
    assert M.olmo_check({"type": "absent", "text": "a long phrase"}, " ")


def test_strip_markdown_and_similarity():
    md = "# Head\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- **item** [link](http://x)\n![img](y.png)"
    assert M.content_words(M.strip_markdown(md)) == ["head", "a", "b", "1", "2", "item", "link"]
    sim = M.md_similarity(md, "Head a b 1 2 item link")
    assert sim["f1"] == 1.0 and sim["edit_sim"] == 1.0
    assert M.token_prf(["a", "b"], ["a", "c", "d"])["precision"] == pytest.approx(1 / 3)


def test_containment_scores():
    body = "The contract was signed. The fee is ten pounds."
    assert M.revisions_score({"deleted": ["twenty pounds"], "inserted": ["fee is ten"]}, body) == ([True], [True])
    assert M.notes_score(["remember to smile"], body, None) == (None, [True])
    assert M.notes_score(["remember to smile"], body, "Remember to smile!") == ([True], [True])
    assert M.snippets_score({"with": ["was signed"], "without": ["fee"]}, body) == ([True], [False])
    assert M.must_include_score(["ten", "Ten"], body) == [True, False]


def test_split_markitdown_notes():
    md = "<!-- Slide number: 1 -->\n# T\nbody\n\n### Notes:\nsay hi\n<!-- Slide number: 2 -->\nmore"
    body, notes = split_markitdown_notes(md)
    assert "say hi" in notes and "say hi" not in body and "more" in body


def _docx(body_xml: str) -> bytes:
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", f"<w:document {w}><w:body>{body_xml}</w:body></w:document>")
    return buf.getvalue()


def test_docx_revisions_from_xml():
    xml = ("<w:p><w:r><w:t>Kept text here. </w:t></w:r>"
           "<w:del><w:r><w:delText>removed sentence one</w:delText></w:r></w:del>"
           "<w:ins><w:r><w:t>added sentence two</w:t></w:r></w:ins>"
           "<w:del><w:r><w:delText>tiny</w:delText></w:r></w:del><w:r><w:t> and </w:t></w:r>"
           "<w:moveFrom><w:r><w:t>Kept text here.</w:t></w:r></w:moveFrom></w:p>")
    revs = docx_revisions(_docx(xml))
    # 'tiny' is too short; the moved-from text is still in the current text: both undecidable
    assert revs == {"deleted": ["removed sentence one"], "inserted": ["added sentence two"]}


def test_snippets_fold_typography_for_every_system():
    from bench.metrics import snippets_score

    snips = {"with": ["You can\u2019t solve a problem"], "without": ["Accept\u00a0cookies"]}
    assert snippets_score(snips, "You can't solve a problem twice.") == ([True], [True])
    assert snippets_score(snips, "Nothing here. Accept cookies") == ([False], [False])
