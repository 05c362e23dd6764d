"""Where the tables live and how they are committed: Delta Lake tables on a folder or a bucket, their
parts, locks, damage and repair, DuckDB views over them.

May import: only itself, and the library's settings checker (`extract.validation`). It knows nothing
of extraction, the engine or the assets: a table is bytes with a schema the caller gives.
"""
