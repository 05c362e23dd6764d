"""The chunks and chunk_changes assets (issue 34, points 1, 2 and 5): chunks of every document under
their headings, and exact index sync across reruns, edits, re-fetches, moves, copies, deletions, a run
killed between its chunk commits and its change set, and a change set whose base version was vacuumed
away."""
import io
import json
import shlex
from pathlib import Path

import dagster as dg
import docx

from docclean_assets.cli import main as cli_main
from docclean_assets.extract.settings import Settings
from docclean_assets.pipeline.chunks import chunk_source
from docclean_assets.store.settings import StoreSettings
from docclean_assets.store.tables import Store
from docclean_assets_tests.support.pipeline import run_ingest, asset_meta, template_page, sql_rows, write_source


def _report(title: str, sections: dict[str, str], rows: int = 3) -> bytes:
    """A DOCX with a title, one heading per section over its paragraph, and a table under the last."""
    d = docx.Document()
    d.add_heading(title, level=0)
    for heading, body in sections.items():
        d.add_heading(heading, level=1)
        d.add_paragraph(body)
    table = d.add_table(rows=rows + 1, cols=3)
    for j, label in enumerate(["Segment", "2023", "2022"]):
        table.cell(0, j).text = label
    for i in range(rows):
        for j, value in enumerate([f"Segment {i}", str(100 + i), str(90 + i)]):
            table.cell(i + 1, j).text = value
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


FILES = {
    "report.docx": _report("Annual Report", {"Liquidity and Capital Resources": "Cash rose to 4.2 billion on "
                                             "operating inflows.", "Risk Factors": "Demand may fall in winter."}),
    "news/a.html": template_page("Bridge works", "The bridge reopens in May."),
    "news/b.html": template_page("Harbour works", "The harbour dredging starts in June."),
}


def _changed(result: dg.ExecuteInProcessResult) -> dict:
    """chunk_changes' metadata (made by the `chunks` step with the chunks)."""
    [mat] = [m for m in result.asset_materializations_for_node("chunks") if m.asset_key == dg.AssetKey("chunk_changes")]
    return {k: v.value for k, v in mat.metadata.items()}


def _ids(data: Path) -> dict[str, set[str]]:
    """Chunk ids per path in the last commit."""
    out: dict[str, set[str]] = {}
    for path, chunk_id in sql_rows(data, "SELECT path, chunk_id FROM chunks"):
        out.setdefault(path, set()).add(chunk_id)
    return out


def _changes(data: Path, run_id: str) -> dict[str, set[str]]:
    rows = sql_rows(data, f"SELECT change, chunk_id FROM chunk_changes WHERE run_id = '{run_id}'")
    return {c: {i for k, i in rows if k == c} for c in ("added", "removed", "updated", "reset")}


def test_chunks_carry_heading_paths_pages_and_their_blocks(tmp_path):
    cfg = write_source(tmp_path, FILES)
    data = tmp_path / "out"
    result = run_ingest(cfg, data, "web")
    assert result.success
    rows = sql_rows(data, "SELECT heading_path, text, role, seqs, tokens, embed_text FROM chunks WHERE path = 'report.docx' "
                       "ORDER BY chunk_index")
    paths = [tuple(r[0]) for r in rows]
    assert ("Annual Report", "Liquidity and Capital Resources") in paths
    liquidity = next(r for r in rows if tuple(r[0]) == ("Annual Report", "Liquidity and Capital Resources"))
    assert "Liquidity and Capital Resources\n\nCash rose" in liquidity[1]  # heading and paragraph together
    risk = next(r for r in rows if tuple(r[0]) == ("Annual Report", "Risk Factors"))
    assert risk[1].startswith("Risk Factors\n\nDemand") and risk[5].startswith("Annual Report\n\nRisk Factors")
    table = next(r for r in rows if r[2] == "table")
    assert "| Segment 1 | 101 | 91 |" in table[1]  # text keeps the table whole
    assert "\nSegment 1\n" in table[5] and "101" not in table[5] and "|" not in table[5]  # embedded: its labels
    # every chunk's seqs are kept blocks of its document
    kept = {s for (s,) in sql_rows(data, "SELECT seq FROM normalized_blocks WHERE path = 'report.docx' AND drop_reason IS NULL")}
    assert {q for r in rows for q in r[3]} <= kept
    assert asset_meta(result, "chunks")["chunked"] == 3
    # the site template of the pages is not in their chunks
    assert not any("cookies" in t for (t,) in sql_rows(data, "SELECT text FROM chunks WHERE path LIKE 'news/%'"))


def test_index_sync_across_reruns_edits_moves_and_deletions(tmp_path):
    cfg = write_source(tmp_path, FILES)
    data, docs = tmp_path / "out", tmp_path / "docs"
    first = run_ingest(cfg, data, "web")
    ids = _ids(data)
    assert _changes(data, first.run_id)["added"] == set().union(*ids.values())

    again = run_ingest(cfg, data, "web")  # unchanged: nothing added or removed, no rows
    assert (_changed(again)["added"], _changed(again)["removed"]) == (0, 0)
    assert sql_rows(data, f"SELECT count(*) FROM chunk_changes WHERE run_id = '{again.run_id}'") == [(0,)]

    (docs / "news" / "b.html").rename(docs / "moved.html")  # a move: same bytes, same ids
    moved = run_ingest(cfg, data, "web")
    assert _changes(data, moved.run_id) == {"added": set(), "removed": set(), "updated": set(), "reset": set()}
    assert _ids(data)["moved.html"] == ids["news/b.html"]

    # a page fetched again whose markup changed and its text did not: new bytes, the same ids, nothing recorded
    page = (docs / "moved.html").read_text()
    (docs / "moved.html").write_text(page.replace("<body", "<!-- fetched again --><body", 1))
    refetched = run_ingest(cfg, data, "web")
    assert sql_rows(data, "SELECT count(DISTINCT doc_id) FROM chunks WHERE path = 'moved.html'")[0][0] == 1
    assert _changes(data, refetched.run_id) == {"added": set(), "removed": set(), "updated": set(), "reset": set()}
    assert _ids(data)["moved.html"] == ids["news/b.html"] and asset_meta(refetched, "chunks")["chunked"] == 1

    (docs / "report.docx").write_bytes(_report("Annual Report", {
        "Liquidity and Capital Resources": "Cash rose to 4.2 billion on operating inflows.",
        "Risk Factors": "Demand may fall in a mild winter."}))
    (docs / "news" / "a.html").unlink()
    edited = run_ingest(cfg, data, "web")
    changes = _changes(data, edited.run_id)
    now = _ids(data)
    assert changes["removed"] >= ids["news/a.html"] and not (changes["added"] & ids["news/a.html"])
    # an edited file keeps the ids of the chunks it did not change: only the edited section's is new
    kept = ids["report.docx"] & now["report.docx"]
    assert len(kept) == len(ids["report.docx"]) - 1 == len(now["report.docx"]) - 1
    assert changes["added"] == now["report.docx"] - kept and len(changes["added"]) == 1
    assert changes["removed"] == (ids["report.docx"] - kept) | ids["news/a.html"] and not changes["updated"]
    before = set().union(*ids.values())
    assert (before - changes["removed"]) | changes["added"] == set().union(*now.values())

    # a copy (the same bytes at a second path while the first stays) is a document of its own: ids of its
    # own, added; deleting it removes them and nothing of the original
    (docs / "copy.html").write_bytes((docs / "moved.html").read_bytes())
    copied = run_ingest(cfg, data, "web")
    copy_ids = _ids(data)["copy.html"]
    assert len(copy_ids) == len(now["moved.html"]) and not copy_ids & set().union(*now.values())
    assert _changes(data, copied.run_id)["added"] == copy_ids and not _changes(data, copied.run_id)["removed"]
    (docs / "copy.html").unlink()
    uncopied = run_ingest(cfg, data, "web")
    assert _changes(data, uncopied.run_id)["removed"] == copy_ids and _ids(data) == now


def test_a_store_chunked_before_doc_keys_keeps_its_ids_through_an_edit(tmp_path, monkeypatch):
    cfg = write_source(tmp_path, FILES)
    data, docs = tmp_path / "out", tmp_path / "docs"
    commit_pair = Store.commit_pair

    def without_doc_key(self, table, source, replaced, data, index, *args, **kwargs):  # noqa: ANN001
        """The chunks index as docclean committed it before it had a doc_key column."""
        if "doc_key" in index.column_names:
            index = index.drop_columns(["doc_key"])
        return commit_pair(self, table, source, replaced, data, index, *args, **kwargs)

    monkeypatch.setattr(Store, "commit_pair", without_doc_key)
    assert run_ingest(cfg, data, "web").success
    monkeypatch.undo()
    ids = _ids(data)
    (docs / "report.docx").write_bytes(_report("Annual Report", {
        "Liquidity and Capital Resources": "Cash rose to 4.2 billion on operating inflows.",
        "Risk Factors": "Demand may fall in a mild winter."}))
    edited = run_ingest(cfg, data, "web")
    assert edited.success and len(ids["report.docx"] & _ids(data)["report.docx"]) == len(ids["report.docx"]) - 1
    assert len(_changes(data, edited.run_id)["added"]) == 1


def test_a_changed_embed_text_keeps_its_chunk_id_and_is_recorded_as_updated(tmp_path):
    cfg = write_source(tmp_path, FILES)
    data = tmp_path / "out"
    assert run_ingest(cfg, data, "web").success
    ids = _ids(data)
    table_sql = "SELECT chunk_id, embed_text FROM chunks WHERE role = 'table'"
    [(table_id, labels)] = sql_rows(data, table_sql)
    # the same blocks, tables embedded with their figures: the text and so the ids stay, the embed text moves
    cfg.write_text(cfg.read_text() + "settings:\n  chunk:\n    embed_table_figures: true\n")
    figures = run_ingest(cfg, data, "web")
    assert figures.success and _ids(data) == ids
    [(same_id, labelled)] = sql_rows(data, table_sql)
    assert same_id == table_id and "Segment 1: 2023 101" in labelled and "101" not in labels
    assert _changes(data, figures.run_id) == {"added": set(), "removed": set(), "updated": {table_id}, "reset": set()}
    assert _changed(figures)["updated"] == 1
    again = run_ingest(cfg, data, "web")  # unchanged since: nothing recorded
    assert sql_rows(data, f"SELECT count(*) FROM chunk_changes WHERE run_id = '{again.run_id}'") == [(0,)]


def test_killed_between_chunks_and_change_set_caught_up_then_reset_once_vacuumed(tmp_path):
    cfg = write_source(tmp_path, FILES)
    data, docs = tmp_path / "out", tmp_path / "docs"
    assert run_ingest(cfg, data, "web").success
    synced = set().union(*_ids(data).values())
    # a page rewritten; the run that chunks it dies after its chunk commits, before its change set
    (docs / "news" / "a.html").write_text(template_page("Bridge works", "The bridge reopened early."))
    _materialize_until_normalized(cfg, data)
    store = Store(data)
    with store.locked("web"):
        chunk_source(store, "web", Settings().chunk)
    now = set().union(*_ids(data).values())
    assert now != synced
    caught = run_ingest(cfg, data, "web")  # nothing left to chunk: the change set catches up
    assert asset_meta(caught, "chunks")["chunked"] == 0
    assert _changes(data, caught.run_id) == {"added": now - synced, "removed": synced - now, "updated": set(),
                                             "reset": set()}

    # once the version the last change set reached is vacuumed away, the next change set is a reset
    (docs / "news" / "a.html").write_text(template_page("Bridge works", "The bridge closed again for repairs."))
    _materialize_until_normalized(cfg, data)
    with store.locked("web"):
        chunk_source(store, "web", Settings().chunk)
    Store(data, StoreSettings(keep_replaced_hours=0)).vacuum("chunks", "web")
    reset = run_ingest(cfg, data, "web")
    assert _changed(reset)["reset"] is True
    assert _changes(data, reset.run_id)["reset"] == set().union(*_ids(data).values())


def _materialize_until_normalized(cfg: Path, data: Path) -> None:
    """Parse and normalise a changed source without the chunks step (a run that stops before it)."""
    from docclean_assets.defs.definitions import build_defs

    defs = build_defs(cfg, data)
    job = defs.resolve_implicit_global_asset_job_def().get_subset(
        asset_selection={k for k in defs.resolve_asset_graph().get_all_asset_keys()
                         if k.to_user_string() not in ("chunks", "chunk_changes", "quality_report")})
    assert job.execute_in_process(partition_key="web").success


def test_cli_chunks_and_search(tmp_path, capsys):
    cfg = write_source(tmp_path, FILES)
    data = tmp_path / "out"
    assert run_ingest(cfg, data, "web").success
    args = ["--sources", str(cfg), "--data-dir", str(data)]
    assert cli_main(["chunks", "--source", "web", "--jsonl", *args]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == sql_rows(data, "SELECT count(*) FROM chunks")[0][0] == 5
    assert {"chunk_id", "heading_path", "pages", "boxes", "seqs", "embed_text"} <= set(lines[0])
    assert cli_main(["chunks", "--source", "web", "--out", str(tmp_path / "x"), *args]) == 0
    assert (tmp_path / "x" / "web.parquet").is_file() and "5 chunks ->" in capsys.readouterr().out
    assert cli_main(["search", "when does the harbour dredging start", "-k", "2", *args]) == 0
    out = capsys.readouterr().out
    first = out.split("\n2.")[0]
    assert out.startswith("1. score") and "news/b.html" in first and "June" in first
    assert cli_main(["search", "harbour bridge works", "-k", "2", *args]) == 0
    out = capsys.readouterr().out
    assert "\n2. score" in out and "\n3. score" not in out
    assert cli_main(["chunks", "--source", "nope", *args]) == 1


def test_a_loader_follows_the_chunks_by_what_changed_since_its_version(tmp_path, capsys):
    cfg = write_source(tmp_path, FILES)
    data, docs = tmp_path / "out", tmp_path / "docs"
    args = ["--sources", str(cfg), "--data-dir", str(data)]
    index: dict[str, str] = {}  # chunk_id -> embed_text: a vector index, as `docclean chunks --since` keeps it

    def sync(since: int) -> tuple[int, list[dict]]:
        assert cli_main(["chunks", "--source", "web", "--since", str(since), "--jsonl", *args]) == 0
        ops = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert ops[-1]["op"] == "synced" and ops[-1]["since"] == since
        for op in ops[:-1]:
            if op["op"] == "reset":
                index.clear()
            elif op["op"] == "upsert":
                index[op["chunk_id"]] = op["embed_text"]
            else:
                assert op["op"] == "delete"
                index.pop(op["chunk_id"], None)
        return ops[-1]["to_version"], ops

    def current() -> dict[str, str]:
        return dict(sql_rows(data, "SELECT chunk_id, embed_text FROM chunks"))

    assert run_ingest(cfg, data, "web").success
    first, ops = sync(0)
    assert index == current() and len(ops) == len(index) + 1
    assert sync(first) == (first, [{"op": "synced", "source": "web", "since": first, "to_version": first}])

    # between two syncs: a section edited, a page deleted, a page added then deleted again, and the
    # table embedded with its figures (its id kept, its embed_text updated)
    (docs / "report.docx").write_bytes(_report("Annual Report", {
        "Liquidity and Capital Resources": "Cash rose to 4.2 billion on operating inflows.",
        "Risk Factors": "Demand may fall in a mild winter."}))
    (docs / "news" / "a.html").unlink()
    (docs / "news" / "c.html").write_text(template_page("Canal works", "The canal drains in July."))
    assert run_ingest(cfg, data, "web").success
    passing = {i for (i,) in sql_rows(data, "SELECT chunk_id FROM chunks WHERE path = 'news/c.html'")}
    assert passing
    (docs / "news" / "c.html").unlink()
    cfg.write_text(cfg.read_text() + "settings:\n  chunk:\n    embed_table_figures: true\n")
    assert run_ingest(cfg, data, "web").success
    before = dict(index)
    second, ops = sync(first)
    assert second > first and index == current()
    upserted = {o["chunk_id"] for o in ops if o["op"] == "upsert"}
    assert upserted == {i for i, text in current().items() if before.get(i) != text}  # new or re-embedded only
    assert len(upserted) == 2 and not upserted & passing and not any(o["op"] == "reset" for o in ops)
    assert {o["chunk_id"] for o in ops if o["op"] == "delete"} >= set(before) - set(current())

    # a version this store never reached (it was rebuilt under the index): the loader rebuilds
    index["stale"] = "a vector of another store"
    assert sync(second + 100)[1][0] == {"op": "reset", "source": "web"} and index == current()
    # the listing and the file say the same
    assert cli_main(["chunks", "--source", "web", "--since", str(first), *args]) == 0
    assert "2 chunks to embed" in capsys.readouterr().out
    assert cli_main(["chunks", "--source", "web", "--since", str(first), "--out", str(tmp_path / "x"), *args]) == 0
    assert (tmp_path / "x" / "web.changes.jsonl").read_text().count("\n") == len(ops)
    assert cli_main(["chunks", "--since", "0", *args]) == 1


def test_search_hit_on_a_pdf_names_the_inspect_command_that_draws_its_page(tmp_path, capsys):
    from docclean_assets_tests.support.pdf import make_pdf, para, words

    def draw(c):
        para(c, words("Opening remarks", 40), 72, 72, 460)
        c.showPage()  # page 2 opens a section, so its text is a chunk of its own
        top = para(c, "Harbour Works", 72, 72, 460, size=20, font="Helvetica-Bold")
        para(c, "The harbour dredging starts in June. " + words("Works", 40), 72, top + 12, 460)

    cfg = write_source(tmp_path, {"works.pdf": make_pdf(draw)})
    data = tmp_path / "out"
    assert run_ingest(cfg, data, "web").success
    args = ["--sources", str(cfg), "--data-dir", str(data)]
    assert cli_main(["search", "when does the harbour dredging start", "-k", "1", *args]) == 0
    [hint] = [ln.strip() for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("inspect: ")]
    cmd = shlex.split(hint.removeprefix("inspect: "))
    assert cmd[:2] == ["docclean", "inspect"] and cmd[2] == str(cfg.parent / "docs" / "works.pdf")
    assert cmd[cmd.index("--page") + 1] == "2" and "--stored" in cmd
    png = tmp_path / "hit.png"
    assert cli_main([*cmd[1:], "--out", str(png)]) == 0 and png.stat().st_size > 0  # the hint runs as printed
    (cfg.parent / "docs" / "works.pdf").unlink()  # a file gone since the run: no command that cannot run
    assert cli_main(["search", "harbour dredging", "-k", "1", *args]) == 0
    assert "inspect: " not in capsys.readouterr().out
