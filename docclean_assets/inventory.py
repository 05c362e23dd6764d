"""The raw_files inventory of a source: every file found or URL fetched, sniffed and addressed."""
from __future__ import annotations

import datetime as dt
import http.client
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from docclean_assets.extract.settings import LimitSettings
from docclean_assets.extract.sniff import doc_id, file_doc_id, format_from_extension, sniff_file, sniff_format
from docclean_assets.store.location import Location, is_url, one_line
from docclean_assets.store.settings import StorageSettings
from docclean_assets.sources import (
    FetchSettings, Source, SourceConfigError, count_other_type, discoverable_file, discoverable_folder, name_to_text,
    text_to_name, walk_source,
)

USER_AGENT = "docclean/0.1 (document-cleaning pipeline; polite fetcher)"
CHUNK_BYTES = 64 * 1024  # body read size between deadline checks
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


class Listed(NamedTuple):
    """One object below a folder source's prefix, as the listing gives it."""

    rel: str  # the key below the prefix, '/'-separated like a local relative path
    key: str
    etag: str
    size: int
    modified: dt.datetime


class ObjectInventory(NamedTuple):
    """The rows of a folder source on object storage, and what building them cost."""

    rows: list[dict]
    downloaded: int  # objects read (new or changed: another ETag or size than the last inventory's)
    reused: int  # unchanged objects whose last row was taken as it was, without reading them
    skipped: dict[str, int]  # objects of a type docclean does not read, per extension


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


class Fetched(NamedTuple):
    """One GET: status, content type, body, error, and the validators for the next conditional GET."""

    status: int | None
    ctype: str | None
    body: bytes | None
    error: str | None
    etag: str | None = None
    last_modified: str | None = None


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow at most `max_redirections` redirects, and only to http(s) URLs (never file:, ftp:...)."""

    def __init__(self, max_redirects: int) -> None:
        super().__init__()
        self.max_redirections = max_redirects
        self.max_repeats = max_redirects

    def http_error_302(self, req, fp, code, msg, headers):  # type: ignore[no-untyped-def]
        newurl = headers.get("location") or headers.get("uri") or ""
        scheme = urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, newurl)).scheme.lower()
        if scheme not in ("http", "https"):
            raise urllib.error.HTTPError(req.full_url, code, f"redirect to a {scheme or 'schemeless'}: URL refused "
                                         "(http and https only)", headers, fp)
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


class _Deadline(Exception):
    """The whole fetch (connect, redirects, body) took longer than its timeout."""


def _read_body(resp, max_bytes: int, deadline: float) -> bytes:  # type: ignore[no-untyped-def]
    """Up to max_bytes + 1 bytes, in chunks, stopping at the deadline (a server dripping one byte a
    second never trips the per-socket timeout)."""
    chunks, size = [], 0
    while size <= max_bytes:
        if time.monotonic() > deadline:
            raise _Deadline
        chunk = resp.read1(min(CHUNK_BYTES, max_bytes + 1 - size))  # what has arrived, not a full chunk
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _fetch_once(opener, req, limits: FetchSettings) -> Fetched:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    deadline = started + limits.timeout_s
    try:
        with opener.open(req, timeout=limits.timeout_s) as resp:
            body = _read_body(resp, limits.max_bytes, deadline)
            ctype = (resp.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if len(body) > limits.max_bytes:
                return Fetched(resp.status, ctype, None, f"response larger than {limits.max_bytes} bytes")
            return Fetched(resp.status, ctype, body, None, resp.headers.get("ETag"), resp.headers.get("Last-Modified"))
    except urllib.error.HTTPError as exc:
        if exc.code == 304:  # Not Modified: the copy from the last fetch is current
            return Fetched(304, None, None, None, exc.headers.get("ETag"), exc.headers.get("Last-Modified"))
        return Fetched(exc.code, None, None, f"HTTP {exc.code} {exc.reason}")
    except _Deadline:
        return Fetched(None, None, None, f"fetch failed: timed out after {limits.timeout_s:g} s")
    except (urllib.error.URLError, TimeoutError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            return Fetched(None, None, None, f"fetch failed: timed out after {limits.timeout_s:g} s")
        return Fetched(None, None, None, f"fetch failed: {type(reason).__name__ if not str(reason) else reason}")


def fetch(url: str, limits: FetchSettings) -> tuple[int | None, str | None, bytes | None, str | None]:
    """(HTTP status, content type, body, error) of one GET; see fetch_page."""
    return fetch_page(url, limits)[:4]  # type: ignore[return-value]


def fetch_page(url: str, limits: FetchSettings, etag: str | None = None, last_modified: str | None = None) -> Fetched:
    """One GET with a timeout, a size cap and http(s)-only redirects, conditional on the validators
    of the last fetch (a 304 answer carries no body); a 5xx answer or a connection failure is
    retried with exponential backoff, a 4xx never."""
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,application/pdf,*/*;q=0.5"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    req = urllib.request.Request(url, headers=headers)
    opener = urllib.request.build_opener(_HttpOnlyRedirects(limits.max_redirects))
    attempt = 0
    while True:
        got = _fetch_once(opener, req, limits)
        error, status = got.error, got.status
        transient = error is not None and (status is None or status >= 500) and "redirect" not in error \
            and "larger than" not in error
        if not transient or attempt >= limits.retries:
            if transient and attempt:
                got = got._replace(error=f"{error} (after {attempt + 1} attempts)")
            return got
        attempt += 1
        time.sleep(limits.retry_base_delay_s * 2 ** (attempt - 1))  # backoff before retry n


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
            body, error, rendered = _rendered(url, body, limits)
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


def _rendered(url: str, body: bytes, limits: FetchSettings) -> tuple[bytes | None, str | None, bool]:
    """(body, error, rendered): the page's DOM after its scripts ran in headless Chromium. A source
    that asked for rendering gets a loud error when it fails, never the unrendered shell."""
    from docclean_assets.render import RenderError, render_url

    try:
        return render_url(url, limits.render_timeout_s, limits.render_script_budget_ms), None, True
    except RenderError as exc:
        return None, f"render failed: {exc}", False
