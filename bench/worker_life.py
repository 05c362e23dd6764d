"""Where a document's time goes in its parse worker (issue 33): documents of one generated format sent
to one worker, each timed in parts, side by side with the library in this process.

    .venv/bin/python -m bench.worker_life --fmt html -n 300
    .venv/bin/python -m bench.worker_life --fmt pdf -n 100 --cold   # a fresh worker for every document

Parts, medians per document in ms: `library` (read the file and `extract_document`, here, in one warm
process); in the worker: `extract` (the worker's extractor: read, check the sha256, extract), `rows`
(the blocks fitted to the table's columns and written as Arrow IPC), `worker other` (its own
bookkeeping: unpickling the job, the memory ceiling set and lifted, the peak and RSS read, the
garbage collection a large document triggers); `worker idle` (what the worker waited for between
documents: the parent pickling and sending jobs, receiving results). `--cold` replaces the worker after
every document (worker_max_documents: 1): each document then also pays a worker's start and the
tables its backend loads on first use, as every document did before warm workers.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.pipeline_speed import generate
from docclean_assets.extract.api import extract_document
from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets.engine.blob import extract_file
from docclean_assets.engine.worker import rows



def timed_extract(blob: str, fmt: str, **options) -> tuple:  # noqa: ANN003 - the extractor's options
    """(In the worker.) The document's rows, and the seconds its extraction and its rows took."""
    start = time.perf_counter()
    result = extract_file(blob, fmt, **options)
    middle = time.perf_counter()
    payload = rows(result, LimitSettings())
    return payload, middle - start, time.perf_counter() - middle


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench.worker_life", description=__doc__.split("\n\n")[0])
    ap.add_argument("--fmt", default="html", choices=("html", "docx", "pptx", "pdf"))
    ap.add_argument("-n", type=int, default=300, help="documents")
    ap.add_argument("--cold", action="store_true", help="a fresh worker for every document")
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="docclean-worker-life-"))
    paths = generate(folder, args.fmt, args.n)
    options = {} if args.fmt == "html" else {"ocr": "auto"}
    settings = Settings()
    [warm] = generate(folder / "warm", args.fmt, 1, first=args.n)
    extract_document(warm.read_bytes(), args.fmt, settings, **options)
    library = []
    for path in paths:
        start = time.perf_counter()
        extract_document(path.read_bytes(), args.fmt, settings, **options)
        library.append(time.perf_counter() - start)
    limits = replace(settings.limits, workers=1, worker_max_documents=1 if args.cold else 1000)

    def job_of(path: Path) -> Job:
        return Job(str(path), str(path), args.fmt, {"settings": settings, **options})

    from bench import worker_life  # the function by its module's name: run as __main__, a worker could not import it

    list(run_jobs([job_of(warm)], limits, worker_life.timed_extract))  # the fork server started, the worker warmed like the library
    parts: dict[str, list[float]] = {"library": library, "extract": [], "rows": [], "worker other": []}
    worker_s, start = 0.0, time.perf_counter()
    for job, out in run_jobs([job_of(p) for p in paths], limits, worker_life.timed_extract):
        if out.error is not None:
            raise SystemExit(f"{job.key}: {out.error}")
        _, extract_s, rows_s = out.result
        parts["extract"].append(extract_s)
        parts["rows"].append(rows_s)
        parts["worker other"].append(out.seconds - extract_s - rows_s)
        worker_s += out.seconds
    wall = time.perf_counter() - start
    print(f"{args.n} generated {args.fmt} documents, {'a fresh worker each' if args.cold else 'one warm worker'}:")
    for name, values in parts.items():
        print(f"  {name:<13} median {1000 * statistics.median(values):7.2f} ms   sum {sum(values):7.2f} s")
    # the worker is sent its next document before it finishes one: what it waited for is what the
    # parent (or, cold, a new worker's start) costs a document in throughput
    print(f"  {'worker idle':<13} mean   {1000 * (wall - worker_s) / args.n:7.2f} ms   sum {wall - worker_s:7.2f} s"
          f"   (all documents: {wall:.2f} s, {sum(library) / wall:.2f}x the library's rate)")
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
