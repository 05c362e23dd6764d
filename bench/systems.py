"""The systems compared, where each runs, and the driver that feeds a worker and survives its crashes."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import deps

RUNNER = Path(__file__).resolve().parent / "runner.py"


@dataclass
class System:
    """A system under test: name, formats it handles, and the venv it runs in (None = project venv)."""

    name: str
    label: str
    formats: tuple[str, ...]
    venv: str | None = None
    python: Path | None = None
    version: str = ""
    unavailable: str | None = None  # why it could not be installed or run here


SYSTEMS = [
    System("docclean", "docclean (extract + page repeats + normalise)", ("pdf", "docx", "pptx", "html")),
    System("floor", "floor (pdfplumber / python-docx / python-pptx / trafilatura defaults)",
           ("pdf", "docx", "pptx", "html")),
    System("markitdown", "MarkItDown", ("pdf", "docx", "pptx", "html"), venv="markitdown"),
    System("trafilatura_recall", "trafilatura favor_recall+tables", ("html",)),
    System("resiliparse", "Resiliparse extract_plain_text(main_content=True)", ("html",), venv="resiliparse"),
    System("unstructured", 'Unstructured partition(strategy="fast")', ("docx", "pptx", "pdf", "html"),
           venv="unstructured"),
    System("pymupdf4llm", "pymupdf4llm 2.0 (layout model, headers and footers off, no OCR)", ("pdf",),
           venv="pymupdf4llm"),
    System("opendataloader", "opendataloader-pdf 2.5 (Java, headers and footers off)", ("pdf",),
           venv="opendataloader"),
]
VERSION_DIST = {"docclean": "docclean", "floor": "pdfplumber", "markitdown": "markitdown",
                "trafilatura_recall": "trafilatura", "resiliparse": "resiliparse", "unstructured": "unstructured",
                "pymupdf4llm": "pymupdf", "opendataloader": "opendataloader-pdf"}
WORKER_ENV = {"DO_NOT_TRACK": "true", "SCARF_NO_ANALYTICS": "true", "UNSTRUCTURED_DISABLE_NOTICE": "1",
              "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONWARNINGS": "ignore"}


@dataclass
class RunResult:
    """What one system produced on one format's files: per-document records and peak memory."""

    docs: dict[str, dict] = field(default_factory=dict)  # path -> {ok, body, notes, seconds, error}
    maxrss_kb: int = 0
    startup_s: float = 0.0
    capped: int = 0
    restarts: int = 0


def prepare(system: System, smoke_file: Path | None) -> None:
    """Install the system's venv if it has one, then run it on one small file to prove it runs."""
    if system.venv:
        system.python, why = deps.ensure_venv(system.venv)
        if why:
            system.unavailable = why
            return
    else:
        system.python = deps.PROJECT_PY
    system.version = deps.installed_version(system.python, VERSION_DIST[system.name])
    if smoke_file is None:
        return
    fmt = smoke_file.suffix.lstrip(".")
    res = run_worker(system, fmt, [smoke_file], timeout_s=120, cap_s=1e9)
    rec = res.docs.get(str(smoke_file), {})
    if not rec.get("ok") or not (rec.get("body") or "").strip():
        err = rec.get("error") or "returned no text"
        system.unavailable = f"smoke test on {smoke_file.name} failed: {err}"


def run_worker(system: System, fmt: str, files: list[Path], timeout_s: float, cap_s: float) -> RunResult:
    """Run the system's worker over files; a crash or hang costs one document, then it restarts."""
    res, todo, t_start = RunResult(), [str(f) for f in files], time.perf_counter()
    while todo:
        left_cap = cap_s - (time.perf_counter() - t_start)
        if left_cap <= 0:
            res.capped += len(todo)
            break
        done_paths, finished = _one_worker(system, fmt, todo, timeout_s, left_cap, res)
        todo = [p for p in todo if p not in done_paths]
        if finished or not todo:
            break
        bad = todo.pop(0)  # the document the worker died or hung on
        res.docs[bad] = {"ok": False, "body": "", "notes": None, "seconds": None,  # not timed
                         "error": "worker crashed or hung"}
        res.restarts += 1
    return res


def _one_worker(system, fmt, todo, timeout_s, cap_s, res) -> tuple[set[str], bool]:
    """One worker process: returns the paths it reported and whether it finished cleanly."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"files": todo, "timeout_s": timeout_s, "cap_s": cap_s}, fh)
    env = {**os.environ, **WORKER_ENV, "PYTHONPATH": str(deps.ROOT)}
    proc = subprocess.Popen([str(system.python), str(RUNNER), system.name, fmt, fh.name],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            encoding="utf-8", env=env, cwd=str(deps.ROOT))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: ([lines.put(ln) for ln in proc.stdout], lines.put(None)),
                     daemon=True).start()
    seen, finished = set(), False
    try:
        while True:
            try:
                line = lines.get(timeout=timeout_s + 60)  # in-worker alarm fires first normally
            except queue.Empty:
                break
            if line is None:
                break
            msg = json.loads(line)
            if "ready" in msg:
                res.startup_s = max(res.startup_s, msg["ready"])
            elif msg.get("done"):
                res.maxrss_kb = max(res.maxrss_kb, msg["maxrss_kb"])
                res.capped += msg.get("capped", 0)
                finished = True
                seen.update(todo[len(seen):])  # capped ones count as handled
                break
            else:
                res.docs[msg["path"]] = msg
                seen.add(msg["path"])
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.unlink(fh.name)
    return seen, finished
