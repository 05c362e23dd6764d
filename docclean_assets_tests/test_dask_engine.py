"""The Dask engine on a real cluster of separate processes on 127.0.0.1 (`dask scheduler` plus two
`dask worker`s): the same tables as the local engine; a worker killed mid-run loses no document; a
document that hangs on a cluster worker times out and fails alone, as it does locally."""
from __future__ import annotations

import threading
import time

import pyarrow.parquet as pq
import pytest
from docclean_assets.store.tables import Store

from docclean_assets_tests.support import resume
from docclean_assets_tests.support.daskcluster import DaskCluster
from docclean_assets_tests.support.pipeline import run_ingest, sql_rows, template_page, write_source


def test_the_dask_engine_writes_the_same_tables_as_the_local_one(dask_cluster, tmp_path, monkeypatch, capsys):
    from docclean_assets.cli import main as cli_main

    resume.write_pages(tmp_path / "docs", resume.numbered_pages(12))
    cfg = resume.write_config(tmp_path, "sources")
    local, remote = tmp_path / "local", tmp_path / "dask"
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(local), "--quiet"]) == 0
    capsys.readouterr()
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(remote), "--quiet",
                     "--engine", "dask", "--address", dask_cluster.address]) == 0
    assert resume.parsed_counts(capsys.readouterr().out)["parsed"] == 12
    assert resume.committed_tables(remote) == resume.committed_tables(local)
    # the workers wrote the blocks: one part per task, the tasks shrinking towards the end (12
    # documents on 2 workers x 2 in flight: 3, 3, 2, 1, 1, 1, 1), where the local engine's driver
    # wrote one file per batch
    parts = Store(remote).snapshot("parsed_blocks", "web").files
    per_part = [set(pq.read_table(f, columns=["path"]).column("path").to_pylist()) for f in parts]
    assert sorted(map(len, per_part), reverse=True) == [3, 3, 2, 1, 1, 1, 1]
    assert set().union(*per_part) == set(resume.numbered_pages(12))


def test_the_driver_never_holds_blocks_on_a_cluster(dask_cluster, tmp_path, monkeypatch):
    import docclean_assets.pipeline.parse as parse

    def refuse(*args, **kwargs):
        raise AssertionError("the driver built a blocks table")

    monkeypatch.setattr(parse, "content_to_blocks_table", refuse)  # the driver's only way to make block rows
    pages = {f"p{i}.html": template_page(f"Notice {i}", f"Item {i} concerns ward {i}.") for i in range(6)}
    cfg = write_source(tmp_path, pages)
    result = run_ingest(cfg, tmp_path / "out", "web", engine="dask", address=dask_cluster.address)
    assert result.success
    assert dict(sql_rows(tmp_path / "out", "SELECT path, status FROM parsed_documents")) == {p: "ok" for p in pages}
    texts = " ".join(t for (t,) in sql_rows(tmp_path / "out", "SELECT text FROM parsed_blocks"))
    assert all(f"Item {i} concerns ward {i}." in texts for i in range(6))


def test_a_cluster_worker_killed_mid_run_loses_no_document(tmp_path):
    c = DaskCluster(tmp_path / "dask")
    try:
        pages = {f"p{i:02d}.html": template_page(f"Notice {i}", f"Item {i} concerns ward {i % 5}.") for i in range(16)}
        cfg = write_source(tmp_path, pages)
        killer = threading.Timer(1.5, c.kill_worker, args=(0,))  # mid-run: 16 documents of 0.5 s on 2 workers
        killer.start()
        started = time.monotonic()
        result = run_ingest(cfg, tmp_path / "out", "web", extractor="docclean_assets_tests.support.faults:slow_extract",
                              engine="dask", address=c.address)
        killer.join()
        assert time.monotonic() - started > 1.5 and c.workers[0].poll() is not None  # the kill came mid-run
        assert result.success
        status = dict(sql_rows(tmp_path / "out", "SELECT path, status FROM parsed_documents"))
        assert status == {p: "ok" for p in pages}
    finally:
        c.stop()


def test_a_document_that_kills_every_worker_or_its_memory_ceiling_fails_alone(tmp_path):
    # a task dies at its second worker death (allowed-failures 1): its documents are then sent one
    # by one, and only the one that kills workers ends as a failed row
    c = DaskCluster(tmp_path / "dask", env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"})
    try:
        pages = {f"p{i}.html": template_page(f"Notice {i}", f"Item {i} concerns ward {i}.") for i in range(6)}
        pages |= {"poison.html": template_page("Poison", "Kills its worker."), "bomb.html": template_page("Bomb", "Eats memory.")}
        cfg = write_source(tmp_path, pages, "settings:\n  limits: {memory_mb: 512}\n")
        result = run_ingest(cfg, tmp_path / "out", "web", extractor="docclean_assets_tests.support.faults:cluster_fault_or_extract",
                              engine="dask", address=c.address)
        assert result.success
        rows = {r[0]: (r[1], r[2]) for r in sql_rows(tmp_path / "out", "SELECT path, status, error FROM parsed_documents")}
        assert rows.pop("poison.html") == ("failed", "died: every cluster worker that ran it alone died "
                                                     "(distributed.scheduler.allowed-failures)")
        assert rows.pop("bomb.html") == ("failed", "memory limit exceeded (512 MiB)")
        assert rows == {p: ("ok", None) for p in pages if p[1:2].isdigit()}
    finally:
        c.stop()


def test_documents_queued_beside_the_killer_on_its_worker_are_not_blamed(tmp_path):
    # one single-threaded worker: every task in flight (two) sits on the worker the killer takes
    # down, so Dask counts each death against all of them; the documents split out of the failed
    # tasks die beside the killer again, and only running alone tells the killer from its neighbours
    c = DaskCluster(tmp_path / "dask", workers=1, env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"})
    try:
        pages = {f"p{i}.html": template_page(f"Notice {i}", f"Item {i} concerns ward {i}.") for i in range(3)}
        pages["a-poison.html"] = template_page("Poison", "Kills its worker.")
        cfg = write_source(tmp_path, pages)
        result = run_ingest(cfg, tmp_path / "out", "web", extractor="docclean_assets_tests.support.faults:cluster_fault_or_extract",
                              engine="dask", address=c.address)
        assert result.success
        rows = {r[0]: (r[1], r[2]) for r in sql_rows(tmp_path / "out", "SELECT path, status, error FROM parsed_documents")}
        assert rows.pop("a-poison.html")[0] == "failed"
        assert rows == {f"p{i}.html": ("ok", None) for i in range(3)}
    finally:
        c.stop()


def test_a_document_hanging_on_a_cluster_worker_times_out_and_fails_alone(dask_cluster, tmp_path):
    files = {"good.html": template_page("Ferries", "The ferry timetable changes."), "hang.html": template_page("Stuck", "Never.")}
    cfg = write_source(tmp_path, files, "settings:\n  limits: {timeout_s: 3}\n")
    result = run_ingest(cfg, tmp_path / "out", "web", extractor="docclean_assets_tests.support.faults:hang_or_extract",
                          engine="dask", address=dask_cluster.address)
    assert result.success
    rows = dict((r[0], (r[1], r[2])) for r in sql_rows(tmp_path / "out", "SELECT path, status, error FROM parsed_documents"))
    assert rows == {"good.html": ("ok", None), "hang.html": ("failed", "timed out after 3 s")}


def test_the_engine_is_refused_in_one_line_when_it_cannot_work(tmp_path, capsys):
    from docclean_assets.cli import main as cli_main
    from docclean_assets.engine.settings import EngineSettings

    with pytest.raises(ValueError, match="address: the Dask scheduler's address is required"):
        EngineSettings(kind="dask")
    with pytest.raises(ValueError, match="must be one of local, dask"):
        EngineSettings(kind="spark")
    cfg = write_source(tmp_path, {"a.html": template_page("Ferries", "The ferry timetable changes.")})
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(tmp_path / "out"), "--engine", "dask"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "config error: --engine dask needs --address (or settings: engine: address:)"
    assert not (tmp_path / "out").exists()


def test_daemonic_workers_are_refused_before_any_document_is_touched(tmp_path, capsys):
    # `dask worker ADDR` as usually started: the nanny makes its worker a daemonic process, which may
    # not start the process each document is parsed in; every document would fail.
    c = DaskCluster(tmp_path / "dask", workers=1, env={"DASK_DISTRIBUTED__WORKER__DAEMON": "True"})
    try:
        from docclean_assets.cli import main as cli_main

        cfg = write_source(tmp_path, {"a.html": template_page("Ferries", "The ferry timetable changes.")})
        data = tmp_path / "out"
        assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(data), "--engine", "dask",
                         "--address", c.address]) == 3
        [line] = capsys.readouterr().err.splitlines()
        assert line.startswith("engine error: 1 of 1 Dask workers at ") and "daemonic" in line
        assert f"DASK_DISTRIBUTED__WORKER__DAEMON=False dask worker {c.address}" in line
        assert Store(data).snapshot("parsed_documents", "web") is None  # no document touched
        # launched as the UI does: the parse step fails with the same line, before any document
        result = run_ingest(cfg, data, "web", engine="dask", address=c.address)
        assert not result.success
        [failure] = [e for e in result.all_events if e.is_step_failure]
        assert "daemonic processes" in failure.event_specific_data.error.message
        assert Store(data).snapshot("parsed_documents", "web") is None
    finally:
        c.stop()


def test_an_unreachable_scheduler_is_refused_in_one_line(tmp_path, capsys):
    from docclean_assets.cli import main as cli_main

    from docclean_assets_tests.support.ports import free_port

    cfg = write_source(tmp_path, {"a.html": template_page("Ferries", "The ferry timetable changes.")},
                  "settings:\n  engine: {connect_timeout_s: 2}\n")
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(tmp_path / "out"), "--engine", "dask",
                     "--address", address]) == 3
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"engine error: the Dask scheduler at {address} cannot be reached within 2 s")


def test_cluster_workers_read_objects_and_write_parts_on_s3_with_the_runs_credentials(dask_cluster, s3_env, tmp_path,
                                                                                      monkeypatch, capsys):
    from docclean_assets.cli import main as cli_main

    # the workers were started without any AWS variable: what they read and write, they reach with
    # the access the run resolved and sent with each task
    assert "AWS_ACCESS_KEY_ID" not in dask_cluster.env
    fs, bucket = s3_env.client(), s3_env.new_bucket()
    pages = resume.numbered_pages(6)
    for name, html in pages.items():
        fs.pipe_file(f"{bucket}/docs/{name}", html.encode())
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  web:\n    path: s3://{bucket}/docs/\n")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    url = f"s3://{bucket}/out"
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", url, "--quiet",
                     "--engine", "dask", "--address", dask_cluster.address]) == 0
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(tmp_path / "local"), "--quiet"]) == 0
    capsys.readouterr()
    remote, local = Store(url), Store(tmp_path / "local")
    for table in ("parsed_blocks", "parsed_documents", "normalized_blocks"):
        ours, theirs = remote.connect(), local.connect()
        query = f"SELECT * EXCLUDE (parse_seconds) FROM {table}" if table == "parsed_documents" else f"SELECT * FROM {table}"
        assert sorted(ours.execute(query).fetchall(), key=repr) == sorted(theirs.execute(query).fetchall(), key=repr)
    parts = remote.snapshot("parsed_blocks", "web").files
    # 6 documents on 2 workers x 2 in flight: tasks of 2, 1, 1, 1, 1, one part each
    assert len(parts) == 5 and all(p.startswith(f"s3://{bucket}/out/parsed_blocks/source=web/part-") for p in parts)
