"""Turns per-document system outputs into quality and speed figures per dataset and format."""
from __future__ import annotations

import statistics

from lxml import html as lxml_html

from bench import metrics as M
from bench.datasets import Doc, wcxb_word_f1

NOT_SEPARATED = "not separated"


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.mean(xs) if xs else None


def _pooled(flag_lists):
    flat = [f for fl in flag_lists if fl is not None for f in fl]
    return M.share(flat), len(flat)


def _expected_text(html_bytes: bytes) -> str:
    """Plain text of Readability's expected article HTML."""
    tree = lxml_html.fromstring(html_bytes)
    return "\n".join(t.strip() for t in tree.itertext() if t.strip())


def quality(docs: list[Doc], outputs: dict[str, dict[str, dict]]) -> dict[str, dict[str, dict]]:
    """outputs[system][path] -> record; returns group -> system -> {metric: value, n: ...}."""
    out: dict[str, dict[str, dict]] = {}
    for system, recs in outputs.items():
        groups: dict[str, list] = {}
        for d in docs:
            rec = recs.get(str(d.path))
            if rec is None:
                continue  # this system does not handle the format (or was capped before it)
            body = (rec.get("body") or "") if rec.get("ok") else ""
            notes = rec.get("notes") if rec.get("ok") else None
            comments = (rec.get("comments") or "") if rec.get("ok") else ""
            for kind, gt in d.gt.items():
                # trafilatura_eval counts reader comments as page content (its snippets include them):
                # a system that keeps them apart from the body is scored on body + comments there
                text = body + "\n\n" + comments if kind == "snippets" and comments else body
                # docling's ground truth keeps footnotes in the text, at the foot of their page: a
                # system that routes them out of the body is scored there on body + footnotes
                if kind == "md" and rec.get("ok") and rec.get("footnoted") is not None:
                    text = rec["footnoted"]
                groups.setdefault(_group(d, kind), []).append((d, kind, gt, text, notes))
                if kind == "wcxb":  # and per page type: the benchmark's own breakdown
                    groups.setdefault(f"{d.fmt}/wcxb_{gt['page_type']}", []).append((d, kind, gt, text, notes))
        for group, items in groups.items():
            out.setdefault(group, {})[system] = _score_group(items)
    return out


def _group(d: Doc, kind: str) -> str:
    if kind == "revisions":
        return f"{d.fmt}/tracked_changes"
    if kind == "notes":
        return f"{d.fmt}/speaker_notes"
    if kind == "must":
        return f"{d.fmt}/markitdown_must_include"
    return f"{d.fmt}/{d.dataset}"


def _score_group(items: list) -> dict:
    kind = items[0][1]
    n = len(items)
    if kind == "aeb":
        r = M.aeb_evaluate([(gt, body) for _, _, gt, body, _ in items])
        return {**{k: r[k] for k in ("f1", "precision", "recall")}, "f1_ci": r.get("f1_ci"), "n": n}
    if kind == "snippets":
        scored = [M.snippets_score(gt, body) for _, _, gt, body, _ in items]
        w, nw = _pooled([s[0] for s in scored])
        wo, nwo = _pooled([s[1] for s in scored])
        return {"with_found": w, "without_absent": wo, "n": n, "n_with": nw, "n_without": nwo}
    if kind == "olmocr":
        per_type: dict[str, list[bool]] = {}
        skipped = 0
        for _, _, tests, body, _ in items:
            for t in tests:
                ok = M.olmo_check(t, body)
                if ok is None:
                    skipped += 1
                else:
                    per_type.setdefault(t["type"], []).append(ok)
        res = {f"{t}_pass": M.share(v) for t, v in sorted(per_type.items())}
        res["all_pass"] = M.share([x for v in per_type.values() for x in v])
        return {**res, "n": n, "n_checks": sum(len(v) for v in per_type.values()), "not_scored": skipped}
    if kind in ("md", "html_expected"):
        sims = []
        for _, _, gt, body, _ in items:
            gt_text = gt if kind == "md" else _expected_text(gt)
            sims.append(M.md_similarity(gt_text, body))
        return {"token_f1": _mean([s["f1"] for s in sims]), "token_recall": _mean([s["recall"] for s in sims]),
                "token_precision": _mean([s["precision"] for s in sims]),
                "edit_sim": _mean([s["edit_sim"] for s in sims]), "n": n}
    if kind == "wcxb":  # the benchmark's word F1 (evaluate.py), averaged over pages as it does
        word_f1 = wcxb_word_f1()
        scored = [word_f1(body, gt["main_content"]) for _, _, gt, body, _ in items]
        return {"f1": _mean([s[2] for s in scored]), "precision": _mean([s[0] for s in scored]),
                "recall": _mean([s[1] for s in scored]), "n": n}
    if kind == "must":
        share, k = _pooled([M.must_include_score(gt, body) for _, _, gt, body, _ in items])
        return {"must_include": share, "n": n, "n_strings": k}
    if kind == "revisions":
        scored = [M.revisions_score(gt, body) for _, _, gt, body, _ in items]
        dele, nd = _pooled([s[0] for s in scored])
        ins, ni = _pooled([s[1] for s in scored])
        return {"deleted_absent": dele, "inserted_present": ins, "n": n, "n_deleted": nd, "n_inserted": ni}
    if kind == "notes":
        scored = [M.notes_score(gt, body, notes) for _, _, gt, body, notes in items]
        if all(s[0] is None for s in scored):
            in_notes, k = NOT_SEPARATED, sum(len(s[1]) for s in scored)
        else:
            in_notes, k = _pooled([s[0] if s[0] is not None else [False] * len(s[1]) for s in scored])
        out_body, _ = _pooled([s[1] for s in scored])
        return {"notes_in_notes": in_notes, "notes_not_in_body": out_body, "n": n, "n_notes": k}
    raise ValueError(kind)


def speed(docs: list[Doc], outputs: dict[str, dict[str, dict]], runs: dict) -> dict[str, dict]:
    """Per format: per system throughput (pages/s for PDF, docs/s otherwise), peak RSS, failures,
    and docclean's speed ratio to each peer on the documents both completed."""
    out = {}
    for fmt in sorted({d.fmt for d in docs}):
        fdocs = [d for d in docs if d.fmt == fmt]
        unit = "pages" if fmt == "pdf" else "docs"
        fmt_out = {}
        for system, recs in outputs.items():
            run = runs.get((system, fmt))
            if run is None:
                continue
            done = [d for d in fdocs if str(d.path) in recs and recs[str(d.path)]["seconds"] is not None]
            secs = sum(recs[str(d.path)]["seconds"] for d in done)
            units = sum(d.pages if unit == "pages" else 1 for d in done)
            fmt_out[system] = {
                "unit": unit, "files": len(done), "units": units, "seconds": secs,
                "throughput": units / secs if secs else None, "peak_rss_mb": run.maxrss_kb / 1024,
                "failed": sum(1 for d in fdocs if str(d.path) in recs and not recs[str(d.path)].get("ok")),
                "timeouts": sum(1 for d in fdocs if (recs.get(str(d.path), {}).get("error") or "") in
                                ("timeout", "worker crashed or hung")),
                "capped": run.capped, "startup_s": run.startup_s,
            }
        dc = outputs.get("docclean", {})
        for system, s in fmt_out.items():
            if system == "docclean" or "docclean" not in fmt_out:
                continue
            common = [d for d in fdocs if dc.get(str(d.path), {}).get("seconds") is not None
                      and outputs[system].get(str(d.path), {}).get("seconds") is not None]
            t_dc = sum(dc[str(d.path)]["seconds"] for d in common)
            t_peer = sum(outputs[system][str(d.path)]["seconds"] for d in common)
            s["docclean_speed_ratio"] = (t_peer / t_dc) if t_dc else None  # >1: docclean faster
            s["docclean_rss_ratio"] = (fmt_out["docclean"]["peak_rss_mb"] / s["peak_rss_mb"]
                                       if s["peak_rss_mb"] else None)
        out[fmt] = fmt_out
    return out
