"""The error every backend raises for a document it cannot read; below every module that uses it."""
from __future__ import annotations


class ExtractionError(Exception):
    """A document that cannot be read (corrupt, encrypted, unsupported); the message says why."""
