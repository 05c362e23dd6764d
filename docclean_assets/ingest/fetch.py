"""Fetching web pages: one polite GET with a timeout, a size cap and http(s)-only redirects, retried
with backoff on a server error, conditional on the last fetch's validators; and, for a source that
asks, the page's DOM after its scripts ran (render.py)."""
from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import NamedTuple

from docclean_assets.ingest.sources import FetchSettings

USER_AGENT = "docclean/0.1 (document-cleaning pipeline; polite fetcher)"
CHUNK_BYTES = 64 * 1024  # body read size between deadline checks


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


def render_page(url: str, body: bytes, limits: FetchSettings) -> tuple[bytes | None, str | None, bool]:
    """(body, error, rendered): the page's DOM after its scripts ran in headless Chromium. A source
    that asked for rendering gets a loud error when it fails, never the unrendered shell."""
    from docclean_assets.ingest.render import RenderError, render_url

    try:
        return render_url(url, limits.render_timeout_s, limits.render_script_budget_ms), None, True
    except RenderError as exc:
        return None, f"render failed: {exc}", False
