"""docclean: clean, typed, layout-aware text blocks from PDF, DOCX, PPTX and HTML.

The package's rooms (README "Layout"): `extract` is the pure library (bytes in, blocks out; no
dagster); `store` keeps the tables; `ingest` finds and fetches documents; `engine` parses them in
workers or on a Dask cluster; `pipeline` is the assets' bodies as plain functions; `defs` is the only
Dagster layer; `cli.py` sits on top. Nothing here imports Dagster until asked for.
"""


def __getattr__(name: str):
    if name == "defs":  # `dagster dev -m docclean_assets -a defs`
        from docclean_assets.defs.definitions import defs

        return defs()
    raise AttributeError(name)
