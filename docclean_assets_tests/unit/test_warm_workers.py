"""Warm parse workers: documents share a worker, yet each keeps its own time limit, memory ceiling
and peak memory figure, and a worker whose state is suspect or has grown is replaced."""
import os
import time
from dataclasses import replace

from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets_tests.support import faults

WHO = faults.whoami
ONE = LimitSettings(workers=1, timeout_s=60)


def _jobs(tmp_path, names):
    jobs = []
    for name in names:
        (tmp_path / name).write_text("<p>x</p>")
        jobs.append(Job(name, str(tmp_path / name), "html", {}))
    return jobs


def _run(tmp_path, names, limits=ONE, extractor=WHO):
    return [(j.key, o) for j, o in run_jobs(_jobs(tmp_path, names), limits, extractor)]


def test_documents_share_a_warm_worker_across_calls(tmp_path):
    first = _run(tmp_path, ["a.html", "b.html", "c.html"])
    later = _run(tmp_path, ["d.html"])
    pids = {o.result for _, o in first + later}
    assert all(o.kind == "ok" for _, o in first + later) and len(pids) == 1
    assert pids != {os.getpid()}


def test_a_document_that_dies_in_a_warm_worker_is_parsed_again_in_a_fresh_one(tmp_path):
    out = dict(_run(tmp_path, ["a.html", "fragile.html", "b.html"]))
    assert out["fragile.html"].kind == "ok", out["fragile.html"].error
    assert out["fragile.html"].result != out["a.html"].result


def test_a_crash_or_a_timeout_replaces_the_worker_and_costs_only_its_document(tmp_path):
    crash = faults.crash_or_extract
    out = dict(_run(tmp_path, ["a.html", "crash.html", "b.html"], extractor=crash))
    assert out["crash.html"].kind == "died" and out["a.html"].kind == out["b.html"].kind == "ok"
    out = dict(_run(tmp_path, ["p.html", "hang.html", "q.html"], replace(ONE, timeout_s=2),
                    faults.hang_or_extract))
    assert out["hang.html"].error == "timed out after 2 s" and out["q.html"].kind == "ok"


def test_each_document_reports_its_own_peak_memory(tmp_path):
    out = dict(_run(tmp_path, ["need-300.html", "small.html"]))
    assert out["need-300.html"].result == out["small.html"].result  # one worker
    assert out["need-300.html"].peak_rss_mb - out["small.html"].peak_rss_mb > 250


def test_a_document_over_the_ceiling_in_a_grown_worker_is_parsed_again_in_a_fresh_one(tmp_path):
    # 'leak-350' leaves 350 MiB in its worker; 'need-400' fits a fresh worker's room under the
    # ceiling but not that worker's: it fails there, and succeeds in a fresh worker
    limits = replace(ONE, memory_mb=1024, worker_max_growth_mb=4096)
    out = dict(_run(tmp_path, ["leak-350.html", "need-400.html"], limits))
    assert out["need-400.html"].kind == "ok", out["need-400.html"].error
    assert out["need-400.html"].result != out["leak-350.html"].result
    # a document too large even for a fresh worker fails once, for memory
    out = dict(_run(tmp_path, ["leak-10.html", "need-2000.html"], limits))
    assert out["need-2000.html"].error.startswith("memory limit exceeded (1024 MiB)")


def test_a_worker_is_replaced_when_it_has_grown_or_taken_its_share(tmp_path):
    grown = _run(tmp_path, ["leak-200.html", "a.html"], replace(ONE, worker_max_growth_mb=100))
    assert grown[0][1].result != grown[1][1].result
    kept = _run(tmp_path, ["leak-20.html", "a.html"], replace(ONE, worker_max_growth_mb=100))
    assert kept[0][1].result == kept[1][1].result
    # memory a document left as garbage is collected and returned before the worker is judged
    collected = _run(tmp_path, ["cycle-300.html", "a.html"], replace(ONE, worker_max_growth_mb=100))
    assert collected[0][1].result == collected[1][1].result
    pids = [o.result for _, o in _run(tmp_path, [f"{i}.html" for i in range(5)], replace(ONE, worker_max_documents=2))]
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]


def test_an_idle_worker_leaves_and_the_next_document_gets_a_new_one(tmp_path):
    limits = replace(ONE, worker_idle_s=0.5)
    [(_, first)] = _run(tmp_path, ["a.html"], limits)
    time.sleep(2)
    assert not _alive(first.result)
    [(_, second)] = _run(tmp_path, ["b.html"], limits)
    assert second.kind == "ok" and second.result != first.result


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return "zombie" not in fh.read()
    except FileNotFoundError:
        return False


def test_how_many_workers_and_how_long_they_live_parse_nothing_again(tmp_path):
    from docclean_assets.pipeline.parse import parse_version
    from docclean_assets.ingest.sources import Source

    source, base = Source("s", tmp_path), LimitSettings()
    version = parse_version(source, Settings(limits=base))
    pool = replace(base, workers=7, worker_max_documents=5, worker_max_growth_mb=64, worker_idle_s=1.0)
    assert parse_version(source, Settings(limits=pool)) == version
    assert parse_version(source, Settings(limits=replace(base, timeout_s=5.0))) != version  # a parse can fail by it
