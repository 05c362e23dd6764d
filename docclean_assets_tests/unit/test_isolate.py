"""Worker isolation: a hang, a memory blow-up and a hard crash each become one error."""
from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings
from docclean_assets_tests.support import faults


def _jobs(tmp_path, names):
    jobs = []
    for name in names:
        p = tmp_path / name
        p.write_text("<html><body><p>hello</p></body></html>")
        jobs.append(Job(name, str(p), "html", {}))
    return jobs


def test_hang_times_out_and_others_finish(tmp_path):
    out = dict((j.key, o) for j, o in run_jobs(_jobs(tmp_path, ["hang.html", "ok.html"]), LimitSettings(timeout_s=3),
                                               faults.hang_or_extract))
    assert out["hang.html"].error == "timed out after 3 s"
    assert "timed out" not in (out["ok.html"].error or "")


def test_memory_ceiling_and_crash_become_errors(tmp_path):
    jobs = _jobs(tmp_path, ["bomb.html"])
    [(_, bomb)] = run_jobs(jobs, LimitSettings(memory_mb=512, timeout_s=60), faults.allocate_or_extract)
    assert bomb.error.startswith("memory limit exceeded")
    [(_, crash)] = run_jobs(_jobs(tmp_path, ["crash.html"]), LimitSettings(timeout_s=60),
                            faults.crash_or_extract)
    assert crash.error.startswith("worker died (exit code 139")


def test_workers_allocate_arrow_memory_with_the_c_library(tmp_path):
    """Arrow's mimalloc reserves address space in large segments, which a worker under its memory
    ceiling may not have; workers use the system allocator, and make rows at a tight ceiling."""
    out = [o for _, o in run_jobs(_jobs(tmp_path, ["a.html", "b.html"]), LimitSettings(memory_mb=768, timeout_s=60),
                                  faults.arrow_pool)]
    assert [(o.error, o.result) for o in out] == [(None, "system"), (None, "system")]
