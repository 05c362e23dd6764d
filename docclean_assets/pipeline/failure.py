"""Why a run failed, in one line: the first cause under the wrappers (Dagster's "Error occurred while
executing op", delta-rs's "Generic LocalFileSystem error", a Rust panic beside it), said as what
happened and what to do. A failed step never takes back a commit, so the advice is always the same
shape: what was committed stays, and a rerun resumes.

Works on Python exceptions and on Dagster's serialised errors alike (anything with `message`,
`cls_name`, `cause` and `context`), without importing Dagster.
"""
from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colour codes delta-rs puts around its chained-error arrows
RESUME = "what was committed stays, and the next run resumes from it"
_ENOSPC = re.compile(r"No space left on device|os error 28|\[Errno 28\]|ENOSPC", re.IGNORECASE)
_EDQUOT = re.compile(r"Disk quota exceeded|os error 122|\[Errno 122\]", re.IGNORECASE)
# How object_store (delta-rs) and botocore/s3fs report an HTTP status from the object store, most
# telling first: (code, reason) from the first pattern that matches.
_HTTP = (re.compile(r"\b(?P<code>5\d\d) (?P<reason>Internal Server Error|Service Unavailable|Bad Gateway|Gateway Timeout"
                    r"|Slow ?Down|Not Implemented)", re.IGNORECASE),
         re.compile(r"HTTP status (?:server|client) error \((?P<code>\d{3})(?: (?P<reason>[^)]*))?\)"),
         re.compile(r"status(?: code)?:?\s*(?P<code>5\d\d)\b", re.IGNORECASE))
_RETRIES = re.compile(r"after (\d+) retries")
# Causes whose message is already the one line a user needs (raised by docclean itself).
OWN_LINES = ("StoreConflict", "TableDamaged", "StorageUnavailable", "EngineUnavailable", "SourceConfigError", "Failure")
_WRAPPERS = ("DagsterExecutionStepExecutionError", "DagsterUserCodeExecutionError")


@dataclass(frozen=True, slots=True)
class Cause:
    """One link of an error chain."""

    cls_name: str
    message: str


def chain(error: Any) -> Iterator[Cause]:
    """Every link of an error chain, outermost first: a Python exception (__cause__, __context__) or a
    Dagster SerializableErrorInfo (cause, context)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, BaseException):
            yield Cause(type(error).__name__, str(error))
            error = error.__cause__ or error.__context__
        else:
            yield Cause(getattr(error, "cls_name", None) or "Error", getattr(error, "message", "") or "")
            error = getattr(error, "cause", None) or getattr(error, "context", None)


def first_cause(error: Any, where: str = "the data dir") -> str:
    """The one line that says why `error` happened and what to do; `where` names the storage written."""
    links = list(chain(error))
    text = "\n".join(c.message for c in links)
    if _ENOSPC.search(text):
        if "://" in where:  # the tables are remote: the full device is a local one
            return (f"no space left on a local device (the temp folder {tempfile.gettempdir()} holds DuckDB's spill "
                    f"and the copies of object-store parts): free space, then run again; {RESUME}")
        return f"no space left on the device of {where}: free space (or move the data dir), then run again; {RESUME}"
    if _EDQUOT.search(text):
        return f"disk quota exceeded on {where}: free space or raise the quota, then run again; {RESUME}"
    for link in links:  # Dagster names a class with its module: docclean_assets.store.tables.StoreConflict
        if link.cls_name.rsplit(".", 1)[-1] in OWN_LINES and link.message.strip():
            return _line(link.message)
    if (http := next((m for p in _HTTP if (m := p.search(_ANSI.sub("", text)))), None)) is not None:
        code, reason = http["code"], (http.groupdict().get("reason") or "").strip()
        retries = _RETRIES.search(text)
        tried = f" (after {retries.group(1)} retries)" if retries else ""
        return (f"the object store of {where} answered HTTP {code}{' ' + reason if reason else ''}{tried}: it is "
                f"failing or refusing requests; run again when it answers; {RESUME}")
    inner = [c for c in links if c.cls_name not in _WRAPPERS and c.message.strip()]
    deepest = inner[-1] if inner else (links[-1] if links else Cause("Error", "unknown error"))
    return f"{deepest.cls_name}: {_line(deepest.message)}; {RESUME}"


def _line(message: str) -> str:
    """A message on one line: its first line, with the lines delta-rs chains under it with an arrow
    ("Generic LocalFileSystem error", then "↳ Permission denied (os error 13)") joined after a colon."""
    lines = [_ANSI.sub("", ln).strip() for ln in message.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return ""
    chained = [ln.lstrip("↳").strip() for ln in lines[1:] if ln.startswith("↳")]
    return ": ".join([lines[0], *chained])
