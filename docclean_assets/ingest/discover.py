"""Discovery: which documents a source holds. A folder is walked (never leaving its root; links out
and unreadable folders come back as refusals, not silence), a bucket prefix is listed page by page,
with the same extension and hidden-name rules; file names are kept as text, reversibly."""
from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import NamedTuple

from docclean_assets.extract.sniff import EXTENSIONS
from docclean_assets.ingest.sources import Source, SourceConfigError
from docclean_assets.store.location import Location
from docclean_assets.store.settings import StorageSettings


class Walk(NamedTuple):
    """What discovery found below a source's root: files to read, and entries it had to refuse."""

    files: list[tuple[str, Path]]  # (relative '/'-path, absolute path), sorted
    refused: list[tuple[str, str]]  # (relative path, why): links out of the root, unreadable folders
    skipped: dict[str, int]  # files of a type docclean does not read, per extension (count_other_type)


def walk_source(root: Path) -> Walk:
    """Every supported file below root, never leaving it; links it will not follow and folders it
    cannot list are returned as refusals (they get a failed row instead of vanishing silently)."""
    root = root.resolve()
    files: list[tuple[str, Path]] = []
    refused: list[tuple[str, str]] = []
    skipped: dict[str, int] = {}

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        rel = where.relative_to(root).as_posix() if where.is_relative_to(root) else str(where)
        refused.append((f"{rel.rstrip('/')}/", f"unreadable folder: {exc.strerror or exc}; the files below it "
                        "were not listed (check its permissions)"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if discoverable_folder(d))
        for fname in sorted(filenames):
            if not discoverable_file(fname):
                count_other_type(fname, skipped)
                continue
            full = Path(dirpath) / fname
            rel = full.relative_to(root).as_posix()
            why = _refusal(full, root)
            if why is None:
                files.append((rel, full))
            else:
                refused.append((rel, why))
    return Walk(sorted(files), sorted(refused), skipped)


def discoverable_folder(name: str) -> bool:
    """Whether discovery looks inside a folder of this name (hidden folders are skipped)."""
    return not name.startswith(".")


def discoverable_file(name: str) -> bool:
    """Whether discovery takes a file of this name: a supported extension, not hidden, not an Office
    lock file (`~$report.docx`)."""
    return not name.startswith((".", "~$")) and Path(name).suffix.lower() in EXTENSIONS


def count_other_type(name: str, counts: dict[str, int]) -> None:
    """Count a file discovery passed over for its type under its extension; hidden and lock files
    are passed over on purpose and not counted."""
    if not name.startswith((".", "~$")):
        ext = Path(name).suffix.lower() or "(no extension)"
        counts[ext] = counts.get(ext, 0) + 1


def _refusal(full: Path, root: Path) -> str | None:
    """Why discovery will not read this entry (a link out of the root, dangling, not a file), or None."""
    try:
        if not full.is_symlink():
            return None if full.is_file() else "refused: not a regular file"
        real = full.resolve()
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    if not real.exists():
        return "refused: dangling symbolic link"
    if not real.is_relative_to(root):
        return "refused: symbolic link pointing outside the source root"
    if not real.is_file():
        return "refused: symbolic link to something that is not a file"
    return None


def discover_files(root: Path) -> list[tuple[str, Path]]:
    """(relative '/'-path, absolute path) of every supported file below root, never leaving it."""
    return walk_source(root).files


# File names are stored as text, losslessly: os.fsdecode turns each byte of a name that is not UTF-8
# into a lone surrogate (U+DC80-U+DCFF), which no Parquet string can hold. Such a byte is stored as
# the four characters '\xNN' and a literal backslash as '\\', so `text_to_name` gives the exact name back.
_ESCAPED = re.compile(r"\\(\\|x[0-9a-f]{2})")


def name_to_text(name: str) -> str:
    """A file name (str from the file system) as text Parquet can store, reversibly."""
    if not any(c == "\\" or "\udc80" <= c <= "\udcff" for c in name):
        return name
    return "".join("\\\\" if c == "\\" else f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else c
                   for c in name)


def text_to_name(text: str) -> str:
    """The file name `name_to_text` stored."""
    if "\\" not in text:
        return text
    return _ESCAPED.sub(lambda m: "\\" if m.group(1) == "\\" else chr(0xDC00 + int(m.group(1)[1:], 16)), text)


class Listed(NamedTuple):
    """One object below a folder source's prefix, as the listing gives it."""

    rel: str  # the key below the prefix, '/'-separated like a local relative path
    key: str
    etag: str
    size: int
    modified: dt.datetime


def list_objects(source: Source, storage: StorageSettings,
                 skipped: dict[str, int] | None = None) -> tuple[Location, list[Listed]]:
    """Every object below the source's prefix that discovery takes (recursive; the extension and
    hidden-name rules of a local folder; folder markers skipped), sorted by key; `skipped` gets the
    objects of other types, per extension. StorageUnavailable when the bucket cannot be reached,
    does not exist or refuses the credentials."""
    assert source.prefix is not None
    loc = Location(source.prefix, storage)
    loc.check(f"source {source.name!r} ({loc.url})")
    prefix = loc.url.split("://", 1)[1].partition("/")[2]
    prefix = f"{prefix}/" if prefix else ""  # `docs/`: never the neighbouring `docs-old/`
    found: list[Listed] = []
    token: dict[str, str] = {}
    keys = 0
    while True:  # ListObjectsV2 pages of up to 1000 keys; every listing is fresh (no cache)
        page = loc.fs.call_s3("list_objects_v2", Bucket=loc.bucket, Prefix=prefix, **token)
        for obj in page.get("Contents", []):
            key = obj["Key"]
            keys += 1
            rel = key[len(prefix):]
            *folders, name = rel.split("/")
            if key.endswith("/") or not all(map(discoverable_folder, folders)):
                continue
            if not discoverable_file(name):
                if skipped is not None:
                    count_other_type(name, skipped)
                continue
            found.append(Listed(rel, key, obj.get("ETag", ""), int(obj["Size"]), obj["LastModified"].astimezone(dt.UTC)))
        if not page.get("IsTruncated"):
            break
        token = {"ContinuationToken": page["NextContinuationToken"]}
    if not keys:  # like a local folder that does not exist; never an empty inventory that drops every row
        raise SourceConfigError(f"source {source.name!r}: key 'path': no object below {loc.url}/ (check the "
                                "prefix; an empty folder needs at least its folder marker)")
    return loc, sorted(found)
