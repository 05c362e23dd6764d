"""Code versions Dagster records with every materialization: an asset is shown stale when the code
that makes it changed, and a rerun that committed nothing new keeps its data version."""
from __future__ import annotations

import hashlib
from pathlib import Path

import dagster as dg

from docclean_assets.extract.api import PARSER_VERSION

_PACKAGE = Path(__file__).parents[1]
# The code around the library that decides what the tables hold (not how they are shown): the
# stages and the table schemas, the store, the engine and ingestion.
_PIPELINE_CODE = ("pipeline", "store", "engine", "ingest")


def _pipeline_version() -> str:
    """A digest of the stage code over the library: changes with a stage, a schema or the store."""
    digest = hashlib.sha256()
    for name in _PIPELINE_CODE:
        root = _PACKAGE / name
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


# The tag Dagster stores a materialization's data version in (dagster._core's DATA_VERSION_TAG,
# not exported by the public API).
DATA_VERSION_TAG = "dagster/data_version"

# Every asset depends on the parser's output, so each asset's code version names the parser's
# version (extract/api.py: a digest of the extraction library's source) and the pipeline's.
CODE_VERSION = f"parser-{PARSER_VERSION}.pipeline-{_pipeline_version()}"


NO_COMMIT = "no-commit"  # the data version of a table nothing was ever committed to


def data_version(store_version: str) -> dg.DataVersion:
    """The DataVersion Dagster records for a store's data version ("" when never committed)."""
    return dg.DataVersion(store_version or NO_COMMIT)


def last_recorded(context: dg.OpExecutionContext, asset: str) -> dg.AssetMaterialization | None:
    """The materialization Dagster last recorded for this asset and partition, if any."""
    records = context.instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[context.partition_key]), limit=1).records
    return records[0].asset_materialization if records else None


def changed_since(previous: dg.AssetMaterialization | None, version: dg.DataVersion) -> bool:
    """Whether `version` differs from the data version of `previous` (True when there is none)."""
    return previous is None or (previous.tags or {}).get(DATA_VERSION_TAG) != version.value
