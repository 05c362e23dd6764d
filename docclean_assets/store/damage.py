"""What can be wrong with a committed table, found without trusting it: a Delta log that cannot be
read (an entry missing or unparsable), a pair whose index names a data version the log no longer
holds, and part files that are missing, shorter or longer than their commit recorded, or unreadable.

Each problem is a `Damage`, which says in one line which table of which source is damaged, what is
wrong with it and what to run. Readers raise it as `TableDamaged`; `repair.py` mends it.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq

from docclean_assets.store.location import Location, StoreError, one_line

_LOG_ENTRY = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(\.\d+\.\d+)?\.parquet$")
FULL_READ_BATCH_ROWS = 65_536  # rows per batch when verify reads a part whole: bounds its memory, not its speed


@dataclass(frozen=True, slots=True)
class Damage:
    """One damaged table of one partition, and what is wrong with it."""

    table: str
    key: str  # the source (or shard) whose partition it is
    problem: str  # one phrase, e.g. "part part-0-....parquet is truncated (100 of 5,321 bytes)"
    part: str | None = None  # the part file's name, when the problem is one part

    def line(self) -> str:
        """The one line a reader or `docclean verify` prints."""
        return f"table {self.table} of source {self.key!r} is damaged: {self.problem}; `docclean repair` repairs it"


class TableDamaged(StoreError):
    """A read met a damaged table; the message is the Damage's one line."""

    def __init__(self, damage: Damage):
        super().__init__(damage.line())
        self.damage = damage


@dataclass(frozen=True, slots=True)
class PartRecord:
    """What a commit recorded of one of its part files."""

    name: str  # relative to the table's folder
    uri: str  # local path or URL
    size: int  # bytes
    rows: int | None
    min_path: str | None  # the `path` column's bounds in the commit's statistics (None: not recorded)
    max_path: str | None


def part_records(dt, uri: str) -> list[PartRecord]:  # noqa: ANN001 - a deltalake DeltaTable
    """The part files a loaded version names, as its log recorded them."""
    actions = pa.table(dt.get_add_actions(flatten=True))
    columns = set(actions.column_names)

    def col(name: str) -> list:
        return actions.column(name).to_pylist() if name in columns else [None] * actions.num_rows

    return [PartRecord(unquote(name), f"{uri.rstrip('/')}/{unquote(name)}", size, rows, lo, hi)
            for name, size, rows, lo, hi in zip(col("path"), col("size_bytes"), col("num_records"),
                                                col("min.path"), col("max.path"))]


def listed_sizes(location: Location, uri: str) -> dict[str, int]:
    """Name -> size of every file directly in a table's folder (one listing, also on object storage)."""
    try:
        entries = location.fs.ls(uri, detail=True)
    except FileNotFoundError:
        return {}
    return {e["name"].rstrip("/").rsplit("/", 1)[-1]: int(e.get("size") or 0) for e in entries if e.get("type") == "file"}


def part_problem(record: PartRecord, sizes: dict[str, int]) -> str | None:
    """What is wrong with a part as the folder's listing shows it (missing, or not the size its commit
    recorded), or None."""
    name = record.name.rsplit("/", 1)[-1]
    if name not in sizes:
        return f"part {record.name} is missing"
    if sizes[name] != record.size:
        how = "truncated" if sizes[name] < record.size else "longer than committed"
        return f"part {record.name} is {how} ({sizes[name]:,} of {record.size:,} bytes)"
    return None


def read_problem(location: Location, record: PartRecord, full: bool) -> str | None:
    """What reading a part shows wrong (its footer, or with `full` every row), or None."""
    try:
        with location.fs.open(record.uri, "rb") as fh:
            reader = pq.ParquetFile(fh)
            if full:
                rows = sum(b.num_rows for b in reader.iter_batches(batch_size=FULL_READ_BATCH_ROWS))
                if record.rows is not None and rows != record.rows:
                    return f"part {record.name} holds {rows:,} rows where its commit recorded {record.rows:,}"
    except FileNotFoundError:
        return f"part {record.name} is missing"
    except (OSError, pa.ArrowException, ValueError) as exc:
        return f"part {record.name} cannot be read ({one_line(exc)[:160]})"
    return None


def log_problem(location: Location, uri: str) -> str | None:
    """What is wrong with a table's Delta log as its folder shows it (an entry missing between the last
    checkpoint and the newest one, or the newest unparsable), or None when it looks whole."""
    names = location.listdir(f"{uri}/_delta_log")
    versions = sorted(int(m.group(1)) for n in names if (m := _LOG_ENTRY.match(n)))
    if not versions:
        return None
    checkpoint = max((int(m.group(1)) for n in names if (m := _CHECKPOINT.match(n))), default=None)
    first = 0 if checkpoint is None or checkpoint > versions[-1] else checkpoint + 1  # the checkpoint holds the rest
    missing = sorted(set(range(first, versions[-1] + 1)) - set(versions))
    if missing:
        return f"its log lacks entr{'y' if len(missing) == 1 else 'ies'} {_versions(missing)} before version {versions[-1]}"
    newest = f"{uri}/_delta_log/{versions[-1]:020d}.json"
    try:
        for line in location.fs.cat_file(newest).decode("utf-8").splitlines():
            if line.strip():
                json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return f"its newest log entry (version {versions[-1]}) cannot be parsed"
    return None


def _versions(numbers: Sequence[int]) -> str:
    """1, 2, 3 or 4-9 (first and last of a long run)."""
    return ", ".join(map(str, numbers)) if len(numbers) <= 3 else f"{numbers[0]}-{numbers[-1]}"


READS = ("listing", "footer", "full")  # how far a check reads each part: sizes only, its footer, every row


def parts_damage(location: Location, table: str, key: str, uri: str, records: Sequence[PartRecord],
                 read: str = "listing") -> list[Damage]:
    """The damaged parts among a version's `records` (part_records): against one listing of the
    table's folder `uri`, then (`read` "footer" or "full") by opening each part that listing found whole."""
    if read not in READS:
        raise ValueError(f"read must be one of {READS}, not {read!r}")
    sizes = listed_sizes(location, uri)
    found = []
    for record in records:
        problem = part_problem(record, sizes)
        if problem is None and read != "listing":
            problem = read_problem(location, record, full=read == "full")
        if problem is not None:
            found.append(Damage(table, key, problem, record.name))
    return found
