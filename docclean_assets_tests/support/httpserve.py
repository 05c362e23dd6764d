"""A real HTTP server on loopback for the tests, answering GETs with a function of the handler."""
import http.server
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def send(handler: http.server.BaseHTTPRequestHandler, body: bytes, ctype: str = "text/html",
         headers: dict[str, str] | None = None, status: int = 200) -> None:
    """Answer with a body, its type and length, and any extra headers."""
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(body)


@contextmanager
def loopback_server(do_get: Callable[[http.server.BaseHTTPRequestHandler], None]) -> Iterator[str]:
    """Serve on 127.0.0.1 (a free port) until the block ends; yields the base URL ending in '/'."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            do_get(self)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
