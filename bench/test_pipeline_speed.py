"""Unit tests of the pipeline-speed bench's pure parts and of the speed gate (they run with the suite:
setup.cfg testpaths); the bench itself (`python -m bench.pipeline_speed`, `make bench`) is never run here."""
from __future__ import annotations

import hashlib
import json

import pytest

from bench import gate
from bench.pipeline_speed import FORMATS, figures, generate, markdown


def _result(parse_ratio: float, run_ratio: float) -> dict:
    row = {"documents": 10, "library_s": 1.0, "library_docs_s": 10.0, "library_ms_per_doc": 100.0,
           "parse_seconds_sum": parse_ratio, "parse_overhead_ratio": parse_ratio, "overhead_ms_per_doc": 1.0,
           "run2_wall_s": 1.0, "run2_cpu_s": 1.0, "run2_docs_s": 10.0 * run_ratio, "run2_rate_ratio": run_ratio,
           "rerun_wall_s": 1.0, "peak_tree_pss_mib": 100.0, "run2_parse_docs_s": 20.0, "run2_parse_rate_ratio": 2.0}
    return {"formats": {"html": row, "pdf": dict(row)}}


def test_figures_are_higher_is_better_ratios():
    out = figures(_result(1.25, 1.6))
    assert out == {"pipeline/html:parse_efficiency": 0.8, "pipeline/html:run2_rate_ratio": 1.6,
                   "pipeline/pdf:parse_efficiency": 0.8, "pipeline/pdf:run2_rate_ratio": 1.6}
    assert "| html | 10 |" in markdown(_result(1.25, 1.6))


def test_speed_gate_pins_passes_within_its_margin_fails_below_and_raises(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"floors": {"q:f1": 0.9}, "history": []}))
    ok, msgs = gate.check_speed({"pipeline/html:run2_rate_ratio": 1.0}, None, False, True, path)
    assert ok and "pinned" in msgs[0]
    assert json.loads(path.read_text())["floors"] == {"q:f1": 0.9}  # the quality floors are kept
    assert gate.check_speed({"pipeline/html:run2_rate_ratio": 0.75}, None, False, True, path)[0]  # within 30%
    ok, msgs = gate.check_speed({"pipeline/html:run2_rate_ratio": 0.65}, None, False, True, path)
    assert not ok and "FAIL" in msgs[0]
    assert gate.check_speed({}, None, False, True, path)[0]  # nothing measured: nothing to fail
    assert not gate.check_speed({"pipeline/pdf:run2_rate_ratio": 2.0}, None, False, True, path)[0]  # missing figure
    gate.check_speed({"pipeline/html:run2_rate_ratio": 1.2}, None, True, True, path)
    assert json.loads(path.read_text())["speed_floors"] == {"pipeline/html:run2_rate_ratio": 1.2}
    gate._save(path, "hash", {"q:f1": 0.95}, [])  # re-pinning the quality floors keeps the speed floors
    assert json.loads(path.read_text())["speed_floors"] == {"pipeline/html:run2_rate_ratio": 1.2}


@pytest.mark.parametrize("fmt", FORMATS)
def test_generated_sources_hold_distinct_documents_of_one_format(tmp_path, fmt):
    paths = generate(tmp_path, fmt, 3)
    assert [p.suffix for p in paths] == [f".{fmt}"] * 3
    assert len({hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}) == 3


def test_web_speed_table_counts_inner_stages_once():
    """The stages nested in another (trafilatura inside the extractor step) are not added twice to
    what the orchestrator's own work is said to cost."""
    from bench.web_speed import markdown as web_markdown

    result = {"pages": 4, "trafilatura_s": 1.0, "docclean_run_s": 2.0, "ratio": 2.0, "docclean_rerun_s": 0.5,
              "docclean_steps_s": {"parse": 1.5}, "profile": {"pages": 4, "seconds": 4.0, "stages": {
                  "extractor_segments": 2.0, "_trafilatura": 1.5, "segment": 1.0}}}
    text = web_markdown(result)
    assert "| 4 | 1.0 | 2.0 | 2.00x | 0.5 |" in text and "| parse | 1.5 |" in text
    assert "|   _trafilatura (in extractor_segments) | 375.0 | 38% |" in text
    assert "| the rest (block building, normalising text) | 250.0 | 25% |" in text
