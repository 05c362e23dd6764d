"""The error every backend raises for a document it cannot read, and how its messages are kept
stable; below every module that uses them."""
from __future__ import annotations

import re

# Object addresses in exception messages ("<_io.BytesIO object at 0x7f...>", "... at 0x7f..."):
# removed so that the same file gives the same error on every run.
_ADDRESS = re.compile(r" (?:object )?at 0x[0-9a-fA-F]+")


class ExtractionError(Exception):
    """A document that cannot be read (corrupt, encrypted, unsupported); the message says why."""


def stable_message(message: str) -> str:
    """An error message without run-dependent object addresses."""
    return _ADDRESS.sub("", message)
