"""Behaviour unchanged, proven: every corpus document through `docclean run`, one digest per document.

A refactor of the house (issue 39) must not change one block. This runs the real pipeline (the CLI
a user runs, its workers, the store) over every folder of `../shared/corpus/` as its own source, with
OCR off or on (`auto`), and writes one line per document: the digest of its normalized_blocks rows
(every column, in seq order), of its quality_report row (without the parse time) and of its chunks.
Run it on the code before and after a change and compare:

    python -m bench.house_digest --ocr off --out /tmp/before-off.json      # on the old tree
    python -m bench.house_digest --ocr off --out /tmp/after-off.json       # on the new tree
    python -m bench.house_digest --compare /tmp/before-off.json /tmp/after-off.json

`--root DIR` runs the code of another checkout (a git worktree of the old commit) with this
script. Skips (exit 0, one line) where the corpus is absent.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.datasets import CORPUS, WCXB, WCXB_PAGES, load_wcxb

FORMAT_DIRS = ("pdf", "docx", "pptx", "html", "retrieval")
# Columns that differ between two runs of the same code: wall-clock time.
VOLATILE = {"parse_seconds"}
TABLES = {"normalized_blocks": "seq", "quality_report": None, "chunks": "chunk_index"}


def corpus_sources(corpus: Path) -> dict[str, Path]:
    """One source per dataset folder of the corpus (pdf/docling, html/wcxb_dev_sample, ...); WCXB's
    gzipped pages as the bench unpacks them (docclean reads .html, not .gz)."""
    out = {}
    for fmt in FORMAT_DIRS:
        for d in sorted(p for p in (corpus / fmt).iterdir() if p.is_dir()):
            name = re.sub(r"[^a-z0-9_-]", "_", f"{fmt}-{d.name}".lower())
            out[name] = WCXB_PAGES if d == corpus / WCXB and load_wcxb(corpus) else d
    return out


def write_sources(path: Path, sources: dict[str, Path], ocr: str) -> None:
    """A sources file naming every corpus folder with the given OCR mode."""
    lines = ["sources:"]
    for name, d in sources.items():
        lines += [f"  {name}:", f"    path: {json.dumps(str(d))}", f"    ocr: {ocr}"]
    path.write_text("\n".join(lines) + "\n")


def run_pipeline(root: Path, sources_file: Path, data_dir: Path) -> float:
    """`docclean run` of the code in `root` over the sources (its log in data_dir/run.log); its wall time."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    t0 = time.perf_counter()
    with open(data_dir / "run.log", "w") as log:
        code = subprocess.run([sys.executable, "-m", "docclean_assets.cli", "run", "--sources", str(sources_file),
                               "--data-dir", str(data_dir / "tables")], cwd=root, env=env, stdout=log,
                              stderr=subprocess.STDOUT).returncode
    if code:
        raise SystemExit(f"docclean run failed ({code}):\n" + (data_dir / "run.log").read_text()[-3000:])
    return time.perf_counter() - t0


def table_digests(root: Path, data_dir: Path) -> dict[str, dict[str, str]]:
    """source/path -> {table: digest} over the committed tables, read by `docclean sql --json` of `root`."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    out: dict[str, dict[str, hashlib._Hash]] = {}
    for table, order in TABLES.items():
        exclude = f" EXCLUDE ({', '.join(sorted(VOLATILE))})" if table == "quality_report" else ""
        sql = f"SELECT *{exclude} FROM {table} ORDER BY source, path" + (f", {order}" if order else "")
        proc = subprocess.Popen([sys.executable, "-m", "docclean_assets.cli", "sql", "--json", "--data-dir",
                                 str(data_dir / "tables"), sql], cwd=root, env=env, stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            row = json.loads(line)
            key = f"{row['source']}/{row['path']}"
            out.setdefault(key, {}).setdefault(table, hashlib.sha256()).update(line.encode())
        if proc.wait():
            raise SystemExit(f"docclean sql failed on {table}")
    return {k: {t: h.hexdigest()[:16] for t, h in v.items()} for k, v in out.items()}


def compare(before: dict, after: dict) -> int:
    """Print every document whose digest differs or that is in one run only; the count."""
    docs_b, docs_a = before["documents"], after["documents"]
    bad = 0
    for key in sorted(set(docs_b) | set(docs_a)):
        b, a = docs_b.get(key), docs_a.get(key)
        if b != a:
            bad += 1
            tables = sorted(t for t in set(b or {}) | set(a or {}) if (b or {}).get(t) != (a or {}).get(t))
            print(f"differs: {key}: {', '.join(tables) or 'missing'}")
    print(f"{len(docs_b)} documents before, {len(docs_a)} after, {bad} differ")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ocr", choices=("off", "auto", "force"), default="off")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout whose code runs (default: this one)")
    parser.add_argument("--out", type=Path, help="JSON of the digests")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new one, removed after)")
    parser.add_argument("--only", help="only the sources whose name contains this (a quick look)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        return 1 if compare(before, after) else 0
    if not CORPUS.is_dir():
        print(f"skipped: no corpus at {CORPUS}")
        return 0
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        work = Path(tmp)
        sources = {n: d for n, d in corpus_sources(CORPUS).items() if args.only is None or args.only in n}
        write_sources(work / "sources.yaml", sources, args.ocr)
        seconds = run_pipeline(args.root.resolve(), work / "sources.yaml", work)
        docs = table_digests(args.root.resolve(), work)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.root, capture_output=True,
                            text=True).stdout.strip()
    result = {"commit": commit, "ocr": args.ocr, "seconds": round(seconds, 1), "documents": docs}
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"{len(docs)} documents of {len(sources)} sources, ocr {args.ocr}, {seconds:.0f} s at {commit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
