"""Streamed, resumable sources: batches are committed as the parse goes; a run SIGKILLed at any moment
resumes with only the uncommitted documents; the final tables are the same whether a source was parsed
in one run, resumed after kills, or updated incrementally."""
import random
from types import SimpleNamespace

from docclean_assets.extract.chunk import chunk_ids
from docclean_assets.store.tables import TABLES, Store
from docclean_assets_tests.support.pipeline import template_page
from docclean_assets_tests.support.resume import (
    BATCH, TOTAL, cli_run, committed_tables, killed_run, numbered_pages, parsed_counts, rekeyed, write_config,
    write_pages,
)


def test_killed_runs_resume_with_only_uncommitted_documents_and_end_identical(tmp_path):
    write_pages(tmp_path / "docs", numbered_pages(TOTAL))
    cfg = write_config(tmp_path, "sources")
    once = tmp_path / "once"
    out = cli_run(tmp_path, cfg, once)
    # not a terminal: one plain line per committed batch, with the counts so far
    batches = [x for x in out.splitlines() if " committed " in x]
    assert len(batches) == TOTAL // BATCH and batches[-1].startswith(f"web: batch {TOTAL // BATCH} committed {BATCH} ")
    assert f"{TOTAL}/{TOTAL} documents" in batches[-1] and "0 failed so far" in batches[-1]

    resumed, rng = tmp_path / "resumed", random.Random(7)
    for after in (2, 4):  # killed twice, each time a little after a batch was reported
        killed_run(tmp_path, cfg, resumed, after, rng.uniform(0.0, 2.0))
        con = Store(resumed).connect()
        committed = con.execute("SELECT count(*) FROM parsed_documents").fetchall()[0][0]
        con.close()
        assert committed % BATCH == 0 and committed >= after * BATCH  # whole batches only, none lost once reported
        assert committed < TOTAL  # the kill came mid-run: there is something to resume
    out = cli_run(tmp_path, cfg, resumed)
    counts = parsed_counts(out)
    assert counts["parsed"] == TOTAL - committed and counts["reused"] == committed  # only what no commit held
    assert committed_tables(resumed) == committed_tables(once)


def test_incremental_updates_end_identical_to_a_fresh_run(tmp_path):
    docs = tmp_path / "docs"
    write_pages(docs, numbered_pages(15))
    cfg = write_config(tmp_path, "sources")
    data = tmp_path / "data"
    cli_run(tmp_path, cfg, data)
    [(first_key,)] = Store(data).connect().execute("SELECT DISTINCT doc_id FROM chunks WHERE path = 'p003.html'").fetchall()
    (docs / "p003.html").write_text(template_page("Notice 3 revised", "A corrected notice for ward 3."))  # changed
    (docs / "p004.html").unlink()  # deleted
    (docs / "moved").mkdir()
    (docs / "p005.html").rename(docs / "moved" / "p005.html")  # moved
    write_pages(docs, {"new.html": template_page("A new notice", "Item 99 concerns ward 2.")})  # added
    out = cli_run(tmp_path, cfg, data)
    counts = parsed_counts(out)
    assert counts["parsed"] == 2  # the changed and the new page; the moved one is copied, not parsed
    fresh = tmp_path / "fresh"
    cli_run(tmp_path, cfg, fresh)
    # the edited page's chunk ids are made with the key of its first version (so that chunks an edit
    # leaves alone keep their ids); a fresh run has only the new version, whose key is its doc_id.
    # Made with the fresh run's key, they are the fresh run's, and every other row is the same.
    con = Store(data).connect()
    rows = con.execute("SELECT doc_id, heading_path, text, chunk_id FROM chunks WHERE path = 'p003.html' "
                       "ORDER BY chunk_index").fetchall()
    con.close()
    chunks = [SimpleNamespace(heading_path=tuple(r[1]), text=r[2]) for r in rows]
    assert [r[3] for r in rows] == chunk_ids(first_key, chunks) != chunk_ids(rows[0][0], chunks)
    fresh_ids = dict(zip(chunk_ids(first_key, chunks), chunk_ids(rows[0][0], chunks)))
    assert rekeyed(committed_tables(data), fresh_ids) == committed_tables(fresh)
    paths = {p for (p,) in Store(data).connect().execute("SELECT DISTINCT path FROM normalized_blocks").fetchall()}
    assert "p004.html" not in paths and "moved/p005.html" in paths and "p005.html" not in paths


def test_an_unchanged_rerun_parses_and_rewrites_nothing(tmp_path):
    write_pages(tmp_path / "docs", numbered_pages(7))
    (tmp_path / "docs" / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<broken")  # fails in its worker
    (tmp_path / "outside.html").write_text(template_page("Outside", "Not part of the source."))
    (tmp_path / "docs" / "link.html").symlink_to(tmp_path / "outside.html")  # refused by the inventory
    cfg = write_config(tmp_path, "sources")
    data = tmp_path / "data"
    cli_run(tmp_path, cfg, data)
    store = Store(data)
    assert store.counts("parsed_documents", "web", "status") == {"failed": 2, "ok": 7}
    versions = {t: store._open(t, "web").version() for t in (*TABLES, "_normalized_documents")}
    out = cli_run(tmp_path, cfg, data)
    assert parsed_counts(out)["parsed"] == 0 and "0 documents to parse, 9 unchanged" in out
    assert {t: store._open(t, "web").version() for t in versions} == versions  # not one new commit


def test_a_batch_is_committed_after_its_seconds_even_when_not_full(tmp_path):
    docs = tmp_path / "docs"
    write_pages(docs, numbered_pages(6))
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  web:\n    path: docs\nsettings:\n  limits:\n    workers: 1\n"
                   "  store:\n    batch_documents: 1000\n    batch_seconds: 0.1\n")
    out = cli_run(tmp_path, cfg, tmp_path / "data")
    # far from 1000 documents, batches still close: a document's worker takes about 0.1 s or more
    batches = [x for x in out.splitlines() if " committed " in x]
    assert len(batches) >= 2 and "6/6 documents" in batches[-1]


def test_the_dagster_run_log_moves_per_committed_batch(tmp_path):
    import dagster as dg

    from docclean_assets.defs.definitions import build_defs

    write_pages(tmp_path / "docs", numbered_pages(7))
    defs = build_defs(write_config(tmp_path, "sources"), tmp_path / "data")
    with dg.instance_for_test() as instance:
        result = dg.materialize(defs.assets, partition_key="web", resources=defs.resources, instance=instance)
        assert result.success
        lines = [e.user_message for e in instance.all_logs(result.run_id) if " committed " in (e.user_message or "")]
    assert [x.split(" committed ")[0] for x in lines] == ["web: batch 1", "web: batch 2", "web: batch 3"]
    assert "7/7 documents" in lines[-1]
