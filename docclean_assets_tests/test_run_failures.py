"""The cause of a failed run in its last line (issue 37, point 3): a full disk (a real 400 KiB tmpfs
where the machine lets the tests mount one, and an ENOSPC injected where delta-rs writes), an object
store answering HTTP 500 to every PUT of one table (a fault proxy in front of SeaweedFS), and two runs
racing on S3 (test_s3_store). Each exits 3 with one line that says what happened and that what was
committed stays, never the advice to run a first time, and the next run resumes to the tables of a
clean run."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from docclean_assets.cli import main as cli_main
from docclean_assets.store import tables
from docclean_assets.store.tables import Store
from docclean_assets_tests.support.faultproxy import FaultProxy
from docclean_assets_tests.support.runs import notices_config, table_rows

PROJECT = Path(__file__).resolve().parents[1]
SAMPLES = PROJECT / "data" / "sources.yaml"
SMALL_FS = "400k"  # a tmpfs the samples' tables (~830 KiB) do not fit in
ROOMY_FS = "8m"
RESUMES = "what was committed stays, and the next run resumes from it"


def _last_line(err: str) -> str:
    return [line for line in err.splitlines() if line.strip()][-1]


def _mount(where: Path, size: str) -> bool:
    """Mount a tmpfs of `size` at `where` (or resize it); whether the machine allowed it."""
    where.mkdir(exist_ok=True)
    opts = f"size={size}" if not where.is_mount() else f"remount,size={size}"
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True).returncode == 0


def test_a_full_disk_is_the_last_line_and_the_run_after_resumes(tmp_path, monkeypatch, capsys):
    small = tmp_path / "small"
    if not _mount(small, SMALL_FS):
        pytest.skip("this machine does not let the tests mount a tmpfs (not root, or no CAP_SYS_ADMIN); "
                    "test_an_enospc_where_delta_rs_writes covers the message")
    try:
        monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
        data = small / "data"
        assert cli_main(["run", "--sources", str(SAMPLES), "--data-dir", str(data)]) == 3
        io = capsys.readouterr()
        last = _last_line(io.err)
        assert last.startswith("docclean run failed: ") and f"no space left on the device of {data}" in last, io.err[-2000:]
        assert RESUMES in last
        assert "run `docclean run` first" not in io.out + io.err  # nothing contradicts what was committed
        assert _mount(small, ROOMY_FS)
        assert cli_main(["run", "--sources", str(SAMPLES), "--data-dir", str(data), "--quiet"]) == 0
        assert cli_main(["verify", "--data-dir", str(data)]) == 0
        assert cli_main(["run", "--sources", str(SAMPLES), "--data-dir", str(tmp_path / "clean"), "--quiet"]) == 0
        assert table_rows(Store(data)) == table_rows(Store(tmp_path / "clean"))
    finally:
        subprocess.run(["umount", str(small)], capture_output=True)


def test_an_enospc_where_delta_rs_writes_is_the_last_line(tmp_path, monkeypatch, capsys):
    """The disk fills while normalized_blocks commits, after every document was parsed and committed."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    cfg, data = notices_config(tmp_path), tmp_path / "out"
    real = tables.write_deltalake

    def full_disk(target, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - write_deltalake's own
        if "normalized_blocks" in str(getattr(target, "table_uri", target)):  # delta-rs's message, as seen on a tmpfs
            raise OSError("Generic LocalFileSystem error\n  ↳ Unable to copy data to file\n"
                          "    ↳ No space left on device (os error 28)")
        return real(target, *args, **kwargs)

    monkeypatch.setattr(tables, "write_deltalake", full_disk)
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(data)]) == 3
    io = capsys.readouterr()
    assert _last_line(io.err) == (f"docclean run failed: notices: normalized_blocks: no space left on the device of "
                                  f"{data}: free space (or move the data dir), then run again; {RESUMES}")
    assert "run `docclean run` first" not in io.out + io.err
    assert cli_main(["sql", "SELECT count(*) AS n FROM parsed_documents", "--json", "--data-dir", str(data)]) == 0
    assert json.loads(capsys.readouterr().out) == {"n": 6}  # what was committed before it stays
    assert cli_main(["summary", "--data-dir", str(data)]) == 1  # and is not denied
    assert "6 document(s) are parsed and committed: a run stopped before it" in capsys.readouterr().err
    monkeypatch.setattr(tables, "write_deltalake", real)
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(data), "--quiet"]) == 0
    assert "notices: 0 documents to parse, 6 unchanged" in capsys.readouterr().out


def test_an_object_store_failing_every_put_of_a_table_is_the_last_line(s3, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    proxy = FaultProxy(s3.endpoint, tmp_path / "proxy")
    try:
        for key, value in s3.env().items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        cfg, url = notices_config(tmp_path), f"s3://{s3.new_bucket()}/docclean"
        proxy.fail_requests("PUT", "/normalized_blocks/")
        assert cli_main(["run", "--sources", str(cfg), "--data-dir", url]) == 3
        io = capsys.readouterr()
        last = _last_line(io.err)
        assert last.startswith(f"docclean run failed: notices: normalized_blocks: the object store of {url} "
                               "answered HTTP 500"), io.err[-3000:]
        assert RESUMES in last and proxy.failed
        assert "run `docclean run` first" not in io.out + io.err
        proxy.fail_requests(None)
        assert cli_main(["run", "--sources", str(cfg), "--data-dir", url, "--quiet"]) == 0
        assert "notices: 0 documents to parse, 6 unchanged" in capsys.readouterr().out
        assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(tmp_path / "clean"), "--quiet"]) == 0
        assert table_rows(Store(url)) == table_rows(Store(tmp_path / "clean"))
    finally:
        proxy.stop()
