"""PartCache: a part is fetched once, served from its copy after, never kept at a size its commit did
not record, and the folder is trimmed to its limit sparing what was used lately."""
from __future__ import annotations

import os
import time

import pytest
from fsspec.implementations.local import LocalFileSystem

from docclean_assets.store import cache as cache_mod
from docclean_assets.store.cache import PartCache


class CountingFS(LocalFileSystem):
    """The local filesystem, counting downloads."""

    def __init__(self):
        super().__init__()
        self.fetched: list[str] = []

    def get_file(self, rpath, lpath, **kwargs):  # noqa: ANN001, ANN003, ANN201 - fsspec's signature
        self.fetched.append(rpath)
        return super().get_file(rpath, lpath, **kwargs)


def test_a_part_is_fetched_once_and_read_from_its_copy_after(tmp_path):
    part = tmp_path / "remote" / "part-1.parquet"
    part.parent.mkdir()
    part.write_bytes(b"x" * 1000)
    fs, cache = CountingFS(), PartCache(1, tmp_path / "cache")
    first = cache.local(fs, str(part), 1000)
    assert open(first, "rb").read() == part.read_bytes() and first != str(part)
    assert cache.local(fs, str(part), 1000) == first
    assert fs.fetched == [str(part)]


def test_a_part_not_of_its_recorded_size_is_never_kept(tmp_path):
    part = tmp_path / "part-2.parquet"
    part.write_bytes(b"x" * 100)  # its commit recorded 1000 bytes: cut short
    cache = PartCache(1, tmp_path / "cache")
    with pytest.raises(OSError, match="its commit recorded 1000"):
        cache.local(CountingFS(), str(part), 1000)
    assert not any((tmp_path / "cache").iterdir())


def test_the_folder_is_trimmed_to_its_limit_sparing_recent_copies(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "TRIM_EVERY", 1)
    cache, fs = PartCache(1, tmp_path / "cache"), CountingFS()  # 1 MiB
    paths = []
    for i in range(3):
        part = tmp_path / f"part-{i}.parquet"
        part.write_bytes(b"x" * 600_000)
        paths.append(cache.local(fs, str(part), 600_000))
        os.utime(paths[-1], (time.time() - 2 * cache_mod.KEEP_RECENT_S + i,) * 2)  # old, oldest first
    assert [os.path.exists(p) for p in paths] == [False, False, True]  # 1.8 MB over 1 MiB: the oldest went
    for i in (3, 4):  # two copies used just now: over the limit, yet neither is trimmed
        recent = tmp_path / f"part-{i}.parquet"
        recent.write_bytes(b"x" * 600_000)
        paths.append(cache.local(fs, str(recent), 600_000))
    assert [os.path.exists(p) for p in paths] == [False, False, False, True, True]
