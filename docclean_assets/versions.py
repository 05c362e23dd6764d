"""Code versions Dagster records with every materialization: an asset is shown stale when the code
that makes it changed, and a rerun that committed nothing new keeps its data version."""
from __future__ import annotations

import hashlib
from pathlib import Path

import dagster as dg

from docclean_assets.extract.api import PARSER_VERSION

_PACKAGE = Path(__file__).parent
# The Dagster layer's code that decides what the tables hold (not how they are shown): the stages,
# the table schemas and the store.
_PIPELINE_CODE = ("pipeline", "store", "tables.py", "sources.py")


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


def changed_since_recorded(context: dg.OpExecutionContext, asset: str, version: str) -> bool:
    """Whether `version` differs from the data version Dagster last recorded for this partition."""
    records = context.instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[context.partition_key]), limit=1).records
    if not records or records[0].asset_materialization is None:
        return True
    return (records[0].asset_materialization.tags or {}).get(DATA_VERSION_TAG) != version
