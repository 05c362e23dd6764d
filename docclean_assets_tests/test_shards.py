"""A source split into shards (`shards: N`): each shard is a step with its own pair of tables; the
tables after parsing are those of the unsharded source; a changed shard count moves documents
without losing or doubling any; shard steps run in processes of their own under the multiprocess
executor, as they would in pods under k8s_job_executor."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from docclean_assets.defs.definitions import EXECUTOR_ENV, executor
from docclean_assets.pipeline.shards import shard_keys, shard_of, shard_rows, stale_keys
from docclean_assets.ingest.sources import SourceConfigError, load_sources
from docclean_assets.store.tables import Store
from docclean_assets_tests.support.pipeline import run_ingest, asset_meta, template_page, sql_rows
from docclean_assets_tests.support.dagster_dev import project_env

PROJECT = Path(__file__).resolve().parents[1]
DG = Path(sys.executable).parent / "dg"
PAGES = {f"n{i:02d}.html": template_page(f"Notice {i}", f"Item {i} concerns ward {i % 5}.") for i in range(12)}
TABLES_SQL = {
    "parsed_blocks": "SELECT path, seq, kind, text FROM parsed_blocks",
    "parsed_documents": "SELECT path, status, error FROM parsed_documents",
    "normalized_blocks": "SELECT path, seq, kind, text, drop_reason FROM normalized_blocks",
    "quality_report": "SELECT path, status, retention_ratio, flags FROM quality_report",
}


def _config(tmp_path: Path, shards: int | None, pages: dict[str, str] = PAGES) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, html in pages.items():
        (docs / name).write_text(html)
    extra = f"    shards: {shards}\n" if shards else ""
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  web:\n    path: docs\n{extra}")
    return cfg


def _tables(data: Path) -> dict[str, list[tuple]]:
    return {t: sorted(sql_rows(data, q), key=repr) for t, q in TABLES_SQL.items()}


def test_a_shard_is_a_stable_hash_of_the_path_and_the_shards_cover_the_inventory():
    paths = [f"folder/doc-{i}.pdf" for i in range(400)]
    assert [shard_of(p, 8) for p in paths] == [shard_of(p, 8) for p in paths]
    sizes = [sum(1 for p in paths if shard_of(p, 8) == k) for k in range(8)]
    assert min(sizes) >= 25 and max(sizes) <= 75  # 50 expected each: no shard empty or doubled
    raw = pa.table({"path": paths, "n": list(range(400))})
    parts = [shard_rows(raw, k, 8) for k in range(8)]
    assert sorted(p for t in parts for p in t.column("path").to_pylist()) == sorted(paths)
    assert shard_rows(raw, 0, 1) is raw
    assert shard_keys("web", 1) == ["web"] and shard_keys("web", 3) == ["web@000", "web@001", "web@002"]


def test_shards_are_validated_in_sources_yaml(tmp_path):
    (tmp_path / "docs").mkdir()
    for bad in ("0", "2000", "true", "two"):
        (tmp_path / "s.yaml").write_text(f"sources:\n  web:\n    path: docs\n    shards: {bad}\n")
        with pytest.raises(SourceConfigError, match="source 'web': key 'shards': must be an integer from 1 to 1024"):
            load_sources(tmp_path / "s.yaml")


def test_a_sharded_source_gives_the_tables_of_the_unsharded_one_and_reshards_without_loss(tmp_path):
    whole = _config(tmp_path / "a", None)
    assert run_ingest(whole, tmp_path / "a" / "out", "web").success
    expected = _tables(tmp_path / "a" / "out")

    cfg, out = _config(tmp_path / "b", 3), tmp_path / "b" / "out"
    result = run_ingest(cfg, out, "web")
    assert result.success
    steps = {e.step_key for e in result.all_events if e.is_step_success}
    assert {f"parsed_blocks.parse_shard[shard_{k:03d}]" for k in range(3)} <= steps
    assert _tables(out) == expected
    store = Store(out)
    assert sorted(store.sources("parsed_documents")) == ["web@000", "web@001", "web@002"]
    per_shard = {k: store.read("parsed_documents", k, columns=["path"]).column("path").to_pylist() for k in shard_keys("web", 3)}
    assert all(shard_of(p, 3) == int(k[-3:]) for k, paths in per_shard.items() for p in paths)
    meta = asset_meta(result, "parsed_blocks")
    assert (meta["parsed"], meta["shards"], meta["documents"]) == (12, 3, 12)

    # unchanged: no shard parses anything
    again = run_ingest(cfg, out, "web")
    assert again.success and (asset_meta(again, "parsed_blocks")["parsed"], asset_meta(again, "parsed_blocks")["unchanged"]) == (0, 12)

    # 3 -> 2 shards: each document ends in exactly one current shard; shard 2 is emptied, not left doubled
    cfg.write_text(cfg.read_text().replace("shards: 3", "shards: 2"))
    moved = sum(1 for p in PAGES if shard_of(p, 2) != shard_of(p, 3))
    assert 0 < moved < len(PAGES)
    result = run_ingest(cfg, out, "web")
    assert result.success
    meta = asset_meta(result, "parsed_blocks")
    assert meta["parsed"] == moved and meta["retired_shards"] == {"web@002": sum(1 for p in PAGES if shard_of(p, 3) == 2)}
    assert _tables(out) == expected
    assert stale_keys(store, "web", 2) == ["web@002"] and store.read("parsed_documents", "web@002").num_rows == 0

    # back to one: the source's own partition again, every shard emptied
    cfg.write_text(cfg.read_text().replace("    shards: 2\n", ""))
    result = run_ingest(cfg, out, "web")
    assert result.success and asset_meta(result, "parsed_blocks")["parsed"] == 12
    assert _tables(out) == expected
    assert all(store.read("parsed_documents", k).num_rows == 0 for k in ("web@000", "web@001", "web@002"))


def test_a_failing_shard_fails_its_step_and_leaves_the_others_committed(tmp_path, monkeypatch):
    import docclean_assets.defs.parse_asset as parse_asset

    cfg, out = _config(tmp_path, 3), tmp_path / "out"
    real = parse_asset.parse_stage.parse_source

    def break_shard_1(store, src, raw, *args, **kwargs):
        if kwargs.get("key", args[-1] if args else None) == "web@001":
            raise OSError("disk full")
        return real(store, src, raw, *args, **kwargs)

    monkeypatch.setattr(parse_asset.parse_stage, "parse_source", break_shard_1)
    result = run_ingest(cfg, out, "web")
    assert not result.success
    failed = {e.step_key for e in result.all_events if e.is_step_failure}
    assert failed == {"parsed_blocks.parse_shard[shard_001]"}
    store = Store(out)
    assert store.snapshot("parsed_documents", "web@001") is None
    for key in ("web@000", "web@002"):
        committed = store.read("parsed_documents", key, columns=["path"]).column("path").to_pylist()
        assert sorted(committed) == sorted(p for p in PAGES if shard_of(p, 3) == int(key[-3:]))
    monkeypatch.setattr(parse_asset.parse_stage, "parse_source", real)
    result = run_ingest(cfg, out, "web")  # the rerun parses only the missing shard
    assert result.success and asset_meta(result, "parsed_blocks")["parsed"] == sum(1 for p in PAGES if shard_of(p, 3) == 1)


def test_the_executor_is_chosen_by_configuration(monkeypatch):
    monkeypatch.delenv(EXECUTOR_ENV, raising=False)
    assert executor() is dg.in_process_executor
    monkeypatch.setenv(EXECUTOR_ENV, "multiprocess")
    assert executor() is dg.multiprocess_executor
    monkeypatch.setenv(EXECUTOR_ENV, "celery")
    with pytest.raises(SourceConfigError, match="must be one of in_process, multiprocess, k8s"):
        executor()
    monkeypatch.setenv(EXECUTOR_ENV, "k8s")
    try:
        from dagster_k8s import k8s_job_executor
    except ImportError:
        with pytest.raises(SourceConfigError, match=r"needs dagster-k8s: pip install 'docclean\[k8s\]'"):
            executor()
    else:
        assert executor() is k8s_job_executor


def test_shard_steps_run_in_processes_of_their_own_under_the_multiprocess_executor(tmp_path):
    pages = {f"n{i:02d}.html": template_page(f"Notice {i}", f"Item {i} concerns ward {i}.") for i in range(8)}
    cfg = _config(tmp_path, 2, pages)
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    env = project_env(DAGSTER_HOME=str(home), DOCCLEAN_SOURCES=str(cfg), DOCCLEAN_DATA_DIR=str(tmp_path / "out"),
                      PYTHONPATH=str(PROJECT), **{EXECUTOR_ENV: "multiprocess"})  # the test extractor
    slow = {"ops": {"parsed_blocks": {"ops": {"parse_shard": {"config": {"extractor": "docclean_assets_tests.support.faults:slow_extract"}}}}}}
    # raw_files and the parse only: every step under this executor is a process start (~2 s on 2 cores)
    proc = subprocess.run([str(DG), "launch", "--assets", "raw_files,parsed_blocks,parsed_documents",
                           "--partition", "web", "--config-json", json.dumps(slow)], env=env, cwd=PROJECT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    instance = dg.DagsterInstance.from_config(str(home))
    [run] = instance.get_run_records()
    events = [r for r in instance.all_logs(run.dagster_run.run_id) if r.dagster_event is not None]
    spans: dict[str, list] = {}
    for r in events:
        key = r.dagster_event.step_key or ""
        if ".parse_shard[" in key and r.dagster_event.event_type_value in ("STEP_START", "STEP_SUCCESS"):
            spans.setdefault(key, []).append((r.timestamp, r.dagster_event.pid))
    assert sorted(spans) == ["parsed_blocks.parse_shard[shard_000]", "parsed_blocks.parse_shard[shard_001]"]
    (s0, p0), (e0, _) = spans["parsed_blocks.parse_shard[shard_000]"]
    (s1, p1), (e1, _) = spans["parsed_blocks.parse_shard[shard_001]"]
    assert p0 != p1 and os.getpid() not in (p0, p1)  # a process each
    assert s0 < e1 and s1 < e0  # at once: each started before the other ended (4 docs x 0.5 s each)
    assert sorted(sql_rows(tmp_path / "out", "SELECT path, status FROM parsed_documents")) == [(p, "ok") for p in sorted(pages)]
