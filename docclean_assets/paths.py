"""Where the sources file and the data directory are by default (no Dagster here: the CLI reads
these before it imports Dagster, so a bad config is reported at once)."""
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# Environment variables that move the defaults (used by `dagster dev`, the CLI and the tests).
SOURCES_ENV = "DOCCLEAN_SOURCES"
DATA_DIR_ENV = "DOCCLEAN_DATA_DIR"


def default_sources_file() -> Path:
    """$DOCCLEAN_SOURCES, else the bundled data/sources.yaml."""
    return Path(os.environ.get(SOURCES_ENV) or PROJECT_ROOT / "data" / "sources.yaml")


def default_data_dir() -> str | Path:
    """$DOCCLEAN_DATA_DIR as given (a URL must reach the store intact), else data/out next to the samples."""
    return os.environ.get(DATA_DIR_ENV) or PROJECT_ROOT / "data" / "out"
