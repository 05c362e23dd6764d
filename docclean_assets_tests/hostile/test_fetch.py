"""URL sources against a hostile or broken web: timeouts, size caps, http(s)-only redirects,
5xx retried with backoff, 4xx recorded once, a dead site failing only its own rows."""
import http.server
import socket
import threading

import dagster as dg
import pytest

from docclean_assets.ingest.sources import FetchSettings
from docclean_assets.defs.definitions import build_defs
from docclean_assets.ingest import fetch as fetching
from docclean_assets.ingest.fetch import fetch
from docclean_assets.store.tables import Store
from docclean_assets_tests.hostile import cases as C

FAST = FetchSettings(timeout_s=2, max_bytes=100_000, retries=2, retry_base_delay_s=0.05, max_redirects=3)


@pytest.fixture
def site():
    hits: dict[str, int] = {}
    release = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            n = hits[self.path] = hits.get(self.path, 0) + 1
            if self.path == "/flaky" and n < 3 or self.path == "/down":
                self.send_error(503, "Service Unavailable")
            elif self.path == "/gone":
                self.send_error(404, "Not Found")
            elif self.path.startswith("/to-"):
                self.send_response(302)
                self.send_header("Location", {"/to-file": "file:///etc/passwd", "/to-ftp": "ftp://127.0.0.1/x",
                                              "/to-loop": "/to-loop", "/to-ok": "/flaky"}[self.path])
                self.end_headers()
            elif self.path == "/drip":  # a body that never ends, one byte at a time
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                while not release.wait(0.05):
                    self.wfile.write(b"x")
                    self.wfile.flush()
            elif self.path == "/huge":
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<p>" + b"x" * 1_000_000)
            else:
                body = C.good_html("Tides")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def _dead_url() -> str:
    with socket.socket() as s:  # a port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/page.html"


class _Clock:
    """Stands in for the fetcher's `time`: records its sleeps, and its clock advances `tick` seconds
    per reading (failing after `max_readings`, so a deadline that never trips fails instead of hanging)."""

    def __init__(self, tick: float = 0.0, max_readings: int = 100):
        self.now, self.tick, self.readings, self.max_readings, self.sleeps = 0.0, tick, 0, max_readings, []

    def monotonic(self) -> float:
        self.readings += 1
        assert self.readings <= self.max_readings, "the fetch deadline never tripped"
        self.now += self.tick
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def test_5xx_is_retried_with_backoff_and_4xx_is_not(site, monkeypatch):
    base, hits = site
    clock = _Clock()
    monkeypatch.setattr(fetching, "time", clock)
    status, _ctype, body, error = fetch(f"{base}/flaky", FAST)
    assert (status, error, hits["/flaky"]) == (200, None, 3) and b"Tides" in body
    assert clock.sleeps == [0.05, 0.1]
    status, _ctype, body, error = fetch(f"{base}/down", FAST)
    assert (status, body, hits["/down"]) == (503, None, 3)
    assert error == "HTTP 503 Service Unavailable (after 3 attempts)"
    assert clock.sleeps == [0.05, 0.1] * 2  # backoff 0.05 s then 0.1 s
    status, _ctype, body, error = fetch(f"{base}/gone", FAST)
    assert (status, error, hits["/gone"]) == (404, "HTTP 404 Not Found", 1)


def test_redirects_only_to_http_and_limited(site):
    base, hits = site
    for path, scheme in (("/to-file", "file"), ("/to-ftp", "ftp")):
        status, _c, body, error = fetch(f"{base}{path}", FAST)
        assert status == 302 and body is None
        assert f"redirect to a {scheme}: URL refused (http and https only)" in error
        assert hits[path] == 1  # a refusal is not retried
    status, _c, body, error = fetch(f"{base}/to-loop", FAST)
    assert body is None and status == 302 and hits["/to-loop"] <= FAST.max_redirects + 1
    status, _c, body, error = fetch(f"{base}/to-ok", FAST)
    assert status == 200 and error is None and b"Tides" in body


def test_whole_fetch_deadline_and_size_cap(site, monkeypatch):
    base, _hits = site
    clock = _Clock(tick=0.4)  # the drip never ends and never stalls a read: only the whole-fetch deadline stops it
    monkeypatch.setattr(fetching, "time", clock)
    status, _c, body, error = fetch(f"{base}/drip", FetchSettings(timeout_s=1, retries=0))
    assert body is None and error == "fetch failed: timed out after 1 s"
    assert clock.readings == 4  # the start, then one reading per chunk until 1.2 s > 1 s
    monkeypatch.undo()
    status, _c, body, error = fetch(f"{base}/huge", FAST)
    assert body is None and error == "response larger than 100000 bytes"


def test_dead_site_fails_only_its_own_rows(site, tmp_path):
    base, _hits = site
    dead = _dead_url()
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  dead:\n    urls: [{dead}]\n  live:\n    urls: [{base}/page.html, {base}/gone]\n"
                   "settings:\n  fetch: {timeout_s: 2, retries: 1, retry_base_delay_s: 0.05}\n")
    data = tmp_path / "out"
    defs = build_defs(cfg, data)
    for partition in ("dead", "live"):
        result = dg.materialize([*defs.assets, *defs.asset_checks], partition_key=partition,
                                resources=defs.resources, raise_on_error=False)
        assert result.success, partition
    rows = dict((p, (s, e)) for p, s, e in Store(data).connect().execute(
        "SELECT path, status, error FROM quality_report").fetchall())
    assert rows[dead][0] == "failed" and rows[dead][1].startswith("fetch failed: ")
    assert "(after 2 attempts)" in rows[dead][1]
    assert rows[f"{base}/page.html"] == ("ok", None)
    assert rows[f"{base}/gone"] == ("failed", "HTTP 404 Not Found")
