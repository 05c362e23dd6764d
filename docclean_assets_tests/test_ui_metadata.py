"""What the Dagster UI is told, in-process: checks that fail or warn when they should, pictures and
tables instead of raw counts, no None/NaN/empty-key artefacts, and Dagster's conventions (the named
job, owners, tags, kinds, code and data versions, column descriptions)."""
from __future__ import annotations

import base64
import io
import math
import re
from pathlib import Path

import dagster as dg
import pytest
from PIL import Image

from docclean_assets.pipeline.health import failed_limit
from docclean_assets.defs.definitions import INGEST_JOB, build_defs
from docclean_assets.defs.insight import INLINE_MD_CHARS, KEPT
from docclean_assets.ingest.sources import Source
from docclean_assets.store.tables import TABLES, Store
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, BOILERPLATE_SCHEMA, DOCS_SCHEMA, QUALITY_SCHEMA, RAW_FILES_SCHEMA
from docclean_assets.defs.versions import CODE_VERSION, DATA_VERSION_TAG
from docclean_assets_tests.support.pipeline import run_ingest, template_page, write_source

PROJECT = Path(__file__).resolve().parents[1]
SAMPLES = PROJECT / "data" / "sources.yaml"
needs_samples = pytest.mark.skipif(not (PROJECT / "data" / "samples").is_dir(), reason="data/samples not generated")
ASSETS = list(TABLES)
ARTEFACT = re.compile(r"(?<![\w\\])(nan|NaN|None|null)(?!\w)|\[\]")  # what a careless dump shows


def _checks(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {c.check_name: c for c in result.get_asset_check_evaluations()}


def _materializations(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetMaterialization]:
    return {e.asset_key.to_user_string(): e.event_specific_data.materialization
            for e in result.get_asset_materialization_events()}


# ------------------------------------------------------------------------------------------- checks


def test_failed_limit_takes_the_tighter_of_count_and_share():
    src = Source("s")
    assert failed_limit(src, 100, 0.1) == 10
    assert failed_limit(Source("s", max_failed_documents=3), 100, 0.1) == 3
    assert failed_limit(Source("s", max_failed_documents=30), 100, 0.1) == 10
    assert failed_limit(Source("s", max_failed_share=0.5), 100, 0.1) == 50
    assert failed_limit(src, 3, 0.1) == 0  # one failure of three is a third: above a tenth


def test_checks_warn_when_they_cannot_decide_and_decide_with_a_configured_band(tmp_path):
    files = {"a.html": template_page("Ferries", "The ferry timetable changes in May."), "b.pdf": b"%PDF-1.7\n1 0 obj <<broken"}
    cfg = write_source(tmp_path, files, "    max_failed_documents: 1\n    max_failed_share: 1.0\n")
    data, instance = tmp_path / "out", dg.DagsterInstance.ephemeral()
    checks = _checks(run_ingest(cfg, data, "web", instance))
    failed = checks["failed_documents"]  # one failure within the source's limit: a warning, not a pass
    assert not failed.passed and failed.severity == dg.AssetCheckSeverity.WARN
    assert [r.data["path"] for r in failed.metadata["failed_documents"].value.records] == ["b.pdf"]
    band = checks["retention_band"]  # one document with a ratio, no band configured: undecided, said at WARN
    assert not band.passed and band.severity == dg.AssetCheckSeverity.WARN
    assert band.metadata["band"].value == "undecided" and band.description.startswith("could not decide")
    cfg.write_text(cfg.read_text().replace("    max_failed_share: 1.0\n", "    retention_band: [0.05, 1.0]\n"))
    checks = _checks(run_ingest(cfg, data, "web", instance))
    band = checks["retention_band"]
    assert band.passed and band.severity == dg.AssetCheckSeverity.ERROR and band.metadata["band"].value == "configured"
    failed = checks["failed_documents"]  # 1 of 2 is above the default tenth, however small the count limit
    assert not failed.passed and failed.severity == dg.AssetCheckSeverity.ERROR


# ------------------------------------------------------------------ metadata on the bundled samples


def _artefacts(key: str, value: dg.MetadataValue) -> list[str]:
    """What in one metadata value would show as None, NaN, null, [] or an empty key in the UI."""
    found = []
    raw = value.value
    if isinstance(value, dg.TableMetadataValue):
        for record in raw.records:
            for col, cell in record.data.items():
                if not col or cell is None or (isinstance(cell, float) and not math.isfinite(cell)) or \
                        (isinstance(cell, str) and ARTEFACT.fullmatch(cell)):
                    found.append(f"{key}: {col}={cell!r}")
    elif isinstance(value, dg.JsonMetadataValue):
        def walk(node):
            if isinstance(node, dict):
                for k, v in node.items():
                    if k in ("", "null", "None"):
                        found.append(f"{key}: key {k!r}")
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
            elif node is None or (isinstance(node, float) and not math.isfinite(node)):
                found.append(f"{key}: {node!r}")
        walk(raw)
    elif isinstance(value, (dg.TextMetadataValue, dg.MarkdownMetadataValue)):
        if ARTEFACT.search(raw.split("](data:image")[0]):
            found.append(f"{key}: {raw[:80]!r}")
    elif isinstance(value, dg.FloatMetadataValue) and not math.isfinite(raw):
        found.append(f"{key}: {raw!r}")
    elif raw is None:
        found.append(f"{key}: None")
    return found


@needs_samples
def test_samples_run_shows_pictures_tables_and_versions_without_artefacts(tmp_path, monkeypatch):
    instance = dg.DagsterInstance.ephemeral()
    results = {key: run_ingest(SAMPLES, tmp_path, key, instance) for key in ("office", "reports", "site")}
    assert all(r.success for r in results.values())
    for key, result in results.items():
        assert instance.get_run_by_id(result.run_id).job_name == INGEST_JOB  # never __ephemeral_asset_job__
        mats = _materializations(result)
        assert sorted(mats) == sorted(ASSETS)
        for asset, mat in mats.items():
            assert mat.tags["dagster/code_version"] == CODE_VERSION, asset
            assert mat.tags[DATA_VERSION_TAG], asset
            assert mat.metadata["changed"].value is True, asset  # the first materialization of each
            problems = [p for k, v in mat.metadata.items() for p in _artefacts(k, v)]
            assert problems == [], (key, asset, problems)
            columns = mat.metadata["dagster/column_schema"].value.columns
            assert all(c.description for c in columns), (asset, [c.name for c in columns if not c.description])
        for check in result.get_asset_check_evaluations():
            problems = [p for k, v in check.metadata.items() for p in _artefacts(k, v)]
            assert problems == [] and check.description, (key, check.check_name, problems)

    report = _materializations(results["reports"])["quality_report"].metadata
    md = report["retention_histogram"].value
    png = base64.b64decode(re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)\)", md).group(1))
    assert Image.open(io.BytesIO(png)).size == (560, 220)
    assert report["retention_band"].value == "configured: 0.600 to 1.000"  # data/sources.yaml's band
    assert report["health"].value == "reports: healthy: every check passed"
    office = _materializations(results["office"])["quality_report"].metadata
    assert office["health"].value == ("office: ERROR: revision_count FAILED: 1 of 3 documents over max_revisions 0, "
                                      "configured on the source")
    assert [r.data["verdict"] for r in office["checks"].value.records] == ["passed", "passed", "FAILED"]
    blocks = _materializations(results["reports"])["normalized_blocks"].metadata
    kinds = {r.data["kind"]: r.data["blocks"] for r in report["blocks_per_kind"].value.records}
    assert sum(kinds.values()) == blocks["dagster/row_count"].value and kinds["paragraph"] > 0
    reasons = {r.data["drop_reason"]: r.data["blocks"] for r in report["drop_reasons"].value.records}
    assert reasons[KEPT] > 0 and reasons.get("watermark", 0) > 0
    # The body preview starts each document with its first body block's words.
    first = Store(tmp_path).connect().execute(
        "SELECT text FROM normalized_blocks WHERE source = 'reports' AND drop_reason IS NULL AND kind = 'title' "
        "ORDER BY path, seq LIMIT 1").fetchone()[0]
    assert " ".join(first.split()[:4]) in report["body_preview"].value.replace("\\", "")
    assert len(report["body_preview"].value) < INLINE_MD_CHARS  # shown inline, not behind a link

    checks = {(k, c.check_name): c for k, r in results.items() for c in r.get_asset_check_evaluations()}
    assert checks[("reports", "retention_band")].passed and checks[("reports", "retention_band")].metadata["band"].value == "configured"
    # the demo's only red is the one it shows: the contract under revision (office: max_revisions: 0)
    assert not checks[("office", "revision_count")].passed
    assert checks[("office", "revision_count")].severity == dg.AssetCheckSeverity.ERROR
    assert checks[("office", "revision_count")].metadata["over"].value >= 1
    assert sorted(key for key, c in checks.items() if not c.passed) == [("office", "revision_count")]

    # An unchanged rerun commits nothing: every asset keeps its data version and says it is unchanged,
    # and quality_report's pictures are the ones recorded with that version (nothing is drawn again).
    def no_drawing(*args, **kwargs):
        raise AssertionError("an unchanged quality_report drew its histogram again")

    monkeypatch.setattr("docclean_assets.defs.insight.retention_png", no_drawing)
    again = _materializations(run_ingest(SAMPLES, tmp_path, "office", instance))
    for asset, mat in _materializations(results["office"]).items():
        assert again[asset].tags[DATA_VERSION_TAG] == mat.tags[DATA_VERSION_TAG], asset
        assert again[asset].metadata["changed"].value is False, asset
    first = _materializations(results["office"])["quality_report"].metadata
    assert again["quality_report"].metadata["retention_histogram"] == first["retention_histogram"]
    assert again["quality_report"].metadata["body_preview"] == first["body_preview"]


def test_data_version_changes_with_the_committed_rows(tmp_path):
    files = {f"p{i}.html": template_page(f"Topic {i}", f"Report number {i} covers the harbour works.") for i in range(2)}
    cfg = write_source(tmp_path, files)
    data, instance = tmp_path / "out", dg.DagsterInstance.ephemeral()
    first = _materializations(run_ingest(cfg, data, "web", instance))
    (tmp_path / "docs" / "p1.html").write_text(template_page("Topic 1", "A rewritten introduction about the new bridge."))
    second = _materializations(run_ingest(cfg, data, "web", instance))
    for asset in ("raw_files", "parsed_blocks", "parsed_documents", "normalized_blocks", "quality_report"):
        assert second[asset].tags[DATA_VERSION_TAG] != first[asset].tags[DATA_VERSION_TAG], asset
        assert second[asset].metadata["changed"].value is True, asset


# ------------------------------------------------------------------------------ Dagster conventions


def test_every_asset_has_owners_tags_kinds_and_the_parser_code_version(tmp_path):
    cfg = write_source(tmp_path, {"a.html": template_page("A", "Alpha.")}, "    schedule: '0 3 * * *'\n")
    defs = build_defs(cfg, tmp_path / "out")
    graph = defs.resolve_asset_graph()
    keys = sorted(k.to_user_string() for k in graph.get_all_asset_keys())
    assert keys == sorted(ASSETS)
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.owners == ["team:docclean"], key
        assert node.tags.get("docclean/stage") in {"ingest", "parse", "clean", "chunk", "report"}, key
        assert {"python", "deltalake", "parquet"} <= set(node.kinds), key
        assert node.code_version == CODE_VERSION and "parser-" in CODE_VERSION, key
        assert node.description, key
    job = defs.resolve_job_def(INGEST_JOB)
    assert {k.to_user_string() for k in job.asset_layer.selected_asset_keys} == set(ASSETS)
    assert [s.job_name for s in defs.schedules] == [INGEST_JOB]
    assert [s.job_name for s in defs.sensors] == [INGEST_JOB]


@pytest.mark.parametrize("schema", [RAW_FILES_SCHEMA, BLOCKS_SCHEMA, DOCS_SCHEMA, BOILERPLATE_SCHEMA, QUALITY_SCHEMA],
                         ids=["raw_files", "blocks", "documents", "boilerplate", "quality"])
def test_every_column_is_described(schema):
    from docclean_assets.defs.meta import schema_meta

    columns = schema_meta(schema).columns
    assert [c.name for c in columns] == schema.names
    assert all(c.description and len(c.description) > 10 for c in columns)
    assert [c.constraints.nullable for c in columns] == [f.nullable for f in schema]
