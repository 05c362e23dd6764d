"""Streamed, resumable sources: batches are committed as the parse goes; a run SIGKILLed at any moment
resumes with only the uncommitted documents; the final tables are the same whether a source was parsed
in one run, resumed after kills, or updated incrementally."""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from docclean_assets.store.tables import TABLES, Store
from docclean_assets_tests.test_pipeline import _page

DOCCLEAN = str(Path(sys.executable).with_name("docclean"))
BATCH = 3  # documents per commit in these sources
TOTAL = 30  # documents of the source that is killed and resumed
# Columns that differ between two parses of the same bytes by design: timings, and the blob path
# (one copy of the folder per run below).
VOLATILE = {"parse_seconds", "blob"}


def _folder(root: Path, pages: dict[str, str]) -> None:
    for name, html in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(html)


def _pages(n: int, tag: str = "") -> dict[str, str]:
    return {f"p{i:03d}.html": _page(f"Notice {i}{tag}", f"Item {i}{tag} concerns ward {i % 7}.") for i in range(n)}


def _config(tmp_path: Path, name: str, batch: int = BATCH) -> Path:
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(f"sources:\n  web:\n    path: docs\nsettings:\n  limits:\n    workers: 2\n"
                   f"  store:\n    batch_documents: {batch}\n")
    return cfg


def _env(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return {**os.environ, "DAGSTER_HOME": str(home)}


def _run(tmp_path: Path, cfg: Path, data: Path, *extra: str) -> str:
    proc = subprocess.run([DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", str(data), "--quiet", *extra],
                          env=_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _killed_run(tmp_path: Path, cfg: Path, data: Path, after_batches: int, batches_later: float) -> int:
    """Start a run, SIGKILL its whole process group after the n-th batch line, `batches_later` times
    the time the run took per batch so far (so the kill lands mid-run however fast batches go);
    batches it reported."""
    proc = subprocess.Popen([DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", str(data), "--quiet"],
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    seen, times = 0, []
    for line in proc.stdout:
        if " committed " in line:
            seen += 1
            times.append(time.monotonic())
        if seen >= after_batches:
            break
    per_batch = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0.1
    time.sleep(batches_later * per_batch)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return seen


def _tables(data: Path) -> dict[str, list[tuple]]:
    """Every table's rows (volatile columns left out), sorted; chunk_changes, a log of runs that differs
    by design between a fresh and a resumed history, as the chunk ids an index replaying it holds,
    which must be the chunks table's own."""
    con = Store(data).connect()
    out = {}
    for table in TABLES:
        if table == "chunk_changes":
            continue
        cols = [c for (c,) in con.execute(f"SELECT column_name FROM (DESCRIBE {table})").fetchall() if c not in VOLATILE]
        rows = con.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
        out[table] = sorted(rows, key=repr)
    out["chunk_changes"] = sorted(replayed_index(con))
    assert out["chunk_changes"] == sorted({r[0] for r in con.execute("SELECT chunk_id FROM chunks").fetchall()})
    con.close()
    return out


def replayed_index(con) -> set[str]:  # noqa: ANN001 - a duckdb connection
    """The chunk ids a loader holds after applying every change set of chunk_changes in order."""
    held: set[str] = set()
    sets = con.execute("SELECT to_version, list(change), list(chunk_id) FROM chunk_changes GROUP BY source, to_version "
                       "ORDER BY to_version").fetchall()
    for _, changes, ids in sets:
        if "reset" in changes:
            held = {i for c, i in zip(changes, ids) if c == "reset"}
        held |= {i for c, i in zip(changes, ids) if c == "added"}
        held -= {i for c, i in zip(changes, ids) if c == "removed"}
    return held


def _parsed_counts(stdout: str) -> dict[str, int]:
    line = next(x for x in stdout.splitlines() if x.strip().startswith("parsed_blocks"))
    return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}


def test_killed_runs_resume_with_only_uncommitted_documents_and_end_identical(tmp_path):
    _folder(tmp_path / "docs", _pages(TOTAL))
    cfg = _config(tmp_path, "sources")
    once = tmp_path / "once"
    out = _run(tmp_path, cfg, once)
    # not a terminal: one plain line per committed batch, with the counts so far
    batches = [x for x in out.splitlines() if " committed " in x]
    assert len(batches) == TOTAL // BATCH and batches[-1].startswith(f"web: batch {TOTAL // BATCH} committed {BATCH} ")
    assert f"{TOTAL}/{TOTAL} documents" in batches[-1] and "0 failed so far" in batches[-1]

    resumed, rng = tmp_path / "resumed", random.Random(7)
    for after in (2, 4):  # killed twice, each time a little after a batch was reported
        _killed_run(tmp_path, cfg, resumed, after, rng.uniform(0.0, 2.0))
        con = Store(resumed).connect()
        committed = con.execute("SELECT count(*) FROM parsed_documents").fetchall()[0][0]
        con.close()
        assert committed % BATCH == 0 and committed >= after * BATCH  # whole batches only, none lost once reported
        assert committed < TOTAL  # the kill came mid-run: there is something to resume
    out = _run(tmp_path, cfg, resumed)
    counts = _parsed_counts(out)
    assert counts["parsed"] == TOTAL - committed and counts["reused"] == committed  # only what no commit held
    assert _tables(resumed) == _tables(once)


def test_incremental_updates_end_identical_to_a_fresh_run(tmp_path):
    docs = tmp_path / "docs"
    _folder(docs, _pages(15))
    cfg = _config(tmp_path, "sources")
    data = tmp_path / "data"
    _run(tmp_path, cfg, data)
    (docs / "p003.html").write_text(_page("Notice 3 revised", "A corrected notice for ward 3."))  # changed
    (docs / "p004.html").unlink()  # deleted
    (docs / "moved").mkdir()
    (docs / "p005.html").rename(docs / "moved" / "p005.html")  # moved
    _folder(docs, {"new.html": _page("A new notice", "Item 99 concerns ward 2.")})  # added
    out = _run(tmp_path, cfg, data)
    counts = _parsed_counts(out)
    assert counts["parsed"] == 2  # the changed and the new page; the moved one is copied, not parsed
    fresh = tmp_path / "fresh"
    _run(tmp_path, cfg, fresh)
    assert _tables(data) == _tables(fresh)
    paths = {p for (p,) in Store(data).connect().execute("SELECT DISTINCT path FROM normalized_blocks").fetchall()}
    assert "p004.html" not in paths and "moved/p005.html" in paths and "p005.html" not in paths


def test_an_unchanged_rerun_parses_and_rewrites_nothing(tmp_path):
    _folder(tmp_path / "docs", _pages(7))
    (tmp_path / "docs" / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<broken")  # fails in its worker
    (tmp_path / "outside.html").write_text(_page("Outside", "Not part of the source."))
    (tmp_path / "docs" / "link.html").symlink_to(tmp_path / "outside.html")  # refused by the inventory
    cfg = _config(tmp_path, "sources")
    data = tmp_path / "data"
    _run(tmp_path, cfg, data)
    store = Store(data)
    assert store.counts("parsed_documents", "web", "status") == {"failed": 2, "ok": 7}
    versions = {t: store._open(t, "web").version() for t in (*TABLES, "_normalized_documents")}
    out = _run(tmp_path, cfg, data)
    assert _parsed_counts(out)["parsed"] == 0 and "0 documents to parse, 9 unchanged" in out
    assert {t: store._open(t, "web").version() for t in versions} == versions  # not one new commit


def test_a_batch_is_committed_after_its_seconds_even_when_not_full(tmp_path):
    docs = tmp_path / "docs"
    _folder(docs, _pages(6))
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  web:\n    path: docs\nsettings:\n  limits:\n    workers: 1\n"
                   "  store:\n    batch_documents: 1000\n    batch_seconds: 0.1\n")
    out = _run(tmp_path, cfg, tmp_path / "data")
    # far from 1000 documents, batches still close: a document's worker takes about 0.1 s or more
    batches = [x for x in out.splitlines() if " committed " in x]
    assert len(batches) >= 2 and "6/6 documents" in batches[-1]


def test_the_dagster_run_log_moves_per_committed_batch(tmp_path):
    import dagster as dg

    from docclean_assets.defs.definitions import build_defs

    _folder(tmp_path / "docs", _pages(7))
    defs = build_defs(_config(tmp_path, "sources"), tmp_path / "data")
    with dg.instance_for_test() as instance:
        result = dg.materialize(defs.assets, partition_key="web", resources=defs.resources, instance=instance)
        assert result.success
        lines = [e.user_message for e in instance.all_logs(result.run_id) if " committed " in (e.user_message or "")]
    assert [x.split(" committed ")[0] for x in lines] == ["web: batch 1", "web: batch 2", "web: batch 3"]
    assert "7/7 documents" in lines[-1]
