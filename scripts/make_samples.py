#!/usr/bin/env python
"""Write the sample documents under data/samples/ (reports/, office/, site/).

    python scripts/make_samples.py            # (re)write every sample
    python scripts/make_samples.py --check    # regenerate in a temp dir; exit 1 if data/samples differs
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docclean_assets_tests.fixtures.build import all_samples  # noqa: E402

DEFAULT_OUT = ROOT / "data" / "samples"
SUBDIRS = ("reports", "office", "site")


def write(out: Path) -> list[Path]:
    written = []
    for rel, data in sorted(all_samples().items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def check(out: Path) -> list[str]:
    """Differences between a fresh build and ``out``: changed, missing and unexpected files."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        write(fresh)
        expected = {p.relative_to(fresh).as_posix() for p in fresh.rglob("*") if p.is_file()}
        present = {p.relative_to(out).as_posix() for d in SUBDIRS if (out / d).exists()
                   for p in (out / d).rglob("*") if p.is_file()}
        for rel in sorted(expected):
            if rel not in present:
                problems.append(f"missing: {rel}")
            elif not filecmp.cmp(fresh / rel, out / rel, shallow=False):
                problems.append(f"differs: {rel}")
        problems += [f"unexpected: {rel}" for rel in sorted(present - expected)]
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if data/samples differs from a fresh build")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="samples folder (default: data/samples)")
    args = ap.parse_args(argv)
    if args.check:
        problems = check(args.out)
        for line in problems:
            print(line)
        if problems:
            print(f"{len(problems)} sample file(s) out of date; run scripts/make_samples.py", file=sys.stderr)
            return 1
        print("samples up to date")
        return 0
    for path in write(args.out):
        print(f"{path.stat().st_size:>7}  {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
