"""DuckDB views over the committed tables: one per table over the last commits of the served sources
(what `docclean sql`, `summary` and the readers query), and literal paths and strings for DuckDB."""
from __future__ import annotations

import re
from collections.abc import Sequence

import duckdb
import pyarrow as pa

from docclean_assets.store.damage import Damage, TableDamaged
from docclean_assets.store.names import INDEX_OF, PAIRS, TABLES

_GLOB_CHARS = re.compile(r"([\[\]*?])")


def glob_escape(path: str) -> str:
    """A literal path for DuckDB, which globs every path it reads: each of * ? [ ] matched as itself
    (a data dir named 'out[1]' or 'a*b' reads its own files, never a sibling's)."""
    return _GLOB_CHARS.sub(r"[\1]", path)


def sql_string(text: str) -> str:
    """A SQL string literal (DataFusion and DuckDB both double the quote)."""
    return "'" + text.replace("'", "''") + "'"


def connect_all(store, con: duckdb.DuckDBPyConnection, sources: Sequence[str] | None = None,  # noqa: ANN001 - a Store
                damaged: list[Damage] | None = None) -> duckdb.DuckDBPyConnection:
    """`con` with one view per table over the files of its last commits (a pair's two tables from one
    commit of it), read where they are (a user's query over a whole store on object storage reads
    what it needs of each part, never a copy of all). A damaged table raises TableDamaged; given a
    `damaged` list, it gets no view and its Damage is added there instead (the other tables stay
    queryable)."""
    names = sorted({s for t in TABLES for s in store.sources(t)}) if sources is None else list(sources)
    files: dict[str, list[str]] = {t: [] for t in TABLES}
    bad: dict[str, Damage] = {}
    for name in names:
        for table in TABLES:
            if table in INDEX_OF:
                continue  # read with its data table, from the same commit
            try:
                if table in PAIRS and (pair := store.pair(table, name)) is not None:
                    files[table].extend(pair[0].files)
                    if PAIRS[table] in files:
                        files[PAIRS[table]].extend(pair[1].files)
                elif table not in PAIRS and (snap := store.snapshot(table, name)) is not None:
                    files[table].extend(snap.files)
            except TableDamaged as exc:  # the data table's log: its index alone is still whole
                bad.setdefault(table, exc.damage)
                if PAIRS.get(table) in files and (index := store.snapshot(PAIRS[table], name)) is not None:
                    files[PAIRS[table]].extend(index.files)
    for table in TABLES:
        if table in bad:
            continue
        try:
            create_view(con, table, files[table])
        except duckdb.Error as exc:
            found = store._explained_any(table, names, exc)
            if not isinstance(found, TableDamaged):
                raise
            bad[table] = found.damage
    if bad and damaged is None:
        con.close()
        raise TableDamaged(next(iter(bad.values())))
    if damaged is not None:
        damaged.extend(bad.values())
    return con


def create_view(con: duckdb.DuckDBPyConnection, name: str, files: Sequence[str], schema: pa.Schema | None = None) -> bool:
    """A view `name` over Parquet files (or over an empty table of `schema` when there are none). A
    column of `schema` that none of the files holds (written before the column existed) reads as NULL."""
    if files:
        listed = ", ".join(sql_string(glob_escape(f)) for f in files)
        read = f"SELECT * FROM read_parquet([{listed}], union_by_name = true, hive_partitioning = false)"
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {read}")
        if schema is not None and (missing := _missing_columns(con, name, schema)):
            con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT *, {', '.join(missing)} FROM ({read})")
        return True
    if schema is not None:  # a table, not a registered view: other cursors of the database see it
        con.register(f"_{name}_empty", schema.empty_table())
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _{name}_empty")
        con.unregister(f"_{name}_empty")
        return True
    return False


def _missing_columns(con: duckdb.DuckDBPyConnection, view: str, schema: pa.Schema) -> list[str]:
    """`CAST(NULL AS type) AS "column"` for each column of `schema` that `view` lacks."""
    have = {row[0] for row in con.execute(f"DESCRIBE {view}").fetchall()}
    absent = [f for f in schema if f.name not in have]
    if not absent:
        return []
    con.register("_absent_columns", pa.schema(absent).empty_table())
    try:
        types = dict((row[0], row[1]) for row in con.execute("DESCRIBE _absent_columns").fetchall())
    finally:
        con.unregister("_absent_columns")
    return [f'CAST(NULL AS {types[f.name]}) AS "{f.name}"' for f in absent]
