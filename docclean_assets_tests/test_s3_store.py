"""The tables on object storage: a real SeaweedFS server on 127.0.0.1, started by the tests. The whole
pipeline writes the same tables to s3:// as to a local folder; `docclean sql` and `summary` read them;
URL sources keep their pages in the bucket; a profile's credentials reach every client; a writer
killed between its two commits leaves the last commit readable; two writers (or two `docclean run`s)
without a lock both land or one fails cleanly; killed runs resume; a missing bucket or refused
credentials fail in one line with exit 3."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from deltalake import DeltaTable

from docclean_assets.cli import main as cli_main
from docclean_assets.store.tables import Store
from docclean_assets_tests.support.stages import pair_tags, store_writer

PROJECT = Path(__file__).resolve().parents[1]
SAMPLES = PROJECT / "data" / "sources.yaml"
TABLES = ("raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "quality_report")
VOLATILE = {"parse_seconds"}  # differs between any two runs, local or not
ORDER = ("source", "path", "doc_id", "seq", "scope", "pattern", "text")


def _rows(store: Store, table: str) -> list[tuple]:
    """Every row of a table's last commits, volatile columns left out, in one stable order."""
    con = store.connect()
    cols = [c for (c,) in con.execute(f"SELECT column_name FROM (DESCRIBE {table})").fetchall() if c not in VOLATILE]
    order = ", ".join(f'"{c}"' for c in ORDER if c in cols)
    rows = con.execute(f"SELECT {', '.join(chr(34) + c + chr(34) for c in cols)} FROM {table} ORDER BY {order}").fetchall()
    con.close()
    return rows


def test_the_pipeline_on_s3_writes_the_same_tables_as_on_a_local_disk(s3_env, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    bucket = s3_env.new_bucket()
    url = f"s3://{bucket}/docclean"
    monkeypatch.chdir(tmp_path)
    assert cli_main(["run", "--sources", str(SAMPLES), "--data-dir", url, "--quiet"]) == 0
    assert cli_main(["run", "--sources", str(SAMPLES), "--data-dir", str(tmp_path / "local"), "--quiet"]) == 0
    capsys.readouterr()
    remote, local = Store(url), Store(tmp_path / "local")
    for table in TABLES:
        theirs, ours = _rows(local, table), _rows(remote, table)
        assert ours and ours == theirs, table
    # nothing local was derived from the URL; the tables are in the bucket, as Delta tables
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "local"]
    keys = s3_env.client().find(f"{bucket}/docclean")
    assert any(k.endswith("parsed_blocks/source=reports/_delta_log/00000000000000000000.json") for k in keys)
    assert DeltaTable(f"{url}/quality_report/source=office", storage_options=remote.location.delta_options()).version() >= 0
    # the CLI's readers over the remote tables (DuckDB through the registered filesystem, no extension)
    assert cli_main(["sql", "SELECT source, count(*) AS n FROM quality_report GROUP BY source ORDER BY source",
                     "--data-dir", url, "--json"]) == 0
    counts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [c["source"] for c in counts] == ["office", "reports", "site"] and all(c["n"] > 0 for c in counts)
    assert cli_main(["summary", "--data-dir", url]) == 0
    assert "documents per source and status" in capsys.readouterr().out
    # no credential reached a table, a Delta log or the Dagster instance
    logs = [k for k in keys if "/_delta_log/" in k and k.endswith(".json")]
    assert logs and not any(b"docclean-test-secret" in s3_env.client().cat_file(k) for k in logs)
    assert not any(b"docclean-test-secret" in p.read_bytes() for p in (tmp_path / "home").rglob("*") if p.is_file())
    # an unchanged rerun on S3 commits nothing new
    versions = {t: remote._open(t, "reports").version() for t in TABLES}
    assert cli_main(["run", "--sources", str(SAMPLES), "--data-dir", url, "--source", "reports", "--quiet"]) == 0
    assert {t: remote._open(t, "reports").version() for t in TABLES} == versions


def test_a_url_source_keeps_its_fetched_pages_in_the_bucket_and_parses_them_from_there(s3, tmp_path, monkeypatch):
    from multiprocessing import forkserver

    import docclean_assets.engine.isolate  # noqa: F401 - sets the fork server's preload
    from docclean_assets_tests.support.httpserve import loopback_server, send

    # the workers' fork server starts before the credentials are set, as when a long-lived process
    # (dagster dev, a test session) ran a local source first: workers must not need their environment
    forkserver.ensure_running()
    for key, value in s3.env().items():
        monkeypatch.setenv(key, value)

    pages = {"/a.html": "<html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>The tide "
                        "tables for spring are out, with the neap tides marked in blue.</p></article></body></html>"}

    def do_get(handler):
        body = pages.get(handler.path)
        if body is None:
            handler.send_error(404, "Not Found")
        else:
            send(handler, body.encode(), "text/html; charset=utf-8")

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    bucket = s3.new_bucket()
    url = f"s3://{bucket}/out"
    with loopback_server(do_get) as base:
        cfg = tmp_path / "sources.yaml"
        cfg.write_text(f"sources:\n  news:\n    urls: [{base}a.html, {base}missing.html]\n")
        assert cli_main(["run", "--sources", str(cfg), "--data-dir", url, "--quiet"]) == 0
    store = Store(url)
    raw = {r["path"]: r for r in store.read("raw_files", "news").to_pylist()}
    blob = raw[f"{base}a.html"]["blob"]
    assert blob == f"{url}/_blobs/news/{raw[f'{base}a.html']['doc_id']}"  # on object storage, content-addressed
    assert s3.client().cat_file(blob) == pages["/a.html"].encode()
    assert raw[f"{base}missing.html"]["blob"] is None and "404" in raw[f"{base}missing.html"]["error"]
    con = store.connect()
    body = " ".join(t for (t,) in con.execute("SELECT text FROM normalized_blocks WHERE drop_reason IS NULL").fetchall())
    assert "neap tides marked in blue" in body  # the worker read the page from the bucket
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "sources.yaml"]  # no local _blobs


def test_credentials_from_an_aws_profile_reach_both_the_tables_and_the_readers(s3, tmp_path, monkeypatch, capsys):
    from docclean_assets_tests.support.s3server import ACCESS_KEY, SECRET_KEY

    (tmp_path / "aws").mkdir()
    (tmp_path / "aws" / "credentials").write_text(
        f"[docclean]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n")
    (tmp_path / "aws" / "config").write_text("[profile docclean]\nregion = us-east-1\n")
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws" / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws" / "config"))
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.html").write_text("<html><body><article><h1>Ferries</h1><p>The ferry timetable changes in "
                                 "spring, with two extra crossings on Sundays.</p></article></body></html>")
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  web: {path: docs}\nsettings:\n  storage: {profile: docclean}\n")
    url = f"s3://{s3.new_bucket()}/out"
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", url, "--quiet"]) == 0
    capsys.readouterr()
    assert cli_main(["sql", "SELECT status FROM quality_report", "--sources", str(cfg), "--data-dir", url, "--json"]) == 0
    assert [json.loads(line)["status"] for line in capsys.readouterr().out.splitlines()] == ["ok"]
    cfg.write_text("sources:\n  web: {path: docs}\nsettings:\n  storage: {profile: nobody}\n")
    assert cli_main(["sql", "SELECT 1", "--sources", str(cfg), "--data-dir", url]) == 3
    err = capsys.readouterr().err
    assert "AWS profile 'nobody'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("problem", ["missing bucket", "refused credentials"])
def test_a_missing_bucket_or_refused_credentials_fail_with_exit_3_in_one_line(s3_env, tmp_path, monkeypatch,
                                                                             capsys, problem):
    bucket = s3_env.new_bucket()
    if problem == "missing bucket":
        bucket, expect = "no-such-bucket-here", "bucket 'no-such-bucket-here' does not exist"
    else:
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "a-wrong-secret-never-printed")
        expect = "refused the credentials"
    monkeypatch.chdir(tmp_path)
    for command in (["run", "--sources", str(SAMPLES)], ["sql", "SELECT 1"], ["summary"]):
        code = cli_main([*command, "--data-dir", f"s3://{bucket}/docclean"])
        err = capsys.readouterr().err
        assert code == 3 and expect in err and len(err.strip().splitlines()) == 1, (command, err)
        assert "a-wrong-secret-never-printed" not in err and "docclean-test-secret" not in err
    assert not any(tmp_path.iterdir())


def _writer(url: str, name: str, count: int, pause: str = "none") -> subprocess.Popen:
    return store_writer(url, name, count, pause, rows=50)


def test_a_writer_killed_between_its_two_commits_leaves_the_last_commit_readable(s3_env):
    url = f"s3://{s3_env.new_bucket()}/kill"
    first = _writer(url, "first", 1)
    assert first.wait(60) == 0, first.stderr.read()
    victim = _writer(url, "victim", 1, pause="between_commits")
    assert victim.stdout.readline().strip() == "READY"  # its data commit landed, its index commit did not
    victim.kill()
    victim.wait(10)
    store = Store(url)
    assert pair_tags(store) == ({"first-0"}, {"first-0"})  # readers still see the last whole commit
    assert store._open("parsed_blocks", "web").version() > store.pinned_version("parsed_blocks", "web")
    after = _writer(url, "after", 1)  # the next writer rolls the orphan back, then commits
    assert after.wait(60) == 0, after.stderr.read()
    assert pair_tags(store) == ({"after-0"}, {"after-0"})
    assert store._open("parsed_blocks", "web").version() == store.pinned_version("parsed_blocks", "web")


def test_two_writers_without_a_lock_both_land_or_one_fails_cleanly(s3_env):
    url = f"s3://{s3_env.new_bucket()}/race"
    store = Store(url)
    for _round in range(3):
        writers = [_writer(url, name, 6) for name in ("a", "b")]
        outs = [(w.wait(120), w.stdout.read() + w.stderr.read()) for w in writers]
        for code, out in outs:
            assert code in (0, 4), out  # finished, or stopped by a conflict: never anything else
            assert code == 0 or "CONFLICT " in out
        committed = [line.split()[1] for _code, out in outs for line in out.splitlines() if line.startswith("COMMITTED")]
        assert committed  # at least one writer landed its batches
        blocks, docs = pair_tags(store)
        assert blocks == docs and len(blocks) == 1 and blocks <= set(committed)  # one whole commit, never a mix
        rows = store.read("parsed_blocks", "web")
        assert rows.num_rows == 50 and set(rows.column("n").to_pylist()) == set(range(50))
    # whatever a loser left behind its pin, the next writer alone rolls back and lands
    last = _writer(url, "last", 1)
    assert last.wait(60) == 0, last.stdout.read()
    assert pair_tags(store) == ({"last-0"}, {"last-0"})
    assert store._open("parsed_blocks", "web").version() == store.pinned_version("parsed_blocks", "web")


def test_runs_killed_on_s3_resume_with_only_uncommitted_documents_and_end_identical(s3_env, tmp_path):
    from docclean_assets_tests.support import resume

    total = 18  # 6 batches: the kill after the third leaves some committed and some not (each S3 commit ~0.4 s)
    resume.write_pages(tmp_path / "docs", resume.numbered_pages(total))
    cfg = resume.write_config(tmp_path, "sources")
    local = tmp_path / "once"
    resume.cli_run(tmp_path, cfg, local)
    url = f"s3://{s3_env.new_bucket()}/resumed"
    resume.killed_run(tmp_path, cfg, url, 3, 0.5)  # SIGKILLed half a batch after its third batch line
    committed = Store(url).count_where("parsed_documents", "web", "TRUE")
    assert committed % resume.BATCH == 0 and 3 * resume.BATCH <= committed < total
    counts = resume.parsed_counts(resume.cli_run(tmp_path, cfg, url))
    assert counts["parsed"] == total - committed and counts["reused"] == committed
    assert resume.committed_tables(url) == resume.committed_tables(local)


def test_two_docclean_runs_racing_on_one_s3_source_end_in_whole_commits(s3_env, tmp_path):
    from docclean_assets_tests.support import resume

    resume.write_pages(tmp_path / "docs", resume.numbered_pages(12))  # 4 batches each: the runs overlap
    cfg = resume.write_config(tmp_path, "sources")
    url = f"s3://{s3_env.new_bucket()}/race"
    runs = [subprocess.Popen([resume.DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", url, "--quiet"],
                             env=resume.cli_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    outs = [(r.wait(300), r.stdout.read()) for r in runs]
    for code, out in outs:  # each run finished, or stopped on the other's commit and said so in its last line
        last = [line for line in out.splitlines() if line.strip()][-1]
        assert code == 0 or (code == 3 and last.startswith("docclean run failed: web: ") and "another writer" in last
                             and "run again" in last), out[-3000:]
    store = Store(url)
    assert store._open("parsed_blocks", "web") is not None
    con = store.connect()  # whatever is visible is whole: every committed document has its blocks
    orphans = con.execute("SELECT count(*) FROM parsed_documents d WHERE d.status = 'ok' AND NOT EXISTS "
                          "(SELECT 1 FROM parsed_blocks b WHERE b.path = d.path)").fetchall()[0][0]
    con.close()
    assert orphans == 0
    resume.cli_run(tmp_path, cfg, url)  # a run alone afterwards completes what a stopped one left
    local = tmp_path / "local"
    resume.cli_run(tmp_path, cfg, local)
    assert resume.committed_tables(url) == resume.committed_tables(local)
