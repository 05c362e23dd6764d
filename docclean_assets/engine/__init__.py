"""Where documents are parsed: warm worker processes on this machine, each document under its own
time limit and memory ceiling (isolate.py, worker.py), or the workers of a Dask cluster (run.py); its
settings (settings.py); the extractors a worker runs, which read a blob and extract it (blob.py).

May import: itself, the library and the store (blobs on object storage, part files). Not ingestion,
not the pipeline (the caller gives the engine how a document's blocks become rows). No dagster.
"""
