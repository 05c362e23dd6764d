"""Creates and caches the virtual environments and helper libraries the bench needs (pip from PyPI)."""
from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
VENVS = BENCH / ".venvs"
PROJECT_PY = ROOT / ".venv" / "bin" / "python"
BASE_PY = os.environ.get("BENCH_BASE_PYTHON", "python3.11")

# Pinned peer requirements; each set gets its own venv because their pins conflict with ours.
PEER_VENVS = {
    # lxml 6.2 breaks MarkItDown 0.1.9's DOCX pre-processing ("Could not find the body element" on
    # every corpus DOCX, measured 2026-12-03); 6.1.3 is the version the project itself runs.
    "markitdown": ["markitdown[all]==0.1.9", "lxml==6.1.3", "psutil"],
    "unstructured": ["unstructured[docx,pptx,pdf]==0.27.35", "psutil"],
    # PyMuPDF 2.x holds pymupdf4llm's code and its ONNX layout model (pymupdf4llm 2.0 is an empty
    # shim); the model runs offline.
    "pymupdf4llm": ["pymupdf==2.0", "pymupdf4llm==2.0", "psutil"],
    # A Python wrapper around a Java CLI (its jar is in the wheel): needs a JRE on PATH
    # (Debian default-jre-headless).
    "opendataloader": ["opendataloader-pdf==2.5.16", "psutil"],
    # The retrieval bench's strongest PDF text peer (issue 34): Rust text extraction, one text per page.
    "kreuzberg": ["kreuzberg==4.10.4"],
    # The WCXB paper's strong main-content peer on forums and service pages (issue 35).
    "resiliparse": ["resiliparse==2.0.0", "psutil"],
}
# Metric helpers installed with --target (not into the project venv): olmOCR-bench's own matchers.
EVALLIB_REQS = ["rapidfuzz==3.14.6", "fuzzysearch==0.8.1"]
EVALLIB = VENVS / "evallib"


def _stamp(reqs: list[str]) -> str:
    """A short hash of a requirement list, so a changed pin reinstalls."""
    return hashlib.sha256("\n".join(reqs).encode()).hexdigest()[:16]


def _log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


@contextmanager
def _locked(name: str) -> Iterator[None]:
    """An exclusive lock on bench/.venvs/.<name>.lock: `make test` runs two pytest workers, and both
    import the bench's metric tests, so two installs into one folder would race (pip's --target
    moves collide: "Directory not empty")."""
    VENVS.mkdir(parents=True, exist_ok=True)
    with open(VENVS / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_evallib() -> Path:
    """Install rapidfuzz and fuzzysearch under bench/.venvs/evallib and put it on sys.path."""
    stamp = EVALLIB / f".stamp-{_stamp(EVALLIB_REQS)}"
    if not stamp.exists():
        with _locked("evallib"):
            if not stamp.exists():  # another process may have installed it while this one waited
                _log(f"installing {' '.join(EVALLIB_REQS)} into {EVALLIB}")
                EVALLIB.mkdir(parents=True, exist_ok=True)
                subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--upgrade",
                                "--target", str(EVALLIB), *EVALLIB_REQS], check=True)
                stamp.touch()
    if str(EVALLIB) not in sys.path:
        sys.path.insert(0, str(EVALLIB))
    return EVALLIB


def ensure_venv(name: str) -> tuple[Path | None, str | None]:
    """Create bench/.venvs/<name> with its pins; returns (python, None) or (None, why it failed)."""
    reqs = PEER_VENVS[name]
    venv = VENVS / name
    py = venv / "bin" / "python"
    stamp = venv / f".stamp-{_stamp(reqs)}"
    if stamp.exists() and py.exists():
        return py, None
    _log(f"creating venv {venv} with {' '.join(reqs)} (first run only; can take minutes)")
    try:
        if not py.exists():
            subprocess.run([BASE_PY, "-m", "venv", str(venv)], check=True)
        proc = subprocess.run([str(py), "-m", "pip", "install", "--quiet", *reqs],
                              capture_output=True, text=True, timeout=3600)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"venv/pip failed: {exc}"
    if proc.returncode != 0:
        tail = " | ".join(line for line in proc.stderr.splitlines() if "ignored" not in line)[-600:]
        return None, f"pip install {' '.join(reqs)} failed (exit {proc.returncode}): {tail}"
    stamp.touch()
    return py, None


def installed_version(py: Path, dist: str) -> str:
    """The installed version of a distribution inside the given interpreter ('' if absent)."""
    code = f"import importlib.metadata as m\ntry: print(m.version({dist!r}))\nexcept Exception: print('')"
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True)
    return out.stdout.strip()
