"""Entry point of `make bench` / `make bench-quick`: run every system, score, report, gate."""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import deps

deps.ensure_evallib()

from bench import datasets, evaluate, gate, object_store, pdf_articles, pdf_tables, pipeline_speed, report, systems, web_speed  # noqa: E402


def _docclean_run(tmp: Path, sources: list[str], data_dir: str) -> tuple[float, int, str]:
    """One `docclean run` over the given sources; returns (seconds, exit code, stderr tail)."""
    (tmp / "sources.yaml").write_text("sources:\n" + "".join(f"  {s}:\n    path: src/{s}\n" for s in sources))
    cmd = [str(deps.ROOT / ".venv" / "bin" / "docclean"), "run", "--sources", str(tmp / "sources.yaml"),
           "--data-dir", str(tmp / data_dir), "--quiet"]
    env = {**os.environ, "DAGSTER_HOME": str(tmp / f"dagster_home_{data_dir}")}
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(tmp))
    errs = [ln for ln in proc.stderr.splitlines() if "Error" in ln and not ln.startswith(" ")]
    return time.perf_counter() - t, proc.returncode, (errs[-1] if errs else proc.stderr[-300:])


def reingest(docs: list[datasets.Doc]) -> dict:
    """Time `docclean run` twice over the same sources; the second run reuses unchanged documents.
    A source whose run fails (exit 3) is found by running each source alone, reported, and left out."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-reingest-"))
    try:
        for d in docs:
            dest = tmp / "src" / f"{d.fmt}_{d.dataset}".lower().replace(".", "_") / d.path.name  # the file's own
            # name: a page unpacked from `<id>.html.gz` is `<id>.html`, never a .gz no reader takes
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(d.path, dest)
        sources = sorted(p.name for p in (tmp / "src").iterdir())
        failed = {}
        first, rc, err = _docclean_run(tmp, sources, "out")
        if rc != 0:
            for s in sources:
                _, rc1, err1 = _docclean_run(tmp, [s], f"probe_{s}")
                if rc1 != 0:
                    failed[s] = f"exit {rc1}: {err1[:300]}"
            sources = [s for s in sources if s not in failed]
            first, rc, err = _docclean_run(tmp, sources, "out2")
            if rc != 0:
                return {"error": f"docclean run exited {rc}: {err}", "failed_sources": failed}
        second, rc, err = _docclean_run(tmp, sources, "out2" if failed else "out")
        if rc != 0:
            return {"error": f"second docclean run exited {rc}: {err}", "failed_sources": failed}
        n = sum(1 for d in docs if f"{d.fmt}_{d.dataset}".lower() in sources)
        return {"documents": n, "sources": len(sources), "first_s": first, "second_s": second,
                "ratio": second / first, "failed_sources": failed}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="representative subset; writes to bench/out/")
    ap.add_argument("--out", type=Path, help="output folder (default bench/ full, bench/out/ quick)")
    ap.add_argument("--timeout-s", type=float, default=120.0, help="per-document time limit")
    ap.add_argument("--cap-s", type=float, default=None,
                    help="time cap per system per format (default 600 full, 60 quick)")
    ap.add_argument("--lower-floors", metavar="REASON", help="re-pin the gate's floors at this run's figures")
    ap.add_argument("--raise-floors", action="store_true", help="raise floors where this run is higher")
    ap.add_argument("--no-reingest", action="store_true", help="skip the re-ingestion timing")
    ap.add_argument("--no-pipeline", action="store_true",
                    help="skip the pipeline timings (bench/pipeline_speed.py, bench/web_speed.py)")
    ap.add_argument("--formats", help="comma-separated formats to run (e.g. pdf,html); writes bench/out/ "
                    "unless --out is given, and never reads or writes floors")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    partial = bool(args.quick or args.formats)
    out_dir = args.out or (deps.BENCH / "out" if partial else deps.BENCH)
    out_dir.mkdir(parents=True, exist_ok=True)
    cap_s = args.cap_s or (60.0 if args.quick else 600.0)

    if (datasets.CORPUS / "MANIFEST.tsv").exists():
        docs, source = datasets.load_corpus(quick=args.quick), str(datasets.CORPUS)
        chash = datasets.corpus_hash(datasets.CORPUS)
    else:
        print(f"[bench] corpus {datasets.CORPUS} is absent: running on the project's generated "
              "fixtures (data/samples) only", file=sys.stderr)
        docs, source = datasets.load_fixtures(), "fixtures: data/samples (corpus absent)"
        chash = datasets.corpus_hash(datasets.SAMPLES)
    if args.formats:
        keep = {f.strip().lower() for f in args.formats.split(",") if f.strip()}
        unknown = keep - set(datasets.FORMATS)
        if unknown:
            ap.error(f"unknown formats {sorted(unknown)}; known: {', '.join(datasets.FORMATS)}")
        docs = [d for d in docs if d.fmt in keep]
    print(f"[bench] {len(docs)} documents from {source}; corpus hash {chash[:12]}", file=sys.stderr)

    for s in systems.SYSTEMS:  # smoke test: the smallest document of the system's first format present
        fmt = next((f for f in s.formats if any(d.fmt == f for d in docs)), None)
        smoke = min((d for d in docs if d.fmt == fmt), key=lambda d: d.path.stat().st_size, default=None)
        systems.prepare(s, smoke.path if smoke else None)
        print(f"[bench] {s.name} {s.version}: {s.unavailable or 'ready'}", file=sys.stderr)

    outputs: dict[str, dict] = {}
    runs = {}
    for fmt in datasets.FORMATS:
        files = [d.path for d in docs if d.fmt == fmt]
        for s in systems.SYSTEMS:
            if s.unavailable or fmt not in s.formats or not files:
                continue
            t = time.perf_counter()
            res = systems.run_worker(s, fmt, files, args.timeout_s, cap_s)
            runs[(s.name, fmt)] = res
            outputs.setdefault(s.name, {}).update(res.docs)
            print(f"[bench] {fmt:<5} {s.name:<19} {len(res.docs):>4} docs {time.perf_counter() - t:6.1f}s"
                  f"  rss {res.maxrss_kb / 1024:6.0f} MB  capped {res.capped}", file=sys.stderr)

    quality = evaluate.quality(docs, outputs)
    if not args.formats or "pdf" in keep:  # generated, so measured with or without the corpus
        quality["pdf/generated_articles"] = {"docclean": pdf_articles.for_bench()}
        quality["pdf/generated_tables"] = {"docclean": pdf_tables.for_bench()}
    speed = evaluate.speed(docs, outputs, runs)
    re_ingest = {"skipped": True} if args.no_reingest else reingest(docs)
    print(f"[bench] re-ingestion: {re_ingest}", file=sys.stderr)
    pipeline = {"skipped": True} if args.no_pipeline else pipeline_speed.for_bench(args.quick)
    web = {"skipped": True} if args.no_pipeline else web_speed.for_bench(args.quick)
    pipeline["web"] = web
    stored = {"skipped": True} if args.no_pipeline else object_store.for_bench(args.quick)
    pipeline["object_store"] = stored
    if partial:  # a subset's figures are not the pinned full-corpus figures
        passed, gate_msgs = True, ["gate: not applied to a partial run (floors are for the full run)"]
    else:
        passed, gate_msgs = gate.check(quality, chash, args.lower_floors, args.raise_floors, write=True)
        fast, speed_msgs = gate.check_speed({**pipeline.get("figures", {}), **web.get("figures", {}),
                                             **stored.get("figures", {})},
                                            args.lower_floors, args.raise_floors, write=True)
        passed, gate_msgs = passed and fast, gate_msgs + speed_msgs
    meta = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": "quick" if args.quick else ("formats " + args.formats if args.formats else "full"), "corpus": source, "corpus_hash": chash,
        "documents": len(docs), "cpu_count": os.cpu_count(), "python": platform.python_version(),
        "platform": platform.platform(), "timeout_s": args.timeout_s, "cap_s_per_system_per_format": cap_s,
        "systems": {s.name: {"label": s.label, "version": s.version, "unavailable": s.unavailable}
                    for s in systems.SYSTEMS},
        "wall_s": time.perf_counter() - t0,
    }
    report.write(out_dir, meta, quality, speed, re_ingest, gate_msgs, passed, pipeline)
    for m in gate_msgs:
        print(f"[bench] {m}", file=sys.stderr)
    print(f"[bench] wrote {out_dir / 'RESULTS.md'} and results.json in {meta['wall_s']:.0f}s", file=sys.stderr)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
