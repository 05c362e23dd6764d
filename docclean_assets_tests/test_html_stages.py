"""The HTML path as stages (html/document.py, html/trace.py): each stage's output kept in a typed
trace, no stage changing what it was given, and `docclean inspect PAGE.html --stage NAME`."""
from __future__ import annotations

import copy

import pytest

from docclean_assets.cli import main as cli_main
from docclean_assets.extract.html.document import (bytes_to_decoded, chosen_to_rescued, decoded_to_segmented,
                                                   extract_html, rescued_to_routed, routed_to_blocks,
                                                   segmented_to_chosen)
from docclean_assets.extract.html.trace import COMMENT, STAGES, HtmlTrace, stage_lines
from docclean_assets.extract.model import DocReport, Kind
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.html import PARAS, THREAD, wordpress_page

S = Settings()


def _chain(data: bytes):
    """The stages run one by one, as the orchestrator runs them; every output and the report."""
    report = DocReport(format="html")
    d = bytes_to_decoded(data, S, report)
    sg = decoded_to_segmented(d, None, S, report)
    before = copy.deepcopy([(u.kind, u.meta) for u in sg.units])
    c = segmented_to_chosen(d, sg, None, None, S, report)
    r = chosen_to_rescued(d, sg, c, S)
    report.method = c.method
    rt = rescued_to_routed(d, sg, r, None, S, report)
    blocks = routed_to_blocks(sg, c, r, rt, report)
    return (d, sg, c, r, rt, blocks), before


def test_each_stage_is_recorded_and_the_comments_are_routed_in_their_stage():
    ex = extract_html(wordpress_page(), S)
    trace = ex.trace
    assert isinstance(trace, HtmlTrace) and trace.blocks == ex.blocks
    units = trace.segmented.units
    assert all(len(getattr(trace, stage).status) == len(units) for stage in ("chosen", "rescued", "routed"))
    comment_units = [i for i, st in enumerate(trace.routed.status) if st == COMMENT]
    texts = {units[i].text for i in comment_units}
    assert {t[3] for t in THREAD} <= texts
    assert all(trace.chosen.status[i] != COMMENT for i in comment_units)  # routed by its own stage, not before
    assert trace.method == "trafilatura" and trace.title == "Water levels fall again | Daily"
    assert [u.kind for u in units].count(Kind.TITLE) == 1


def test_no_stage_changes_the_units_or_the_statuses_it_was_given():
    (d, sg, c, r, rt, blocks), before = _chain(wordpress_page())
    assert [(u.kind, u.meta) for u in sg.units] == before  # notes go to each stage's own record
    noted = {k for notes in (c.notes, r.notes, rt.notes) for meta in notes.values() for k in meta}
    assert noted and not any(noted & set(u.meta) for u in sg.units)
    vetoed = next(i for i, meta in c.notes.items() if "vetoed" in meta)  # the footer the extractor kept
    block = next(b for b in blocks if b.text == sg.units[vetoed].text)
    assert dict(block.meta)["vetoed"] == "template_region"  # the block carries the stage's note
    assert c.status != r.status or r.status != rt.status  # each stage's record is its own tuple
    ex = extract_html(wordpress_page(), S)
    assert blocks == ex.blocks  # the orchestrator is the chain, nothing more


def test_inspect_lists_a_stage_of_an_html_page(tmp_path, capsys):
    page = tmp_path / "story.html"
    page.write_bytes(wordpress_page())
    assert cli_main(["inspect", str(page), "--stage", "routed", "--width", "40"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"== {page} (html) stage routed: method trafilatura")
    lines = out[1:]
    trace = extract_html(wordpress_page(), S).trace
    assert lines == stage_lines(trace, "routed", 40) and len(lines) == len(trace.segmented.units)
    assert sum(" comment " in line for line in lines) >= len(THREAD)
    assert any(PARAS[0][:30] in line and " body " in line for line in lines)
    assert cli_main(["inspect", str(page), "--stage", "words"]) == 1
    assert f"one of {', '.join(STAGES)}" in capsys.readouterr().err
    assert cli_main(["inspect", str(page), "--stored"]) == 1
    assert "docclean text" in capsys.readouterr().err


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_lists_one_line_per_record(stage):
    trace = extract_html(wordpress_page(), S).trace
    lines = stage_lines(trace, stage)
    assert len(lines) == (len(trace.blocks) if stage == "blocks" else len(trace.segmented.units))
