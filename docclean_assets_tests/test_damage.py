"""Damage found, reported and repaired (issue 37, point 2): a data dir tampered with between runs (the
newest entry of a table's log deleted, a part truncated, a part deleted), on a local disk and on
SeaweedFS. Readers print one line naming the table and exit 3 while the other tables stay queryable;
`docclean verify` finds it; the next `docclean run` repairs it, says what it did, makes again only the
documents whose rows were lost, and ends with the tables a clean run writes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from docclean_assets.cli import main as cli_main
from docclean_assets.store.tables import Store, TableDamaged
from docclean_assets_tests.support.runs import notices_config
from docclean_assets_tests.support.runs import table_rows as _rows

PAGES = 6
BATCH = 2  # documents per parse commit: three commits, so one can be lost and the others kept


@pytest.fixture(scope="module")
def notices(tmp_path_factory) -> tuple[Path, dict]:
    """The source every test damages a run of (its sources file), and the rows of its clean run."""
    root = tmp_path_factory.mktemp("notices")
    cfg = notices_config(root, PAGES, BATCH)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DAGSTER_HOME", str(root / "home"))
        assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(root / "clean"), "--quiet"]) == 0
    return cfg, _rows(Store(root / "clean"))


class Local:
    """The data dir as a folder, tampered with through the file system."""

    def __init__(self, root: Path):
        self.url = str(root)

    def ls(self, folder: str) -> list[str]:
        return sorted(str(p) for p in Path(folder).iterdir())

    def rm(self, path: str) -> None:
        Path(path).unlink()

    def truncate(self, path: str, size: int) -> None:
        with open(path, "r+b") as fh:
            fh.truncate(size)


class Remote:
    """The data dir in a bucket, tampered with through the S3 API."""

    def __init__(self, s3, bucket: str):  # noqa: ANN001 - the SeaweedS3 server
        self.url, self.fs = f"s3://{bucket}/docclean", s3.client()

    def ls(self, folder: str) -> list[str]:
        return sorted("s3://" + p for p in self.fs.ls(folder.removeprefix("s3://"), detail=False))

    def rm(self, path: str) -> None:
        self.fs.rm(path.removeprefix("s3://"))

    def truncate(self, path: str, size: int) -> None:
        self.fs.pipe_file(path.removeprefix("s3://"), self.fs.cat_file(path.removeprefix("s3://"))[:size])


def _newest_part(where, table_uri: str) -> str:  # noqa: ANN001 - Local or Remote
    """The part file the last commit of a table added (named in its newest log entry)."""
    logs = [p for p in where.ls(f"{table_uri}/_delta_log") if p.endswith(".json")]
    added = [json.loads(line)["add"]["path"] for line in _read(where, logs[-1]).splitlines() if '"add"' in line]
    return f"{table_uri}/{added[-1]}"


def _read(where, path: str) -> str:  # noqa: ANN001 - Local or Remote
    return Path(path).read_text() if isinstance(where, Local) else where.fs.cat_file(path.removeprefix("s3://")).decode()


def _damage(where, store: Store, table: str, kind: str) -> None:  # noqa: ANN001 - Local or Remote
    """Tamper with a table of the source as a disk fault or a careless hand would."""
    uri = store.uri(table, "notices")
    if kind == "log entry deleted":
        where.rm([p for p in where.ls(f"{uri}/_delta_log") if p.endswith(".json")][-1])
    elif kind == "part truncated":
        where.truncate(_newest_part(where, uri), 100)
    else:
        where.rm(_newest_part(where, uri))


KINDS = ("log entry deleted", "part truncated", "part deleted")


# What the next run makes again after damage to a table: (verb of the repair line, documents parsed again).
REMADE = {"parsed_blocks": ("parsed", BATCH), "parsed_documents": ("parsed", BATCH),
          "normalized_blocks": ("normalised", 0), "chunks": ("chunked", 0), "quality_report": (None, 0)}


def _check_damage_found_and_repaired(where, notices: tuple[Path, dict], kind: str, capsys,  # noqa: ANN001
                                     table: str = "parsed_blocks") -> None:
    cfg, clean_rows = notices
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", where.url, "--quiet"]) == 0
    capsys.readouterr()
    store = Store(where.url)
    _damage(where, store, table, kind)
    said = f"table {table} of source 'notices' is damaged: "
    if table in ("parsed_blocks", "normalized_blocks", "chunks", "quality_report"):  # tables with a view
        # the damaged table: one line that names it, exit 3; the others still answer
        assert cli_main(["sql", f"SELECT count(*) AS n FROM {table}", "--data-dir", where.url]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(said) and "docclean repair" in err[0]
        other = "raw_files" if table == "quality_report" else "quality_report"
        assert cli_main(["sql", f"SELECT count(*) AS n FROM {other}", "--json", "--data-dir", where.url]) == 0
        assert json.loads(capsys.readouterr().out) == {"n": PAGES}
    if table in ("normalized_blocks", "quality_report"):  # what summary reads
        assert cli_main(["summary", "--data-dir", where.url]) == 3
        assert capsys.readouterr().err.startswith(said)
    assert cli_main(["verify", "--data-dir", where.url]) == 3
    assert said in capsys.readouterr().out
    # the next run repairs it and makes again only what was lost: the last commit's documents
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", where.url, "--quiet"]) == 0
    out = capsys.readouterr().out
    verb, parsed = REMADE[table]
    repaired = [line.strip() for line in out.splitlines() if line.strip().startswith("repaired table ")]
    assert len(repaired) == 1 and said.replace(" is damaged: ", ": ").removeprefix("table ") in repaired[0], out
    if verb is not None:
        assert f"{BATCH} document(s) to be {verb} again" in repaired[0], out
    assert f"notices: {parsed} documents to parse, {PAGES - parsed} unchanged" in out
    repaired_rows = _rows(Store(where.url))
    assert all(repaired_rows[t] for t in ("parsed_blocks", "normalized_blocks", "chunks", "quality_report"))
    assert repaired_rows == clean_rows
    assert cli_main(["verify", "--data-dir", where.url]) == 0
    assert "no damage found" in capsys.readouterr().out


@pytest.mark.parametrize("kind", KINDS)
def test_damage_on_a_local_disk_is_reported_and_repaired_by_the_next_run(kind, notices, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    _check_damage_found_and_repaired(Local(tmp_path / "out"), notices, kind, capsys)


@pytest.mark.parametrize(("table", "kind"), [("parsed_documents", "part truncated"), ("normalized_blocks", "part deleted"),
                                             ("chunks", "log entry deleted"), ("quality_report", "part truncated")])
def test_damage_to_the_other_tables_is_repaired_as_well(table, kind, notices, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    _check_damage_found_and_repaired(Local(tmp_path / "out"), notices, kind, capsys, table)


@pytest.mark.parametrize("kind", KINDS)
def test_damage_on_object_storage_is_reported_and_repaired_by_the_next_run(kind, notices, s3_env, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    _check_damage_found_and_repaired(Remote(s3_env, s3_env.new_bucket()), notices, kind, capsys)


def test_a_part_damaged_inside_is_found_by_verify_and_repaired_by_repair(notices, tmp_path, monkeypatch, capsys):
    """Bytes overwritten inside a part (its size and footer unchanged): only a full read finds it."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    (cfg, clean_rows), out = notices, Local(tmp_path / "out")
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", out.url, "--quiet"]) == 0
    part = _newest_part(out, Store(out.url).uri("normalized_blocks", "notices"))
    data = bytearray(Path(part).read_bytes())
    data[4:len(data) // 2] = bytes(len(data) // 2 - 4)  # the pages, not the footer at the end
    Path(part).write_bytes(bytes(data))
    capsys.readouterr()
    assert cli_main(["sql", "SELECT max(text) FROM normalized_blocks", "--data-dir", out.url]) == 3
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("table normalized_blocks of source 'notices' is damaged: part ")
    assert cli_main(["verify", "--data-dir", out.url]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("table normalized_blocks of source 'notices' is damaged: part ")
    assert "cannot be read" in lines[0] and lines[-1].endswith("1 damaged (`docclean repair` repairs them)")
    assert cli_main(["repair", "--dry-run", "--data-dir", out.url]) == 0
    assert capsys.readouterr().out.startswith("would repair: table normalized_blocks")
    assert cli_main(["repair", "--data-dir", out.url]) == 0
    said = capsys.readouterr().out
    assert said.startswith("repaired table normalized_blocks of source 'notices': part ") and "normalised again" in said
    assert cli_main(["verify", "--data-dir", out.url]) == 0
    assert cli_main(["repair", "--data-dir", out.url]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("nothing to repair")
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", out.url, "--quiet"]) == 0
    assert _rows(Store(out.url)) == clean_rows


def test_a_stage_reads_local_copies_of_s3_parts_yet_a_part_cut_short_is_damage(notices, s3_env, tmp_path, monkeypatch):
    """On object storage the stages read each part from a local copy (store/cache.py); the copy of a
    part that was since cut short on the store is never served."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    cfg, clean_rows = notices
    where = Remote(s3_env, s3_env.new_bucket())
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", where.url, "--quiet"]) == 0
    store = Store(where.url)
    snap = store.snapshot("parsed_blocks", "notices")
    copies = store.readable(snap)
    assert len(copies) == len(snap.files) and all(Path(c).is_file() for c in copies)
    assert store.read("parsed_blocks", "notices").num_rows == len(clean_rows["parsed_blocks"])
    _damage(where, store, "parsed_blocks", "part truncated")
    with pytest.raises(TableDamaged, match=r"table parsed_blocks of source 'notices' is damaged: part .* is truncated"):
        store.read("parsed_blocks", "notices")


def test_a_repair_that_cannot_commit_says_why_in_one_line_and_exits_3(notices, tmp_path, monkeypatch, capsys):
    """Another writer committing while `docclean repair` rewrites a table: that source's one line, exit 3."""
    from docclean_assets.store import repair as repair_mod
    from docclean_assets.store.tables import StoreConflict

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    (cfg, _), out = notices, Local(tmp_path / "out")
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", out.url, "--quiet"]) == 0
    _damage(out, Store(out.url), "parsed_blocks", "part deleted")
    capsys.readouterr()

    def racing(store, key, read="listing"):  # noqa: ANN001, ANN202 - repair's signature
        raise StoreConflict(f"another writer committed to {store.uri('parsed_blocks', key)} at the same time; "
                            "run again to resume")

    monkeypatch.setattr(repair_mod, "repair", racing)
    assert cli_main(["repair", "--data-dir", out.url]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("could not repair source 'notices': another writer committed to ")
