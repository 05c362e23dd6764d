"""The Definitions factory: one graph per sources file and data directory."""
from __future__ import annotations

from pathlib import Path

import dagster as dg

from docclean_assets.assets import build_assets
from docclean_assets.checks import build_checks
from docclean_assets.progress import NullProgress
from docclean_assets.store.tables import Store
from docclean_assets.resources import Docclean, default_data_dir, default_sources_file
from docclean_assets.schedules import build_schedules, build_sensor
from docclean_assets.sources import load_sources


def build_defs(sources_file: str | Path | None = None, data_dir: str | Path | None = None) -> dg.Definitions:
    """The whole graph for one sources file and data directory."""
    sources_file = Path(sources_file or default_sources_file()).resolve()
    config = load_sources(sources_file)
    # a local folder resolved, a URL normalised; a bad one refused here (never made a local folder)
    data_dir = Store(str(data_dir or default_data_dir()), config.store, config.storage).root
    partitions = dg.StaticPartitionsDefinition(sorted(config.sources))
    assets = build_assets(partitions)
    return dg.Definitions(
        assets=assets,
        asset_checks=build_checks(assets[-1]),
        schedules=build_schedules(config, assets),
        sensors=[build_sensor(config, assets)],
        # `progress`: where parsed_blocks reports documents and batches besides its run log (the CLI
        # passes a terminal display; the UI needs nothing more than the log).
        resources={"docclean": Docclean(sources_file=str(sources_file), data_dir=str(data_dir)),
                   "progress": NullProgress()},
        # Steps run in the run's own process; documents are parallelised inside parsed_blocks.
        executor=dg.in_process_executor,
    )

