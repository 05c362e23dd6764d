"""Faults mid-run: a writer SIGKILLed mid-write leaves the previous partition intact and the next
write recovers; two writers of one source never interleave their commits."""
import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from docclean_assets.store import LOCK_DIR, ParquetStore

PAIR = ("parsed_documents", "parsed_blocks")
# A writer process: writes the pair `count` times, tagging both tables with its name and iteration,
# and logs every table file it writes (inside the locked commit) to a shared append-only log.
WRITER = r"""
import os, sys
import pyarrow as pa
import pyarrow.parquet as pq
import docclean_assets.store as store
root, name, count, log, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
real_write, real_replace = pq.write_table, os.replace
def logged_write(table, where, **kw):
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, f"{name} {table.column('tag')[0].as_py()}\n".encode())
    os.close(fd)
    real_write(table, where, **kw)
    if pause == "after_tmp":  # a temp file is on disk: tell the parent, then wait to be killed
        print("READY", flush=True); sys.stdin.read()
def paused_replace(src, dst):
    real_replace(src, dst)
    if pause == "between_renames" and str(dst).endswith("data.parquet"):
        print("READY", flush=True); sys.stdin.read()
store.pq.write_table = logged_write
store.os.replace = paused_replace
s = store.ParquetStore(root)
for i in range(count):
    tag = f"{name}-{i}"
    t = pa.table({"tag": [tag] * 2000, "n": list(range(2000))})
    s.write_tables("web", {"parsed_documents": t, "parsed_blocks": t})
"""


def _writer(root: Path, name: str, count: int, log: Path, pause: str = "none") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(root), name, str(count), str(log), pause],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])


def _tags(store: ParquetStore) -> tuple[str, str]:
    tables = store.read_tables("web", {t: None for t in PAIR})
    return tuple(set(tables[t].column("tag").to_pylist()).pop() for t in PAIR)  # type: ignore[return-value]


def test_two_concurrent_writers_never_interleave(tmp_path):
    log = tmp_path / "writes.log"
    procs = [_writer(tmp_path / "data", n, 15, log) for n in ("A", "B")]
    for p in procs:
        assert p.wait(timeout=60) == 0
    lines = log.read_text().split()
    entries = list(zip(lines[::2], lines[1::2]))
    assert len(entries) == 2 * 2 * 15
    assert {w for w, _ in entries} == {"A", "B"}
    # every commit's two table writes are adjacent and carry the same tag: no other write in between
    for first, second in zip(entries[::2], entries[1::2]):
        assert first == second, entries
    store = ParquetStore(tmp_path / "data")
    docs_tag, blocks_tag = _tags(store)
    assert docs_tag == blocks_tag


def _wait_ready(proc: subprocess.Popen) -> None:
    line = proc.stdout.readline()  # blocks until the writer reports its state (or exits); pytest's timeout bounds it
    assert line.strip() == "READY", line


def test_sigkill_mid_write_keeps_the_previous_partition_and_the_next_write_recovers(tmp_path):
    root, log = tmp_path / "data", tmp_path / "writes.log"
    store = ParquetStore(root)
    assert _writer(root, "first", 1, log).wait(timeout=60) == 0
    before = {t: store.path(t, "web").read_bytes() for t in PAIR}

    victim = _writer(root, "victim", 1, log, pause="after_tmp")
    _wait_ready(victim)
    partition = store.path("parsed_documents", "web").parent
    assert list(partition.glob(".data.parquet.*.tmp"))  # killed with its temp file on disk
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=10)
    assert {t: store.path(t, "web").read_bytes() for t in PAIR} == before  # untouched, readable
    assert _tags(store) == ("first-0", "first-0")

    with open(root / LOCK_DIR / "web.lock", "a") as fh:  # the dead writer's lock died with it: nothing to wait for
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError if it were still held
        fcntl.flock(fh, fcntl.LOCK_UN)
    store.write_tables("web", {t: pa.table({"tag": ["next-0"]}) for t in PAIR})
    assert _tags(store) == ("next-0", "next-0")
    assert not list(partition.glob(".data.parquet.*.tmp"))  # stale temp files cleaned


def test_sigkill_between_the_two_renames_is_rolled_forward(tmp_path):
    root, log = tmp_path / "data", tmp_path / "writes.log"
    store = ParquetStore(root)
    assert _writer(root, "first", 1, log).wait(timeout=60) == 0
    victim = _writer(root, "victim", 1, log, pause="between_renames")
    _wait_ready(victim)  # parsed_documents renamed, parsed_blocks not yet
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=10)
    assert (root / "_locks" / "web.commit.json").exists()
    # the next holder of the lock (here a reader) completes the commit: both tables are the new ones
    assert _tags(store) == ("victim-0", "victim-0")
    assert not (root / "_locks" / "web.commit.json").exists()
    store.write("parsed_blocks", "web", pa.table({"tag": ["after-0"]}))
    assert store.read("parsed_blocks", "web").column("tag").to_pylist() == ["after-0"]
