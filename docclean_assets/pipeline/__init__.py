"""What each asset computes, as plain functions over batches and the store: raw (inventory), parse
(batches of documents, committed as they finish, with their progress), derive (boilerplate,
normalisation and quality, streamed over the committed parts), chunks; the tables' row schemas
(schemas.py); and what reads them back out (export.py: text; search.py: BM25 over chunks).

May import: every room below it (library, store, engine, ingest). No dagster: `defs/` wires these
functions to partitions, resources and metadata.
"""
