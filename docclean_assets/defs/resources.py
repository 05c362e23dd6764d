"""The one Dagster resource: where the sources file and the data directory are."""

from functools import cached_property

import dagster as dg

from docclean_assets.ingest.sources import Source, SourcesConfig, load_sources
from docclean_assets.store.tables import Store

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
