"""`docclean run` over real web pages against trafilatura's own command in the same run (issue 35),
and where the HTML library's time goes, stage by stage.

    .venv/bin/python -m bench.web_speed              # the WCXB dev sample's 418 pages (~2 min)
    .venv/bin/python -m bench.web_speed --profile    # the per-stage profile only (one process)

1. **trafilatura**: its command line as its users run it (`trafilatura --input-dir PAGES --output-dir
   OUT`, its default parallelism: one process per core), timed before and after (2) and averaged,
   since the machine's speed drifts within minutes;
2. **docclean**: `docclean run` over the same folder as one source, from a fresh data dir (Python's
   start, Dagster, the parse on the machine's cores, boilerplate, normalisation, chunks, the quality
   report and its checks), each step's seconds read from the run's event log; then an unchanged rerun.
The gated figure is trafilatura's wall time over docclean's (higher is better; the issue's target is
docclean within 3x, a ratio of at least 0.33).

The profile wraps each step the stages of `extract_html` call (extract/html/document.py, and
body.py for trafilatura itself) with a wall-clock counter in one warm process, so the steps add up to
the library's time per page.
Writes bench/out/web_speed.json; `make bench` runs it and gates the ratio (bench/gate.py).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench.scale import Setup, become_subreaper, docclean_env, machine, run_docclean, write_result

REPO = Path(__file__).resolve().parent.parent
OUT_JSON = REPO / "bench" / "out" / "web_speed.json"
TRAFILATURA = REPO / ".venv" / "bin" / "trafilatura"
# The steps extract_html's stages call, in the order they run (names as extract/html/document.py
# sees them; `_trafilatura` is body.py's and runs inside `extractor_segments`)
STAGES = ("decode_html", "close_noscript_raw_text", "LexborHTMLParser", "check_html_depth", "place_streamed_slots",
          "jsonld_scripts", "segment", "_inpage_furniture", "extractor_segments", "_trafilatura", "choose_jsonld",
          "segments_to_status", "declared_types", "page_body_units", "heading_units", "units_to_standfirst",
          "continuation_units", "embedded_post_units", "teaser_units", "_route_comments", "_page_kind",
          "nested_article_units")
INNER = {"_trafilatura": "extractor_segments"}


def _trafilatura_wall(pages: Path, out: Path) -> float:
    """Seconds trafilatura's command takes over every page of the folder, its output written."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.monotonic()
    subprocess.run([str(TRAFILATURA), "--input-dir", str(pages), "--output-dir", str(out)],
                   check=True, capture_output=True)
    return time.monotonic() - start


def _step_seconds(home: Path) -> dict[str, float]:
    """Seconds per step of the last run recorded under this DAGSTER_HOME (from its event log)."""
    code = ("import json, os, sys\nfrom dagster import DagsterInstance, DagsterEventType as E\n"
            "inst = DagsterInstance.get(); run = inst.get_runs(limit=1)[0]; start, out = {}, {}\n"
            "for e in inst.all_logs(run.run_id):\n d = e.dagster_event\n if d is None: continue\n"
            " if d.event_type == E.STEP_START: start[d.step_key] = e.timestamp\n"
            " if d.event_type == E.STEP_SUCCESS: out[d.step_key] = round(e.timestamp - start[d.step_key], 2)\n"
            "print(json.dumps(out))")
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "DAGSTER_HOME": str(home)},
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def measure(pages: Path, work: Path, log=print) -> dict:  # noqa: ANN001 - a print-like function
    """Both commands over the folder of pages, scratch data under `work`."""
    n = sum(1 for _ in pages.iterdir())
    before = _trafilatura_wall(pages, work / "trafilatura")
    log(f"trafilatura: {n} pages in {before:.1f} s")
    setup = Setup(docclean_env(work / "dagster_home"), become_subreaper())
    (work / "sources.yaml").write_text(f"sources:\n  web:\n    path: {pages}\n")
    run = run_docclean(setup, work / "sources.yaml", work / "data", work / "run.log")
    steps = _step_seconds(work / "dagster_home")
    rerun = run_docclean(setup, work / "sources.yaml", work / "data", work / "rerun.log")
    log(f"docclean run: {run.wall_s:.1f} s (steps {json.dumps(steps)}); unchanged rerun {rerun.wall_s:.1f} s")
    after = _trafilatura_wall(pages, work / "trafilatura")
    traf = (before + after) / 2
    return {"pages": n, "trafilatura_s": round(traf, 2), "trafilatura_s_before_after": [round(before, 2), round(after, 2)],
            "docclean_run_s": run.wall_s, "docclean_cpu_s": run.cpu_s, "docclean_steps_s": steps,
            "docclean_rerun_s": rerun.wall_s, "counts": run.counts,
            "ratio": round(run.wall_s / traf, 2), "peak_tree_pss_mib": run.peaks.get("tree_pss")}


def _timed(name: str, fn, spent: dict[str, float]):  # noqa: ANN001, ANN202 - any stage function
    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - t
    return wrapper


def profile(pages: Path) -> dict:
    """Seconds per stage of `extract_html` over every page, after one warm-up page; the total."""
    from docclean_assets.extract.api import extract_document
    from docclean_assets.extract.html import body as body_mod
    from docclean_assets.extract.html import document as doc_mod
    from docclean_assets.extract.settings import Settings

    settings = Settings()
    datas = [p.read_bytes() for p in sorted(pages.iterdir())]
    extract_document(datas[0], "html", settings)
    spent: dict[str, float] = defaultdict(float)
    for name in STAGES:
        owner = doc_mod if hasattr(doc_mod, name) else body_mod
        setattr(owner, name, _timed(name, getattr(owner, name), spent))
    total = 0.0
    for data in datas:
        t = time.perf_counter()
        extract_document(data, "html", settings)
        total += time.perf_counter() - t
    return {"pages": len(datas), "seconds": round(total, 3), "stages": {k: round(v, 3) for k, v in spent.items()}}


def _profile_in_process(pages: Path) -> dict:
    """profile() in a fresh process (the bench's own imports and memory stay out of it)."""
    proc = subprocess.run([sys.executable, "-m", "bench.web_speed", "--profile-json", str(pages)],
                          capture_output=True, text=True, cwd=REPO, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"HTML stage profile failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


def markdown(result: dict) -> str:
    """The side-by-side timing, the run's steps, and the per-stage table when profiled."""
    lines = ["| pages | trafilatura command s | `docclean run` s | docclean / trafilatura | unchanged rerun s |",
             "|---|---|---|---|---|",
             f"| {result['pages']} | {result['trafilatura_s']} | {result['docclean_run_s']} | {result['ratio']:.2f}x "
             f"| {result['docclean_rerun_s']} |", "",
             "| `docclean run` step | seconds |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in result["docclean_steps_s"].items()]
    if result.get("profile"):
        lines += ["", profile_markdown(result["profile"])]
    return "\n".join(lines)


def profile_markdown(prof: dict) -> str:
    """Milliseconds per page and share of each stage of extract_html (nested stages counted once)."""
    n, total = prof["pages"], prof["seconds"]
    lines = [f"Library, one process: {n} pages in {total:.1f} s ({1000 * total / n:.0f} ms/page)", "",
             "| stage of extract_html | ms/page | share |", "|---|---|---|"]
    top = 0.0
    for name in STAGES:
        sec = prof["stages"].get(name, 0.0)
        top += 0.0 if name in INNER else sec
        label = f"  {name} (in {INNER[name]})" if name in INNER else name
        lines.append(f"| {label} | {1000 * sec / n:.1f} | {sec / total:.0%} |")
    rest = total - top
    lines.append(f"| the rest (block building, normalising text) | {1000 * rest / n:.1f} | {rest / total:.0%} |")
    return "\n".join(lines)


def run(pages: Path, work: Path | None = None, log=print) -> dict:  # noqa: ANN001 - a print-like function
    """Every figure, with the machine and the gated figure; scratch under `work` (or a removed tmp folder)."""
    scratch = work or Path(tempfile.mkdtemp(prefix="docclean-web-speed-"))
    try:
        result = {"machine": machine(), **measure(pages, scratch, log), "profile": _profile_in_process(pages)}
    finally:
        if work is None:
            shutil.rmtree(scratch, ignore_errors=True)
    result["figures"] = {"pipeline/wcxb:trafilatura_wall_ratio": round(1 / result["ratio"], 3)}
    return result


def for_bench(quick: bool) -> dict:
    """The measure for `make bench` over the WCXB pages (skipped with --quick or without the corpus),
    or the reason it could not be measured."""
    from bench.datasets import WCXB_PAGES, load_wcxb

    if quick:
        return {"skipped": "quick run"}
    if not load_wcxb():
        return {"skipped": "the WCXB sample is not in the corpus"}
    try:
        return run(WCXB_PAGES, log=lambda s: print(f"[bench] web speed: {s}", file=sys.stderr, flush=True))
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench.web_speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=Path, help="folder of pages (default: the WCXB dev sample, unpacked)")
    ap.add_argument("--profile", action="store_true", help="only the per-stage profile")
    ap.add_argument("--profile-json", type=Path, help=argparse.SUPPRESS)  # profile() of a folder, as JSON
    ap.add_argument("--work", type=Path, help="scratch folder (kept; default: a new one under /tmp, removed)")
    ap.add_argument("--out", type=Path, default=OUT_JSON)
    args = ap.parse_args(argv)
    if args.profile_json:
        print(json.dumps(profile(args.profile_json)))
        return 0
    from bench.datasets import WCXB_PAGES, load_wcxb

    pages = args.pages or (WCXB_PAGES if load_wcxb() else None)
    if pages is None:
        raise SystemExit("no pages: the WCXB sample is not in the corpus; pass --pages FOLDER")
    if args.profile:
        print(profile_markdown(profile(pages)))
        return 0
    result = run(pages, args.work, lambda s: print(s, flush=True))
    write_result(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
