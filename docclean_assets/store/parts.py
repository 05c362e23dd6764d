"""Parquet part files written by whoever made the rows (a cluster worker), committed by the run's driver.

A cluster worker writes its documents' blocks as one part file straight into the data table's folder,
under a name no other writer can pick (a UUID, as delta-rs names its own parts), and returns only a
`Part`: where the file is, its size and its Delta statistics. Nothing names the file until the driver
commits it (`Store.commit_pair(parts=...)`), so a worker or run killed before that leaves only a file no
commit names (`vacuum` deletes it); readers never see it.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from docclean_assets.store.location import Access, worker_arrow_fs

# Columns whose min/max/null counts a part's commit records: the ones the stages filter on (a
# predicate delete by path, a read of one document), so delta-rs and DuckDB skip the other parts.
STATS_COLUMNS = ("source", "doc_id", "path")
PART_COMPRESSION = "zstd"  # as the driver's own commits (text compresses ~1.5x better than with snappy)


@dataclass(frozen=True, slots=True)
class Part:
    """A written, not yet committed, part file of a Delta table."""

    name: str  # relative to the table's folder
    size: int  # bytes
    rows: int
    stats: str  # Delta per-file statistics (JSON)
    modified_ms: int


@dataclass(frozen=True, slots=True)
class PartTarget:
    """Where a worker writes: a Delta table's folder (local path or URL) and the run's storage access
    (None for a local folder)."""

    table_uri: str
    access: Access | None = None


def write_part(target: PartTarget, data: pa.Table) -> Part:
    """Write `data` as one new Parquet file in the table's folder; the Part its commit needs."""
    name = f"part-00000-{uuid.uuid4()}-c000.{PART_COMPRESSION}.parquet"
    if target.access is None:
        Path(target.table_uri).mkdir(parents=True, exist_ok=True)
    fs, where = _where(target, name)
    pq.write_table(data, where, filesystem=fs, compression=PART_COMPRESSION)
    size = (Path(where).stat().st_size if fs is None else fs.get_file_info(where).size)
    return Part(name, size, data.num_rows, part_stats(data), int(time.time() * 1000))


def part_stats(data: pa.Table) -> str:
    """The Delta statistics of a part: row count, and min/max/null count of STATS_COLUMNS."""
    mins, maxs, nulls = {}, {}, {}
    for name in STATS_COLUMNS:
        if name not in data.column_names:
            continue
        column = data.column(name)
        nulls[name] = column.null_count
        if data.num_rows > column.null_count:
            bounds = pc.min_max(column)
            mins[name], maxs[name] = bounds["min"].as_py(), bounds["max"].as_py()
    return json.dumps({"numRecords": data.num_rows, "minValues": mins, "maxValues": maxs, "nullCount": nulls})


def read_part(target: PartTarget, part: Part, path: str) -> pa.Table:
    """The rows of one document (by path) in a written part."""
    fs, where = _where(target, part.name)
    return pq.read_table(where, filesystem=fs, filters=pc.field("path") == path)


def _where(target: PartTarget, name: str) -> tuple[Any, str]:
    """The pyarrow filesystem (None: the local one) and path of a part file of the target table."""
    uri = f"{target.table_uri.rstrip('/')}/{name}"
    if target.access is None:
        return None, uri
    return worker_arrow_fs(target.access), uri.split("://", 1)[1]
