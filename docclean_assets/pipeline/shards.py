"""A source split into shards for parsing, so a huge source is parsed by several processes, pods or
machines at once, each a step of its own (`shards: N` in sources.yaml).

A document's shard is a stable hash of its path. Each shard's parse has its own pair of tables in
the store (partition `<source>@<shard>`, e.g. `web@007`) and its own write lock, so shards never wait
for or conflict with each other; everything after parsing (boilerplate, normalisation, quality)
reads the union of the shards. Changing the shard count moves documents between shards: each shard's
next parse removes the rows of paths no longer its own and parses the ones new to it, and the layout's
last step empties the tables of shards the new count no longer has (`retire`)."""
from __future__ import annotations

import hashlib
import re

import pyarrow as pa

from docclean_assets.store.tables import PAIRS, Store
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA

SHARD_SEP = "@"
_SHARD_KEY = re.compile(r"^(?P<source>[a-z0-9][a-z0-9_-]*)@(?P<shard>\d{3,4})$")


def shard_keys(source: str, shards: int) -> list[str]:
    """The store partitions of a source's parse: the source itself when it is not sharded."""
    if shards == 1:
        return [source]
    return [shard_key(source, k) for k in range(shards)]


def shard_key(source: str, shard: int) -> str:
    return f"{source}{SHARD_SEP}{shard:03d}"


def shard_of(path: str, shards: int) -> int:
    """The shard a document path belongs to (stable across runs, machines and Python versions)."""
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % shards


def shard_rows(raw: pa.Table, shard: int, shards: int) -> pa.Table:
    """The inventory rows of one shard."""
    if shards == 1:
        return raw
    mask = [shard_of(p, shards) == shard for p in raw.column("path").to_pylist()]
    return raw.filter(pa.array(mask, pa.bool_()))


def stale_keys(store: Store, source: str, shards: int) -> list[str]:
    """Parse partitions of the source that the current shard count does not have (an earlier layout)."""
    current = set(shard_keys(source, shards))
    keys = set()
    for table in ("parsed_blocks", "parsed_documents"):
        for key in store.sources(table):
            match = _SHARD_KEY.match(key)
            if (key == source or (match and match["source"] == source)) and key not in current:
                keys.add(key)
    return sorted(keys)


def retire(store: Store, key: str) -> int:
    """Empty the parse tables of a partition the layout no longer has, in one pair commit (Delta
    keeps the old versions until vacuum); how many documents it held."""
    with store.locked(key):
        index = store.read(PAIRS["parsed_blocks"], key, DOCS_SCHEMA, columns=["path"])
        paths = [] if index is None else index.column("path").to_pylist()
        if paths:
            store.commit_pair("parsed_blocks", key, paths, BLOCKS_SCHEMA.empty_table(), DOCS_SCHEMA.empty_table(),
                              BLOCKS_SCHEMA)
    return len(paths)


def source_of(key: str) -> str:
    """The source a store partition belongs to: the key itself, or the source of a shard key."""
    m = _SHARD_KEY.match(key)
    return m.group("source") if m else key


def served_keys(stored: list[str], configured: set[str]) -> tuple[list[str], list[str]]:
    """(the stored partition keys of configured sources, the stored sources no longer configured)."""
    served = [k for k in stored if source_of(k) in configured]
    removed = sorted({source_of(k) for k in stored} - configured)
    return served, removed
