"""Parquet per table and source under a data directory, replaced atomically; DuckDB views over it."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

# Every table docclean writes, in pipeline order; each becomes a DuckDB view of the same name.
TABLES = ("raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "quality_report")
FILE_NAME = "data.parquet"


class ParquetStore:
    """`<root>/<table>/source=<name>/data.parquet`, one file per partition."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()

    def path(self, table: str, source: str) -> Path:
        """Where one partition of a table lives."""
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        return self.root / table / f"source={source}" / FILE_NAME

    def write(self, table: str, source: str, data: pa.Table) -> Path:
        """Write a partition; readers see the old file or the new one, never half of either."""
        target = self.path(table, source)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{FILE_NAME}.{uuid.uuid4().hex}.tmp")
        try:
            pq.write_table(data, tmp, compression="zstd")
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def read(self, table: str, source: str, schema: pa.Schema | None = None) -> pa.Table | None:
        """A partition, or None when it was never written."""
        target = self.path(table, source)
        if not target.exists():
            return None
        return pq.read_table(target, schema=schema)

    def connect(self, database: str = ":memory:") -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with one view per table that has data."""
        con = duckdb.connect(database)
        for table in TABLES:
            if any((self.root / table).glob(f"source=*/{FILE_NAME}")):
                glob = (self.root / table / "source=*" / FILE_NAME).as_posix().replace("'", "''")
                con.execute(
                    f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet('{glob}', union_by_name = true, hive_partitioning = false)"
                )
        return con
