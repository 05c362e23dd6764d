"""What the assets record in Dagster besides their tables: metadata shapes and upstream checks."""

import dagster as dg
import pyarrow as pa

from docclean_assets.resources import Docclean


def schema_meta(schema: pa.Schema) -> dg.TableSchema:
    return dg.TableSchema(columns=[dg.TableColumn(f.name, str(f.type)) for f in schema])


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
