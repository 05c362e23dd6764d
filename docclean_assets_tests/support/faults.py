"""Fault-injecting extractors for the isolation tests (run inside docclean's worker processes)."""
import os
import time

from docclean_assets.engine.blob import extract_file


def hang_or_extract(blob: str, fmt: str, **options):
    """Hang forever on a file whose name contains 'hang'; extract every other file normally."""
    if "hang" in os.path.basename(blob):
        while True:
            time.sleep(1)
    return extract_file(blob, fmt, **options)


def allocate_or_extract(blob: str, fmt: str, **options):
    """Allocate without bound on a file whose name contains 'bomb' (a decompression bomb's effect)."""
    if "bomb" in os.path.basename(blob):
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
    return extract_file(blob, fmt, **options)


def crash_or_extract(blob: str, fmt: str, **options):
    """Kill the worker outright (as a segfault in a native parser would) on a 'crash' file."""
    if "crash" in os.path.basename(blob):
        os._exit(139)
    return extract_file(blob, fmt, **options)


def absurd_values(blob: str, fmt: str, **options):
    """A file named 'absurd*' extracts to values no column can hold (a page count of 1e11, a level of
    2**31, an infinite box, a surrogate, a non-string meta value); others extract normally."""
    from docclean_assets.extract.model import BBox, Block, DocReport, Extraction

    if "absurd" not in os.path.basename(blob):
        return extract_file(blob, fmt, **options)
    report = DocReport(format=fmt, pages=99_999_999_999, raw_chars=1 << 70, ocr_confidence=float("nan"),
                       flags=["odd\udcff"])
    blocks = [
        Block(kind="paragraph", text="Readable text with a broken \udcff byte.", seq=0, page=1 << 40,
              bbox=BBox(0.0, 0.0, float("inf"), 10.0), level=2_147_483_647 + 1, anchor=-(1 << 40),
              meta=(("font_size", 11),)),
        Block(kind="paragraph", text="A second, ordinary paragraph.", seq=1, page=1),
    ]
    return Extraction(blocks, report)


def unwritable_meta(blob: str, fmt: str, **options):
    """A file named 'unwritable*' extracts to a block whose meta is no list of pairs at all."""
    from docclean_assets.extract.model import Block, DocReport, Extraction

    if "unwritable" not in os.path.basename(blob):
        return extract_file(blob, fmt, **options)
    return Extraction([Block(kind="paragraph", text="x", meta=(("a", "b", "c"),))], DocReport(format=fmt))


def slow_extract(blob: str, fmt: str, **options):
    """Extract after half a second (the engine tests need a run long enough to kill a worker in)."""
    time.sleep(0.5)
    return extract_file(blob, fmt, **options)


def cluster_fault_or_extract(blob: str, fmt: str, **options):
    """On a cluster worker: a 'poison' file SIGKILLs the Dask worker process running it (the parent
    of the workers' fork server, as the kernel's OOM killer or a lost machine would), a 'bomb' file
    allocates without bound; every other file extracts normally."""
    import signal

    import psutil

    name = os.path.basename(blob)
    if "poison" in name:
        os.kill(psutil.Process().parent().parent().pid, signal.SIGKILL)
        time.sleep(60)
    if "bomb" in name:
        return allocate_or_extract(blob, fmt, **options)
    return extract_file(blob, fmt, **options)


def arrow_pool(blob: str, fmt: str, **options):
    """Which allocator Arrow uses in the worker, and whether its rows can be made there."""
    import pyarrow as pa

    from docclean_assets.extract.schema import extraction_to_payload

    ext = extract_file(blob, fmt, **options)
    extraction_to_payload(ext.blocks, ext.report)
    return pa.default_memory_pool().backend_name


_HOARD: list[bytearray] = []  # what 'leak' files leave behind in their worker, for the next document
_SEEN: list[str] = []  # the documents this worker process was given before


def whoami(blob: str, fmt: str, **options):
    """The worker's pid, after work that depends on the document's name: 'leak-N' keeps N MiB
    allocated in the worker after it ends, 'need-N' touches N MiB and frees it, 'cycle-N' leaves N MiB
    in a reference cycle only a full collection frees, 'fragile' dies in a worker that had another
    document before it; anything else does nothing."""
    import gc

    name = os.path.basename(blob)
    kind, _, mib = name.partition(".")[0].partition("-")
    _SEEN.append(name)
    if kind == "fragile" and len(_SEEN) > 1:  # dies where another document came first, as native code out of room does
        os._exit(134)
    if kind == "cycle":
        cycle: list = [b"\1" * (int(mib) << 20)]
        cycle.append(cycle)
        gc.collect()  # still referenced: moved to the oldest generation, which young collections skip
        del cycle
    elif kind == "leak":
        _HOARD.append(b"\1" * (int(mib) << 20))  # resident, and referenced: no collection frees it
    elif kind == "need":
        buf = b"\1" * (int(mib) << 20)  # every page written: resident, not only reserved
        del buf
    return os.getpid()
