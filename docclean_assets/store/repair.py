"""Find damaged tables (`verify`) and bring them back to a state a clean run could have left (`repair`).

Damage and its repair, per kind of table:
- a pair whose index names a data version the log no longer holds (the data table's newest log entry
  lost): the index is rolled back to its newest version whose pin the data table can still load, the
  data table back to that pin; the documents the lost commits held are not in the index any more, so
  the next run makes them again (nothing else is redone).
- a pair with damaged parts (missing, truncated, unreadable): both tables are rewritten from their
  intact parts in one pair commit; a document whose rows were in a damaged data part, or whose index
  row was in a damaged index part, is left out of both, and the next run makes it again.
- a pair whose log cannot be read at all: both tables are removed; the next run makes every document.
- raw_files, boilerplate_sets, quality_report (each rewritten whole from its inputs): removed; the next
  run writes them again. chunk_changes (a history): rewritten from its intact parts; what the damaged
  parts held is lost, and said.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
from deltalake import CommitProperties, Transaction
from deltalake.exceptions import CommitFailedError

from docclean_assets.store.damage import Damage, PartRecord, TableDamaged, part_records, parts_damage
from docclean_assets.store.tables import _PIN_APP, INDEX_OF, INTERNAL, PAIRS, TABLES, Store, StoreConflict

REMADE = ("raw_files", "boilerplate_sets", "quality_report")  # rewritten whole by every run from their inputs
REDONE = {"parsed_blocks": "parsed", "normalized_blocks": "normalised", "chunks": "chunked"}  # by the next run
LOST_NAMED = 5  # documents named in a repair's line; the rest are counted


@dataclass(frozen=True, slots=True)
class Repaired:
    """What `repair` did to one table (or pair) of one partition."""

    table: str  # the damaged table (of a pair: both, when both were)
    key: str
    damage: str  # what was wrong
    action: str  # what was done
    lost: tuple[str, ...] = ()  # documents the next run makes again
    redo: str = "made"  # what the next run does to them

    def line(self) -> str:
        """One line: what was wrong, what was done, which documents the next run makes again."""
        text = f"repaired table {self.table} of source {self.key!r}: {self.damage}; {self.action}"
        if self.lost:
            named = ", ".join(self.lost[:LOST_NAMED]) + (f" and {len(self.lost) - LOST_NAMED} more"
                                                         if len(self.lost) > LOST_NAMED else "")
            text += f"; {len(self.lost)} document(s) to be {self.redo} again: {named}"
        return text


@dataclass(slots=True)
class Tally:
    """What a check went through: tables, and the parts (and their bytes) of the versions served."""

    tables: int = 0
    parts: int = 0
    bytes: int = 0


def find_damage(store: Store, key: str, read: str = "footer", tally: Tally | None = None) -> list[Damage]:
    """Every damaged table of one partition: logs that cannot be read, pins the log lost, and parts
    (checked against one listing per table; with `read`, opened too: "footer" or "full")."""
    found: list[Damage] = []
    for table in (*TABLES, *INTERNAL):
        try:
            if (dt := store._open(table, key)) is None:
                continue
            if table in PAIRS:  # the version readers are served; TableDamaged when the log lost it
                if (pair := store.pair(table, key)) is None:
                    continue  # no commit of the pair yet: nothing is served
                dt = store._open(table, key, pair[0].version)
            uri = store.uri(table, key)
            parts = part_records(dt, uri)
            found += parts_damage(store.location, table, key, uri, parts, read)
            if tally is not None:
                tally.tables, tally.parts, tally.bytes = (tally.tables + 1, tally.parts + len(parts),
                                                          tally.bytes + sum(p.size for p in parts))
        except TableDamaged as exc:
            found.append(exc.damage)
    return list(dict.fromkeys(found))  # an index whose log is damaged is met twice: alone and with its data


def repair(store: Store, key: str, read: str = "listing") -> list[Repaired]:
    """Repair every damaged table of one partition (found as `find_damage` finds it), under its write
    lock; what was done, one Repaired per table or pair."""
    done: list[Repaired] = []
    with store.locked(key, recover=False):
        damage = find_damage(store, key, read)
        for data, index in PAIRS.items():
            mine = [d for d in damage if d.table in (data, index)]
            if mine:
                done.append(_repair_pair(store, data, key, mine))
        for table in (*TABLES, *INTERNAL):
            mine = [d for d in damage if d.table == table and table not in PAIRS and table not in INDEX_OF]
            if mine:
                done.append(_repair_single(store, table, key, mine))
    return done


def _repair_pair(store: Store, table: str, key: str, damage: Sequence[Damage]) -> Repaired:
    """One pair back to a whole commit: its pin rolled back, or its intact parts rewritten, or removed."""
    named = " and ".join(sorted({d.table for d in damage}, key=[table, PAIRS[table]].index))
    what = "; ".join(d.problem if d.table == named else f"{d.table}: {d.problem}" for d in damage)
    done = partial(Repaired, named, key, what, redo=REDONE[table])
    if any(d.part is None for d in damage):  # its log
        try:
            lost = _roll_back(store, table, key)
        except (TableDamaged, StoreConflict, CommitFailedError, OSError):
            lost = None
        if lost is None:
            docs = _paths_or_none(store, PAIRS[table], key)
            store.remove_table(table, key)
            store.remove_table(PAIRS[table], key)
            return done(f"no earlier commit of the pair could be read, so {table} was removed with {PAIRS[table]}",
                        tuple(sorted(docs or ())))
        rest = [d for d in _pair_damage(store, table, key) if d.part is not None]
        if not rest:
            return done(f"{table} and {PAIRS[table]} rolled back to their last whole commit", tuple(sorted(lost)))
        damage, lost_before = rest, lost
    else:
        lost_before = set()
    lost = _rebuild(store, table, key, {d.part for d in damage if d.table == table},
                    {d.part for d in damage if d.table == PAIRS[table]})
    return done(f"{table} and {PAIRS[table]} rewritten from their intact parts", tuple(sorted(lost | lost_before)))


def _pair_damage(store: Store, table: str, key: str) -> list[Damage]:
    """The damaged parts of both tables of a pair as readers are served them (listing only)."""
    return [*store.part_damage(table, key, read="listing"), *store.part_damage(PAIRS[table], key, read="listing")]


def _roll_back(store: Store, table: str, key: str) -> set[str] | None:
    """Roll a pair back to the newest index version whose pinned data version still loads: the paths
    the newer index held that it does not (None: no such version)."""
    index = store._open(PAIRS[table], key)
    latest = store._open(table, key).version()
    for version in range(index.version() - 1, -1, -1):
        pin = store._open(PAIRS[table], key, version).transaction_version(_PIN_APP + table)
        if pin is None or pin > latest:
            continue
        try:
            store._open(table, key, pin)
        except TableDamaged:
            continue
        lost = _paths(store, PAIRS[table], key) - _paths(store, PAIRS[table], key, version)
        props = CommitProperties(max_commit_retries=0)
        index.restore(version, commit_properties=props)
        store._write(index, pa.schema(index.schema().to_arrow()).empty_table(), "append",
                     Transaction(_PIN_APP + table, pin), exact=True)
        store.recover(table, key)  # the data table, when its log goes on past the pin
        return lost
    return None


def _rebuild(store: Store, table: str, key: str, bad_data: set[str], bad_index: set[str]) -> set[str]:
    """Rewrite a pair from its intact parts in one pair commit, leaving out every document whose rows
    or index row were in a damaged part; those documents' paths."""
    index_dt = store._open(PAIRS[table], key)
    pin = index_dt.transaction_version(_PIN_APP + table)
    data_dt = store._open(table, key, pin)
    data_parts = part_records(data_dt, store.uri(table, key))
    index_parts = part_records(index_dt, store.uri(PAIRS[table], key))
    index_schema = pa.schema(index_dt.schema().to_arrow())
    data_schema = pa.schema(data_dt.schema().to_arrow())
    index_rows = _scan(store, [p for p in index_parts if p.name not in bad_index], index_schema).to_table()
    data_paths = set(_scan(store, [p for p in data_parts if p.name not in bad_data], data_schema, columns=["path"])
                     .to_table().column("path").unique().to_pylist())
    listed = set(index_rows.column("path").to_pylist())
    lost = {p for part in data_parts if part.name in bad_data for p in listed - data_paths if _within(p, part)}
    lost |= data_paths - listed  # their index rows were in a damaged index part
    kept = index_rows.filter(pc.invert(pc.is_in(index_rows.column("path"), pa.array(sorted(lost), pa.string()))))
    keep = pa.array(sorted(set(kept.column("path").to_pylist())), pa.string())
    rows = _scan(store, [p for p in data_parts if p.name not in bad_data], data_schema,
                 pc.field("path").isin(keep)).to_reader()
    latest = store._open(table, key)
    store._write(latest, rows, "overwrite", exact=True)
    store._write(index_dt, kept, "overwrite", Transaction(_PIN_APP + table, store._open(table, key).version()),
                 exact=True)
    return lost


def _repair_single(store: Store, table: str, key: str, damage: Sequence[Damage]) -> Repaired:
    """A table that is no pair: removed when the next run rewrites it whole, else its intact parts kept."""
    what = "; ".join(d.problem for d in damage)
    bad = {d.part for d in damage}
    if table in REMADE or None in bad:
        store.remove_table(table, key)
        return Repaired(table, key, what, "removed; the next run writes it again")
    dt = store._open(table, key)
    parts = part_records(dt, store.uri(table, key))
    lost_rows = sum(p.rows or 0 for p in parts if p.name in bad)
    rows = _scan(store, [p for p in parts if p.name not in bad], pa.schema(dt.schema().to_arrow())).to_reader()
    store._write(dt, rows, "overwrite", exact=True)
    return Repaired(table, key, what, f"rewritten from its intact parts; {lost_rows:,} row(s) of the damaged parts are lost")


def _scan(store: Store, parts: Sequence[PartRecord], schema: pa.Schema, where: pc.Expression | None = None,
          columns: Sequence[str] | None = None) -> ds.Scanner:
    """A scanner over some parts of a table."""
    loc = store.location
    return ds.dataset([loc.arrow_path(p.uri) for p in parts], schema=schema, format="parquet",
                      filesystem=loc.arrow_fs).scanner(columns=columns, filter=where)


def _within(path: str, part: PartRecord) -> bool:
    """Whether a path may be in a part, by its commit's bounds of `path` (a bound may be cut short)."""
    if part.min_path is None or part.max_path is None:
        return True
    return part.min_path <= path and (path <= part.max_path or path.startswith(part.max_path))


def _paths(store: Store, table: str, key: str, version: int | None = None) -> set[str]:
    """The `path`s of a table's version."""
    dt = store._open(table, key, version)
    parts = part_records(dt, store.uri(table, key))
    return set(_scan(store, parts, pa.schema(dt.schema().to_arrow()), columns=["path"]).to_table()
               .column("path").to_pylist())


def _paths_or_none(store: Store, table: str, key: str) -> set[str] | None:
    """`_paths` of the latest version, or None when it cannot be read."""
    try:
        return _paths(store, table, key)
    except (TableDamaged, OSError, pa.ArrowException):
        return None


def repair_all(store: Store, keys: Iterable[str], read: str = "listing") -> list[Repaired]:
    """`repair` over several partitions."""
    return [r for key in keys for r in repair(store, key, read)]

