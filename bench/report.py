"""Writes RESULTS.md (tables per format) and results.json from one bench run."""
from __future__ import annotations

import json
from pathlib import Path

from bench.pipeline_speed import markdown as pipeline_markdown
from bench.web_speed import markdown as web_markdown

ORDER = ["docclean", "floor", "markitdown", "trafilatura_recall", "resiliparse", "unstructured", "pymupdf4llm", "opendataloader"]
HIDDEN = {"n", "f1_ci", "n_with", "n_without", "n_checks", "not_scored", "n_strings", "n_deleted",
          "n_inserted", "n_notes", "token_precision", "token_recall"}
HEADLINE = {"scrapinghub_aeb": ["f1"], "trafilatura_eval": ["with_found", "without_absent"],
            "olmocr_bench_sample": ["present_pass", "absent_pass", "order_pass", "table_pass"], "docling": ["token_f1", "edit_sim"],
            "mozilla_readability": ["token_f1"], "tracked_changes": ["deleted_absent", "inserted_present"],
            "speaker_notes": ["notes_in_notes", "notes_not_in_body"], "markitdown_must_include": ["must_include"],
            "fixtures": ["f1", "present_pass", "absent_pass", "order_pass", "deleted_absent",
                         "inserted_present", "notes_in_notes", "notes_not_in_body"],
            "wcxb_dev_sample": ["f1"],
            "generated_articles": ["sentences_whole", "paragraphs_whole", "leakage_free", "notes_exact", "table_cell_f1"],
            "generated_tables": ["cell_f1"],
            **{f"wcxb_{t}": ["f1"] for t in (
                "article", "forum", "product", "collection", "listing", "documentation", "service")}}


def _fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _systems(per_sys: dict) -> list[str]:
    return [s for s in ORDER if s in per_sys] + sorted(s for s in per_sys if s not in ORDER)


def _quality_table(fmt: str, quality: dict) -> list[str]:
    groups = sorted(g for g in quality if g.startswith(fmt + "/"))
    if not groups:
        return []
    cols = []
    for g in groups:
        keys = []
        for per in quality[g].values():
            keys += [k for k in per if k not in HIDDEN and k not in keys]
        cols += [(g, k) for k in keys]
    systems = _systems({s: 1 for g in groups for s in quality[g]})
    head = ["system"] + [f"{g.split('/', 1)[1]} {k} (n={_n(quality[g])})" for g, k in cols]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in systems:
        cells = [f"**{s}**" if s == "docclean" else s]
        for g, k in cols:
            v = quality[g].get(s, {}).get(k)
            ci = quality[g].get(s, {}).get("f1_ci") if k == "f1" else None
            cells.append(_fmt(v) + (f" ± {ci:.3f}" if ci else ""))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _n(per_sys: dict) -> int:
    return max((p.get("n", 0) for p in per_sys.values()), default=0)


def _speed_table(fmt: str, speed: dict) -> list[str]:
    sp = speed.get(fmt, {})
    if not sp:
        return []
    unit = next(iter(sp.values()))["unit"]
    head = ["system", "files", f"{unit}/s", "docclean speed ratio (peer time / docclean time)",
            "peak RSS MB", "docclean RSS / peer RSS", "failed", "timeouts", "capped", "startup s"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in _systems(sp):
        r = sp[s]
        rows.append("| " + " | ".join([
            f"**{s}**" if s == "docclean" else s, str(r["files"]), _fmt(r["throughput"]),
            _fmt(r.get("docclean_speed_ratio")) + ("×" if r.get("docclean_speed_ratio") else ""),
            f"{r['peak_rss_mb']:.0f}", _fmt(r.get("docclean_rss_ratio")), str(r["failed"]),
            str(r["timeouts"]), str(r["capped"]), f"{r['startup_s']:.2f}"]) + " |")
    return rows


def headline(quality: dict) -> list[str]:
    """One row per dataset figure: docclean next to each peer."""
    peers = [s for s in ORDER if s != "docclean" and any(s in q for q in quality.values())]
    rows = ["| dataset | metric | **docclean** | " + " | ".join(peers) + " |",
            "|---|---|---|" + "---|" * len(peers)]
    for g in sorted(quality):
        keys = HEADLINE.get(g.split("/", 1)[1], [])
        for k in keys:
            if k not in quality[g].get("docclean", {}):
                continue
            rows.append(f"| {g} | {k} | **{_fmt(quality[g]['docclean'][k])}** | "
                        + " | ".join(_fmt(quality[g].get(p, {}).get(k)) for p in peers) + " |")
    return rows


def write(out_dir: Path, meta: dict, quality: dict, speed: dict, re_ingest: dict, gate_msgs: list[str],
          passed: bool, pipeline: dict | None = None) -> None:
    """Write RESULTS.md and results.json into out_dir."""
    pipeline = pipeline or {"skipped": True}
    (out_dir / "results.json").write_text(json.dumps(
        {"meta": meta, "quality": quality, "speed": speed, "reingest": re_ingest, "pipeline": pipeline,
         "gate": {"passed": passed, "messages": gate_msgs}}, indent=1, sort_keys=True, default=str) + "\n")
    L = [f"# docclean benchmark ({meta['mode']})", "",
         f"Generated by `make bench{'-quick' if meta['mode'] == 'quick' else ''}` on {meta['date']}: "
         f"{meta['cpu_count']} CPUs, Python {meta['python']} ({meta['platform']}); "
         f"{meta['documents']} documents from `{meta['corpus']}`; corpus hash `{meta['corpus_hash']}`; "
         f"per-document limit {meta['timeout_s']:.0f}s, cap {meta['cap_s_per_system_per_format']:.0f}s per "
         f"system per format; run took {meta['wall_s']:.0f}s.", "", "## Systems", ""]
    for name, s in meta["systems"].items():
        state = f"**not run**: {s['unavailable']}" if s["unavailable"] else "ran"
        L.append(f"- `{name}` — {s['label']} {s['version']}: {state}")
    L += ["", "## Headline: docclean next to each peer (quality)", ""] + headline(quality)
    for fmt in ("pdf", "docx", "pptx", "html"):
        q, sp = _quality_table(fmt, quality), _speed_table(fmt, speed)
        if q or sp:
            L += ["", f"## {fmt.upper()}", "", "Quality:", ""] + q + ["", "Speed and memory:", ""] + sp
    L += ["", "## Re-ingestion of unchanged sources", ""]
    if "first_s" in re_ingest:
        L.append(f"`docclean run` over {re_ingest['documents']} documents in {re_ingest['sources']} sources: "
                 f"first {re_ingest['first_s']:.1f}s, second (unchanged) {re_ingest['second_s']:.1f}s, "
                 f"**second/first = {re_ingest['ratio']:.2f}**.")
    else:
        L.append(f"not measured: {re_ingest.get('error', re_ingest)}")
    for src, why in (re_ingest.get("failed_sources") or {}).items():
        L.append(f"- source `{src}` left out: `docclean run` failed on it ({why})")
    L += ["", "## The pipeline around the library (`bench/pipeline_speed.py`)", ""]
    if "formats" in pipeline:
        L += [pipeline_markdown(pipeline), "", "Generated sources; the library is `extract_document` in one warm "
              "process; one worker: the sum of `parse_seconds` over it; two workers: the whole `docclean run` "
              "command's documents/s over the library's (bench/README.md)."]
    else:
        L.append(f"not measured: {pipeline.get('error', 'skipped')}")
    web = pipeline.get("web") or {}
    L += ["", "## `docclean run` over real web pages against trafilatura's command (`bench/web_speed.py`)", ""]
    if "ratio" in web:
        L += [web_markdown(web), "", "The WCXB dev sample's pages as one source; trafilatura's command line with its "
              "default parallelism on the same cores; the per-stage profile is the library in one process."]
    else:
        L.append(f"not measured: {web.get('error') or web.get('skipped') or 'skipped'}")
    stored = pipeline.get("object_store") or {}
    L += ["", "## The steps after parsing on object storage (`bench/object_store.py`)", ""]
    if "rows" in stored:
        from bench.object_store import table as object_store_table

        L += [object_store_table(stored["rows"]), "", "A generated source committed in 15 batches, its data dir on "
              "the local disk and on SeaweedFS on 127.0.0.1, one after the other in this run; gated: the steps after "
              "parsing on S3 take at most twice their local time."]
    else:
        L.append(f"not measured: {stored.get('error') or stored.get('skipped') or 'skipped'}")
    L += ["", "## Quality gate", ""] + [f"- {m}" for m in gate_msgs]
    L += ["", "## Method", "", (Path(__file__).resolve().parent / "METHOD.md").read_text().strip(), ""]
    (out_dir / "RESULTS.md").write_text("\n".join(L))
