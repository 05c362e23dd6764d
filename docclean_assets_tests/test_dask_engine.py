"""The Dask engine on a real cluster of separate processes on 127.0.0.1 (`dask scheduler` plus two
`dask worker`s): the same tables as the local engine; a worker killed mid-run loses no document; a
document that hangs on a cluster worker times out and fails alone, as it does locally."""
from __future__ import annotations

import threading
import time

import pytest

from docclean_assets_tests import test_resume as resume
from docclean_assets_tests.daskcluster import DaskCluster
from docclean_assets_tests.test_pipeline import _materialize, _page, _rows, _source


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = DaskCluster(tmp_path_factory.mktemp("dask"))
    yield c
    c.stop()


def test_the_dask_engine_writes_the_same_tables_as_the_local_one(cluster, tmp_path):
    resume._folder(tmp_path / "docs", resume._pages(12))
    cfg = resume._config(tmp_path, "sources")
    local, remote = tmp_path / "local", tmp_path / "dask"
    resume._run(tmp_path, cfg, local)
    out = resume._run(tmp_path, cfg, remote, "--engine", "dask", "--address", cluster.address)
    assert resume._parsed_counts(out)["parsed"] == 12
    assert resume._tables(remote) == resume._tables(local)


def test_a_cluster_worker_killed_mid_run_loses_no_document(tmp_path):
    c = DaskCluster(tmp_path / "dask")
    try:
        pages = {f"p{i:02d}.html": _page(f"Notice {i}", f"Item {i} concerns ward {i % 5}.") for i in range(16)}
        cfg = _source(tmp_path, pages)
        killer = threading.Timer(1.5, c.kill_worker, args=(0,))  # mid-run: 16 documents of 0.5 s on 2 workers
        killer.start()
        started = time.monotonic()
        result = _materialize(cfg, tmp_path / "out", "web", extractor="docclean_assets_tests.faults:slow_extract",
                              engine="dask", address=c.address)
        killer.join()
        assert time.monotonic() - started > 1.5 and c.workers[0].poll() is not None  # the kill came mid-run
        assert result.success
        status = dict(_rows(tmp_path / "out", "SELECT path, status FROM parsed_documents"))
        assert status == {p: "ok" for p in pages}
    finally:
        c.stop()


def test_a_document_hanging_on_a_cluster_worker_times_out_and_fails_alone(cluster, tmp_path):
    files = {"good.html": _page("Ferries", "The ferry timetable changes."), "hang.html": _page("Stuck", "Never.")}
    cfg = _source(tmp_path, files, "settings:\n  limits: {timeout_s: 3}\n")
    result = _materialize(cfg, tmp_path / "out", "web", extractor="docclean_assets_tests.faults:hang_or_extract",
                          engine="dask", address=cluster.address)
    assert result.success
    rows = dict((r[0], (r[1], r[2])) for r in _rows(tmp_path / "out", "SELECT path, status, error FROM parsed_documents"))
    assert rows == {"good.html": ("ok", None), "hang.html": ("failed", "timed out after 3 s")}


def test_the_engine_is_refused_in_one_line_when_it_cannot_work(tmp_path, capsys):
    from docclean_assets.cli import main as cli_main
    from docclean_assets.pipeline.engine import EngineSettings

    with pytest.raises(ValueError, match="address: the Dask scheduler's address is required"):
        EngineSettings(kind="dask")
    with pytest.raises(ValueError, match="must be one of local, dask"):
        EngineSettings(kind="spark")
    cfg = _source(tmp_path, {"a.html": _page("Ferries", "The ferry timetable changes.")})
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(tmp_path / "out"), "--engine", "dask"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "config error: --engine dask needs --address (or settings: engine: address:)"
    assert not (tmp_path / "out").exists()
