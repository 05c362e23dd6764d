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

The root is a local folder or an object-store prefix (`s3://bucket/prefix`, see `location.py`): one
code path. Every pair commit is version-exact (no silent rebase onto another writer's commit): the
data commit must land on the pinned version and the index commit on the index version read with it,
so two writers without a shared lock (object storage has no `flock`) can never pin a mix of their
batches; the one that loses fails cleanly (`StoreConflict`) and its rerun resumes. On a local disk a
`flock` also serialises writers, so the second one waits instead of failing.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
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
from deltalake.exceptions import CommitFailedError, TableNotFoundError
from deltalake.transaction import AddAction

from docclean_assets.store.cache import PartCache
from docclean_assets.store.damage import Damage, TableDamaged, log_problem, part_records, parts_damage
from docclean_assets.store.location import Location, StorageUnavailable, StoreError
from docclean_assets.store.names import INDEX_OF, INTERNAL, PAIRS, TABLES
from docclean_assets.store.parts import Part, PartTarget, write_part
from docclean_assets.store.settings import StorageSettings, StoreSettings
from docclean_assets.store.views import create_view, sql_string

__all__ = ["Store", "StoreError", "StoreConflict", "StorageUnavailable", "TableDamaged", "Snapshot", "TABLES", "PAIRS"]

LOCK_DIR = "_locks"
SOURCES_RECORD = "_sources.json"  # the sources the last `docclean run` was configured with
_PIN_APP = "docclean:"  # app_id prefix of the pin transaction
_INPUTS_APP = "docclean-inputs"  # app_id of the number an overwrite records about its inputs
_ZSTD = WriterProperties(compression="ZSTD")  # text compresses ~1.5x better than with the default snappy



class _Held:
    """Per-process state of one source's write lock: re-entrant within a thread, exclusive across
    threads (flock itself conflicts between two descriptors of one process, which would
    self-deadlock), and the index versions its writer expects."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.fd: int | None = None
        self.depth = 0
        self.bases: dict[str, int | None] | None = None  # pair table -> index version at entry or last commit


_HELD: dict[str, _Held] = {}  # lock location -> its state
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


def path_predicate(paths: Iterable[str]) -> str:
    """`path IN (...)` over the given document paths."""
    return "path IN (" + ", ".join(sql_string(p) for p in paths) + ")"


class StoreConflict(RuntimeError):
    """Another writer committed to the same partition while this one was writing: this writer's
    last batch is not visible, everything committed before stays; a rerun resumes."""


def _conflict(where: str, exc: CommitFailedError) -> StoreConflict:
    """The StoreConflict of a commit another writer's commit got ahead of."""
    return StoreConflict(f"another writer committed to {where} at the same time; this run's last batch "
                         f"is not visible, what was committed before stays; run again to resume ({exc})")


class Store:
    """`<root>/<table>/source=<name>/`: one Delta table per table and source, below a local folder or
    an object-store prefix."""

    def __init__(self, root: str | Path, settings: StoreSettings | None = None,
                 storage: StorageSettings | None = None):
        self.location = Location(root, storage)  # a bad URL or an unsafe folder is refused here
        self.root = self.location.url
        self.settings = settings or StoreSettings()
        # Tables loaded at a named version: a version's files never change, so it is loaded once
        # (on object storage each load is a listing and a read per log entry). Read only, never
        # written through; a removed table's entries go with it.
        self._versions: dict[tuple[str, int], DeltaTable] = {}
        # The newest state of the tables this store commits to, brought up to date before each use by
        # reading only the log entries added since (a load reads every entry since the last checkpoint:
        # on object storage one GET each, for a table committed in many batches).
        self._latest: dict[str, DeltaTable] = {}
        limit = self.location.storage.part_cache_mb
        self._cache = PartCache(limit) if not self.location.is_local and limit else None

    def check(self) -> None:
        """Fail with one line (StorageUnavailable) when object storage cannot be used; locally a no-op."""
        self.location.check()

    # -- where things are -------------------------------------------------------------------
    def uri(self, table: str, source: str) -> str:
        """The Delta table of one partition (a local path or a URL)."""
        if table not in TABLES and table not in INTERNAL:
            raise ValueError(f"unknown table {table!r}")
        return self.location.join(table, f"source={source}")

    def _open(self, table: str, source: str, version: int | None = None) -> DeltaTable | None:
        """The table at a version (default: its newest), None when there is none; TableDamaged when its
        log cannot be read. A version is loaded once; the newest is brought up to date incrementally."""
        if version is None:
            return self._newest(table, source)
        uri = self.uri(table, source)
        if (known := self._versions.get((uri, version))) is not None:
            return known
        return self._load(table, source, version)

    def _load(self, table: str, source: str, version: int | None) -> DeltaTable | None:
        """`_open` from the log itself."""
        uri, opts = self.uri(table, source), self.location.delta_options()
        try:
            dt = DeltaTable(uri, version=version, storage_options=opts)
        except TableNotFoundError:  # no log (a log that lost entries raises another DeltaError)
            return None
        except Exception as exc:  # noqa: BLE001 - delta-rs raises several kinds; damage is told apart below
            if (problem := log_problem(self.location, uri)) is not None:
                raise TableDamaged(Damage(table, source, problem)) from exc
            if version is not None and (latest := DeltaTable(uri, storage_options=opts).version()) < version:
                named = f"{PAIRS[table]} names" if table in PAIRS else "a reader asked for"
                raise TableDamaged(Damage(table, source, f"its log ends at version {latest}, but {named} version "
                                          f"{version} (a log entry is missing)")) from exc
            raise
        if version is not None:
            self._versions[(uri, version)] = dt
        return dt

    def _newest(self, table: str, source: str) -> DeltaTable | None:
        """The table at its newest version (None: none): a table loaded before is brought up to date by
        reading only the log entries added since."""
        uri = self.uri(table, source)
        if (dt := self._latest.get(uri)) is not None:
            try:
                dt.update_incremental()
                return dt
            except Exception:  # noqa: BLE001 - removed or damaged since: load it afresh (or say why not)
                del self._latest[uri]
        if (dt := self._load(table, source, None)) is not None:
            self._latest[uri] = dt
        return dt

    def part_damage(self, table: str, source: str, version: int | None = None, read: str = "footer") -> list[Damage]:
        """The damaged parts of a partition's version (default: the one readers are served)."""
        if version is None:
            snap = self.snapshot(table, source)
            version = None if snap is None else snap.version
        if (dt := self._open(table, source, version)) is None:
            return []
        uri = self.uri(table, source)
        return parts_damage(self.location, table, source, uri, part_records(dt, uri), read)

    def _explained(self, table: str, source: str, exc: BaseException) -> BaseException:
        """A failed read of a partition's parts as the TableDamaged that explains it (else `exc` itself)."""
        found = self.part_damage(table, source)
        return TableDamaged(found[0]) if found else exc

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

    def owes_empty_commit(self, table: str, source: str, wrote: bool) -> bool:
        """Whether a run's last commit must be an empty first version: the run `wrote` no batch and found
        nothing unchanged, and the partition has no commit yet (a source with no documents is an empty
        partition, not a missing one: the stages below read it)."""
        return not wrote and self.snapshot(table, source) is None

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
        names = self.location.listdir(self.location.join(table))
        return sorted(n.removeprefix("source=") for n in names if n.startswith("source="))

    def stored_keys(self) -> list[str]:
        """Every partition key with a folder in any table (sources, and the shards of a sharded parse)."""
        return sorted({key for table in (*TABLES, *INTERNAL) for key in self.sources(table)})

    def record_sources(self, names: Sequence[str]) -> None:
        """Record the sources a run was configured with: what readers serve when not told otherwise."""
        self.location.write_bytes(self.location.join(SOURCES_RECORD), json.dumps(sorted(names)).encode())

    def recorded_sources(self) -> list[str] | None:
        """The sources the last `record_sources` named, or None when no run recorded any."""
        uri = self.location.join(SOURCES_RECORD)
        try:
            return list(json.loads(self.location.fs.cat_file(uri)))
        except FileNotFoundError:
            return None

    def remove(self, key: str) -> list[str]:
        """Delete one partition from every table, under its lock; the tables it was in. Each table's log
        goes first, so a reader meanwhile finds no table (served as empty), never a damaged one."""
        with self.locked(key, recover=False):
            return [table for table in (*TABLES, *INTERNAL) if self.remove_table(table, key)]

    def remove_table(self, table: str, key: str) -> bool:
        """Delete one table of one partition, its log first; whether there was one."""
        uri = self.uri(table, key)
        self._versions = {k: v for k, v in self._versions.items() if k[0] != uri}
        self._latest.pop(uri, None)
        if not self.location.exists(uri):
            return False
        log = f"{uri}/_delta_log"
        if self.location.exists(log):
            self.location.fs.rm(log, recursive=True)
        self.location.fs.rm(uri, recursive=True)
        return True

    # -- reading -----------------------------------------------------------------------------
    def readable(self, snap: Snapshot) -> list[str]:
        """Where DuckDB and pyarrow read a commit's parts: the parts themselves on a local disk; on
        object storage, local copies (cache.py), each part first checked against one listing of its
        folder for the size its commit recorded (TableDamaged when it is missing or cut short)."""
        if self._cache is None or not snap.files:
            return list(snap.files)
        uri = self.uri(snap.table, snap.source)
        records = part_records(self._open(snap.table, snap.source, snap.version), uri)
        if found := parts_damage(self.location, snap.table, snap.source, uri, records):
            raise TableDamaged(found[0])
        return [self._cache.local(self.location.fs, record.uri, record.size) for record in records]

    def read(self, table: str, source: str, schema: pa.Schema | None = None, columns: Sequence[str] | None = None,
             filter: ds.Expression | None = None) -> pa.Table | None:
        """A whole partition (or some columns, or some rows), or None when nothing was committed."""
        snap = self.snapshot(table, source)
        if snap is None:
            return None
        if schema is None:
            schema = pa.schema(self._open(table, source, snap.version).schema().to_arrow())
        loc, files = self.location, self.readable(snap)
        cached = self._cache is not None  # local copies: no remote filesystem
        try:
            return ds.dataset(files if cached else [loc.arrow_path(f) for f in files], schema=schema, format="parquet",
                              filesystem=None if cached else loc.arrow_fs).to_table(columns=columns, filter=filter)
        except (OSError, pa.ArrowException) as exc:
            raise self._explained(table, source, exc) from exc

    # -- writing -----------------------------------------------------------------------------
    def _write(self, target: str | DeltaTable, data: pa.Table | pa.RecordBatchReader, mode: str,
               txn: Transaction | None = None, exact: bool = False, **kwargs) -> None:
        """One Delta commit. `exact`: it must land on the version `target` was loaded at (no rebase
        onto another writer's commit); otherwise StoreConflict."""
        if isinstance(target, str) and self.location.is_local:
            Path(target).mkdir(parents=True, exist_ok=True)
        props = CommitProperties(app_transactions=[txn] if txn else None, max_commit_retries=0 if exact else None)
        opts = None if isinstance(target, DeltaTable) else self.location.delta_options()
        try:
            write_deltalake(target, data, mode=mode, commit_properties=props, writer_properties=_ZSTD,
                            storage_options=opts, **kwargs)
        except CommitFailedError as exc:
            raise _conflict(target.table_uri if isinstance(target, DeltaTable) else target, exc) from exc

    def overwrite(self, table: str, source: str, data: pa.Table | pa.RecordBatchReader,
                  inputs: int | None = None) -> int:
        """Replace a whole partition in one commit (a stream is written as it arrives); the version.
        `inputs` (any int64 the caller derives from what the data was made from) is recorded with it."""
        uri = self.uri(table, source)
        self._write(uri, data, "overwrite", Transaction(_INPUTS_APP, inputs) if inputs is not None else None,
                    schema_mode="overwrite")
        return self._open(table, source).version()

    def append(self, table: str, source: str, data: pa.Table, inputs: int | None = None) -> int:
        """Add rows to a partition in one commit, recording `inputs` with them as `overwrite` does; the version."""
        self._write(self.uri(table, source), data, "append",
                    Transaction(_INPUTS_APP, inputs) if inputs is not None else None)
        return self._open(table, source).version()

    def files_at(self, table: str, source: str, version: int) -> tuple[str, ...]:
        """The files of a partition at an earlier version (StoreError when that version can no longer be
        read: its log or files were cleaned up)."""
        try:
            dt = self._open(table, source, version)
        except Exception as exc:  # noqa: BLE001 - delta-rs raises several kinds for a version it cannot load
            raise StoreError(f"{self.uri(table, source)} version {version}: {exc}") from exc
        if dt is None:
            raise StoreError(f"{self.uri(table, source)}: no table")
        files = _files(dt)
        if self.location.is_local and not all(Path(f).exists() for f in files):
            raise StoreError(f"{self.uri(table, source)} version {version}: its files were vacuumed")
        return files

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

    def counts(self, table: str, source: str, column: str) -> dict[str | None, int]:
        """Rows per value of a column in the last commit (NULL as None)."""
        return dict(self.query(table, source, f'SELECT CAST("{column}" AS VARCHAR), count(*) FROM t GROUP BY 1 ORDER BY 1'))

    def count_where(self, table: str, source: str, condition: str) -> int:
        """Rows of the last commit that satisfy a SQL condition."""
        rows = self.query(table, source, f"SELECT count(*) FROM t WHERE {condition}")
        return rows[0][0] if rows else 0

    def data_version(self, table: str, keys: Sequence[str]) -> str:
        """What the partitions' last commits hold, as a digest of their files (part files get unique
        names, so the same files are the same rows): unchanged when nothing was committed, or only
        a commit that changed no rows (a vacuum); "" when none was ever committed."""
        snaps = [snap for key in keys if (snap := self.snapshot(table, key)) is not None]
        if not snaps:
            return ""
        names = sorted(f.rsplit("/", 1)[-1] for snap in snaps for f in snap.files)
        return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]

    def query(self, table: str, source: str, sql: str) -> list[tuple]:
        """The rows of `sql` over view `t` of a partition's last commit ([] when it holds no file)."""
        snap = self.snapshot(table, source)
        if snap is None or not snap.files:
            return []
        con = self._duckdb()
        try:
            create_view(con, "t", self.readable(snap))
            return con.execute(sql).fetchall()
        except duckdb.IOException as exc:
            raise self._explained(table, source, exc) from exc
        finally:
            con.close()

    def _replace(self, target: str | DeltaTable, paths: Sequence[str], data: pa.Table,
                 txn: Transaction | None, exact: bool) -> None:
        """One commit that removes the rows of `paths` and adds `data` (whose rows all lie in `paths`)."""
        if isinstance(target, str):  # no table yet: this commit creates it
            self._write(target, data, "append", txn, exact)
        elif paths:
            self._write(target, data, "overwrite", txn, exact, predicate=path_predicate(paths), schema_mode="merge")
        else:
            self._write(target, data, "append", txn, exact, schema_mode="merge")

    def commit_pair(self, table: str, source: str, replaced: Sequence[str], data: pa.Table, index: pa.Table,
                    data_schema: pa.Schema, parts: Sequence[Part] = ()) -> None:
        """Commit a batch of documents to a pair: data first, then the index pinned to it, each commit
        version-exact (StoreConflict when another writer got in between). `replaced` are paths that may
        already have rows (their old rows go); new paths only append. `parts` are data files workers
        already wrote into the data table's folder: they become visible with `data` in the same commit."""
        index_dt = self._newest(PAIRS[table], source)
        bases = self._bases(source)
        if bases is not None and (None if index_dt is None else index_dt.version()) != bases[table]:
            raise StoreConflict(f"another writer committed to {self.uri(PAIRS[table], source)} since this run "
                                f"began (version {index_dt.version() if index_dt else None}, expected {bases[table]}); "
                                "what it planned may be stale, so it stops; run again to resume")
        pinned = None if index_dt is None else index_dt.transaction_version(_PIN_APP + table)
        data_dt = self._newest(table, source)
        if data_dt is None:  # a pin needs a data table version, even with no rows
            self._write(self.uri(table, source), data_schema.empty_table(), "append", exact=True)
            data_dt = self._newest(table, source)
        if (pinned is None and data_dt.file_uris()) or (pinned is not None and data_dt.version() != pinned):
            raise StoreConflict(f"{self.uri(table, source)} holds a commit no index names (version "
                                f"{data_dt.version()}, pinned {pinned}): another writer is between its two commits; "
                                "what was committed before stays; run again to resume")
        if parts:
            version = self._commit_parts(data_dt, self.uri(table, source), replaced, data, parts)
        else:
            if data.num_rows or replaced:
                data_paths = sorted(set(replaced) | set(data.column("path").to_pylist())) if replaced else []
                self._replace(data_dt, data_paths, data, None, exact=True)
            version = data_dt.version()  # the table object follows its own writes
        index_paths = sorted(set(replaced) | set(index.column("path").to_pylist())) if replaced else []
        self._replace(index_dt or self.uri(PAIRS[table], source), index_paths, index,
                      Transaction(_PIN_APP + table, version), exact=True)
        if bases is not None:  # this writer's own commit (never a later one) is the base of its next one
            bases[table] = index_dt.version() if index_dt is not None else 0  # 0: this commit created it

    def _commit_parts(self, dt: DeltaTable, uri: str, replaced: Sequence[str], data: pa.Table,
                      parts: Sequence[Part]) -> int:
        """Delete the rows of `replaced` (a commit of its own, when any), then add the parts (and
        `data`, written as one more part) in one commit; both version-exact. The version reached."""
        if data.num_rows:
            access = None if self.location.is_local else self.location.access()
            parts = [*parts, write_part(PartTarget(uri, access), data)]
        props = CommitProperties(max_commit_retries=0)
        try:
            if replaced:
                dt.delete(path_predicate(replaced), commit_properties=props)
            base = dt.version()
            actions = [AddAction(p.name, p.size, {}, p.modified_ms, True, p.stats) for p in parts]
            dt.create_write_transaction(actions, mode="append", schema=dt.schema(), commit_properties=props)
        except CommitFailedError as exc:
            raise _conflict(dt.table_uri, exc) from exc
        return base + 1  # exact: the add landed on the version after `base` or failed

    def recover(self, table: str, source: str) -> bool:
        """Roll a pair's data table back to its pinned version if a killed writer left it ahead (both
        commits version-exact: a live writer caught between its two commits then fails cleanly)."""
        return self._recover(table, source)[0]

    def _recover(self, table: str, source: str) -> tuple[bool, int | None]:
        """`recover`, and the index version it leaves (None: no index), from one load of each table."""
        dt = self._newest(table, source)  # before the index: a pair landing between the two reads looks pinned ahead
        index = self._newest(PAIRS[table], source)
        if dt is None:
            return False, None if index is None else index.version()
        pinned = None if index is None else index.transaction_version(_PIN_APP + table)
        if pinned == dt.version() or (pinned is None and not dt.file_uris()):
            return False, None if index is None else index.version()
        if pinned is not None and pinned > dt.version():  # another writer's whole pair landed between the
            return False, index.version()                 # two reads: its data commit is the pinned one
        if pinned is None:  # no commit record at all: none of it was ever visible
            self._write(dt, pa.schema(dt.schema().to_arrow()).empty_table(), "overwrite", exact=True)
            return True, None if index is None else index.version()
        try:
            dt.restore(pinned, commit_properties=CommitProperties(max_commit_retries=0))
        except CommitFailedError as exc:
            raise StoreConflict(f"{dt.table_uri}: another writer committed while this one rolled back; what was "
                                f"committed stays; run again to resume ({exc})") from exc
        # the restore made a new version with the pinned files: pin that one, so the pair agrees again
        self._replace(index, [], pa.schema(index.schema().to_arrow()).empty_table(),
                      Transaction(_PIN_APP + table, dt.version()), exact=True)
        return True, index.version()  # the table object follows its own writes

    def vacuum(self, table: str, source: str) -> int:
        """Delete files no commit of the last `keep_replaced_hours` names, and files no commit ever
        named (parts of a killed writer or worker) once they are as old; how many went."""
        dt = self._open(table, source)
        if dt is None or (table in PAIRS and self.pinned_version(table, source) != dt.version()):
            return 0  # a pinned reader may still need files the newer commits replaced
        return len(dt.vacuum(retention_hours=self.settings.keep_replaced_hours, dry_run=False,
                             enforce_retention_duration=False, full=True))

    # -- locking -----------------------------------------------------------------------------
    @contextmanager
    def locked(self, source: str, recover: bool = True) -> Iterator[None]:
        """Hold the source's write lock: on first entry, roll back what a killed writer left and note
        each pair's index version; a pair commit inside then fails (StoreConflict) if another writer
        committed since. On a local disk the lock is also an exclusive `flock`, so a second process
        waits; object storage has no lock, and its writers are kept apart by that check alone.
        `recover` False (to remove or repair tables): no roll back, and no pair commit expected."""
        key = self.location.join(LOCK_DIR, f"{source}.lock")
        with _HELD_GUARD:
            entry = _HELD.setdefault(key, _Held())
        with entry.lock:
            if entry.depth == 0:
                fd = self._flock(Path(key)) if self.location.is_local else None
                try:
                    entry.bases = {table: self._recover(table, source)[1] for table in PAIRS} if recover else None
                except BaseException:
                    if fd is not None:
                        os.close(fd)  # closing releases the flock
                    raise
                entry.fd = fd
            entry.depth += 1
            try:
                yield
            finally:
                entry.depth -= 1
                if entry.depth == 0:
                    fd, entry.fd, entry.bases = entry.fd, None, None
                    if fd is not None:
                        os.close(fd)

    @staticmethod
    def _flock(path: Path) -> int:
        """An open descriptor holding an exclusive flock on path (blocks until it is free)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _bases(self, source: str) -> dict[str, int | None] | None:
        """The index versions this process's writer of the source holds (None: not inside `locked`)."""
        entry = _HELD.get(self.location.join(LOCK_DIR, f"{source}.lock"))
        return entry.bases if entry is not None and entry.depth else None

    # -- DuckDB ------------------------------------------------------------------------------
    def _duckdb(self, database: str = ":memory:") -> duckdb.DuckDBPyConnection:
        """A DuckDB connection held to `duckdb_memory_mb`, spilling past it into the system's temp
        folder; on object storage the location's filesystem is registered (no extension needed)."""
        con = duckdb.connect(database)
        con.execute(f"SET memory_limit = '{self.settings.duckdb_memory_mb}MB'")
        con.execute("SET enable_external_file_cache = false")  # the parts are read once per pass: caching them only grows memory
        con.execute(f"SET temp_directory = {sql_string(str(Path(tempfile.gettempdir()) / 'docclean-duckdb'))}")
        if not self.location.is_local:
            con.register_filesystem(self.location.fs)
        return con

    def connect_for(self, source: str, views: dict[str, tuple[str, pa.Schema]],
                    keys: dict[str, Sequence[str]] | None = None) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with a view per {name: (table, schema)} over one source's last commit
        (an empty one of that schema where nothing was committed). `keys` names the partitions a
        table of the source is spread over (a sharded parse); the view is their union."""
        con = self._duckdb()
        for name, (table, schema) in views.items():
            files: list[str] = []
            for key in (keys or {}).get(table, [source]):
                snap = self.snapshot(table, key)
                files.extend(self.readable(snap) if snap else ())
            try:
                create_view(con, name, files, schema)
            except duckdb.Error as exc:
                con.close()
                raise self._explained_any(table, (keys or {}).get(table, [source]), exc) from exc
        return con

    def _explained_any(self, table: str, keys: Sequence[str], exc: BaseException) -> BaseException:
        """`_explained` over the partitions a failed view was made of: the first damage found, else `exc`."""
        for key in keys:
            if (found := self._explained(table, key, exc)) is not exc:
                return found
        return exc

    def connect(self, database: str = ":memory:", sources: Sequence[str] | None = None,
                damaged: list[Damage] | None = None) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with one view per table over the last commits of `sources` (every stored
        one by default): see views.connect_all."""
        from docclean_assets.store.views import connect_all

        return connect_all(self, self._duckdb(database), sources, damaged)

