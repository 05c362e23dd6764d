"""Reading a document's bytes where raw_files found them and extracting them: the extractors a parse
worker runs. `extract_blob` is the default; a run's config may name another (tests inject faults so).

An extractor is a module-level function `(blob, fmt, **options) -> Extraction`: it travels to the worker
pickled by reference, so the worker imports its module, and the import shows here or at the caller.
"""
from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from typing import Any

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.model import Extraction
from docclean_assets.store.location import Access, is_url, worker_fs

Extractor = Callable[..., Any]


def _checked(data: bytes, sha256: str | None, what: str) -> bytes:
    """The bytes, refused when they no longer match the sha256 raw_files recorded."""
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise ExtractionError(f"{what} changed while being ingested (its bytes no longer match the sha256 that "
                              "raw_files recorded); run again to ingest the new version")
    return data


def extract_file(blob: str, fmt: str, *, sha256: str | None = None, **options: Any) -> Any:
    """Read the file and extract it. With `sha256` (the content address raw_files took), bytes that no
    longer match are refused: the blocks stored under a doc_id are always those of its bytes. The stage
    trace (every char of every page, for debugging) stays in the worker: only blocks and report return."""
    try:
        with open(blob, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:  # deleted (or moved) after raw_files listed it: this row, in one line
        raise ExtractionError("file disappeared before it was parsed (listed by raw_files, gone when its worker "
                              "opened it); the next run drops its rows") from None
    result = extract_document(_checked(data, sha256, "file"), fmt, **options)
    return Extraction(result.blocks, result.report)


def extract_object(blob: str, fmt: str, *, access: Access, sha256: str | None = None, **options: Any) -> Any:
    """Read an object-store blob with the credentials the run resolved (never the worker's environment:
    the fork server may predate it), check it is still the one raw_files hashed, and extract it."""
    try:
        data = worker_fs(access).cat_file(blob)
    except FileNotFoundError:  # deleted after raw_files listed it: this row, in one line
        raise ExtractionError("object disappeared before it was parsed (listed by raw_files, gone when its worker "
                              "read it); the next run drops its rows") from None
    result = extract_document(_checked(data, sha256, "object"), fmt, **options)
    return Extraction(result.blocks, result.report)


def extract_blob(blob: str, fmt: str, *, access: Access | None = None, **options: Any) -> Any:
    """The default extractor: an object-store URL through `extract_object` (with the `access` the run
    resolved), a local file through `extract_file`."""
    if is_url(blob):
        if access is None:
            raise ValueError(f"{blob}: an object-store blob needs the run's storage access")
        return extract_object(blob, fmt, access=access, **options)
    return extract_file(blob, fmt, **options)


def named_extractor(name: str | None) -> Extractor:
    """The extractor a run's config names as 'module:function', else `extract_blob`."""
    if not name:
        return extract_blob
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)
