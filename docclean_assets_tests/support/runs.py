"""A small source of article pages, and every row of a store's tables: for tests that run docclean on
a data dir something happened to and compare it with a clean run's."""
from __future__ import annotations

from pathlib import Path

from docclean_assets.store.tables import Store

TOPICS = ("harbour dredging", "ferry timetable", "road closure", "library hours", "water quality", "bridge repair",
          "school meals", "tram depot")


def notices_config(tmp_path: Path, pages: int = 6, batch: int = 2) -> Path:
    """sources.yaml of one source `notices`: `pages` article pages (prose of their own, no shared
    template), committed `batch` documents at a time."""
    folder = tmp_path / "notices"
    folder.mkdir(parents=True)
    for i, topic in enumerate(TOPICS[:pages]):
        paras = "".join(f"<p>The {topic} notice, part {k}, explains what changes for residents on day {i * 7 + k} "
                        f"and whom to ask about the {topic} works.</p>" for k in range(4))
        (folder / f"notice{i}.html").write_text(f"<html><head><title>{topic.title()}</title></head><body>"
                                                f"<article><h1>{topic.title()}</h1>{paras}</article></body></html>")
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  notices:\n    path: {folder}\nsettings:\n  store:\n    batch_documents: {batch}\n")
    return cfg

TABLES = ("raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "chunks",
          "quality_report")
VOLATILE = {"parse_seconds"}  # differs between any two runs
ORDER = ("source", "path", "doc_id", "seq", "chunk_index", "scope", "pattern", "text")


def table_rows(store: Store, tables: tuple[str, ...] = TABLES) -> dict[str, list[tuple] | None]:
    """Every row of each table's last commits, volatile columns left out, in one stable order (None:
    the table has no part file, as boilerplate_sets of a source without repeated text)."""
    con, out = store.connect(), {}
    views = {name for (name,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    for table in tables:
        if table not in views:
            out[table] = None
            continue
        cols = [c for (c,) in con.execute(f"SELECT column_name FROM (DESCRIBE {table})").fetchall() if c not in VOLATILE]
        order = ", ".join(f'"{c}"' for c in ORDER if c in cols)
        out[table] = con.execute(f"SELECT {', '.join(chr(34) + c + chr(34) for c in cols)} FROM {table} "
                                 f"ORDER BY {order}").fetchall()
    con.close()
    return out
