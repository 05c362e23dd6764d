"""`docclean run` as users start it, ended the hard way: no process may outlive it; two first runs
at once on a fresh DAGSTER_HOME; data directories whose names are glob patterns."""
import io
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from docclean_assets.cli import main as cli_main
from docclean_assets.defs.definitions import build_defs
from docclean_assets.store.tables import Store, StoreError
from docclean_assets_tests.hostile import cases as C

PROJECT = Path(__file__).resolve().parents[2]

DOCCLEAN = str(Path(sys.executable).parent / "docclean")
WAIT_S = 120  # generous bound on process start-up (imports) on a busy 2-core machine
# How long the run's processes may take to go once it is killed; each document takes ~100 s to parse,
# so an orphaned worker would still be running (and an orphan finishing its document is caught too).
GONE_S = 20
PAGES = 3000


def _long_pdf(pages: int) -> bytes:
    """A PDF long enough that its parse is still running when the test ends the run (~30 pages/s)."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792), invariant=1)
    c.setFont("Helvetica", 10)
    for p in range(pages):
        for i in range(50):
            c.drawString(72, 740 - 13 * i, f"Line {i} of page {p}: the survey of the harbour works went on all winter.")
        c.showPage()
    c.save()
    return buf.getvalue()


def _children() -> dict[int, list[int]]:
    """ppid -> pids of every process now running (from /proc)."""
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            out.setdefault(ppid, []).append(int(entry))
    return out


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _config(tmp_path: Path, files: dict[str, bytes]) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, data in files.items():
        (docs / name).write_bytes(data)
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  long:\n    path: docs\n    ocr: 'off'\nsettings:\n  limits: {timeout_s: 600, workers: 2}\n")
    return cfg


@pytest.fixture(scope="module")
def long_pdfs() -> dict[str, bytes]:
    return {"a.pdf": _long_pdf(PAGES), "b.pdf": _long_pdf(PAGES + 1)}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_no_process_outlives_docclean_run(tmp_path, sig, long_pdfs):
    cfg = _config(tmp_path, long_pdfs)
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", str(tmp_path / "out"), "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT_S
        seen: set[int] = set()
        while time.monotonic() < deadline and len(seen) < 3:  # fork server and two parse workers
            seen |= {p for p in _descendants(proc.pid) if "forkserver" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")}
            time.sleep(0.2)
        assert len(seen) >= 3, "the parse workers never started"
        time.sleep(1.0)  # the workers are busy parsing now
        procs = _descendants(proc.pid)
        os.kill(proc.pid, sig)
        proc.wait(timeout=WAIT_S)
        deadline = time.monotonic() + GONE_S
        while time.monotonic() < deadline and any(_alive(p) for p in procs):
            time.sleep(0.2)
        assert [p for p in procs if _alive(p)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in _descendants(proc.pid):
            os.kill(p, signal.SIGKILL)


def test_two_first_runs_at_once_on_a_fresh_home(tmp_path):
    cfg = _config(tmp_path, {"page.html": C.good_html(), "policy.docx": C.good_docx()})
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "fresh-home")}
    runs = [subprocess.Popen([DOCCLEAN, "run", "--sources", str(cfg), "--data-dir", str(tmp_path / f"out{i}"), "--quiet"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in (1, 2)]
    outcomes = [r.communicate(timeout=WAIT_S * 2) for r in runs]
    assert [r.returncode for r in runs] == [0, 0], [err[-2000:] for _out, err in outcomes]
    for i in (1, 2):
        rows = Store(tmp_path / f"out{i}").connect().execute(
            "SELECT path, status FROM quality_report ORDER BY path").fetchall()
        assert rows == [("page.html", "ok"), ("policy.docx", "ok")]


@pytest.mark.parametrize("name", ["o*t", "what?", "a#b c"])
def test_sql_and_summary_read_a_data_dir_named_like_a_glob(tmp_path, capsys, name):
    data, decoy = tmp_path / name, tmp_path / "oXt-what!-out1"  # a sibling the pattern would also match
    for root, path in ((data, "mine.pdf"), (decoy, "not-mine.pdf")):
        Store(root).overwrite("quality_report", "s", pa.table({"source": ["s"], "path": [path], "status": ["ok"]}))
    if name == "o*t":
        Store(tmp_path / "oXt").overwrite("quality_report", "s", pa.table({"source": ["s"], "path": ["decoy.pdf"], "status": ["ok"]}))
    assert cli_main(["sql", "SELECT path FROM quality_report", "--json", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.strip() == '{"path": "mine.pdf"}'
    rows = Store(data).connect().execute("SELECT count(*) FROM quality_report").fetchall()[0]
    assert rows == (1,)


@pytest.mark.parametrize("name", ["out[1]", "a%20b"])
def test_a_data_dir_the_table_format_cannot_hold_is_refused_in_one_line(tmp_path, capsys, name):
    code = cli_main(["sql", "SELECT 1", "--data-dir", str(tmp_path / name)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("config error: data dir") and "cannot open a path containing" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / name).exists()


@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["run"]])
def test_an_unsupported_url_is_refused_never_written_as_a_local_folder(tmp_path, capsys, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    code = cli_main([*command, "--data-dir", "gs://my-bucket/docclean"])
    err = capsys.readouterr().err
    assert code == 2 and "gs:// is not supported" in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())
    monkeypatch.setenv("DOCCLEAN_DATA_DIR", "gs://my-bucket/docclean")
    with pytest.raises(StoreError, match="not supported"):
        build_defs(PROJECT / "data" / "sources.yaml")
    assert not any(tmp_path.iterdir())  # no ./gs:/my-bucket/... folder
    with pytest.raises(StoreError, match="credentials in the URL are refused"):  # nor from the definitions
        build_defs(PROJECT / "data" / "sources.yaml", "s3://key:secret@my-bucket/docclean")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["summary"], ["run"]])
def test_an_unreachable_object_store_fails_with_exit_3_in_one_line(tmp_path, capsys, monkeypatch, command):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{closed}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEKEY12345")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "never-printed-secret")
    code = cli_main([*command, "--data-dir", "s3://my-bucket/docclean"])
    err = capsys.readouterr().err
    assert code == 3 and err.startswith("storage error: data dir s3://my-bucket/docclean: cannot reach")
    assert len(err.strip().splitlines()) == 1 and "never-printed-secret" not in err
    assert not any(tmp_path.iterdir())
    # the definitions load without touching the network (dagster dev starts; the run then fails clearly)
    defs = build_defs(PROJECT / "data" / "sources.yaml", "s3://my-bucket/docclean")
    assert defs.resources["docclean"].data_dir == "s3://my-bucket/docclean"
    assert not any(tmp_path.iterdir())
