"""Local copies of the part files of tables on object storage, so DuckDB reads them at local speed.

A part file never changes once written (a new commit writes new parts under new names), so a copy
fetched once serves every later read, in this run and the next. Without it, every DuckDB query of a
stage (one per chunk of documents) opened every part through s3fs again: a HEAD and ranged GETs per
part per query, thousands of requests for a source committed in many batches, which made the steps
after parsing ten times slower on S3 than on a local disk (bench/object_store.py measures both).

A copy is used only when it has the size the part's commit recorded; the store checks each part
against one listing of its folder before it is served, so a part lost or cut short on the object store
is still reported as damage, never read from an old copy.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

CACHE_DIR = Path(tempfile.gettempdir()) / f"docclean-parts-{os.getuid()}"
# A copy read within this long (s) is never evicted: a step may still have a view over it, and a
# stage's queries over one view span at most minutes on the scale bench's 10,000-document source.
KEEP_RECENT_S = 3600
TRIM_EVERY = 8  # the folder is trimmed each time an eighth of the limit was fetched (not per fetch: a scan)


class PartCache:
    """A folder of part copies held to about `limit_mb` (least recently used go first)."""

    def __init__(self, limit_mb: int, root: Path = CACHE_DIR):
        self.limit = limit_mb * 1024 * 1024
        self.root = root
        self._added = self.limit  # bytes fetched since the folder was last trimmed (the first fetch trims it)

    def local(self, fs: Any, uri: str, size: int) -> str:
        """A local path holding the bytes of the part at `uri` (`size` bytes, as its commit recorded),
        fetched with `fs` unless a whole copy is here already."""
        path = self.root / hashlib.sha256(uri.encode()).hexdigest()[:40]
        try:
            if path.stat().st_size == size:
                os.utime(path)  # recently used
                return str(path)
        except FileNotFoundError:
            pass
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{os.urandom(4).hex()}.part")
        try:
            fs.get_file(uri, str(tmp))
            if tmp.stat().st_size != size:  # changed under us: never keep it
                raise OSError(f"{uri}: fetched {tmp.stat().st_size} bytes, its commit recorded {size}")
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)
        self._added += size
        if self._added >= self.limit // TRIM_EVERY:
            self._added = 0
            self._evict()
        return str(path)

    def _evict(self) -> None:
        """Delete the least recently used copies beyond the limit, sparing those used lately."""
        entries = []
        for entry in os.scandir(self.root):
            try:
                st = entry.stat()
            except FileNotFoundError:
                continue
            entries.append((st.st_mtime, st.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        if total <= self.limit:
            return
        cutoff = time.time() - KEEP_RECENT_S
        for mtime, size, path in sorted(entries):
            if total <= self.limit or mtime > cutoff:
                break
            Path(path).unlink(missing_ok=True)
            total -= size
