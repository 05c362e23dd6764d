"""Definitions for `dagster dev` (workspace.yaml): $DOCCLEAN_SOURCES / $DOCCLEAN_DATA_DIR or the bundled defaults."""
from docclean_assets.graph import build_defs
from docclean_assets.paths import default_sources_file
from docclean_assets.sources import SourceConfigError

try:
    defs = build_defs()
except SourceConfigError as exc:
    # The UI shows a load error's message above its trace: make that message the one line that says
    # which file and which key, and drop docclean's own frames (the loader's are Dagster's).
    where = str(default_sources_file())
    raise SourceConfigError(str(exc) if str(exc).startswith(where) else f"{where}: {exc}") from None
