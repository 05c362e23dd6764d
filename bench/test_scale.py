"""Unit tests of the scale bench's pure helpers (they run with the suite: setup.cfg testpaths); the
bench itself (`make bench-scale`) is never run here."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bench.scale import MIB, Peaks, memory_bytes, parse_counts, tree_pids
from bench.scale_docs import INDEX_WORDS, VOCAB, generate_source, unique_phrase

HELD_MIB = 64  # memory the child of the sampler test writes and holds
BURN_S = 0.4  # CPU seconds the orphaned grandchild of the CPU test burns
REPO = Path(__file__).resolve().parent.parent
# Run in a fresh interpreter, so the test process never becomes a subreaper: a child starts a
# grandchild that burns CPU and exits at once, orphaning it; the bench must still count that CPU.
_ORPHAN_CPU = f"""
import subprocess, sys
from bench.scale import become_subreaper, children_cpu_s, reap_orphans
assert become_subreaper()
burn = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < {BURN_S}: pass"
spawn = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {{burn!r}}])"
before = children_cpu_s()
subprocess.run([sys.executable, "-c", spawn], check=True)
reap_orphans()
print(children_cpu_s() - before)
"""


def _digests(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}


def test_generated_html_documents_are_distinct_and_keep_the_template(tmp_path):
    formats = generate_source(tmp_path, 24)
    assert formats == {"html": 24}
    digests = _digests(tmp_path)
    assert len(digests) == 24 and len(set(digests.values())) == 24
    for i, path in enumerate(sorted(tmp_path.rglob("*.html"))):
        page = path.read_text(encoding="utf-8")
        assert 'class="site-header"' in page and 'class="site-footer"' in page  # the site template stays
        assert unique_phrase(i) in page


def test_unique_phrases_differ_and_refuse_an_index_they_cannot_spell():
    assert len({unique_phrase(i) for i in range(5000)}) == 5000
    with pytest.raises(ValueError):
        unique_phrase(len(VOCAB) ** INDEX_WORDS)


def test_mixed_source_has_every_format_made_unique(tmp_path):
    formats = generate_source(tmp_path, 16, mix=True)
    assert formats == {"html": 8, "docx": 4, "pptx": 2, "pdf": 2}
    assert len(set(_digests(tmp_path).values())) == 16
    docx = sorted(tmp_path.rglob("*-services-contract.docx"))
    for path in docx:
        i = int(path.name.split("-")[0])
        assert unique_phrase(i) in zipfile.ZipFile(path).read("word/document.xml").decode("utf-8")
    assert all(p.read_bytes().startswith(b"%PDF") for p in tmp_path.rglob("*.pdf"))


def test_peaks_sum_a_child_that_holds_memory():
    code = f"import sys; b = b'x' * ({HELD_MIB} << 20); print('ready', flush=True); sys.stdin.read()"
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline().strip() == b"ready"
        assert child.pid in tree_pids(os.getpid())
        peaks = Peaks()
        peaks.sample(os.getpid())
        assert peaks.child >= HELD_MIB * MIB
        assert peaks.tree >= peaks.parent + HELD_MIB * MIB
        assert peaks.tree_pss >= HELD_MIB * MIB  # the child's bytes are its own: PSS counts them whole
    finally:
        child.communicate(b"")
    assert memory_bytes(child.pid) == (0, 0)  # reaped: nothing to read


def test_cpu_of_orphaned_descendants_is_counted():
    out = subprocess.run([sys.executable, "-c", _ORPHAN_CPU], cwd=REPO, capture_output=True, text=True, check=True)
    assert float(out.stdout) >= BURN_S


def test_parse_counts_reads_the_parsed_blocks_line():
    output = ("[1/1] scale: materializing\n    raw_files          rows=40\n"
              "    parsed_blocks      rows=812 parsed=12 reused=28 failed=1 flagged=3\n    done in 9.0 s\n")
    assert parse_counts(output) == {"parsed": 12, "reused": 28, "failed": 1}
    assert parse_counts("killed before any summary\n") == {}
