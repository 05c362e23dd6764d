"""Child processes that die with their parent: no parse worker, OCR engine or browser outlives the
docclean process that started it, however that process ends (SIGKILL included)."""
from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import sys

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent_pid: int | None = None) -> None:
    """Have the kernel SIGKILL this process when its parent exits (Linux; elsewhere a no-op). With
    `parent_pid`, exit at once if that parent is already gone (it died before the request was made)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return  # refused (a sandbox without prctl): the caller's own limits still apply
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def tied_command(cmd: list[str]) -> list[str]:
    """`cmd` run so that it is SIGKILLed when the process that started it exits: through util-linux's
    `setpriv --pdeathsig` (an exec, no Python code between fork and exec, so safe from a threaded
    parent), or as it is where setpriv is missing."""
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--", *cmd] if setpriv else cmd
