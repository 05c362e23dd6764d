"""Runs of the `docclean` command the way a user starts them, on a folder of generated pages: whole,
SIGKILLed mid-run, and the committed tables compared afterwards."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from docclean_assets.store.tables import TABLES, Store
from docclean_assets_tests.support.pipeline import template_page


DOCCLEAN = str(Path(sys.executable).with_name("docclean"))
BATCH = 3  # documents per commit in these sources
TOTAL = 30  # documents of the source that is killed and resumed
# Columns that differ between two parses of the same bytes by design: timings, and the blob path
# (one copy of the folder per run below).
VOLATILE = {"parse_seconds", "blob"}


def write_pages(root: Path, pages: dict[str, str]) -> None:
    """Each page written below root under its name."""
    for name, html in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(html)


def numbered_pages(n: int, tag: str = "") -> dict[str, str]:
    """n template pages p000.html ... with distinct notices (`tag` makes a changed version)."""
    return {f"p{i:03d}.html": template_page(f"Notice {i}{tag}", f"Item {i}{tag} concerns ward {i % 7}.") for i in range(n)}


def write_config(tmp_path: Path, name: str, batch: int = BATCH) -> Path:
    """A sources file for source `web` over tmp_path/docs: two workers, `batch` documents a commit."""
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(f"sources:\n  web:\n    path: docs\nsettings:\n  limits:\n    workers: 2\n"
                   f"  store:\n    batch_documents: {batch}\n")
    return cfg


def cli_env(tmp_path: Path) -> dict:
    """The environment with a DAGSTER_HOME of its own (telemetry off)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return {**os.environ, "DAGSTER_HOME": str(home)}


def cli_run(tmp_path: Path, cfg: Path, data: Path, *extra: str) -> str:
    """`docclean run` to its end (exit 0 asserted); its stdout."""
    proc = subprocess.run([DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", str(data), "--quiet", *extra],
                          env=cli_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def killed_run(tmp_path: Path, cfg: Path, data: Path, after_batches: int, batches_later: float) -> int:
    """Start a run, SIGKILL its whole process group after the n-th batch line, `batches_later` times
    the time the run took per batch so far (so the kill lands mid-run however fast batches go);
    batches it reported."""
    proc = subprocess.Popen([DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", str(data), "--quiet"],
                            env=cli_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
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


def committed_tables(data: Path) -> dict[str, list[tuple]]:
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


def rekeyed(tables: dict[str, list[tuple]], ids: dict[str, str]) -> dict[str, list[tuple]]:
    """`committed_tables` with each chunk id of `ids` (a chunk_id, an anchor_chunk, a replayed id)
    replaced by its value there, rows sorted again."""
    def swap(v):  # noqa: ANN001, ANN202 - any column's value
        return ids.get(v, v) if isinstance(v, str) else v
    return {t: sorted(((tuple(swap(v) for v in r) if isinstance(r, tuple) else swap(r)) for r in rows), key=repr)
            for t, rows in tables.items()}


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


def parsed_counts(stdout: str) -> dict[str, int]:
    """The parsed_blocks line of a run's summary as counts (parsed, reused, failed)."""
    line = next(x for x in stdout.splitlines() if x.strip().startswith("parsed_blocks"))
    return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
