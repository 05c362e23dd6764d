"""The raw_files rows of a source: every file found (discover.py) or URL fetched (fetch.py), hashed,
sniffed and addressed; an entry that cannot be read is a row with its error, never a gap."""
from __future__ import annotations

import datetime as dt
import tempfile
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from docclean_assets.extract.settings import LimitSettings
from docclean_assets.extract.sniff import doc_id, file_doc_id, format_from_extension, sniff_file, sniff_format
from docclean_assets.ingest.discover import Listed, list_objects, name_to_text, text_to_name, walk_source
from docclean_assets.ingest.fetch import CHUNK_BYTES, Fetched, fetch_page, render_page
from docclean_assets.ingest.sources import FetchSettings, Source
from docclean_assets.store.location import Location, is_url, one_line
from docclean_assets.store.settings import StorageSettings

_CONTENT_TYPES = {"application/pdf": "pdf", "text/html": "html", "application/xhtml+xml": "html",
                  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
                  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx"}


def _row(source: str, path: str, blob: str | None, claimed: str | None, modified: dt.datetime | None, *,
         size: int | None, fmt: str | None, content_id: str | None, status: int | None = None,
         error: str | None = None, rendered: bool = False) -> dict:
    """One RAW_FILES_SCHEMA row."""
    if size == 0:
        error = error or "empty file (0 bytes)"
    return {
        # Without bytes there is no content address; the path stands in so rows stay distinct.
        "source": source, "doc_id": content_id or doc_id(f"unread:{path}".encode("utf-8", "surrogatepass")),
        "path": path, "format": fmt, "bytes": size, "ext_format": claimed,
        "format_mismatch": bool(fmt and claimed and fmt != claimed),
        "modified": modified, "http_status": status, "blob": blob, "error": error, "rendered": rendered,
    }


def _zip_problem(path: Path) -> str | None:
    """Why a file that starts like a ZIP package cannot be opened as one (truncated, corrupt)."""
    try:
        with zipfile.ZipFile(path):
            return None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        return f"corrupt or truncated ZIP package ({exc})"


def folder_rows(source: Source, limits: LimitSettings, skipped: dict[str, int] | None = None) -> list[dict]:
    """Rows for every supported file below the source's folder (hashed and sniffed, never loaded
    whole; a file over `limits.max_bytes` is refused from its size, unread), plus a failed row for
    every entry discovery refuses: links out of the root, folders it cannot list. `skipped` gets the
    files of other types, per extension."""
    assert source.path is not None
    walk = walk_source(source.path)
    if skipped is not None:
        skipped.update(walk.skipped)
    rows = [_file_row(source.name, rel, full, limits) for rel, full in walk.files]
    for rel, why in walk.refused:
        rows.append(_row(source.name, name_to_text(rel), None, format_from_extension(rel), _entry_mtime(source.path / rel),
                         size=None, fmt=None, content_id=None, error=why))
    return sorted(rows, key=lambda r: r["path"])


def _entry_mtime(path: Path) -> dt.datetime | None:
    """When a refused entry (a link, a folder) last changed, from the entry itself; None if unknown.
    Not the time of the run: an unchanged folder gives an unchanged inventory."""
    try:
        return dt.datetime.fromtimestamp(path.lstat().st_mtime, tz=dt.UTC)
    except OSError:
        return None


def _file_row(source: str, rel: str, full: Path, limits: LimitSettings) -> dict:
    """The raw_files row of one file found on disk."""
    claimed = format_from_extension(rel)
    path, blob = name_to_text(rel), name_to_text(str(full))
    try:
        stat = full.stat()
        modified = dt.datetime.fromtimestamp(stat.st_mtime, tz=dt.UTC)
        if stat.st_size > limits.max_bytes:
            return _row(source, path, blob, claimed, modified, size=stat.st_size, fmt=None, content_id=None,
                        error=_too_large(stat.st_size, limits))
        fmt, error = _sniffed(full, stat.st_size, claimed)
        return _row(source, path, blob, claimed, modified, size=stat.st_size, fmt=fmt,
                    content_id=file_doc_id(full), error=error)
    except OSError as exc:
        return _row(source, path, blob, claimed, dt.datetime.now(tz=dt.UTC), size=None, fmt=None,
                    content_id=None, error=f"unreadable: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - a file that breaks sniffing costs its own row only
        return _row(source, path, blob, claimed, dt.datetime.now(tz=dt.UTC), size=None, fmt=None,
                    content_id=None, error=f"unreadable: {type(exc).__name__}: {exc}")


def _too_large(size: int, limits: LimitSettings) -> str:
    return f"file too large: {size} bytes > limit {limits.max_bytes} (limits.max_bytes); refused unread"


def _sniffed(full: Path, size: int, claimed: str | None) -> tuple[str | None, str | None]:
    """(format from the bytes, error): a DOCX/PPTX that starts like a ZIP but cannot be read as one
    says why."""
    fmt = sniff_file(full)
    if fmt is None and size and claimed in ("docx", "pptx") and _head(full) == b"PK\x03\x04":
        return None, f"{claimed}: {_zip_problem(full) or 'ZIP package without word/document.xml or ppt/presentation.xml'}"
    return fmt, None


def _head(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(4)


class ObjectInventory(NamedTuple):
    """The rows of a folder source on object storage, and what building them cost."""

    rows: list[dict]
    downloaded: int  # objects read (new or changed: another ETag or size than the last inventory's)
    reused: int  # unchanged objects whose last row was taken as it was, without reading them
    skipped: dict[str, int]  # objects of a type docclean does not read, per extension


def object_rows(source: Source, storage: StorageSettings, limits: LimitSettings,
                previous: dict[str, dict] | None = None) -> ObjectInventory:
    """Rows for every object below a folder source's prefix. An object whose key, ETag and size are
    those of the last inventory's row is not read again: that row stands. Any other object is
    streamed to a temporary file (never held in memory; refused unread above `limits.max_bytes` from
    its listed size) and hashed and sniffed exactly as a local file is; its blob is its own URL, so
    the parse reads it from the bucket. An object that cannot be read costs its own row."""
    skipped: dict[str, int] = {}
    loc, listed = list_objects(source, storage, skipped)
    previous = previous or {}
    rows, downloaded, reused = [], 0, 0
    for obj in listed:
        path, blob = name_to_text(obj.rel), f"s3://{loc.bucket}/{obj.key}"
        last = previous.get(path)
        if obj.size > limits.max_bytes:
            row = _row(source.name, path, blob, format_from_extension(obj.rel), obj.modified, size=obj.size,
                       fmt=None, content_id=None, error=_too_large(obj.size, limits))
        elif last and last.get("etag") == obj.etag and last.get("bytes") == obj.size and last.get("blob") == blob \
                and not (last.get("error") or "").startswith(("unreadable", "file too large")):
            row = {**last, "modified": obj.modified}
            reused += 1
        else:
            row = _object_row(source.name, path, blob, obj, loc, limits)
            downloaded += 1
        rows.append({**row, "etag": obj.etag, "last_modified": None})
    return ObjectInventory(rows, downloaded, reused, skipped)


def _object_row(source: str, path: str, blob: str, obj: Listed, loc: Location, limits: LimitSettings) -> dict:
    """The raw_files row of one object: its bytes streamed to a temporary file, then hashed and
    sniffed as a local file's are."""
    claimed = format_from_extension(obj.rel)
    try:
        with tempfile.NamedTemporaryFile(prefix="docclean-object-") as tmp:
            size = _download(loc, obj, tmp, limits.max_bytes)
            if size > limits.max_bytes:  # it grew after the listing: refused, the rest left unread
                return _row(source, path, blob, claimed, obj.modified, size=size, fmt=None, content_id=None,
                            error=_too_large(size, limits))
            full = Path(tmp.name)
            fmt, error = _sniffed(full, size, claimed)
            return _row(source, path, blob, claimed, obj.modified, size=size, fmt=fmt,
                        content_id=file_doc_id(full), error=error)
    except Exception as exc:  # noqa: BLE001 - an object that cannot be read costs its own row only
        if _error_code(exc) == "PreconditionFailed":
            why = "the object was replaced after it was listed (its ETag changed); run again to ingest it"
        else:
            why = f"{type(exc).__name__}: {one_line(exc)}"
        return _row(source, path, blob, claimed, obj.modified, size=None, fmt=None, content_id=None,
                    error=f"unreadable: {why}")


def _error_code(exc: BaseException) -> str | None:
    """The S3 error code behind an exception s3fs translated (an OSError caused by botocore's)."""
    for _ in range(5):  # the chain is short: OSError <- ClientError
        response = getattr(exc, "response", None)
        if isinstance(response, dict) and (code := response.get("Error", {}).get("Code")):
            return code
        if (exc := exc.__cause__ or exc.__context__) is None:  # type: ignore[assignment]
            break
    return None


def _download(loc: Location, obj: Listed, out: Any, max_bytes: int) -> int:
    """Stream one object into `out` (one GET, conditional on the listed ETag: an object replaced
    since the listing fails instead of mixing versions); the bytes read, stopping past max_bytes."""
    from fsspec.asyn import sync

    async def fetch() -> int:
        resp = await loc.fs._call_s3("get_object", Bucket=loc.bucket, Key=obj.key,
                                     **({"IfMatch": obj.etag} if obj.etag else {}))
        body, size = resp["Body"], 0
        try:
            while size <= max_bytes and (chunk := await body.read(CHUNK_BYTES)):
                out.write(chunk)
                size += len(chunk)
        finally:
            body.close()
        out.flush()
        return size

    if obj.size == 0:
        return 0
    return sync(loc.fs.loop, fetch)


def url_rows(source: Source, data: Location, limits: FetchSettings, previous: dict[str, dict] | None = None) -> list[dict]:
    """Rows for every URL of the source; fetched bodies are kept content-addressed below the data dir
    (`_blobs/<source>/`, local or on object storage). A URL fetched before is asked for conditionally
    (ETag / Last-Modified): on 304 its last row stands."""
    blob_dir = data.join("_blobs", source.name)
    previous = previous or {}
    rows = []
    for url in source.urls:
        last = previous.get(url) or {}
        reusable = bool(last.get("blob")) and not last.get("error") and data.exists(_blob_name(last["blob"]))
        try:
            got = fetch_page(url, limits, *((last.get("etag"), last.get("last_modified")) if reusable else (None, None)))
        except Exception as exc:  # noqa: BLE001 - one URL's failure is that URL's row, never the source's
            got = Fetched(None, None, None, f"fetch failed: {type(exc).__name__}: {exc}")
        if got.status == 304 and reusable:
            rows.append({**last, "http_status": 304, "modified": dt.datetime.now(tz=dt.UTC)})
            continue
        status, ctype, body, error = got.status, got.ctype, got.body, got.error
        rendered = False
        if source.render and body is not None and status is not None and 200 <= status < 300 \
                and sniff_format(body) == "html":
            body, error, rendered = render_page(url, body, limits)
        now = dt.datetime.now(tz=dt.UTC)
        claimed = _CONTENT_TYPES.get(ctype or "") or format_from_extension(url.split("?")[0])
        blob = None
        if body is not None:
            blob_path = f"{blob_dir}/{doc_id(body)}"
            if not data.exists(blob_path):
                data.write_bytes(blob_path, body)
            blob = blob_path if is_url(blob_path) else name_to_text(blob_path)
        row = _row(source.name, url, blob, claimed, now, size=None if body is None else len(body),
                   fmt=sniff_format(body) if body else None,
                   content_id=doc_id(body) if body is not None else None,
                   status=status, error=error, rendered=rendered)
        rows.append({**row, "etag": got.etag, "last_modified": got.last_modified})
    return rows


def _blob_name(blob: str) -> str:
    """A stored blob column as a location again (local names were stored losslessly as text)."""
    return blob if is_url(blob) else text_to_name(blob)
