"""Folder sources on object storage (`path: s3://bucket/docs/`), against a real SeaweedFS server started
by the tests: discovered and parsed like the same files in a local folder, and re-ingested by ETag: an
unchanged object is not downloaded again, a changed, new or deleted one is exactly what changes."""
from __future__ import annotations

import hashlib
from pathlib import Path

import dagster as dg
import pytest

from docclean_assets.ingest import discover, inventory
from docclean_assets.cli import main as cli_main
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets.defs.definitions import build_defs
from docclean_assets.pipeline.raw import raw_files_table
from docclean_assets.defs.schedules import folder_fingerprint
from docclean_assets.ingest.sources import Source, SourceConfigError, load_sources
from docclean_assets.store.location import StorageUnavailable
from docclean_assets.store.settings import StorageSettings
from docclean_assets.store.tables import Store
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA, QUALITY_SCHEMA, RAW_FILES_SCHEMA
from docclean_assets_tests.support import s3server

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
# Columns that legitimately differ between the same file on a disk and in a bucket (or between runs).
WHERE = {"source", "blob", "modified", "etag", "last_modified", "parse_seconds"}
TABLES = {"raw_files": RAW_FILES_SCHEMA, "parsed_documents": DOCS_SCHEMA, "parsed_blocks": BLOCKS_SCHEMA,
          "normalized_blocks": BLOCKS_SCHEMA, "quality_report": QUALITY_SCHEMA}
PAGE = "<html><head><title>{t}</title></head><body><main><h1>{t}</h1><p>{p}</p></main></body></html>"


def _files() -> dict[str, bytes]:
    """Two sample folders (office, site), a truncated DOCX, and keys discovery must skip."""
    files = {f"{folder}/{f.name}": f.read_bytes() for folder in ("office", "site")
             for f in sorted((SAMPLES / folder).iterdir())}
    docx = (SAMPLES / "office" / "services-contract.docx").read_bytes()
    files["broken/contract.docx"] = docx[: len(docx) // 2]  # a ZIP cut in half: its own failed row
    files["Q1 notes #2 résumé.html"] = PAGE.format(t="Quarter notes", p="Spaces, a hash and accents in a key.").encode()
    files.update({".drafts/hidden.html": PAGE.format(t="Hidden", p="never read").encode(),
                  "~$lock.docx": b"lock", "office/notes.txt": b"not a document", "site/.DS_Store": b"\0"})
    return files


def _materialize(cfg: Path, data: Path, partition: str) -> dict[str, dict]:
    """Run every asset of one source; the metadata of each materialization, by asset."""
    defs = build_defs(cfg, data)
    result = dg.materialize([*defs.assets], partition_key=partition, resources=defs.resources, raise_on_error=False)
    assert result.success, [e.event_specific_data.error.message for e in result.all_events if e.is_step_failure]
    return {m.asset_key.to_user_string(): {k: v.value for k, v in m.metadata.items()}
            for e in result.get_asset_materialization_events()
            for m in [e.event_specific_data.materialization]}


def _tables(store: Store, source: str) -> dict[str, list[tuple]]:
    """Every table of a source without the columns that say where its files were, in one order."""
    out = {}
    for table, schema in TABLES.items():
        rows = store.read(table, source, schema).to_pylist()
        keep = [c for c in schema.names if c not in WHERE]
        out[table] = sorted(tuple(str(r[c]) for c in keep) for r in rows)
    return out


@pytest.fixture
def cloud(s3_env, tmp_path, monkeypatch):
    """A bucket holding _files() below docs/ (plus a neighbouring docs-old/ and a folder marker), the
    same files in a local folder, and a sources.yaml naming both with the same rules."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    fs, bucket = s3_env.client(), s3_env.new_bucket()
    for rel, data in _files().items():
        fs.pipe_file(f"{bucket}/docs/{rel}", data)
        (tmp_path / "local" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "local" / rel).write_bytes(data)
    fs.pipe_file(f"{bucket}/docs/empty-folder/", b"")  # a folder marker, as consoles create them
    fs.pipe_file(f"{bucket}/docs-old/site/stale.html", PAGE.format(t="Stale", p="Outside the prefix.").encode())
    cfg = tmp_path / "sources.yaml"
    rules = "html: {drop: ['.share-buttons']}"
    cfg.write_text(f"sources:\n  cloud: {{path: 's3://{bucket}/docs/', {rules}}}\n"
                   f"  disk: {{path: local, {rules}}}\n")
    return fs, bucket, cfg


def test_a_folder_on_s3_is_ingested_like_a_local_folder_and_again_only_where_objects_changed(cloud, tmp_path):
    fs, bucket, cfg = cloud
    data = tmp_path / "out"
    _materialize(cfg, data, "disk")
    first = _materialize(cfg, data, "cloud")
    store = Store(data)

    # the same rows as from the local folder, but for where the files are
    ours, theirs = _tables(store, "cloud"), _tables(store, "disk")
    for table in TABLES:
        assert ours[table] and ours[table] == theirs[table], table
    raw = {r["path"]: r for r in store.read("raw_files", "cloud").to_pylist()}
    expected = sorted(rel for rel in _files() if not rel.startswith((".", "~$")) and "/." not in rel
                      and not rel.endswith(".txt"))
    assert sorted(raw) == expected  # hidden keys, lock files, other extensions, markers, docs-old/: skipped
    for path, row in raw.items():
        assert row["blob"] == f"s3://{bucket}/docs/{path}"  # the parse read the object itself
        assert row["etag"] == fs.info(f"{bucket}/docs/{path}")["ETag"]
    assert raw["broken/contract.docx"]["error"].startswith("docx: corrupt or truncated ZIP package")
    docs = {r["path"]: r for r in store.read("parsed_documents", "cloud").to_pylist()}
    assert docs["broken/contract.docx"]["status"] == "failed"
    assert sum(d["status"] == "ok" for d in docs.values()) == len(expected) - 1
    assert first["raw_files"]["downloaded"] == len(expected) and first["raw_files"]["reused"] == 0
    assert "downloaded" not in _materialize(cfg, data, "disk")["raw_files"]  # local folders read no objects

    # unchanged: no object downloaded, nothing parsed, no new raw_files commit
    version = store.snapshot("raw_files", "cloud").version
    again = _materialize(cfg, data, "cloud")
    assert (again["raw_files"]["downloaded"], again["raw_files"]["reused"]) == (0, len(expected))
    assert again["parsed_blocks"]["parsed"] == 0 and again["parsed_blocks"]["unchanged"] == len(expected)
    assert store.snapshot("raw_files", "cloud").version == version

    # one object changed, one deleted, one added: exactly those are downloaded and parsed
    changed = PAGE.format(t="Water rates", p="From April the standing charge falls by four pounds a year.").encode()
    fs.pipe_file(f"{bucket}/docs/site/water-rates.html", changed)
    fs.rm(f"{bucket}/docs/site/my-account.html")
    fs.pipe_file(f"{bucket}/docs/site/new/ferry.html",
                 PAGE.format(t="Ferry timetable", p="The winter timetable runs from November to March.").encode())
    third = _materialize(cfg, data, "cloud")
    assert (third["raw_files"]["downloaded"], third["raw_files"]["reused"]) == (2, len(expected) - 2)
    assert (third["parsed_blocks"]["parsed"], third["parsed_blocks"]["removed"]) == (2, 1)
    raw = {r["path"]: r for r in store.read("raw_files", "cloud").to_pylist()}
    assert "site/my-account.html" not in raw and raw["site/new/ferry.html"]["format"] == "html"
    assert raw["site/water-rates.html"]["doc_id"] == hashlib.sha256(changed).hexdigest()
    blocks = store.read("normalized_blocks", "cloud").to_pylist()
    body = {p: " ".join(b["text"] for b in blocks if b["path"] == p and b["drop_reason"] is None) for p in raw}
    assert "standing charge falls" in body["site/water-rates.html"] and "winter timetable" in body["site/new/ferry.html"]
    assert {r["path"] for r in store.read("quality_report", "cloud").to_pylist()} == set(raw)
    # the other documents' rows are the first run's, parse time included: they were not parsed again
    now = {r["path"]: r for r in store.read("parsed_documents", "cloud").to_pylist()}
    unchanged = set(raw) - {"site/water-rates.html", "site/new/ferry.html"}
    assert len(unchanged) == len(expected) - 2 and all(now[p] == docs[p] for p in unchanged)


def test_the_sensor_sees_a_changed_object_from_one_listing(cloud, tmp_path, monkeypatch):
    fs, bucket, cfg = cloud
    config = load_sources(cfg)
    first = folder_fingerprint(config, "cloud")
    assert folder_fingerprint(config, "cloud") == first
    defs = build_defs(cfg, tmp_path / "out")
    [sensor] = list(defs.sensors)

    def tick(cursor: str | None) -> tuple[list[str], str]:
        with dg.build_sensor_context(cursor=cursor, resources=defs.resources,
                                     repository_def=defs.get_repository_def()) as ctx:
            got = sensor.evaluate_tick(ctx)
        return sorted(r.partition_key for r in got.run_requests), got.cursor

    requested, cursor = tick(None)
    assert requested == ["cloud", "disk"] and tick(cursor)[0] == []
    fs.pipe_file(f"{bucket}/docs/site/water-rates.html", b"<html><p>new rates</p></html>")
    assert folder_fingerprint(config, "cloud") != first
    # storage refusing the credentials: that source is skipped this tick (no request, no crash)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wrong")
    assert tick(cursor) == ([], cursor)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3server.SECRET_KEY)
    assert tick(cursor)[0] == ["cloud"]


def test_an_oversized_object_is_refused_unread_and_a_replaced_one_costs_its_own_row(s3_env, tmp_path):
    fs, bucket = s3_env.client(), s3_env.new_bucket()
    small = PAGE.format(t="Small", p="Short enough.").encode()
    fs.pipe_file(f"{bucket}/in/small.html", small)
    fs.pipe_file(f"{bucket}/in/big.html", small + b"<p>" + b"x" * 4000 + b"</p>")
    fs.pipe_file(f"{bucket}/in/page.html.gz", small)  # a type docclean does not read: counted, not a row
    src = Source("s", prefix=f"s3://{bucket}/in")
    counts: dict[str, int] = {}
    skipped: dict[str, int] = {}
    settings = Settings.from_dict({"limits": {"max_bytes": 1000}})
    table = raw_files_table(src, tmp_path / "out", settings, counts=counts, skipped=skipped)
    assert skipped == {".gz": 1} and table.num_rows == 2
    rows = {r["path"]: r for r in table.to_pylist()}
    assert rows["big.html"]["error"].startswith("file too large: ") and rows["big.html"]["format"] is None
    assert rows["small.html"]["error"] is None and rows["small.html"]["format"] == "html"
    assert counts == {"downloaded": 1, "reused": 0}  # the big one was never read
    # the limit raised: the refused object is read now, the unchanged small one still is not
    table = raw_files_table(src, tmp_path / "out", Settings(), previous=table, counts=counts)
    assert counts == {"downloaded": 1, "reused": 1}
    assert {r["path"]: r["error"] for r in table.to_pylist()} == {"big.html": None, "small.html": None}

    # an object replaced between the listing and its download: its own row says so, never mixed versions
    loc, listed = discover.list_objects(src, StorageSettings())
    fs.pipe_file(f"{bucket}/in/small.html", small + b"<p>later</p>")
    stale = next(o for o in listed if o.rel == "small.html")
    row = inventory._object_row("s", "small.html", "blob", stale, loc, LimitSettings())
    assert row["error"] == ("unreadable: the object was replaced after it was listed (its ETag changed); "
                            "run again to ingest it") and row["bytes"] is None


@pytest.mark.parametrize("problem", ["missing bucket", "refused credentials", "empty prefix"])
def test_a_source_bucket_that_cannot_be_read_fails_the_run_in_one_line(s3_env, tmp_path, monkeypatch, capsys, problem):
    bucket = s3_env.new_bucket()
    s3_env.client().pipe_file(f"{bucket}/docs/a.html", PAGE.format(t="A", p="A page.").encode())
    prefix, expect = f"s3://{bucket}/docs", None
    if problem == "missing bucket":
        prefix, expect = "s3://no-such-source-bucket/docs", "bucket 'no-such-source-bucket' does not exist"
    elif problem == "refused credentials":
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "a-wrong-secret-never-printed")
        expect = "refused the credentials"
    else:
        prefix, expect = f"s3://{bucket}/doc", f"no object below s3://{bucket}/doc/"  # not a prefix of docs/
    monkeypatch.delenv("DAGSTER_HOME", raising=False)  # an ephemeral instance: no first-run notice on stderr
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  cloud: {{path: '{prefix}'}}\n")
    assert cli_main(["run", "--sources", str(cfg), "--data-dir", str(tmp_path / "out"), "--quiet"]) == 3
    err = capsys.readouterr().err
    if problem == "empty prefix":  # found by the listing inside raw_files (Dagster's error log precedes it)
        [line] = [x for x in err.splitlines() if x.strip().startswith("step failed:")]
        assert line.strip().startswith("step failed: raw_files: ") and expect in line, err
    else:  # the bucket is checked before any work: one line, nothing written
        assert err.startswith(f"storage error: source 'cloud' ({prefix}): ") and expect in err, err
        assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    assert "a-wrong-secret-never-printed" not in err and "docclean-test-secret" not in err
    with pytest.raises((StorageUnavailable, SourceConfigError), match=expect.replace("(", r"\(")):
        discover.list_objects(Source("cloud", prefix=prefix), StorageSettings())


def test_an_object_deleted_after_listing_is_a_failed_row_that_says_so(s3_env, tmp_path):
    """Issue 37, point 5, on object storage: an object of a prefix source deleted between raw_files and
    its worker's read is that document's failed row, in one line; the other documents parse."""
    from docclean_assets_tests.support.stages import parse_into

    fs, bucket = s3_env.client(), s3_env.new_bucket()
    for name in ("going", "staying"):
        fs.pipe_file(f"{bucket}/in/{name}.html", PAGE.format(t=name.title(), p=f"The {name} page.").encode())
    src = Source("s", prefix=f"s3://{bucket}/in")
    raw = raw_files_table(src, tmp_path / "out", Settings())
    assert {r["path"]: r["error"] for r in raw.to_pylist()} == {"going.html": None, "staying.html": None}
    fs.rm(f"{bucket}/in/going.html")  # deleted between raw_files and parsed_blocks
    _, _, docs, _ = parse_into(Store(tmp_path / "out"), src, Settings(), raw_table=raw)
    assert docs["staying.html"]["status"] == "ok" and docs["going.html"]["status"] == "failed"
    assert docs["going.html"]["error"] == ("object disappeared before it was parsed (listed by raw_files, gone when "
                                           "its worker read it); the next run drops its rows")
