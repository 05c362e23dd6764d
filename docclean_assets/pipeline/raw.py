"""raw_files: the inventory of one source."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow as pa

from docclean_assets.extract.schema import fit_row
from docclean_assets.extract.settings import Settings
from docclean_assets.extract.sniff import EXTENSIONS
from docclean_assets.ingest.inventory import folder_rows, object_rows, url_rows
from docclean_assets.ingest.sources import FetchSettings, Source
from docclean_assets.store.location import Location
from docclean_assets.pipeline.schemas import RAW_FILES_SCHEMA


def raw_files_table(source: Source, data_dir: Location | Path | str, settings: Settings,
                    previous: pa.Table | None = None, fetch: FetchSettings | None = None,
                    counts: dict[str, int] | None = None, skipped: dict[str, int] | None = None) -> pa.Table:
    """The inventory of one source; `previous` (the last inventory) makes URL fetches conditional and
    spares unchanged objects of a folder on object storage their download (`counts` gets how many
    objects were `downloaded` and `reused`; `skipped`, a folder's files of other types per extension).
    Fetched pages are kept below `data_dir` (a Location, whose storage settings also reach a
    source's bucket; a path is taken as a local one)."""
    if source.path is not None:
        return rows_to_table(folder_rows(source, settings.limits, skipped), RAW_FILES_SCHEMA)
    last = {r["path"]: r for r in previous.to_pylist()} if previous is not None else {}
    data = data_dir if isinstance(data_dir, Location) else Location(data_dir)
    if source.prefix is not None:
        found = object_rows(source, data.storage, settings.limits, last)
        rows = found.rows
        if counts is not None:
            counts.update(downloaded=found.downloaded, reused=found.reused)
        if skipped is not None:
            skipped.update(found.skipped)
    else:
        rows = url_rows(source, data, fetch or FetchSettings(), last)
    return rows_to_table(rows, RAW_FILES_SCHEMA)


def skipped_line(skipped: dict[str, int]) -> str:
    """One line saying which files discovery passed over for their type, and what it reads."""
    n = sum(skipped.values())
    kinds = ", ".join(f"{ext} {k}" for ext, k in sorted(skipped.items(), key=lambda e: (-e[1], e[0])))
    return (f"{n} file{'s' * (n != 1)} skipped, of types docclean does not read ({kinds}); it reads "
            f"{', '.join(sorted(EXTENSIONS))}")


def rows_to_table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """A table of rows, each fitted to the schema first: a value no column can hold is clamped or
    nulled in its own row and can never fail the write of the others."""
    return pa.Table.from_pylist([fit_row(r, schema)[0] for r in rows], schema=schema)


def count_by(table: pa.Table, column: str) -> dict[str | None, int]:
    """Rows per value of a column (NULL as None)."""
    return dict(Counter(None if v is None else str(v) for v in table.column(column).to_pylist()))
