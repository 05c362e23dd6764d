"""Programs that die with the process that started them: no OCR engine or browser outlives the
docclean process (a parse worker, or a run) that started it, however it ends (SIGKILL included).
Parse workers themselves watch a lifeline pipe (isolate.py)."""
from __future__ import annotations

import functools
import shutil
import sys


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def tied_command(cmd: list[str]) -> list[str]:
    """`cmd` run so that it is SIGKILLed when the process that started it exits: through util-linux's
    `setpriv --pdeathsig` (an exec, no Python code between fork and exec, so safe from a threaded
    parent), or as it is where setpriv is missing."""
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--", *cmd] if setpriv else cmd
