"""Fault-injecting extractors for the isolation tests (run inside docclean's worker processes)."""
import os
import time

from docclean_assets.extract.isolate import extract_file


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
