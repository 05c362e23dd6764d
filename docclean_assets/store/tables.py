"""The tables as Delta Lake tables, one per table and source, under a data directory.

Why Delta Lake (`deltalake`, delta-rs): every commit is an immutable set of Parquet part files plus
one log entry written last, so a reader always sees a whole commit and a killed writer leaves only
files no commit names. Part files get unique names from the writer, so two writers never overwrite
each other's parts, and the log's put-if-absent commit works the same on object storage.

Two tables written by one stage form a *pair*: the data table (blocks, many rows per document) and
its index (one row per document). The index commit is the pair's commit record: it carries a Delta
application transaction naming the data table version it belongs to, and readers pin the data table
to that version. A writer killed between the two commits leaves the data table ahead of its pin; the
next writer rolls it back (`recover`) before it writes.
"""
from __future__ import annotations

import fcntl
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
from deltalake import CommitProperties, DeltaTable, Transaction, WriterProperties, write_deltalake

from docclean_assets.store.settings import StoreSettings

# Every table docclean writes, in pipeline order; each becomes a DuckDB view of the same name.
TABLES = ("raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "quality_report")
# Data table -> its per-document index, whose commits pin the data table's version.
PAIRS = {"parsed_blocks": "parsed_documents", "normalized_blocks": "_normalized_documents"}
INDEX_OF = {index: data for data, index in PAIRS.items()}
INTERNAL = ("_normalized_documents",)  # bookkeeping tables: no DuckDB view
LOCK_DIR = "_locks"
_PIN_APP = "docclean:"  # app_id prefix of the pin transaction
_INPUTS_APP = "docclean-inputs"  # app_id of the number an overwrite records about its inputs
_ZSTD = WriterProperties(compression="ZSTD")  # text compresses ~1.5x better than with the default snappy

# Per-process bookkeeping so the lock is re-entrant within a thread and exclusive across threads
# (flock itself conflicts between two descriptors of one process, which would self-deadlock).
_HELD: dict[Path, list] = {}  # lock path -> [threading.RLock, fd | None, depth]
_HELD_GUARD = threading.Lock()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One committed version of one partition: the files a reader scans."""

    table: str
    source: str
    version: int
    files: tuple[str, ...]


def _files(dt: DeltaTable) -> tuple[str, ...]:
    """The local paths of a version's files (delta-rs gives them percent-encoded)."""
    return tuple(unquote(uri) for uri in dt.file_uris())


_GLOB_CHARS = re.compile(r"([\[\]*?])")


def glob_escape(path: str) -> str:
    """A literal path for DuckDB, which globs every path it reads: each of * ? [ ] matched as itself
    (a data dir named 'out[1]' or 'a*b' reads its own files, never a sibling's)."""
    return _GLOB_CHARS.sub(r"[\1]", path)


def sql_string(text: str) -> str:
    """A SQL string literal (DataFusion and DuckDB both double the quote)."""
    return "'" + text.replace("'", "''") + "'"


def path_predicate(paths: Iterable[str]) -> str:
    """`path IN (...)` over the given document paths."""
    return "path IN (" + ", ".join(sql_string(p) for p in paths) + ")"


# Characters delta-rs 1.6 mishandles in a local table path: '[' and ']' make it panic ("Invalid object
# store url"), '%' sequences are decoded as if the path were a URL (a folder 'a%20b' is read as 'a b').
_UNSAFE_PATH = re.compile(r"[\[\]%]")


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class StoreError(ValueError):
    """A data directory the table format cannot hold."""


class Store:
    """`<root>/<table>/source=<name>/`: one Delta table per table and source."""

    def __init__(self, root: str | Path, settings: StoreSettings | None = None):
        if isinstance(root, str) and _URL.match(root):  # never a local folder named after a URL
            raise StoreError(f"data dir {root!r}: object-store URLs are not supported yet; nothing was written")
        self.root = Path(root).resolve()
        if bad := sorted(set(_UNSAFE_PATH.findall(str(self.root)))):
            raise StoreError(f"data dir {str(self.root)!r}: Delta Lake (delta-rs) cannot open a path containing "
                             f"{' '.join(repr(c) for c in bad)}; choose a folder without them")
        self.settings = settings or StoreSettings()

    # -- where things are -------------------------------------------------------------------
    def uri(self, table: str, source: str) -> Path:
        """The Delta table of one partition."""
        if table not in TABLES and table not in INTERNAL:
            raise ValueError(f"unknown table {table!r}")
        return self.root / table / f"source={source}"

    def _open(self, table: str, source: str, version: int | None = None) -> DeltaTable | None:
        uri = self.uri(table, source)
        if not DeltaTable.is_deltatable(str(uri)):
            return None
        return DeltaTable(str(uri), version=version)

    def pinned_version(self, table: str, source: str) -> int | None:
        """The data table version its index's last commit names (None: no committed pair)."""
        index = self._open(PAIRS[table], source)
        return None if index is None else index.transaction_version(_PIN_APP + table)

    def snapshot(self, table: str, source: str) -> Snapshot | None:
        """The last complete commit of a partition (a pair's data table at its pin), or None."""
        if table in PAIRS:
            pair = self.pair(table, source)
            return None if pair is None else pair[0]
        dt = self._open(table, source)
        return None if dt is None else Snapshot(table, source, dt.version(), _files(dt))

    def pair(self, table: str, source: str) -> tuple[Snapshot, Snapshot] | None:
        """(data, index) of a pair's last commit, both from one read of the index."""
        index = self._open(PAIRS[table], source)
        version = None if index is None else index.transaction_version(_PIN_APP + table)
        if version is None:
            return None
        data = self._open(table, source, version)
        return (Snapshot(table, source, version, _files(data)),
                Snapshot(PAIRS[table], source, index.version(), _files(index)))

    def sources(self, table: str) -> list[str]:
        """Sources with a folder for the table (committed or not)."""
        base = self.root / table
        return sorted(p.name.removeprefix("source=") for p in base.glob("source=*")) if base.is_dir() else []

    # -- reading -----------------------------------------------------------------------------
    def read(self, table: str, source: str, schema: pa.Schema | None = None, columns: Sequence[str] | None = None,
             filter: ds.Expression | None = None) -> pa.Table | None:
        """A whole partition (or some columns, or some rows), or None when nothing was committed."""
        snap = self.snapshot(table, source)
        if snap is None:
            return None
        if schema is None:
            schema = pa.schema(self._open(table, source, snap.version).schema().to_arrow())
        return ds.dataset(list(snap.files), schema=schema, format="parquet").to_table(columns=columns, filter=filter)

    # -- writing -----------------------------------------------------------------------------
    def overwrite(self, table: str, source: str, data: pa.Table | pa.RecordBatchReader,
                  inputs: int | None = None) -> int:
        """Replace a whole partition in one commit (a stream is written as it arrives); the version.
        `inputs` (any int64 the caller derives from what the data was made from) is recorded with it."""
        uri = self.uri(table, source)
        uri.mkdir(parents=True, exist_ok=True)
        props = CommitProperties(app_transactions=[Transaction(_INPUTS_APP, inputs)]) if inputs is not None else None
        write_deltalake(str(uri), data, mode="overwrite", schema_mode="overwrite", commit_properties=props,
                        writer_properties=_ZSTD)
        return DeltaTable(str(uri)).version()

    def inputs(self, table: str, source: str) -> int | None:
        """The `inputs` number the partition's last overwrite recorded (None: none, or never written)."""
        dt = self._open(table, source)
        return None if dt is None else dt.transaction_version(_INPUTS_APP)

    def overwrite_if_changed(self, table: str, source: str, data: pa.Table) -> bool:
        """Replace a partition unless its last commit already holds exactly these rows; whether it wrote."""
        old = self.read(table, source, data.schema)
        if old is not None and old.equals(data):
            return False
        self.overwrite(table, source, data)
        return True

    def counts(self, table: str, source: str, column: str) -> dict[str, int]:
        """Rows per value of a column in the last commit (NULL as 'null')."""
        return dict(self._query(table, source, f'SELECT coalesce(CAST("{column}" AS VARCHAR), \'null\'), count(*) '
                                               "FROM t GROUP BY 1 ORDER BY 1"))

    def count_where(self, table: str, source: str, condition: str) -> int:
        """Rows of the last commit that satisfy a SQL condition."""
        rows = self._query(table, source, f"SELECT count(*) FROM t WHERE {condition}")
        return rows[0][0] if rows else 0

    def _query(self, table: str, source: str, sql: str) -> list[tuple]:
        """The rows of `sql` over view `t` of a partition's last commit ([] when it holds no file)."""
        snap = self.snapshot(table, source)
        if snap is None or not snap.files:
            return []
        con = self._duckdb()
        create_view(con, "t", snap.files)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()

    def replace(self, table: str, source: str, paths: Sequence[str], data: pa.Table,
                pin: tuple[str, int] | None = None) -> int:
        """One commit that removes the rows of `paths` and adds `data` (whose rows all lie in
        `paths`); `pin` records (data table, version) when this is an index. The new version."""
        uri = self.uri(table, source)
        props = CommitProperties(app_transactions=[Transaction(_PIN_APP + pin[0], pin[1])]) if pin else None
        if not DeltaTable.is_deltatable(str(uri)):
            uri.mkdir(parents=True, exist_ok=True)
            write_deltalake(str(uri), data, mode="append", commit_properties=props, writer_properties=_ZSTD)
        elif paths:
            write_deltalake(str(uri), data, mode="overwrite", predicate=path_predicate(paths),
                            schema_mode="merge", commit_properties=props, writer_properties=_ZSTD)
        else:
            write_deltalake(str(uri), data, mode="append", schema_mode="merge", commit_properties=props,
                            writer_properties=_ZSTD)
        return DeltaTable(str(uri)).version()

    def commit_pair(self, table: str, source: str, replaced: Sequence[str], data: pa.Table, index: pa.Table,
                    data_schema: pa.Schema) -> None:
        """Commit a batch of documents to a pair: data first, then the index pinned to it.
        `replaced` are paths that may already have rows (their old rows go); new paths only append."""
        if self._open(table, source) is None:  # a pin needs a data table version, even with no rows
            self.uri(table, source).mkdir(parents=True, exist_ok=True)
            write_deltalake(str(self.uri(table, source)), data_schema.empty_table(), mode="append",
                            writer_properties=_ZSTD)
        data_paths = sorted(set(replaced) | set(data.column("path").to_pylist())) if replaced else []
        version = self.replace(table, source, data_paths, data) if data.num_rows or replaced else \
            self._open(table, source).version()
        index_paths = sorted(set(replaced) | set(index.column("path").to_pylist())) if replaced else []
        self.replace(PAIRS[table], source, index_paths, index, pin=(table, version))

    def recover(self, table: str, source: str) -> bool:
        """Roll a pair's data table back to its pinned version if a killed writer left it ahead."""
        dt = self._open(table, source)
        if dt is None:
            return False
        pinned = self.pinned_version(table, source)
        if pinned == dt.version():
            return False
        if pinned is None:  # no commit record at all: none of it was ever visible
            write_deltalake(str(self.uri(table, source)), pa.schema(dt.schema().to_arrow()).empty_table(),
                            mode="overwrite", writer_properties=_ZSTD)
            return True
        dt.restore(pinned)
        # the restore made a new version with the pinned files: pin that one, so the pair agrees again
        index = self._open(PAIRS[table], source)
        self.replace(PAIRS[table], source, [], pa.schema(index.schema().to_arrow()).empty_table(),
                     pin=(table, self._open(table, source).version()))
        return True

    def vacuum(self, table: str, source: str) -> int:
        """Delete files no commit of the last `keep_replaced_hours` names; how many went."""
        dt = self._open(table, source)
        if dt is None or (table in PAIRS and self.pinned_version(table, source) != dt.version()):
            return 0  # a pinned reader may still need files the newer commits replaced
        return len(dt.vacuum(retention_hours=self.settings.keep_replaced_hours, dry_run=False,
                             enforce_retention_duration=False))

    # -- locking -----------------------------------------------------------------------------
    @contextmanager
    def locked(self, source: str) -> Iterator[None]:
        """Hold the source's exclusive write lock (blocking until another process releases it): one
        writer per source on a local disk. On first entry, roll back what a killed writer left."""
        path = self.root / LOCK_DIR / f"{source}.lock"
        with _HELD_GUARD:
            entry = _HELD.setdefault(path, [threading.RLock(), None, 0])
        with entry[0]:
            if entry[2] == 0:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    entry[1] = fd
                    for table in PAIRS:
                        self.recover(table, source)
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

    # -- DuckDB ------------------------------------------------------------------------------
    def _duckdb(self, database: str = ":memory:") -> duckdb.DuckDBPyConnection:
        """A DuckDB connection held to `duckdb_memory_mb`, spilling past it into the system's temp folder."""
        con = duckdb.connect(database)
        con.execute(f"SET memory_limit = '{self.settings.duckdb_memory_mb}MB'")
        con.execute("SET enable_external_file_cache = false")  # the parts are read once per pass: caching them only grows memory
        con.execute(f"SET temp_directory = {sql_string(str(Path(tempfile.gettempdir()) / 'docclean-duckdb'))}")
        return con

    def connect_for(self, source: str, views: dict[str, tuple[str, pa.Schema]]) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with a view per {name: (table, schema)} over one source's last commit
        (an empty one of that schema where nothing was committed)."""
        con = self._duckdb()
        for name, (table, schema) in views.items():
            snap = self.snapshot(table, source)
            create_view(con, name, snap.files if snap else (), schema)
        return con

    def connect(self, database: str = ":memory:", sources: Sequence[str] | None = None) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with one view per table over the files of its last commits (a pair's
        two tables from one commit of it)."""
        con = self._duckdb(database)
        names = sorted({s for t in TABLES for s in self.sources(t)}) if sources is None else list(sources)
        files: dict[str, list[str]] = {t: [] for t in TABLES}
        for name in names:
            for table in TABLES:
                if table in INDEX_OF:
                    continue  # read with its data table, from the same commit
                if table in PAIRS and (pair := self.pair(table, name)) is not None:
                    files[table].extend(pair[0].files)
                    if PAIRS[table] in files:
                        files[PAIRS[table]].extend(pair[1].files)
                elif table not in PAIRS and (snap := self.snapshot(table, name)) is not None:
                    files[table].extend(snap.files)
        for table in TABLES:
            create_view(con, table, files[table])
        return con


def create_view(con: duckdb.DuckDBPyConnection, name: str, files: Sequence[str], schema: pa.Schema | None = None) -> bool:
    """A view `name` over Parquet files (or over an empty table of `schema` when there are none)."""
    if files:
        listed = ", ".join(sql_string(glob_escape(f)) for f in files)
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet([{listed}], "
                    "union_by_name = true, hive_partitioning = false)")
        return True
    if schema is not None:  # a table, not a registered view: other cursors of the database see it
        con.register(f"_{name}_empty", schema.empty_table())
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _{name}_empty")
        con.unregister(f"_{name}_empty")
        return True
    return False
