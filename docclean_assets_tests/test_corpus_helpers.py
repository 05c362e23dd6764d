"""The corpus parametrization itself: one id per file, expected failures strict, a clean skip without a corpus."""
from __future__ import annotations

from docclean_assets_tests.support.corpus import corpus_params, stale_expectations


def test_each_file_is_one_id_and_an_expected_failure_is_a_strict_xfail():
    params = corpus_params(["pdf/a.pdf", "pdf/b.pdf"], {"pdf/b.pdf": "why b fails"})
    assert [p.id for p in params] == ["pdf/a.pdf", "pdf/b.pdf"]
    assert [p.values for p in params] == [("pdf/a.pdf",), ("pdf/b.pdf",)]
    assert params[0].marks == []
    [mark] = params[1].marks
    assert (mark.name, mark.kwargs) == ("xfail", {"strict": True, "reason": "why b fails"})


def test_no_corpus_is_one_skipped_parameter():
    [param] = corpus_params([], {"pdf/b.pdf": "why"})
    assert param.id == "corpus-absent" and [m.name for m in param.marks] == ["skip"]


def test_an_expectation_naming_no_file_is_reported():
    assert stale_expectations(["pdf/a.pdf"], {"pdf/a.pdf": "x", "pdf/gone.pdf": "y"}) == ["pdf/gone.pdf"]
    assert stale_expectations([], {"pdf/gone.pdf": "y"}) == []  # no corpus: nothing to compare with
