"""A user's deployment as the service tests build it: a small harbour site (three articles in one
template), the project's environment, and `dg dev` (webserver and daemon) on a free port of
127.0.0.1, driven through its GraphQL API."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from docclean_assets_tests.support.ports import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DG = Path(sys.executable).parent / "dg"
CHECKS = ["failed_documents", "retention_band", "revision_count"]
PARTITION = "web"
LOCATION = "docclean"  # pyproject's [tool.dg.project] code_location_name (and workspace.yaml's location_name)
JOB = "ingest"  # the named job every run uses
NAV = ["Home", "Tide tables", "Contact the harbour office"]
FOOTER = "Copyright 2024 Port Authority of Kestrel Bay. All rights reserved."
ARTICLES = {
    "moorings.html": ("Winter moorings open for booking", [
        "Boat owners can now book a winter mooring in the inner basin for the months from November "
        "to March. The basin is sheltered from easterly gales, and the pontoons were replaced last spring.",
        "Each berth has fresh water and a metered electricity point. Owners must show a current "
        "insurance certificate before the harbour master allocates a berth.",
        "Bookings close at the end of September, and any berths left over are offered to visiting "
        "yachts on a weekly basis.",
    ]),
    "dredging.html": ("Dredging of the approach channel", [
        "The approach channel will be dredged between the fourth and the twentieth of June to restore "
        "a depth of three metres at the lowest astronomical tide.",
        "During the work a dredger and two barges will operate in the channel from dawn until dusk. "
        "Small craft should keep to the green side of the channel and listen on channel twelve.",
        "The spoil will be carried offshore to a licensed disposal site, and the survey results will "
        "be published once the work is complete.",
    ]),
    "lighthouse.html": ("The old lighthouse reopens to visitors", [
        "After two years of repairs to its lantern and stonework, the old lighthouse on the north pier "
        "reopens to visitors this summer.",
        "Volunteers from the local history society will guide small groups up the spiral stair on "
        "weekend afternoons, weather permitting.",
        "Tickets are free but must be reserved in advance, because the lantern room holds no more "
        "than eight people at a time.",
    ]),
}


@dataclass
class Deployment:
    root: Path
    sources: Path
    data_dir: Path
    home: Path
    env: dict[str, str]


def harbour_page(title: str, paragraphs: list[str]) -> str:
    nav = "".join(f'<li><a href="/{i}">{text}</a></li>' for i, text in enumerate(NAV))
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>"
            f"<body><nav><ul>{nav}</ul></nav><main><article><h1>{title}</h1>{body}</article></main>"
            f"<footer><p>{FOOTER}</p><p><a href=\"/privacy\">Privacy notice</a></p></footer></body></html>")


def project_env(**extra: str) -> dict[str, str]:
    """The environment a user's shell has after activating the project's venv, plus `extra`
    (dg runs the project's own Python, and warns when the active venv is another one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "DOCCLEAN_"))}
    venv = Path(sys.executable).parent.parent
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", **extra)
    return env


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "<no log>"


class DagsterDev:
    """`dg dev` (which starts `dagster dev`: webserver, daemon, code server) in its own process group;
    GraphQL helpers with deadlines."""

    def __init__(self, deployment: Deployment):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = deployment.root / "dagster-dev.log"
        self._out = open(self.log, "wb")
        # dagster dev maps SIGTERM to the SIGINT handler; if we were started with SIGINT ignored the
        # child would inherit that and ignore both, so make SIGINT 'handled' across the fork (exec resets it).
        previous = signal.getsignal(signal.SIGINT)
        if previous == signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            self.proc = subprocess.Popen(
                [str(DG), "dev", "-h", "127.0.0.1", "-p", str(self.port)],
                cwd=PROJECT_ROOT, env=deployment.env, stdout=self._out, stderr=subprocess.STDOUT,
                start_new_session=True)
        finally:
            if previous == signal.SIG_IGN:
                signal.signal(signal.SIGINT, previous)

    def fail(self, why: str):
        pytest.fail(f"{why}\n--- dg dev log (tail) ---\n{log_tail(self.log)}")

    def wait_until_serving(self, timeout: float = 90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.fail(f"dg dev exited with {self.proc.returncode} before serving")
            try:
                with urllib.request.urlopen(f"{self.base}/server_info", timeout=2) as resp:
                    info = json.load(resp)
                    if resp.status == 200 and "dagster_webserver_version" in info:
                        return info
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                pass
            time.sleep(0.5)
        self.fail(f"/server_info not up within {timeout}s")

    def gql(self, query: str, variables: dict | None = None) -> dict:
        req = urllib.request.Request(f"{self.base}/graphql", method="POST",
                                     data=json.dumps({"query": query, "variables": variables or {}}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            body = json.load(resp)
        assert not body.get("errors"), body["errors"]
        return body["data"]

    def poll(self, what: str, fetch, done, timeout: float):
        """fetch() until done(value) or the deadline; the last value is in the failure message."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.fail(f"dg dev exited with {self.proc.returncode} while waiting for {what}")
            value = fetch()
            if done(value):
                return value
            time.sleep(0.5)
        self.fail(f"timed out after {timeout}s waiting for {what}; last value: {value!r}")

    def stop(self):
        """SIGINT to the whole group (as Ctrl-C would), then SIGKILL whatever is left."""
        pgid = self.proc.pid  # start_new_session: the group id is the leader's pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)  # anyone (webserver, daemon, code servers, run workers) still in the group?
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self._out.close()
LOCATION_QUERY = """{ workspaceOrError { __typename ... on Workspace { locationEntries { name loadStatus
  locationOrLoadError { __typename ... on PythonError { message } } } } } }"""
LAUNCH = """mutation($p: ExecutionParams!) { launchRun(executionParams: $p) { __typename
  ... on LaunchRunSuccess { run { runId status } }
  ... on PythonError { message stack } ... on InvalidSubsetError { message }
  ... on RunConfigValidationInvalid { errors { message } } ... on PipelineNotFoundError { message } } }"""
FAILED_RUN = {"FAILURE", "CANCELED", "CANCELING"}


def location_entry(dev: DagsterDev) -> dict | None:
    data = dev.gql(LOCATION_QUERY)["workspaceOrError"]
    assert data["__typename"] == "Workspace", data
    return next((e for e in data["locationEntries"] if e["name"] == LOCATION), None)


def wait_until_loaded(dev: DagsterDev) -> dict:
    """Wait until the webserver serves and the code location has loaded (not LOADING, not a PythonError)."""
    dev.wait_until_serving(timeout=90)
    entry = dev.poll("code location to load", lambda: location_entry(dev),
                     lambda e: e is not None and e["loadStatus"] == "LOADED", timeout=60)
    assert entry["locationOrLoadError"]["__typename"] == "RepositoryLocation", entry
    return entry
