"""The minimal mutant of every crash class `make fuzz` found, rebuilt in code: each must now be a
clean refusal (an ExtractionError naming the broken part), not an exception escaping a backend."""
import pytest

from docclean_assets.extract.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings
from docclean_assets_tests.hostile import cases as C

REGRESSIONS = {
    # fuzz class (before the fix) -> (builder, format, start of the error now)
    "XMLSyntaxError at parser.pxi": (C.malformed_declaration_docx, "docx",
                                     "docx: corrupt package part (XMLSyntaxError: Malformed declaration"),
    "error at zipfile.py (zlib)": (C.corrupt_deflate_docx, "docx",
                                   "docx: unreadable ZIP package (error: Error -3 while decompressing data"),
    "AttributeError at presentation.py": (C.swapped_parts_pptx, "pptx", "pptx: corrupt package part (AttributeError:"),
    "KeyError at package.py": (C.dangling_relationship_pptx, "pptx",
                               "pptx: corrupt package part (KeyError: \"no relationship with key"),
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_fuzz_crash_class_is_now_a_clean_refusal(tmp_path, name):
    build, fmt, expected = REGRESSIONS[name]
    blob = tmp_path / f"mutant.{fmt}"
    blob.write_bytes(build())
    [(_job, outcome)] = run_jobs([Job("m", str(blob), fmt, {})], LimitSettings(timeout_s=10))
    assert outcome.kind == "refused", outcome.error
    assert outcome.error.startswith(expected), outcome.error
