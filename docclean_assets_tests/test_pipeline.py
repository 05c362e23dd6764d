"""The Dagster layer in-process: the full graph, incremental re-ingestion, bad documents, DuckDB."""
import datetime
import json
from pathlib import Path

import dagster as dg
import pytest

from docclean_assets.cli import main as cli_main
from docclean_assets.defs.definitions import build_defs
from docclean_assets_tests.support.pipeline import asset_meta, run_ingest, sql_rows, template_page, write_source

PROJECT = Path(__file__).resolve().parents[1]


def test_incremental_reingestion_parses_only_the_changed_file(tmp_path):
    files = {f"p{i}.html": template_page(f"Topic {i}", f"Report number {i} covers the harbour works.") for i in range(3)}
    files["blank.html"] = "<html><body></body></html>"  # parses to no blocks at all: still reused
    cfg = write_source(tmp_path, files)
    data = tmp_path / "out"
    first = run_ingest(cfg, data, "web")
    assert first.success and asset_meta(first, "parsed_blocks")["parsed"] == 4
    (tmp_path / "docs" / "p1.html").write_text(template_page("Topic 1", "A rewritten introduction about the new bridge."))
    second = run_ingest(cfg, data, "web")
    meta = asset_meta(second, "parsed_blocks")
    assert (meta["parsed"], meta["reused"], meta["failed"]) == (1, 3, 0)
    body = " ".join(r[0] for r in sql_rows(data, "SELECT text FROM normalized_blocks WHERE path = 'p1.html' AND drop_reason IS NULL"))
    assert "new bridge" in body and "harbour works" not in body
    forced = run_ingest(cfg, data, "web", force=True)
    assert asset_meta(forced, "parsed_blocks")["parsed"] == 4


def test_a_source_with_no_readable_file_is_empty_not_missing(tmp_path):
    """Files of other types are counted by extension (hidden ones are not), and every asset of a
    source with nothing to read materializes empty instead of failing for a missing upstream."""
    cfg = write_source(tmp_path, {"a.html.gz": template_page("A", "Packed."), "b.html.gz": "x", "notes.txt": "n", ".DS_Store": "d"})
    data = tmp_path / "out"
    first = run_ingest(cfg, data, "web")
    assert first.success, [e.message for e in first.all_events if e.is_failure]
    raw = asset_meta(first, "raw_files")
    assert raw["skipped_files"] == 3 and raw["dagster/row_count"] == 0
    assert {r["extension"]: r["files"] for r in (x.data for x in raw["skipped_types"].records)} == {".gz": 2, ".txt": 1}
    for asset in ("parsed_blocks", "normalized_blocks", "chunks", "quality_report"):
        assert asset_meta(first, asset)["dagster/row_count"] == 0, asset
    (tmp_path / "docs" / "a.html").write_text(template_page("A", "Unpacked at last."))
    second = run_ingest(cfg, data, "web")
    assert second.success and asset_meta(second, "parsed_blocks")["parsed"] == 1
    assert sql_rows(data, "SELECT count(*) FROM quality_report") == [(1,)]


def test_corrupt_and_hanging_documents_fail_alone(tmp_path):
    files = {"good.html": template_page("Budget", "The budget passed."), "corrupt.pdf": b"%PDF-1.7\n1 0 obj <<broken",
             "misnamed.pdf": template_page("Misnamed", "An HTML page saved with a .pdf name."),
             "hang.html": template_page("Stuck", "Never parsed."), "empty.docx": b"", "fake.pptx": b"this is not a deck"}
    cfg = write_source(tmp_path, files, "settings:\n  limits: {timeout_s: 4}\n")
    data = tmp_path / "out"
    result = run_ingest(cfg, data, "web", extractor="docclean_assets_tests.support.faults:hang_or_extract")
    assert result.success
    rows = {r[0]: (r[1], r[2]) for r in sql_rows(data, "SELECT path, status, error FROM quality_report")}
    assert rows["good.html"] == ("ok", None)
    assert rows["misnamed.pdf"] == ("ok", None)  # read by what its bytes are, and flagged
    assert sql_rows(data, "SELECT format, flags FROM quality_report WHERE path = 'misnamed.pdf'") == [("html", ["format_mismatch"])]
    assert rows["hang.html"] == ("failed", "timed out after 4 s")
    assert rows["corrupt.pdf"][0] == "failed" and rows["corrupt.pdf"][1]
    assert rows["empty.docx"] == ("failed", "empty file (0 bytes)")
    assert rows["fake.pptx"][0] == "failed" and "unrecognised format" in rows["fake.pptx"][1]
    assert sql_rows(data, "SELECT count(*) FROM normalized_blocks WHERE path = 'good.html' AND drop_reason IS NULL")[0][0] > 0
    # 4 of 6 failed, far above a tenth: the failed_documents check fails at ERROR, listing each with its error.
    [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == "failed_documents"]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
    assert (check.metadata["failed"].value, check.metadata["documents"].value) == (4, 6)
    listed = {r.data["path"]: r.data["error"] for r in check.metadata["failed_documents"].value.records}
    assert listed == {p: rows[p][1] for p in ("corrupt.pdf", "empty.docx", "fake.pptx", "hang.html")}


def test_retention_band_check_lists_the_outlier(tmp_path):
    # Every page shares a long site menu; one page is a stub whose only text is that menu, so once
    # the template is removed its retention ratio falls far below its siblings'.
    menu = "".join(f"<li><a href='/x{i}'>Section link number {i} of the site</a></li>" for i in range(60))
    shared = f"<div class='menu'><ul>{menu}</ul></div>"
    files = {f"p{i}.html": template_page(f"Topic {i}", f"Report {i} on the harbour works.").replace("<main>", shared + "<main>")
             for i in range(6)}
    files["thin.html"] = f"<html><body>{shared}<main><p>Stub.</p></main></body></html>"
    cfg = write_source(tmp_path, files)
    result = run_ingest(cfg, tmp_path / "out", "web")
    [band] = [c for c in result.get_asset_check_evaluations() if c.check_name == "retention_band"]
    assert not band.passed and band.severity == dg.AssetCheckSeverity.WARN  # a learned band warns
    assert [r.data["path"] for r in band.metadata["below_band"].value.records] == ["thin.html"]
    flags = dict(sql_rows(tmp_path / "out", "SELECT path, flags FROM quality_report"))
    assert "below_retention_band" in flags["thin.html"]
    assert not any("below_retention_band" in f for p, f in flags.items() if p != "thin.html")


def test_cli_run_sql_and_exit_codes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))  # not there yet: the CLI creates it
    cfg = write_source(tmp_path, {"a.html": template_page("Ferries", "The ferry timetable changes."), "b.html": template_page("Roads", "Roads close.")})
    data = tmp_path / "out"
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(data)]) == 0
    runs = dg.DagsterInstance.get().get_runs()
    assert len(runs) == 1 and runs[0].tags["dagster/partition"] == "web"  # recorded for the UI
    assert runs[0].job_name == "ingest"
    # found by the filter the UI's job page uses (dagster_graphql: job name and repository label tag)
    from docclean_assets.defs.definitions import CODE_LOCATION, REPOSITORY_LABEL

    assert f"code_location_name = \"{CODE_LOCATION}\"" in (PROJECT / "pyproject.toml").read_text()
    assert f"location_name: {CODE_LOCATION}" in (PROJECT / "workspace.yaml").read_text()
    listed = dg.DagsterInstance.get().get_runs(dg.RunsFilter(job_name="ingest", tags={".dagster/repository": REPOSITORY_LABEL}))
    assert [r.run_id for r in listed] == [runs[0].run_id]
    out = capsys.readouterr().out
    assert "documents per source and status" in out and "web" in out
    # each check's verdict, with its severity: two documents are too few to learn a band
    assert "check failed_documents passed none of the 2 documents failed" in out
    assert "check retention_band   WARN   could not decide: 2 documents" in out
    assert cli_main(["sql", "SELECT path, count(*) AS n FROM normalized_blocks WHERE drop_reason IS NULL "
                            "GROUP BY path ORDER BY path", "--data-dir", str(data), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["path"] for r in rows] == ["a.html", "b.html"] and all(r["n"] > 0 for r in rows)
    bad = tmp_path / "bad.yaml"
    bad.write_text("sources:\n  web:\n    path: docs\n    colour: red\n")
    assert cli_main(["run", "--sources", str(bad), "--data-dir", str(data)]) == 2
    assert "source 'web': key 'colour'" in capsys.readouterr().err
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(data), "--source", "nope"]) == 2
    _cli_edges(tmp_path, data, bad)


def _cli_edges(tmp_path: Path, data: Path, bad: Path) -> None:
    """`docclean sql | head` ends quietly; an empty data dir says to run first; a bad config is
    refused before Dagster is imported (in well under a second of the process's own time)."""
    import subprocess
    import sys
    import time

    docclean = [sys.executable, "-m", "docclean_assets.cli"]
    many = "SELECT range AS n, repeat('x', 40) AS pad FROM range(200000)"  # far more than a pipe buffer
    piped = subprocess.run(["bash", "-o", "pipefail", "-c",
                            " ".join([*docclean, "sql", repr(many), "--data-dir", str(data)]) + " | head -3"],
                           capture_output=True, text=True, cwd=PROJECT)
    assert piped.returncode == 0 and piped.stderr == "" and len(piped.stdout.splitlines()) == 3
    empty = subprocess.run([*docclean, "sql", "SELECT count(*) FROM quality_report", "--data-dir",
                            str(tmp_path / "nothing")], capture_output=True, text=True, cwd=PROJECT)
    assert empty.returncode == 1 and empty.stderr.strip() == \
        f"no tables yet under {tmp_path / 'nothing'}: run `docclean run` first"
    check = "import sys, docclean_assets.cli as c; r = c.main(sys.argv[1:]); print('dagster' in sys.modules); sys.exit(r)"
    started = time.monotonic()
    refused = subprocess.run([sys.executable, "-c", check, "run", "--sources", str(bad), "--data-dir", str(data)],
                             capture_output=True, text=True, cwd=PROJECT)
    assert refused.returncode == 2 and refused.stdout.strip() == "False"  # Dagster never imported
    assert "key 'colour'" in refused.stderr and time.monotonic() - started < 10  # a hang guard only


def test_extract_command_prints_blocks_without_dagster(tmp_path, capsys):
    f = tmp_path / "a.html"
    f.write_text(template_page("Ferries", "The ferry timetable changes in May."))
    assert cli_main(["extract", str(f), "--jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    body = " ".join(r["text"] for r in rows if r["drop_reason"] is None)
    assert "ferry timetable changes in May" in body
    assert any("Accept all cookies" in r["text"] and r["drop_reason"] for r in rows)


def test_schedule_and_sensor_request_the_source_partition(tmp_path):
    cfg = write_source(tmp_path, {"a.html": template_page("A", "Alpha.")}, "    schedule: '0 3 * * *'\n")
    defs = build_defs(cfg, tmp_path / "out")
    [sched] = list(defs.schedules)
    assert sched.cron_schedule == "0 3 * * *"
    when = datetime.datetime(2026, 12, 2, 3, 0, tzinfo=datetime.UTC)
    ctx = dg.build_schedule_context(repository_def=defs.get_repository_def(), scheduled_execution_time=when)
    reqs = sched.evaluate_tick(ctx).run_requests
    assert [(r.partition_key, r.run_key) for r in reqs] == [("web", "web-20261202T0300")]
    [sensor] = list(defs.sensors)
    with dg.build_sensor_context(resources=defs.resources, repository_def=defs.get_repository_def()) as ctx:
        first = sensor.evaluate_tick(ctx)
    assert [r.partition_key for r in first.run_requests] == ["web"]
    with dg.build_sensor_context(cursor=first.cursor, resources=defs.resources, repository_def=defs.get_repository_def()) as ctx:
        assert sensor.evaluate_tick(ctx).run_requests == []
    (tmp_path / "docs" / "b.html").write_text(template_page("B", "Beta."))
    with dg.build_sensor_context(cursor=first.cursor, resources=defs.resources, repository_def=defs.get_repository_def()) as ctx:
        assert [r.partition_key for r in sensor.evaluate_tick(ctx).run_requests] == ["web"]


def test_definitions_module_loads():
    from docclean_assets.defs.definitions import defs

    dg.Definitions.validate_loadable(defs())


@pytest.fixture
def web_server():
    """A real HTTP server on loopback serving a few pages, a 404 and an oversized body."""
    from docclean_assets_tests.support.httpserve import loopback_server, send

    pages = {"/a.html": template_page("Tides", "The tide tables for spring are out."),
             "/b": template_page("Locks", "The lock keepers will strike in June."),
             "/big.html": "<html><body>" + "x" * 5000 + "</body></html>"}
    seen_agents = []

    def do_get(handler):
        seen_agents.append(handler.headers.get("User-Agent"))
        body = pages.get(handler.path)
        if body is None:
            handler.send_error(404, "Not Found")
            return
        send(handler, body.encode(), "text/html; charset=utf-8")

    with loopback_server(do_get) as base:
        yield base.rstrip("/"), seen_agents


def test_url_source_fetches_politely_and_records_failures(tmp_path, web_server):
    from docclean_assets.ingest import fetch

    base, agents = web_server
    urls = [f"{base}/a.html", f"{base}/b", f"{base}/missing", f"{base}/big.html"]
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  news:\n    urls:\n" + "".join(f"      - {u}\n" for u in urls)
                   + "settings:\n  fetch: {max_bytes: 4000, timeout_s: 10}\n")
    data = tmp_path / "out"
    result = run_ingest(cfg, data, "news")
    assert result.success
    raw = {r[0]: r[1:] for r in sql_rows(data, "SELECT path, http_status, format, error FROM raw_files")}
    assert raw[f"{base}/a.html"] == (200, "html", None)
    assert raw[f"{base}/b"] == (200, "html", None)  # no extension: the bytes say html
    assert raw[f"{base}/missing"][0] == 404 and "404" in raw[f"{base}/missing"][2]
    assert "larger than 4000 bytes" in raw[f"{base}/big.html"][2]
    assert all(a == fetch.USER_AGENT for a in agents)
    status = dict(sql_rows(data, "SELECT path, status FROM quality_report"))
    assert status == {f"{base}/a.html": "ok", f"{base}/b": "ok", f"{base}/missing": "failed", f"{base}/big.html": "failed"}
    body = " ".join(r[0] for r in sql_rows(data, f"SELECT text FROM normalized_blocks WHERE path = '{base}/b' AND drop_reason IS NULL"))
    assert "lock keepers will strike" in body


def test_quality_report_says_which_path_produced_the_body(tmp_path):
    jsonld = ('<script type="application/ld+json">{"@type": "Article", "articleBody": '
              '"The ferry timetable changes in May. Extra sailings run at weekends."}</script>')
    files = {"plain.html": template_page("Ferries", "The ferry timetable changes in May."),
             "ld.html": f"<html><head>{jsonld}</head><body><article><p>The ferry timetable changes in May. "
                        "Extra sailings run at weekends.</p></article></body></html>"}
    cfg = write_source(tmp_path, files)
    assert run_ingest(cfg, tmp_path / "out", "web").success
    assert dict(sql_rows(tmp_path / "out", "SELECT path, method FROM quality_report")) == {
        "plain.html": "trafilatura", "ld.html": "jsonld"}


def test_changed_settings_or_source_options_parse_again(tmp_path):
    files = {f"p{i}.html": template_page(f"Topic {i}", f"Report {i} on the quays.") for i in range(2)}
    cfg = write_source(tmp_path, files)
    data = tmp_path / "out"
    assert asset_meta(run_ingest(cfg, data, "web"), "parsed_blocks")["parsed"] == 2
    assert asset_meta(run_ingest(cfg, data, "web"), "parsed_blocks")["parsed"] == 0
    cfg.write_text(cfg.read_text() + "    html: {drop: ['.cookie']}\n")
    assert asset_meta(run_ingest(cfg, data, "web"), "parsed_blocks")["parsed"] == 2
    text = cfg.read_text()
    cfg.write_text(text + "settings:\n  boilerplate: {min_docs: 4}\n")  # acts after parsing
    assert asset_meta(run_ingest(cfg, data, "web"), "parsed_blocks")["parsed"] == 0
    cfg.write_text(text + "settings:\n  html: {shell_max_chars: 150}\n")
    assert asset_meta(run_ingest(cfg, data, "web"), "parsed_blocks")["parsed"] == 2


def test_boilerplate_sets_searches_again_only_when_the_parses_changed(tmp_path, monkeypatch):
    """An unchanged rerun finds the inputs boilerplate_sets was made from recorded and searches
    nothing (its per-document pass is linear in the source); a changed document searches again."""
    from docclean_assets.pipeline import derive

    files = {f"p{i}.html": template_page(f"Topic {i}", f"Report number {i} covers the harbour works.") for i in range(6)}
    cfg, data, instance = write_source(tmp_path, files), tmp_path / "out", dg.DagsterInstance.ephemeral()
    first = run_ingest(cfg, data, "web", instance)
    assert first.success and asset_meta(first, "boilerplate_sets")["dagster/row_count"] > 0
    searches = []
    real = derive.boilerplate_table
    monkeypatch.setattr(derive, "boilerplate_table", lambda *a, **k: searches.append(1) or real(*a, **k))
    again = run_ingest(cfg, data, "web", instance)
    same = {k: v for k, v in asset_meta(first, "boilerplate_sets").items() if k != "changed"}
    assert again.success and searches == []
    assert {k: v for k, v in asset_meta(again, "boilerplate_sets").items() if k != "changed"} == same
    assert asset_meta(again, "boilerplate_sets")["changed"] is False
    (tmp_path / "docs" / "p1.html").write_text(template_page("Topic 1", "A rewritten introduction about the new bridge."))
    changed = run_ingest(cfg, data, "web", instance)
    assert changed.success and searches == [1]
