"""Parquet per table and source under a data directory, replaced atomically; DuckDB views over it.

Writers of one source hold an inter-process lock (fcntl.flock on `<root>/_locks/<source>.lock`), so
two runs of the same partition never interleave their writes. Several tables written together
(`write_tables`: parsed_blocks with parsed_documents) commit through an intent file: every new file
is written and fsynced first, then the intent is recorded, then the renames happen; a writer killed
between the renames is rolled forward by the next holder of the lock, and stale temporary files of
killed writers are removed then.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

# Every table docclean writes, in pipeline order; each becomes a DuckDB view of the same name.
TABLES = ("raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "quality_report")
FILE_NAME = "data.parquet"
LOCK_DIR = "_locks"
TMP_GLOB = f".{FILE_NAME}.*.tmp"

# Per-process bookkeeping so the lock is re-entrant within a thread and exclusive across threads
# (flock itself conflicts between two descriptors of one process, which would self-deadlock).
_HELD: dict[Path, list] = {}  # lock path -> [threading.RLock, fd | None, depth]
_HELD_GUARD = threading.Lock()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_GLOB_CHARS = re.compile(r"([\[\]*?])")


def glob_escape(path: str) -> str:
    """A literal path inside a DuckDB glob: each of * ? [ ] matched as itself (a data dir named
    'out[1]' or 'a*b' reads its own files, never a sibling's)."""
    return _GLOB_CHARS.sub(r"[\1]", path)


class ParquetStore:
    """`<root>/<table>/source=<name>/data.parquet`, one file per partition."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()

    def path(self, table: str, source: str) -> Path:
        """Where one partition of a table lives."""
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        return self.root / table / f"source={source}" / FILE_NAME

    def _lock_path(self, source: str) -> Path:
        return self.root / LOCK_DIR / f"{source}.lock"

    def _intent_path(self, source: str) -> Path:
        return self.root / LOCK_DIR / f"{source}.commit.json"

    @contextmanager
    def locked(self, source: str) -> Iterator[None]:
        """Hold the source's exclusive write lock (blocking until another process releases it);
        on first entry finish a commit a killed writer left half done and remove stale temp files."""
        path = self._lock_path(source)
        with _HELD_GUARD:
            entry = _HELD.setdefault(path, [threading.RLock(), None, 0])
        with entry[0]:
            if entry[2] == 0:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    entry[1] = fd
                    self._recover(source)
                except BaseException:
                    entry[1] = None
                    os.close(fd)  # closing releases the flock
                    raise
            entry[2] += 1
            try:
                yield
            finally:
                entry[2] -= 1
                if entry[2] == 0:
                    fd, entry[1] = entry[1], None
                    os.close(fd)

    def _recover(self, source: str) -> None:
        """Roll a recorded commit forward, then delete temp files no live writer owns (we hold the lock)."""
        intent = self._intent_path(source)
        if intent.exists():
            try:
                moves = json.loads(intent.read_text())
            except (OSError, ValueError):
                moves = []  # the intent itself was cut short: no rename had started
            for tmp, target in moves:
                if (self.root / tmp).exists():
                    os.replace(self.root / tmp, self.root / target)
            intent.unlink(missing_ok=True)
        for table in TABLES:
            for tmp in (self.root / table / f"source={source}").glob(TMP_GLOB):
                tmp.unlink(missing_ok=True)

    def _stage(self, table: str, source: str, data: pa.Table) -> tuple[Path, Path]:
        """Write and fsync a table's new file under a temporary name; (temp, target)."""
        target = self.path(table, source)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{FILE_NAME}.{uuid.uuid4().hex}.tmp")
        try:
            pq.write_table(data, tmp, compression="zstd")
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp, target

    def write(self, table: str, source: str, data: pa.Table) -> Path:
        """Write a partition; readers see the old file or the new one, never half of either."""
        return self.write_tables(source, {table: data})[table]

    def write_tables(self, source: str, tables: Mapping[str, pa.Table]) -> dict[str, Path]:
        """Write several partitions of one source as one commit, under the source's lock: after a
        crash at any point the next lock holder sees all of the old files or all of the new ones."""
        with self.locked(source):
            staged: dict[str, tuple[Path, Path]] = {}
            recorded = False  # once the intent is on disk, leftovers belong to the roll-forward
            try:
                for table, data in tables.items():
                    staged[table] = self._stage(table, source, data)
                if len(staged) > 1:
                    intent = self._intent_path(source)
                    tmp_intent = intent.with_suffix(".tmp")
                    with open(tmp_intent, "w") as fh:
                        json.dump([[str(t.relative_to(self.root)), str(g.relative_to(self.root))]
                                   for t, g in staged.values()], fh)
                        fh.flush()
                        os.fsync(fh.fileno())
                    os.replace(tmp_intent, intent)
                    recorded = True
                for tmp, target in staged.values():
                    os.replace(tmp, target)
                for _tmp, target in staged.values():
                    _fsync_dir(target.parent)
                self._intent_path(source).unlink(missing_ok=True)
            finally:
                if not recorded:
                    for tmp, _target in staged.values():
                        tmp.unlink(missing_ok=True)
        return {table: target for table, (_tmp, target) in staged.items()}

    def read(self, table: str, source: str, schema: pa.Schema | None = None) -> pa.Table | None:
        """A partition, or None when it was never written."""
        target = self.path(table, source)
        if not target.exists():
            return None
        return pq.read_table(target, schema=schema)

    def read_tables(self, source: str, schemas: Mapping[str, pa.Schema | None]) -> dict[str, pa.Table | None]:
        """Several partitions of one source read under its lock: one consistent commit of them."""
        with self.locked(source):
            return {table: self.read(table, source, schema) for table, schema in schemas.items()}

    def connect(self, database: str = ":memory:") -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with one view per table that has data."""
        con = duckdb.connect(database)
        for table in TABLES:
            if any((self.root / table).glob(f"source=*/{FILE_NAME}")):
                glob = (glob_escape((self.root / table).as_posix()) + f"/source=*/{FILE_NAME}").replace("'", "''")
                con.execute(
                    f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet('{glob}', union_by_name = true, hive_partitioning = false)"
                )
        return con
