"""Golden outputs: every sample document and a few code-built phenomenon fixtures, their normalized
blocks pinned as JSONL under docclean_assets_tests/golden/ (one test id per document).

OCR is off throughout, so the goldens do not depend on tesseract's version. Regenerate with
``make golden`` (``DOCCLEAN_REGEN_GOLDEN=1`` on this module); the flag is refused under CI. That the
committed samples are what scripts/make_samples.py builds is checked by test_samples.py
(``make samples-check``).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache
from pathlib import Path

import docx
import pytest
from pptx import Presentation
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Pt

from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support import golden as G

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
FORMATS = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".html": "html"}
SITE = "site"  # the multi-page HTML source: its pages also get the site-template pass, as the pipeline does
S = Settings()


def _sample_files() -> list[str]:
    return sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*") if p.suffix in FORMATS)


# ---------------------------------------------------------------- code-built fixtures
# Phenomena the samples do not show: reader comments in HTML, a pull quote set in a column, a chart,
# an equation with a revision inside it. Each builder is the one its phenomenon's tests use.

def _html_comments() -> bytes:
    from docclean_assets_tests.support.html import wordpress_page

    return wordpress_page()


def _pdf_pull_quote() -> bytes:
    from docclean_assets_tests.support.pdf import magazine

    return magazine("\u201cThe harbour council voted to keep the lighthouse lit through every winter storm\u201d")


def _pptx_chart() -> bytes:
    from docclean_assets_tests.support.office import category_data

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_textbox(Pt(40), Pt(20), Pt(600), Pt(40)).text_frame.text = "Results"
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Pt(40), Pt(80), Pt(600), Pt(300),
                                   category_data()).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Revenue and cost"
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def _docx_equation() -> bytes:
    from docclean_assets_tests.support.docx import inject_xml, docx_bytes
    from docclean_assets_tests.support.office import M, QUADRATIC

    d = docx.Document()
    inject_xml(d, f'<w:p {M}><w:r><w:t xml:space="preserve">The roots are </w:t></w:r><m:oMath>{QUADRATIC}</m:oMath>'
               '<w:r><w:t xml:space="preserve"> for every quadratic.</w:t></w:r></w:p>')
    return docx_bytes(d)


FIXTURES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "html-reader-comments": ("html", _html_comments),
    "pdf-pull-quote": ("pdf", _pdf_pull_quote),
    "pptx-chart": ("pptx", _pptx_chart),
    "docx-equation": ("docx", _docx_equation),
}


# ---------------------------------------------------------------- the blocks each golden pins

@cache
def _site_template() -> tuple:
    pages = {rel: G.extract((SAMPLES / rel).read_bytes(), "html", S) for rel in _sample_files()
             if rel.startswith(SITE + "/")}
    return tuple(G.site_template(pages, S))


def _sample_jsonl(rel: str) -> str:
    ex = G.extract((SAMPLES / rel).read_bytes(), FORMATS[Path(rel).suffix], S)
    template = _site_template() if rel.startswith(SITE + "/") else ()
    return G.to_jsonl(G.normalized(ex, S, template), ex)


def _fixture_jsonl(name: str) -> str:
    fmt, build = FIXTURES[name]
    ex = G.extract(build(), fmt, S)
    return G.to_jsonl(G.normalized(ex, S), ex)


@pytest.mark.parametrize("rel", _sample_files())
def test_sample_matches_golden(rel):
    failure = G.check_or_write(G.GOLDEN_DIR / "samples" / f"{rel}.jsonl", _sample_jsonl(rel))
    if failure:
        pytest.fail(failure, pytrace=False)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_matches_golden(name):
    failure = G.check_or_write(G.GOLDEN_DIR / "fixtures" / f"{name}.jsonl", _fixture_jsonl(name))
    if failure:
        pytest.fail(failure, pytrace=False)


def test_every_golden_file_belongs_to_a_document():
    expected = {f"samples/{rel}.jsonl" for rel in _sample_files()} | {f"fixtures/{n}.jsonl" for n in FIXTURES}
    present = {str(p.relative_to(G.GOLDEN_DIR)) for p in G.GOLDEN_DIR.rglob("*.jsonl")}
    assert present <= expected, f"stray golden files: {sorted(present - expected)}"


def test_regeneration_is_refused_under_ci():
    assert not (G.in_ci() and G.regen_requested()), \
        f"{G.REGEN_ENV} is set under CI: goldens are regenerated on a developer's machine, reviewed and committed"


# ---------------------------------------------------------------- the check itself can fail

def test_a_changed_block_fails_with_a_readable_diff(tmp_path, monkeypatch):
    monkeypatch.delenv(G.REGEN_ENV, raising=False)
    actual = _fixture_jsonl("html-reader-comments")
    lines = actual.splitlines(keepends=True)
    altered = lines[:2] + [lines[2].replace('"kind": "', '"kind": "x-')] + lines[3:]
    path = tmp_path / "doc.jsonl"
    path.write_text("".join(altered), encoding="utf-8")
    failure = G.check_or_write(path, actual)
    assert failure is not None and "doc.jsonl differs" in failure
    assert f'-{altered[2].rstrip()}' in failure and f'+{lines[2].rstrip()}' in failure
    assert f"{G.REGEN_ENV}=1" in failure
    assert G.check_or_write(path, "".join(altered)) is None


def test_a_missing_golden_fails_and_regeneration_writes_it(tmp_path, monkeypatch):
    path = tmp_path / "new.jsonl"
    monkeypatch.delenv(G.REGEN_ENV, raising=False)
    assert "missing" in G.check_or_write(path, "{}\n")
    monkeypatch.setenv(G.REGEN_ENV, "1")
    monkeypatch.setenv("CI", "true")
    assert "missing" in G.check_or_write(path, "{}\n") and not path.exists()  # never written under CI
    monkeypatch.delenv("CI")
    assert G.check_or_write(path, "{}\n") is None and path.read_text() == "{}\n"


def test_a_long_diff_is_cut_to_its_first_lines():
    expected = "".join(f"{i}\n" for i in range(200))
    failure = G.mismatch(expected, expected.replace("\n", " \n"), "long.jsonl")
    assert failure.count("\n") < G.DIFF_LINES + 5 and "more diff lines" in failure
