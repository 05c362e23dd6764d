"""Engine bench (issue 18, not part of `make test`): the same generated source parsed by the local
fork-server workers and by a Dask cluster of 1 and then 2 single-threaded workers on 127.0.0.1, side by
side in one run. Per setup: wall time of `docclean run` and documents per second (the tables of every
setup are checked equal first).

    .venv/bin/python -m bench.engine                 # 300 HTML documents
    .venv/bin/python -m bench.engine --documents 100

Writes bench/out/engine.json and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.scale import docclean_bin, docclean_env
from bench.scale_docs import generate_source
from docclean_assets_tests.support.daskcluster import DaskCluster

REPO = Path(__file__).resolve().parent.parent
OUT_JSON = REPO / "bench" / "out" / "engine.json"
SQL = "SELECT path, kind, text FROM normalized_blocks ORDER BY path, seq"
# the parse's own line ("scale: finished: 200/200 documents in 31.2s (6.4 docs/s), ..."): the engine's
# share of a run, without process start, Dagster's steps and the later assets
_FINISHED = re.compile(r"finished: \d+/\d+ documents in \S+ \(([\d.]+) docs/s\)")  # in 31.2s, 1m00s, 1h02m


def timed_run(env: dict, sources: Path, data_dir: Path, *extra: str) -> tuple[float, float]:
    """(wall seconds of one `docclean run`, process start included; the parse's docs/s); a failure
    stops the bench."""
    start = time.monotonic()
    proc = subprocess.run([docclean_bin(), "run", "--sources", str(sources), "--data-dir", str(data_dir), "--quiet",
                           *extra], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"docclean run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    wall = time.monotonic() - start
    found = _FINISHED.search(proc.stdout)
    if found is None:
        raise SystemExit(f"no 'finished:' line in the run's output:\n{proc.stdout[-2000:]}")
    return wall, float(found.group(1))


def tables(env: dict, data_dir: Path) -> str:
    return subprocess.run([docclean_bin(), "sql", SQL, "--data-dir", str(data_dir), "--json"], env=env,
                          capture_output=True, text=True, check=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=300)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="docclean-engine-"))
    try:
        generate_source(work / "docs", args.documents)
        sources = work / "sources.yaml"
        sources.write_text(f"sources:\n  scale:\n    path: {work / 'docs'}\nsettings:\n  limits:\n    workers: 2\n")
        env = docclean_env(work / "home")
        rows = {"local (2 fork-server workers)": timed_run(env, sources, work / "local")}
        reference = tables(env, work / "local")
        for n in (1, 2):
            cluster = DaskCluster(work / f"dask{n}", workers=n)
            try:
                name = f"dask, {n} worker{'s' if n > 1 else ''}"
                rows[name] = timed_run(env, sources, work / f"dask{n}", "--engine", "dask", "--address", cluster.address)
            finally:
                cluster.stop()
            if tables(env, work / f"dask{n}") != reference:
                raise SystemExit(f"{name}: tables differ from the local engine's")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = {k: {"seconds": round(w, 2), "docs_per_s": round(args.documents / w, 2), "parse_docs_per_s": p}
           for k, (w, p) in rows.items()}
    OUT_JSON.parent.mkdir(parents=True, exist_ok=True)
    OUT_JSON.write_text(json.dumps({"documents": args.documents, "rows": out}, indent=2))
    one, two, local = out["dask, 1 worker"], out["dask, 2 workers"], out["local (2 fork-server workers)"]
    print(f"| setup ({args.documents} documents, 2 cores) | run wall s | run docs/s | parse docs/s |\n|---|---|---|---|")
    for k, v in out.items():
        print(f"| {k} | {v['seconds']} | {v['docs_per_s']} | {v['parse_docs_per_s']} |")
    print(f"\nparse docs/s, 2 workers / 1 worker: {two['parse_docs_per_s'] / one['parse_docs_per_s']:.2f}x; "
          f"dask 2 workers / local: {two['parse_docs_per_s'] / local['parse_docs_per_s']:.2f}x")


if __name__ == "__main__":
    main()
