"""The minimal mutant of every crash class `make fuzz` found, rebuilt in code: each must now be a
clean refusal (an ExtractionError naming the broken part), not an exception escaping a backend, or,
where the broken part is not the package's main part, a document that loses only that part."""
import pytest

from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings
from docclean_assets_tests.hostile import cases as C

REGRESSIONS = {
    # fuzz class (before the fix) -> (builder, format, start of the error now)
    "error at zipfile.py (zlib)": (C.corrupt_deflate_docx, "docx",
                                   "docx: unreadable package (error: Error -3 while decompressing data"),
    "AttributeError at presentation.py": (C.swapped_parts_pptx, "pptx",
                                          "pptx: unreadable package (ppt/presentation.xml is no presentation"),
}
# fuzz class -> (builder, format, the one part error now: the rest of the document is read)
PART_REGRESSIONS = {
    "XMLSyntaxError at parser.pxi": (C.malformed_declaration_docx, "docx",
                                     "word/footnotes.xml: XMLSyntaxError: Malformed declaration"),
    "KeyError at package.py": (C.dangling_relationship_pptx, "pptx", "slide 1: its relationship rId"),
}


def _outcome(tmp_path, build, fmt: str):
    blob = tmp_path / f"mutant.{fmt}"
    blob.write_bytes(build())
    [(_job, outcome)] = run_jobs([Job("m", str(blob), fmt, {})], LimitSettings(timeout_s=10))
    return outcome


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_fuzz_crash_class_is_now_a_clean_refusal(tmp_path, name):
    build, fmt, expected = REGRESSIONS[name]
    outcome = _outcome(tmp_path, build, fmt)
    assert outcome.kind == "refused", outcome.error
    assert outcome.error.startswith(expected), outcome.error


@pytest.mark.parametrize("name", sorted(PART_REGRESSIONS))
def test_fuzz_crash_class_now_costs_only_the_broken_part(tmp_path, name):
    build, fmt, expected = PART_REGRESSIONS[name]
    outcome = _outcome(tmp_path, build, fmt)
    assert outcome.kind == "ok", outcome.error
    report = outcome.result.report
    assert report.broken_parts == 1 and "broken_part" in report.flags
    assert report.part_errors[0].startswith(expected), report.part_errors
