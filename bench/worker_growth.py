"""How warm parse workers hold memory over many documents (calibrates LimitSettings.worker_max_growth_mb
and worker_max_documents): every document of a folder (default: the corpus) through one worker slot
with the default limits, the worker's pid and resident memory recorded after each document.

    .venv/bin/python -m bench.worker_growth                         # ../shared/corpus, ocr: auto
    .venv/bin/python -m bench.worker_growth --max-growth-mb 100000  # a worker never replaced for its memory

Prints the fresh worker's RSS, the highest RSS a worker reached after a document, how many workers
the slot went through (a replaced worker is a new pid) and the documents after which that happened;
writes bench/out/worker_growth.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from bench.datasets import CORPUS
from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings
from docclean_assets.extract.sniff import sniff_file
from docclean_assets.engine.blob import extract_file
from docclean_assets.engine.worker import rss_mib

OUT_JSON = Path(__file__).resolve().parent / "out" / "worker_growth.json"
SUFFIXES = {".pdf", ".docx", ".pptx", ".html", ".htm"}


def extract_and_measure(blob: str, fmt: str, **options) -> dict:  # noqa: ANN003 - the extractor's options
    """(In the worker.) Extract the file; the worker's pid and its RSS before and after, MiB."""
    before = rss_mib()
    try:
        extract_file(blob, fmt, **options)
        ok = True
    except Exception:  # noqa: BLE001 - a refused document still tells how the worker grew
        ok = False
    return {"ok": ok, "pid": os.getpid(), "rss_before": before, "rss_after": rss_mib()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench.worker_growth", description=__doc__.split("\n\n")[0])
    ap.add_argument("--folder", type=Path, default=CORPUS)
    ap.add_argument("--ocr", default="auto", choices=("auto", "off", "force"))
    ap.add_argument("--max-growth-mb", type=int, help="LimitSettings.worker_max_growth_mb (default: its default)")
    args = ap.parse_args(argv)
    files = sorted(p for p in args.folder.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())
    jobs = [Job(str(p), str(p), fmt, {} if fmt == "html" else {"ocr": args.ocr})
            for p in files if (fmt := sniff_file(p)) is not None]
    limits = replace(LimitSettings(), workers=1)
    if args.max_growth_mb is not None:
        limits = replace(limits, worker_max_growth_mb=args.max_growth_mb)
    rows = []
    from bench import worker_growth  # the function by its module's name: run as __main__, a worker could not import it

    for job, out in run_jobs(jobs, limits, worker_growth.extract_and_measure):
        if out.error is not None:
            print(f"{job.key}: {out.kind} {out.error}", file=sys.stderr)
            continue
        rows.append({"path": str(Path(job.key).relative_to(args.folder)), "fmt": job.fmt, **out.result,
                     "peak_rss": out.peak_rss_mb, "seconds": out.seconds})
    replaced_after = [rows[i - 1]["path"] for i in range(1, len(rows)) if rows[i]["pid"] != rows[i - 1]["pid"]]
    summary = {"documents": len(rows), "worker_max_growth_mb": limits.worker_max_growth_mb,
               "fresh_rss": rows[0]["rss_before"], "highest_rss_after_a_document": max(r["rss_after"] for r in rows),
               "median_rss_after_a_document": sorted(r["rss_after"] for r in rows)[len(rows) // 2],
               "workers": len(replaced_after) + 1, "replaced_after": replaced_after,
               "seconds": round(sum(r["seconds"] for r in rows), 1)}
    OUT_JSON.parent.mkdir(parents=True, exist_ok=True)
    OUT_JSON.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
