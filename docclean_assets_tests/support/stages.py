"""The pipeline's stages run over a store in a test's folder, without Dagster."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from docclean_assets.engine.blob import Extractor, extract_blob
from docclean_assets.extract.settings import Settings
from docclean_assets.pipeline import derive, parse, raw
from docclean_assets.ingest.sources import Source
from docclean_assets.store.settings import StoreSettings
from docclean_assets.store.tables import Store
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA, QUALITY_SCHEMA


def store_at(root: Path, **settings) -> Store:
    return Store(root, StoreSettings(**settings))


def parse_into(store: Store, src: Source, settings: Settings, extractor: Extractor = extract_blob,
               raw_table: pa.Table | None = None, **kw) -> tuple[pa.Table, pa.Table, dict[str, dict], parse.ParseStats]:
    """(raw_files, parsed_blocks sorted by path and seq, parsed_documents by path, stats) after one parse."""
    raw_table = raw_table if raw_table is not None else raw.raw_files_table(src, Path("/nonexistent"), settings)
    with store.locked(src.name):
        store.overwrite("raw_files", src.name, raw_table)
        stats = parse.parse_source(store, src, raw_table, settings, extractor, **kw)
    blocks = store.read("parsed_blocks", src.name, BLOCKS_SCHEMA).sort_by([("path", "ascending"), ("seq", "ascending")])
    docs = {d["path"]: d for d in store.read("parsed_documents", src.name, DOCS_SCHEMA).to_pylist()}
    return raw_table, blocks, docs, stats


def derive_all(store: Store, src: Source, settings: Settings) -> tuple[pa.Table, pa.Table, dict[str, dict]]:
    """(boilerplate_sets, normalized_blocks sorted, quality_report rows by path) after the later stages."""
    with store.locked(src.name):
        sets = derive.boilerplate_table(store, src.name, settings)
        store.overwrite_if_changed("boilerplate_sets", src.name, sets)
        derive.normalize_source(store, src.name, settings)
        stream, _band, inputs = derive.quality_table(store, src, settings)
        store.overwrite("quality_report", src.name, stream, inputs)
    normalized = store.read("normalized_blocks", src.name, BLOCKS_SCHEMA).sort_by([("path", "ascending"), ("seq", "ascending")])
    quality = {r["path"]: r for r in store.read("quality_report", src.name, QUALITY_SCHEMA).to_pylist()}
    return sets, normalized, quality


def pair_tags(store: Store) -> tuple[set, set]:
    """The distinct `tag` values a reader sees in parsed_blocks and in parsed_documents (the store
    fault tests tag every row with its writer and iteration: a consistent pair shows one tag in both)."""
    con = store.connect()
    tags = tuple({t for (t,) in con.execute(f"SELECT DISTINCT tag FROM {t}").fetchall()}
                 for t in ("parsed_blocks", "parsed_documents"))
    con.close()
    return tags  # type: ignore[return-value]


# A writer process for the store fault tests: commits the parsed pair `count` times under the
# source's lock, `rows` blocks a time, every row of both tables tagged with its name and iteration.
# pause=between_commits stops after its first data commit, before the index commit (which carries
# the pin), and waits to be killed. A StoreConflict (another writer got in between) exits 4.
WRITER = r"""
import sys
import pyarrow as pa
from docclean_assets.store.tables import Store, StoreConflict
root, name, count, pause, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
s = Store(root)
real = s._replace
def paused(target, paths, data, txn, exact):
    if txn is not None and pause == "between_commits":
        print("READY", flush=True); sys.stdin.read()
    return real(target, paths, data, txn, exact)
s._replace = paused
for i in range(count):
    tag = f"{name}-{i}"
    blocks = pa.table({"path": ["doc"] * rows, "tag": [tag] * rows, "n": list(range(rows))})
    docs = pa.table({"path": ["doc"], "tag": [tag]})
    try:
        with s.locked("web"):
            s.commit_pair("parsed_blocks", "web", ["doc"], blocks, docs, blocks.schema)
    except StoreConflict as exc:
        print("CONFLICT", str(exc).splitlines()[0], flush=True)
        sys.exit(4)
    print(f"COMMITTED {tag}", flush=True)
"""


def store_writer(root: str | Path, name: str, count: int, pause: str = "none", rows: int = 500) -> subprocess.Popen:
    """Start a WRITER process on a store (a folder or an s3:// URL), stdout and stderr piped."""
    return subprocess.Popen([sys.executable, "-c", WRITER, str(root), name, str(count), pause, str(rows)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
