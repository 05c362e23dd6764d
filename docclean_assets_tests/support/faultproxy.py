"""A fault-injecting HTTP proxy in front of a real S3 server (SeaweedFS), on 127.0.0.1, in a process of
its own (delta-rs holds the GIL while it waits for an answer, so a proxy thread in the test's process
would never get to answer). Every request goes through unchanged (the client signs for the proxy's
host, which is passed on as it came), except those matching the rule a test sets, which get the answer
an object store gives when it is failing: HTTP 500 with an S3 `InternalError` body. A test helper, not
a stand-in: the server behind it is real.

    python -m docclean_assets_tests.support.faultproxy UPSTREAM CONTROL_DIR   # prints its port, then serves
"""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

FAILURE = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>'
           b"<Message>We encountered an internal error. Please try again.</Message></Error>")
_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection"}
RULE, FAILED = "rule.json", "failed.log"  # in the control folder: what to fail, and what was failed


class FaultProxy:
    """The proxy process: forwards to `upstream`, fails what `fail_requests` names."""

    def __init__(self, upstream: str, control: Path):
        self.control = control
        control.mkdir(parents=True, exist_ok=True)
        self.fail_requests(None)
        self.proc = subprocess.Popen([sys.executable, "-m", "docclean_assets_tests.support.faultproxy", upstream, str(control)],
                                     stdout=subprocess.PIPE, text=True)
        self.endpoint = f"http://127.0.0.1:{int(self.proc.stdout.readline())}"

    def fail_requests(self, method: str | None, path_contains: str = "") -> None:
        """Answer 500 to every `method` request whose path contains the text (None: fail nothing)."""
        (self.control / RULE).write_text(json.dumps({"method": method, "contains": path_contains}))

    @property
    def failed(self) -> list[str]:
        """The requests answered 500 so far."""
        log = self.control / FAILED
        return log.read_text().splitlines() if log.exists() else []

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:  # seen once: a proxy alive 10 s after SIGTERM was still alive an hour later
            self.proc.kill()
            self.proc.wait(10)


def _serve(upstream: str, control: Path) -> None:
    target = urlsplit(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall between them

        def log_message(self, *args) -> None:  # noqa: ANN002 - quiet
            pass

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            rule = json.loads((control / RULE).read_text())
            if rule["method"] == self.command and rule["contains"] in self.path:
                with open(control / FAILED, "a") as log:
                    log.write(f"{self.command} {self.path}\n")
                self.send_response(500, "Internal Server Error")
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(FAILURE)))
                self.end_headers()
                self.wfile.write(FAILURE)
                return
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
            try:
                conn.request(self.command, self.path, body=body,
                             headers={k: v for k, v in self.headers.items() if k.lower() not in _HOP})
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status, resp.reason)
                for key, value in resp.getheaders():  # a HEAD keeps the object's length
                    if key.lower() not in _HOP and (key.lower() != "content-length" or self.command == "HEAD"):
                        self.send_header(key, value)
                if self.command != "HEAD":
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            finally:
                conn.close()

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    _serve(sys.argv[1], Path(sys.argv[2]))
