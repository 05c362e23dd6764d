"""The one Dagster resource: where the sources file and the data directory are."""

import os
from functools import cached_property
from pathlib import Path

import dagster as dg

from docclean_assets.sources import Source, SourcesConfig, load_sources
from docclean_assets.store.tables import Store

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


class Docclean(dg.ConfigurableResource):
    """Sources file and data directory of a deployment."""

    sources_file: str
    data_dir: str

    @cached_property
    def config(self) -> SourcesConfig:
        return load_sources(self.sources_file)

    @cached_property
    def store(self) -> Store:
        return Store(self.data_dir, self.config.store, self.config.storage)

    def source(self, name: str) -> Source:
        """One configured source; a partition key that is no longer configured is an error."""
        try:
            return self.config.sources[name]
        except KeyError:
            raise dg.Failure(f"source {name!r} is not in {self.sources_file}; reload definitions") from None
