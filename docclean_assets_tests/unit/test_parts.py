"""Part files written by cluster workers and committed by the driver: visible only once committed,
with statistics that let readers skip them; a stale commit fails cleanly; orphans are vacuumed."""
from __future__ import annotations

import json
import os
import time

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from docclean_assets.store.parts import PartTarget, read_part, write_part
from docclean_assets.store.settings import StoreSettings
from docclean_assets.store.tables import Store, StoreConflict
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA


def _blocks(*paths: str, tag: str = "") -> pa.Table:
    return pa.Table.from_pylist([{"source": "s", "doc_id": f"d-{p}", "path": p, "format": "html", "seq": i,
                                  "kind": "paragraph", "text": f"{p} {i}{tag}", "meta": [("k", "v")]}
                                 for p in paths for i in range(2)], schema=BLOCKS_SCHEMA)


def _docs(*paths: str) -> pa.Table:
    return pa.Table.from_pylist([{"source": "s", "doc_id": f"d-{p}", "path": p, "format": "html", "status": "ok",
                                  "parser_version": "v"} for p in paths], schema=DOCS_SCHEMA)


def _texts(store: Store) -> list[str]:
    return sorted(store.read("parsed_blocks", "s").column("text").to_pylist())


def test_parts_are_visible_only_once_committed_with_their_statistics(tmp_path):
    store = Store(tmp_path)
    target = PartTarget(store.uri("parsed_blocks", "s"))
    with store.locked("s"):
        store.commit_pair("parsed_blocks", "s", [], _blocks("a"), _docs("a"), BLOCKS_SCHEMA)
        part = write_part(target, _blocks("b", "c"))
        assert _texts(store) == ["a 0", "a 1"]  # written, named by no commit: no reader sees it
        assert read_part(target, part, "c").column("text").to_pylist() == ["c 0", "c 1"]
        store.commit_pair("parsed_blocks", "s", [], _blocks("d"), _docs("b", "c", "d"), BLOCKS_SCHEMA, parts=[part])
    assert _texts(store) == ["a 0", "a 1", "b 0", "b 1", "c 0", "c 1", "d 0", "d 1"]
    con = store.connect()
    assert con.execute("SELECT count(*) FROM parsed_blocks").fetchall() == [(8,)]
    actions = DeltaTable(store.uri("parsed_blocks", "s")).get_add_actions(flatten=True)
    actions = pa.table(actions).to_pylist()
    ours = next(a for a in actions if a["path"] == part.name)
    assert (ours["num_records"], ours["min.path"], ours["max.path"]) == (4, "b", "c")
    assert json.loads(part.stats)["nullCount"] == {"source": 0, "doc_id": 0, "path": 0}


def test_a_part_replacing_committed_paths_removes_their_old_rows(tmp_path):
    store = Store(tmp_path)
    target = PartTarget(store.uri("parsed_blocks", "s"))
    with store.locked("s"):
        store.commit_pair("parsed_blocks", "s", [], _blocks("a", "b"), _docs("a", "b"), BLOCKS_SCHEMA)
        part = write_part(target, _blocks("a", tag=" new"))
        store.commit_pair("parsed_blocks", "s", ["a"], BLOCKS_SCHEMA.empty_table(), _docs("a"), BLOCKS_SCHEMA,
                          parts=[part])
    assert _texts(store) == ["a 0 new", "a 1 new", "b 0", "b 1"]
    assert store.pinned_version("parsed_blocks", "s") == DeltaTable(store.uri("parsed_blocks", "s")).version()


def test_a_parts_commit_on_a_stale_table_fails_cleanly(tmp_path):
    store = Store(tmp_path)
    with store.locked("s"):
        store.commit_pair("parsed_blocks", "s", [], _blocks("a"), _docs("a"), BLOCKS_SCHEMA)
    uri = store.uri("parsed_blocks", "s")
    stale = DeltaTable(uri)
    with store.locked("s"):  # another writer commits after `stale` was read
        store.commit_pair("parsed_blocks", "s", [], _blocks("b"), _docs("b"), BLOCKS_SCHEMA)
    part = write_part(PartTarget(uri), _blocks("c"))
    with pytest.raises(StoreConflict, match="another writer committed"):
        store._commit_parts(stale, uri, [], BLOCKS_SCHEMA.empty_table(), [part])
    assert _texts(store) == ["a 0", "a 1", "b 0", "b 1"]


def test_vacuum_deletes_parts_no_commit_names_once_they_are_old_enough(tmp_path):
    store = Store(tmp_path, StoreSettings(keep_replaced_hours=1))
    target = PartTarget(store.uri("parsed_blocks", "s"))
    with store.locked("s"):
        store.commit_pair("parsed_blocks", "s", [], _blocks("a"), _docs("a"), BLOCKS_SCHEMA)
    old, fresh = write_part(target, _blocks("x")), write_part(target, _blocks("y"))  # a killed run's parts
    two_hours_ago = time.time() - 2 * 3600
    os.utime(os.path.join(target.table_uri, old.name), (two_hours_ago, two_hours_ago))
    assert store.vacuum("parsed_blocks", "s") == 1
    names = set(os.listdir(target.table_uri))
    assert old.name not in names and fresh.name in names  # a part younger than the window may be in flight
    assert _texts(store) == ["a 0", "a 1"]
