"""Client-rendered pages through headless Chromium: the DOM after the page's scripts ran. The browser
dies with the docclean process that started it, however that process ends (SIGKILL included)."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile

# Where Debian's chromium package puts the browser; $DOCCLEAN_CHROMIUM overrides.
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
# Flags for a quiet, sandboxed-by-root-exception, network-minimal headless run.
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-extensions", "--mute-audio")


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def tied_command(cmd: list[str]) -> list[str]:
    """`cmd` run so that it is SIGKILLed when the process that started it exits: through util-linux's
    `setpriv --pdeathsig` (an exec, no Python code between fork and exec, so safe from a threaded
    parent), or as it is where setpriv is missing."""
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--", *cmd] if setpriv else cmd


class RenderError(Exception):
    """The page could not be rendered; the message says why."""


def chromium_path() -> str | None:
    """The Chromium executable, or None when none is installed."""
    override = os.environ.get("DOCCLEAN_CHROMIUM")
    if override:
        return override if shutil.which(override) or os.path.isfile(override) else None
    return next((p for name in CHROMIUM_CANDIDATES if (p := shutil.which(name))), None)


def render_url(url: str, timeout_s: float, script_budget_ms: int) -> bytes:
    """The serialised DOM of `url` once its scripts had `script_budget_ms` of virtual time."""
    exe = chromium_path()
    if exe is None:
        raise RenderError("rendering needs Chromium (apt-get install chromium), and none was found")
    with tempfile.TemporaryDirectory(prefix="docclean-chromium-") as profile:
        cmd = [exe, *_FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={script_budget_ms}", "--dump-dom", url]
        try:
            proc = subprocess.run(tied_command(cmd), capture_output=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            raise RenderError(f"rendering timed out after {timeout_s:g} s") from None
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise RenderError(f"chromium exited {proc.returncode}: {tail[0][:200]}")
    return proc.stdout
