"""Mutation fuzzing of the extraction library (`make fuzz`; not part of `make test`).

Mutates the sample documents in data/samples/ (byte flips, truncations, chunk duplication and
deletion; for DOCX/PPTX also zip and XML structure: dropped, duplicated and swapped members, corrupt
XML; for every format numeric fields set to values no column holds, geometry far off the page,
parts re-encoded in UTF-16 or mislabelled; and hostile file names) and extracts every mutant through
isolate.run_jobs with per-document limits, its rows made in the worker as the pipeline makes them
(so a value no table column can hold is found too). Reports crashes
(an exception other than ExtractionError escaping a backend, grouped by type and line), hangs
(timeouts), and memory spikes (the memory ceiling hit, or a worker's peak RSS above --spike-mb).
Mutant i of seed s is a pure function of (s, i): `--replay I` rebuilds one.

    python scripts/fuzz.py --count 2000 [--seconds 600] [--seed 1] [--formats pdf,docx]
"""
from __future__ import annotations

import argparse
import io
import os
import random
import re
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docclean_assets.engine.isolate import Job, run_jobs  # noqa: E402
from docclean_assets.extract.settings import LimitSettings, Settings  # noqa: E402
from docclean_assets.extract.sniff import EXTENSIONS  # noqa: E402

SAMPLES = ROOT / "data" / "samples"


def samples(formats: set[str]) -> dict[str, list[tuple[str, bytes]]]:
    """(name, bytes) of every sample document, per format."""
    out: dict[str, list[tuple[str, bytes]]] = defaultdict(list)
    for path in sorted(SAMPLES.rglob("*")):
        fmt = EXTENSIONS.get(path.suffix.lower())
        if fmt in formats:
            out[fmt].append((path.name, path.read_bytes()))
    return out


# ------------------------------------------------------------------ byte mutations
def flip(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 2, 4, 16, 64))):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(1, len(data))]


def duplicate_chunk(rng: random.Random, data: bytes) -> bytes:
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.choice((16, 256, 4096, 65536)))
    k = rng.randrange(len(data))
    return data[:k] + data[i:j] * rng.choice((1, 2, 8)) + data[k:]


def delete_chunk(rng: random.Random, data: bytes) -> bytes:
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.choice((1, 16, 256, 4096)):]


# ------------------------------------------------------------------ zip / XML mutations
def _rezip(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, blob in members:
            zf.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), blob, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _members(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [(i.filename, zf.read(i)) for i in zf.infolist()]


def drop_member(rng: random.Random, data: bytes) -> bytes:
    m = _members(data)
    del m[rng.randrange(len(m))]
    return _rezip(m)


def duplicate_member(rng: random.Random, data: bytes) -> bytes:
    m = _members(data)
    m.insert(rng.randrange(len(m)), m[rng.randrange(len(m))])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": the point of the mutation
        return _rezip(m)


def swap_parts(rng: random.Random, data: bytes) -> bytes:
    m = _members(data)
    xml = [i for i, (n, _b) in enumerate(m) if n.endswith((".xml", ".rels"))]
    i, j = rng.sample(xml, 2)
    m[i], m[j] = (m[i][0], m[j][1]), (m[j][0], m[i][1])
    return _rezip(m)


_XML_DAMAGE = (
    lambda rng, x: x[: rng.randrange(1, len(x))],  # cut short
    lambda rng, x: re.sub(rb"</[A-Za-z:]+>", b"", x, count=rng.randrange(1, 5)),  # unclosed elements
    lambda rng, x: re.sub(rb'="[^"]*"', lambda m: b'="' + rng.choice((b"-1", b"99999999999", b"", b"x", b"NaN")) + b'"', x,
                          count=rng.randrange(1, 40)),  # absurd attribute values
    lambda rng, x: re.sub(rb"<[A-Za-z]+:[A-Za-z]+", lambda m: m.group(0) + b"X", x, count=rng.randrange(1, 20)),  # unknown tags
    lambda rng, x: x.replace(b'r:id="', b'r:id="missing', rng.randrange(1, 5)),  # dangling relationships
    lambda rng, x: re.sub(rb"<([A-Za-z]+:[A-Za-z]+)[^>]*/>", b"", x, count=rng.randrange(1, 30)),  # removed empty elements
)


def corrupt_xml(rng: random.Random, data: bytes) -> bytes:
    m = _members(data)
    xml = [i for i, (n, _b) in enumerate(m) if n.endswith((".xml", ".rels"))]
    i = rng.choice(xml)
    name, blob = m[i]
    m[i] = (name, rng.choice(_XML_DAMAGE)(rng, blob))
    return _rezip(m)


# ------------------------------------------------------------------ values, geometry, encodings, names
# Numbers no column or allocation should take at face value: past int32 and int64, overflowing a
# float, not numbers at all, and forms some parsers accept (hex, exponent, signed zero).
EXTREMES = (b"2147483648", b"-2147483649", b"99999999999", b"9223372036854775808", b"1e400", b"-1e400", b"INF",
            b"NaN", b"0x10", b"", b"-0", b"-1", b"3.5", b"1" * 40)
_NUMBER_ATTR = re.compile(rb'(\s[\w:]+=")(-?\d+(?:\.\d+)?)(")')
_NUMBER_TEXT = re.compile(rb">(-?\d+)<")
# Attributes and keys that place or size things: shape offsets and extents, table spans and widths,
# picture sizes; PDF page boxes, rotation and form matrices.
_GEOMETRY_ATTR = re.compile(rb'(\s(?:x|y|cx|cy|w:w|w:val|colspan|rowspan|width|height|l|t|r|b)=")(-?\d+(?:\.\d+)?)(")')
_PDF_GEOMETRY = re.compile(rb"(/(?:MediaBox|CropBox|BBox|Matrix|Rect)\s*\[)([^\]]*)(\])|(/Rotate\s+)(-?\d+)")
_FAR = (b"20000000000000", b"-20000000000000", b"1e30", b"0", b"-612", b"2147483647")


def _xml_member(rng: random.Random, data: bytes, change) -> bytes:  # noqa: ANN001 - bytes -> bytes
    """The package with one XML part passed through `change`."""
    m = _members(data)
    xml = [i for i, (n, _b) in enumerate(m) if n.endswith((".xml", ".rels"))]
    i = rng.choice(xml)
    m[i] = (m[i][0], change(m[i][1]))
    return _rezip(m)


def _sub_some(rng: random.Random, pattern: re.Pattern, text: bytes, make) -> bytes:  # noqa: ANN001
    """`text` with a random subset (at least one) of `pattern`'s matches replaced by make(match)."""
    hits = list(pattern.finditer(text))
    if not hits:
        return text
    chosen = set(rng.sample(range(len(hits)), min(len(hits), rng.choice((1, 3, 20)))))
    out, last = [], 0
    for k, hit in enumerate(hits):
        if k in chosen:
            out += [text[last:hit.start()], make(hit)]
            last = hit.end()
    return b"".join(out) + text[last:]


def numeric_fields(rng: random.Random, data: bytes) -> bytes:
    """Numbers in attributes and element text (levels, counts, sizes, spans) set to extremes."""
    def change(x: bytes) -> bytes:
        x = _sub_some(rng, _NUMBER_ATTR, x, lambda h: h.group(1) + rng.choice(EXTREMES) + h.group(3))
        return _sub_some(rng, _NUMBER_TEXT, x, lambda h: b">" + rng.choice(EXTREMES) + b"<")
    return _xml_member(rng, data, change) if data[:2] == b"PK" else change(data)


def geometry(rng: random.Random, data: bytes) -> bytes:
    """Positions, extents, spans and page boxes far off the page, negative or inverted."""
    if data[:4] == b"%PDF":
        def far_pdf(h: re.Match) -> bytes:
            if h.group(5) is not None:
                return h.group(4) + rng.choice((b"90", b"270", b"45", b"-90", b"1000000000"))
            nums = h.group(2).split()
            return h.group(1) + b" ".join(rng.choice(_FAR) if rng.random() < 0.5 else n for n in nums) + h.group(3)
        return _sub_some(rng, _PDF_GEOMETRY, data, far_pdf)
    change = lambda x: _sub_some(rng, _GEOMETRY_ATTR, x, lambda h: h.group(1) + rng.choice(_FAR) + h.group(3))  # noqa: E731
    return _xml_member(rng, data, change) if data[:2] == b"PK" else change(data)


_ENCODINGS = (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""), ("utf-8", b"\xef\xbb\xbf"))


def reencode(rng: random.Random, data: bytes) -> bytes:
    """A part (DOCX/PPTX) or the page (HTML) in UTF-16 with or without its BOM, or UTF-8 with a BOM,
    its declared encoding left as it was or changed to match."""
    codec, bom = rng.choice(_ENCODINGS)

    def change(x: bytes) -> bytes:
        text = x.decode("utf-8", "replace")
        if rng.random() < 0.5:
            text = re.sub(r'encoding="[^"]*"|charset=["\']?[\w-]+', lambda m: m.group(0).split("=")[0] + '="UTF-16"', text)
        return bom + text.encode(codec)
    return _xml_member(rng, data, change) if data[:2] == b"PK" else change(data)


BYTE_OPS = (flip, truncate, duplicate_chunk, delete_chunk)
ZIP_OPS = (drop_member, duplicate_member, swap_parts, corrupt_xml, corrupt_xml, corrupt_xml)
# Mutations that keep the file well-formed and change what it says: each format's own.
VALUE_OPS = {"pdf": (numeric_fields, geometry, geometry), "docx": (numeric_fields, geometry, reencode),
             "pptx": (numeric_fields, geometry, reencode), "html": (numeric_fields, geometry, reencode)}
# File names a folder can hold: bytes that are not UTF-8, control characters, backslashes, a
# leading dash, 250 characters (os.fsdecode keeps undecodable bytes as surrogates).
HOSTILE_NAMES = (b"caf\xe9", b"\xff\xfe\x80", b"new\nline", b"back\\slash", b"-rf", b"sp ace", b"n" * 240,
                 b"%s%n", "\u202eevil".encode())


def mutant_name(seed: int, i: int) -> bytes:
    """The file name mutant i is written under: hostile one time in five."""
    rng = random.Random(f"name:{seed}:{i}")
    return (rng.choice(HOSTILE_NAMES) + b"-" if rng.random() < 0.2 else b"") + str(i).encode()


def mutant(seed: int, i: int, pool: dict[str, list[tuple[str, bytes]]]) -> tuple[str, str, str, bytes]:
    """(format, sample name, operation, bytes) of mutant i: deterministic in (seed, i)."""
    rng = random.Random(f"{seed}:{i}")
    fmts = sorted(pool)
    fmt = fmts[i % len(fmts)]
    name, data = rng.choice(pool[fmt])
    ops = BYTE_OPS + (ZIP_OPS if fmt in ("docx", "pptx") else ()) + VALUE_OPS[fmt] * 2
    op = rng.choice(ops)
    out = op(rng, data)
    if rng.random() < 0.15:  # stack a second mutation now and then
        op2 = rng.choice(BYTE_OPS)
        out, op = op2(rng, out), f"{op.__name__}+{op2.__name__}"
    return fmt, name, op if isinstance(op, str) else op.__name__, out


def crash_class(error: str) -> str:
    """'KeyError at docx.py:120' from 'KeyError: ... at docx.py:120'."""
    kind = error.split(":", 1)[0]
    where = re.search(r" at ([\w.]+:\d+)$", error)
    return f"{kind} at {where.group(1)}" if where else kind


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2000, help="mutants to run (default 2000)")
    ap.add_argument("--seconds", type=float, default=0, help="stop starting new batches after this long (0 = no limit)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first mutant index")
    ap.add_argument("--formats", default="pdf,docx,pptx,html")
    ap.add_argument("--timeout", type=float, default=20, help="per-document wall-clock limit, s")
    ap.add_argument("--memory-mb", type=int, default=2048, help="per-document address-space ceiling, MiB")
    ap.add_argument("--spike-mb", type=float, default=1024, help="peak RSS counted as a memory spike, MiB")
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "out" / "fuzz", help="minimal mutant of each finding is kept here")
    ap.add_argument("--replay", type=int, help="write mutant REPLAY to --out and exit")
    args = ap.parse_args(argv)
    pool = samples(set(args.formats.split(",")))
    if not pool:
        print("no samples found in data/samples/ (run `make samples`)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if args.replay is not None:
        fmt, name, op, data = mutant(args.seed, args.replay, pool)
        target = args.out / f"mutant-{args.seed}-{args.replay}.{fmt}"
        target.write_bytes(data)
        print(f"{target}: {op} of {name}")
        return 0
    limits = LimitSettings(timeout_s=args.timeout, memory_mb=args.memory_mb)
    settings = Settings(limits=limits)
    started = time.monotonic()
    tally: Counter = Counter()
    per_format: dict[str, Counter] = defaultdict(Counter)
    findings: dict[str, tuple[int, int, str, str, str]] = {}  # class -> (size, index, fmt, op, error)
    refusals: Counter = Counter()  # what refused mutants were refused for, by message shape
    peak = 0.0
    done = 0
    with tempfile.TemporaryDirectory(prefix="docclean-fuzz-") as tmp:
        for lo in range(args.start, args.start + args.count, args.batch):
            if args.seconds and time.monotonic() - started > args.seconds:
                break
            jobs, meta = [], {}
            for i in range(lo, min(lo + args.batch, args.start + args.count)):
                fmt, name, op, data = mutant(args.seed, i, pool)
                blob = Path(os.fsdecode(os.fsencode(tmp) + b"/" + mutant_name(args.seed, i) + b"." + fmt.encode()))
                blob.write_bytes(data)
                meta[str(i)] = (fmt, name, op, len(data))
                jobs.append(Job(str(i), str(blob), fmt, {"settings": settings}, rows=True))
            for job, o in run_jobs(jobs, limits):
                fmt, name, op, size = meta[job.key]
                peak = max(peak, o.peak_rss_mb or 0.0)
                kind = o.kind
                if kind in ("ok", "refused") and (o.peak_rss_mb or 0) > args.spike_mb:
                    kind = "memory"
                label = {"crash": "crash", "timeout": "hang", "memory": "memory", "died": "memory"}.get(kind)
                tally[kind] += 1
                per_format[fmt][kind] += 1
                if kind == "refused":
                    refusals[f"{fmt}: {re.sub(r'[0-9]+', '#', (o.error or '')[:70])}"] += 1
                if label:
                    cls = f"{label}: {crash_class(o.error or '') if label == 'crash' else fmt}"
                    if cls not in findings or size < findings[cls][0]:
                        findings[cls] = (size, int(job.key), fmt, f"{op} of {name}", o.error or "")
                Path(job.blob).unlink(missing_ok=True)
                done += 1
            print(f"[{time.monotonic() - started:6.0f} s] {done} mutants: {dict(tally)}", flush=True)
    print(f"\n{done} mutants in {time.monotonic() - started:.0f} s (seed {args.seed}); worker peak RSS {peak:.0f} MiB")
    for fmt, c in sorted(per_format.items()):
        print(f"  {fmt:5} {dict(c)}")
    crashes = sum(1 for c in findings if c.startswith("crash"))
    hangs = tally["timeout"]
    spikes = tally["memory"] + tally["died"]
    print("most frequent refusals:")
    for why, n in refusals.most_common(12):
        print(f"  {n:5}  {why}")
    print(f"crashes: {tally['crash']} ({crashes} classes), hangs: {hangs}, memory spikes: {spikes}")
    for cls, (size, i, fmt, op, error) in sorted(findings.items()):
        mutant_path = args.out / f"mutant-{args.seed}-{i}.{fmt}"
        mutant_path.write_bytes(mutant(args.seed, i, pool)[3])
        print(f"- {cls}\n    smallest: mutant {i} ({op}, {size} bytes) -> {mutant_path.name}\n    {error[:300]}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
