"""What the assets record in Dagster besides their tables: metadata shapes and upstream checks.
Every value is shown as written: no None, NaN or empty key reaches the UI (a missing value is "")."""

import math

import dagster as dg
import pyarrow as pa

from docclean_assets.defs.resources import Docclean
from docclean_assets.pipeline.schemas import column_description

_TYPES = {"int": "int", "float": "float", "bool": "bool"}  # Python type -> the UI's column type


def schema_meta(schema: pa.Schema) -> dg.TableSchema:
    """The table's columns as the UI lists them: name, Arrow type, nullability and description."""
    return dg.TableSchema(columns=[
        dg.TableColumn(f.name, str(f.type), description=column_description(f.name),
                       constraints=dg.TableColumnConstraints(nullable=f.nullable))
        for f in schema])


def shown(value: object) -> str | int | float | bool:
    """A value as one metadata cell: None and NaN are "", lists are comma-joined, floats rounded."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, (bool, int, str)):
        return value
    return str(value)


def table_value(rows: list[dict], columns: list[str]) -> dg.MetadataValue:
    """Rows as a table the UI renders (`MetadataValue.table`), each column typed by its first value."""
    cells = [{c: shown(r.get(c)) for c in columns} for r in rows]
    def kind(c: str) -> str:
        return next((_TYPES.get(type(r[c]).__name__, "string") for r in cells if r[c] != ""), "string")
    schema = dg.TableSchema(columns=[dg.TableColumn(c, kind(c)) for c in columns])
    return dg.MetadataValue.table(records=[dg.TableRecord(r) for r in cells], schema=schema)


def counts_value(counts: dict[str | None, int], label: str, none_as: str, unit: str = "blocks") -> dg.MetadataValue:
    """Counts of `unit` per value as a two-column table, largest first; the None value is named `none_as`."""
    rows = sorted(((none_as if k is None else k, n) for k, n in counts.items()), key=lambda kn: (-kn[1], kn[0]))
    return table_value([{label: k, unit: n} for k, n in rows], [label, unit])


def result_meta(path: str, rows: int, schema: pa.Schema, **extra) -> dict:
    """An asset's metadata: row count, column schema, where its table is, and `extra`."""
    return {
        "dagster/row_count": rows,
        "dagster/column_schema": schema_meta(schema),
        "path": dg.MetadataValue.path(str(path)),
        **extra,
    }


def require(dc: Docclean, table: str, source: str, keys: list[str] | None = None) -> None:
    """Fail clearly when an upstream partition (or one of its shards) was never committed."""
    missing = [k for k in keys or [source] if dc.store.snapshot(table, k) is None]
    if missing:
        what = repr(source) if missing == [source] else f"{source!r} (shards {', '.join(missing)})"
        raise dg.Failure(f"{table} has no partition {what} yet: materialize it first")
