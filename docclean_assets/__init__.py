"""docclean: clean, typed, layout-aware text blocks from PDF, DOCX, PPTX and HTML.

`docclean_assets.extract` is the pure library (no dagster); the Dagster layer lives in
`docclean_assets.definitions` and is imported only when asked for.
"""


def __getattr__(name: str):
    if name == "defs":  # for workspace.yaml / `dagster dev -m docclean_assets`
        from docclean_assets.definitions import defs

        return defs
    raise AttributeError(name)
