"""The raw_files inventory of a source: every file found or URL fetched, sniffed and addressed."""
from __future__ import annotations

import datetime as dt
import urllib.error
import urllib.request
from pathlib import Path

from docclean_assets.extract.settings import FetchSettings
from docclean_assets.extract.sniff import doc_id, file_doc_id, format_from_extension, sniff_file, sniff_format
from docclean_assets.sources import Source, discover_files

USER_AGENT = "docclean/0.1 (document-cleaning pipeline; polite fetcher)"
_CONTENT_TYPES = {"application/pdf": "pdf", "text/html": "html", "application/xhtml+xml": "html",
                  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
                  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx"}


def _row(source: str, path: str, blob: str | None, claimed: str | None, modified: dt.datetime, *,
         size: int | None, fmt: str | None, content_id: str | None, status: int | None = None,
         error: str | None = None) -> dict:
    """One RAW_FILES_SCHEMA row."""
    if size == 0:
        error = error or "empty file (0 bytes)"
    return {
        # Without bytes there is no content address; the path stands in so rows stay distinct.
        "source": source, "doc_id": content_id or doc_id(f"unread:{path}".encode()),
        "path": path, "format": fmt, "bytes": size, "ext_format": claimed,
        "format_mismatch": bool(fmt and claimed and fmt != claimed),
        "modified": modified, "http_status": status, "blob": blob, "error": error,
    }


def folder_rows(source: Source) -> list[dict]:
    """Rows for every supported file below the source's folder (hashed and sniffed, never loaded whole)."""
    assert source.path is not None
    rows = []
    for rel, full in discover_files(source.path):
        claimed = format_from_extension(rel)
        try:
            stat = full.stat()
            modified = dt.datetime.fromtimestamp(stat.st_mtime, tz=dt.UTC)
            rows.append(_row(source.name, rel, str(full), claimed, modified, size=stat.st_size,
                             fmt=sniff_file(full), content_id=file_doc_id(full)))
        except OSError as exc:
            rows.append(_row(source.name, rel, str(full), claimed, dt.datetime.now(tz=dt.UTC), size=None,
                             fmt=None, content_id=None, error=f"unreadable: {exc.strerror or exc}"))
    return rows


def fetch(url: str, limits: FetchSettings) -> tuple[int | None, str | None, bytes | None, str | None]:
    """(HTTP status, content type, body, error) of one GET with a timeout and a size cap."""
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "text/html,application/pdf,*/*;q=0.5"})
    try:
        max_bytes = limits.max_bytes
        with urllib.request.urlopen(req, timeout=limits.timeout_s) as resp:  # noqa: S310 - http(s) only, validated in sources
            body = resp.read(max_bytes + 1)
            ctype = (resp.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if len(body) > max_bytes:
                return resp.status, ctype, None, f"response larger than {max_bytes} bytes"
            return resp.status, ctype, body, None
    except urllib.error.HTTPError as exc:
        return exc.code, None, None, f"HTTP {exc.code} {exc.reason}"
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return None, None, None, f"fetch failed: {reason}"


def url_rows(source: Source, blob_dir: Path, limits: FetchSettings) -> list[dict]:
    """Rows for every URL of the source; fetched bodies are kept content-addressed in blob_dir."""
    blob_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for url in source.urls:
        status, ctype, body, error = fetch(url, limits)
        now = dt.datetime.now(tz=dt.UTC)
        claimed = _CONTENT_TYPES.get(ctype or "") or format_from_extension(url.split("?")[0])
        blob = None
        if body is not None:
            blob_path = blob_dir / doc_id(body)
            if not blob_path.exists():
                tmp = blob_path.with_suffix(".tmp")
                tmp.write_bytes(body)
                tmp.replace(blob_path)
            blob = str(blob_path)
        rows.append(_row(source.name, url, blob, claimed, now, size=None if body is None else len(body),
                         fmt=sniff_format(body) if body else None, content_id=doc_id(body) if body is not None else None,
                         status=status, error=error))
    return rows
