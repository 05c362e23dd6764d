"""Definitions for `dagster dev` (workspace.yaml): $DOCCLEAN_SOURCES / $DOCCLEAN_DATA_DIR or the bundled defaults."""
from docclean_assets.graph import build_defs

defs = build_defs()
