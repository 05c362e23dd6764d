"""One bad file is one row: values no column can hold, file names that are not UTF-8, files replaced
mid-run, oversized files, folders that cannot be listed, and later stages that fail on one document."""
import hashlib
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from docclean_assets.extract import clean
from docclean_assets.engine.blob import Extractor, extract_file
from docclean_assets.pipeline import derive
from docclean_assets.pipeline.raw import raw_files_table
from docclean_assets.extract.schema import fit_row
from docclean_assets.pipeline.schemas import DOCS_SCHEMA, RAW_FILES_SCHEMA
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets.ingest.discover import name_to_text, text_to_name, walk_source
from docclean_assets.ingest.sources import Source
from docclean_assets.store.tables import Store
from docclean_assets_tests.hostile import cases as C
from docclean_assets_tests.support.stages import derive_all, parse_into
from docclean_assets_tests.support import faults

INT32_MAX = 2**31 - 1


def _source(tmp_path: Path, files: dict[str, bytes]) -> Source:
    root = tmp_path / "docs"
    for name, data in files.items():
        path = Path(os.fsdecode(os.fsencode(root) + b"/" + (name if isinstance(name, bytes) else name.encode())))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return Source("s", path=root)


def _parse(src: Source, settings: Settings, extractor: Extractor = extract_file, raw: pa.Table | None = None,
           store: Store | None = None):
    store = store or Store(src.path.parent / "out")
    return parse_into(store, src, settings, extractor, raw)


def test_values_no_column_can_hold_are_fitted_in_the_worker(tmp_path):
    src = _source(tmp_path, {"absurd.html": C.good_html(), "good.html": C.good_html("Other page")})
    _, blocks, docs, _ = _parse(src, Settings(), faults.absurd_values)
    absurd, good = docs["absurd.html"], docs["good.html"]
    assert absurd["status"] == good["status"] == "ok"
    assert absurd["pages"] == INT32_MAX and absurd["raw_chars"] == 2**63 - 1 and absurd["ocr_confidence"] is None
    assert "value_clamped" in absurd["flags"] and "value_clamped" not in good["flags"]
    first = blocks.filter(pa.compute.equal(blocks["path"], "absurd.html")).to_pylist()[0]
    assert first["text"] == "Readable text with a broken \ufffd byte."
    assert first["page"] == INT32_MAX and first["level"] == INT32_MAX and first["anchor"] == -(2**31)
    assert [first[c] for c in ("x0", "y0", "x1", "y1")] == [None] * 4  # an infinite box is no box
    assert first["meta"] == [("font_size", "11")]
    assert any("Other page" in t for t in blocks.filter(pa.compute.equal(blocks["path"], "good.html"))["text"].to_pylist())


def test_a_row_that_cannot_be_written_fails_only_its_document(tmp_path):
    src = _source(tmp_path, {"unwritable.html": C.good_html(), "good.html": C.good_html("Other page")})
    _, _, docs, stats = _parse(src, Settings(), faults.unwritable_meta)
    assert docs["unwritable.html"]["status"] == "failed"
    assert docs["unwritable.html"]["error"].startswith("the document's rows could not be written (ValueError")
    assert docs["good.html"]["status"] == "ok" and stats.parsed == 1 and stats.failed == 1


def test_text_over_the_cap_is_refused_in_the_worker(tmp_path):
    src = _source(tmp_path, {"long.html": C.good_html(), "short.html": b"<html><body><p>Short.</p></body></html>"})
    settings = Settings.from_dict({"limits": {"max_text_chars": 40}})
    _, _, docs, _ = _parse(src, settings)
    assert docs["long.html"]["error"].startswith("extracted text too large:")
    assert "max_text_chars = 40" in docs["long.html"]["error"]
    assert docs["short.html"]["status"] == "ok"


def test_fit_row_clamps_nulls_and_repairs_text():
    row, changed = fit_row({"source": "s", "doc_id": None, "path": "p\udce9", "status": "ok", "pages": "12",
                            "columns": float("inf"), "flags": ["a", 3]}, DOCS_SCHEMA)
    assert row["doc_id"] == "" and row["path"] == "p\ufffd" and row["pages"] == 12 and row["columns"] is None
    assert row["flags"] == ["a", "3"] and changed == 5
    assert pa.Table.from_pylist([row], schema=DOCS_SCHEMA).num_rows == 1


def test_fit_row_fast_paths_agree_with_fit_value_on_every_kind_of_value():
    """fit_row passes values that need no change through after a type check; on every column type
    its values and change counts are fit_value's."""
    from docclean_assets.extract.schema import META_TYPE, fit_value

    values = [None, 0, 7, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**70, True, False, 3.0, 2.5, float("nan"),
              float("inf"), -0.0, "12", "x", "", "caf\u00e9", "p\udce9", "12.5", b"ab", [], ["a", "b"], ["a", 3],
              ["\udce9"], ("a",), [("k", "v")], [("k", 1)], (("k", "v"),), [("k\udce9", "v")], [["k", "v"]],
              [(None, "v")], [("a", "b", "c")]]
    types = [pa.int8(), pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_(), pa.list_(pa.string()), META_TYPE]
    for typ in types:
        schema = pa.schema([pa.field("c", typ)])
        for value in values:
            try:
                expected = fit_value(value, typ)
            except Exception as exc:  # noqa: BLE001 - then the fast path must raise the same
                with pytest.raises(type(exc)):
                    fit_row({"c": value}, schema)
                continue
            row, changed = fit_row({"c": value}, schema)
            assert (row["c"], changed) == (expected[0], int(expected[1])), (typ, value)


def test_blocks_become_columns_only_when_every_value_fits_as_it_is():
    """blocks_to_content and blocks_to_table build columns directly; a block with any value that
    needs fitting sends the document through the row-by-row path, so the table and the change count
    are always the fitted ones."""
    from docclean_assets.extract.model import BBox, Block
    from docclean_assets.extract.schema import CONTENT_SCHEMA, block_row, blocks_to_content, content_arrays, fit_block_row
    from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DocRef, block_to_row, blocks_to_table, table_to_blocks

    plain = [Block(kind="heading", text="Title", seq=0, page=1, bbox=BBox(1.0, 2.0, 3.0, 4.0), level=1),
             Block(kind="paragraph", text="caf\u00e9 \u201cquoted\u201d", seq=1, orig_text="x", meta=(("k", "v"),)),
             Block(kind="paragraph", text="dropped", seq=2, drop_reason="boilerplate", anchor=0)]
    odd = [Block(kind="paragraph", text="t", seq=3, bbox=BBox(0.0, 0.0, float("inf"), 1.0)),
           Block(kind="paragraph", text="t", seq=4, page=2**40), Block(kind="paragraph", text="t", seq=5, level=2.5),
           Block(kind="paragraph", text="p\udce9", seq=6), Block(kind="paragraph", text="t", seq=7, meta=(("k", 1),)),
           Block(kind="paragraph", text="t", seq=8, meta=(("k", None),)), Block(kind="paragraph", text="t", seq=9, orig_text=b"x"),
           Block(kind="paragraph", text="t", seq=10, bbox=BBox(0, 0, 1, 1)), Block(kind="paragraph", text=None, seq=11)]
    assert content_arrays(plain) is not None
    for blocks in [plain, *([*plain, b] for b in odd)]:
        rows = [fit_block_row(block_row(b), CONTENT_SCHEMA) for b in blocks]
        table, changed = blocks_to_content(blocks)
        assert table.equals(pa.Table.from_pylist([r for r, _ in rows], schema=CONTENT_SCHEMA))
        assert changed == sum(n for _, n in rows)
        ref = DocRef("s", "d", "p", "html")
        assert blocks_to_table((ref, b) for b in blocks).equals(
            pa.Table.from_pylist([block_to_row(ref, b) for b in blocks], schema=BLOCKS_SCHEMA))
    for ref in (DocRef("s", "d", b"p", "pdf"), DocRef("s", None, "p", "pdf"), DocRef("s", "d", "p\udce9", None)):
        assert blocks_to_table((ref, b) for b in plain).equals(
            pa.Table.from_pylist([block_to_row(ref, b) for b in plain], schema=BLOCKS_SCHEMA))
    table = blocks_to_table((DocRef("s", "d", f"p{b.seq % 2}", "pdf"), b) for b in plain)
    assert [(r.path, b) for r, b in table_to_blocks(table)] == [(f"p{b.seq % 2}", b) for b in plain]


@pytest.mark.parametrize("raw_name", [b"caf\xe9.html", b"\xff\xfe.html", b"back\\slash.html", b"plain.html"])
def test_file_names_are_stored_losslessly(tmp_path, raw_name):
    src = _source(tmp_path, {b"sub\xe9/" + raw_name: C.good_html()})
    raw, blocks, docs, _ = _parse(src, Settings())
    [path] = docs
    assert docs[path]["status"] == "ok", docs[path]
    assert os.fsencode(text_to_name(path)) == b"sub\xe9/" + raw_name  # the exact bytes come back
    store = Store(tmp_path / "out")  # where _parse committed them
    assert store.connect().execute("SELECT DISTINCT path FROM parsed_blocks").fetchall() == [(path,)]
    assert (tmp_path / "docs" / text_to_name(path)).exists()


def test_name_escaping_round_trips_every_byte():
    names = [os.fsdecode(bytes([b]) + b".pdf") for b in range(1, 256) if b != ord("/")]
    names += ["a\\xff.pdf", "a\\\\b", "\\", "plain/path.pdf"]
    for name in names:
        text = name_to_text(name)
        text.encode("utf-8")  # storable
        assert text_to_name(text) == name
    assert len({name_to_text(n) for n in names}) == len(names)  # distinct names stay distinct


def test_oversized_file_is_refused_from_its_size_unread(tmp_path):
    src = _source(tmp_path, {"good.html": C.good_html()})
    C.sparse_file(src.path / "huge.pdf", 64 << 30)  # hashing it would read 64 GiB of zeros
    raw, _, docs, _ = _parse(src, Settings())
    row = {r["path"]: r for r in raw.to_pylist()}["huge.pdf"]
    assert row["error"] == f"file too large: {64 << 30} bytes > limit {LimitSettings().max_bytes} (limits.max_bytes); refused unread"
    assert row["doc_id"] == hashlib.sha256(b"unread:huge.pdf").hexdigest()  # never hashed
    assert docs["huge.pdf"]["status"] == "failed" and docs["good.html"]["status"] == "ok"


def test_a_file_deleted_after_listing_is_a_failed_row_that_says_so(tmp_path):
    src = _source(tmp_path, {"page.html": C.good_html("Going"), "stays.html": C.good_html("Staying")})
    settings = Settings()
    raw = raw_files_table(src, Path("/nonexistent"), settings)
    (src.path / "page.html").unlink()  # deleted between raw_files and parsed_blocks
    _, _, docs, _ = _parse(src, settings, raw=raw)
    assert docs["page.html"]["status"] == "failed" and docs["stays.html"]["status"] == "ok"
    assert docs["page.html"]["error"] == ("file disappeared before it was parsed (listed by raw_files, gone when its "
                                          "worker opened it); the next run drops its rows")
    _, _, docs, _ = _parse(src, settings)  # the next run: its rows are gone
    assert set(docs) == {"stays.html"}


def test_a_file_replaced_after_hashing_is_never_parsed_under_the_old_id(tmp_path):
    first, second = C.good_html("First version"), C.good_html("Second version")
    src = _source(tmp_path, {"page.html": first})
    settings = Settings()
    raw = raw_files_table(src, Path("/nonexistent"), settings)
    (src.path / "page.html").write_bytes(second)  # replaced between raw_files and parsed_blocks
    _, blocks, docs, _ = _parse(src, settings, raw=raw)
    assert docs["page.html"]["status"] == "failed" and blocks.num_rows == 0
    assert docs["page.html"]["error"].startswith("file changed while being ingested")
    # the next run takes the new bytes; when the first bytes come back they are parsed, not reused wrongly
    _, blocks, docs, _ = _parse(src, settings)
    assert docs["page.html"]["doc_id"] == hashlib.sha256(second).hexdigest()
    assert "Second version" in " ".join(blocks["text"].to_pylist())
    (src.path / "page.html").write_bytes(first)
    _, blocks2, docs2, stats = _parse(src, settings)
    assert stats.parsed == 1 and stats.reused == 0
    assert "First version" in " ".join(blocks2["text"].to_pylist())
    assert "Second version" not in " ".join(blocks2["text"].to_pylist())


def test_a_folder_too_deep_to_list_gets_a_row(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "ok.html").write_bytes(C.good_html())
    C.too_deep_folder(root, C.good_pdf())
    walk = walk_source(root)
    assert [rel for rel, _ in walk.files] == ["ok.html"]
    [(rel, why)] = walk.refused
    assert rel.endswith("/") and rel.startswith("d" * 250)
    assert why.startswith("unreadable folder: File name too long; the files below it were not listed")


def _walk_as_nobody(root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """walk_source(root) in a forked child that dropped to user 'nobody' when run as root (root may
    list any folder, so the permission check would never trigger)."""
    import json

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no return from here
        try:
            os.close(read)
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            walk = walk_source(root)
            os.write(write, json.dumps([[r for r, _ in walk.files], walk.refused]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        out = fh.read()
    os.waitpid(pid, 0)
    files, refused = json.loads(out)
    return files, [tuple(r) for r in refused]


def test_a_folder_without_permission_gets_a_row():
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="docclean-perm-"))  # under /tmp: 'nobody' can reach it
    try:
        os.chmod(root, 0o755)
        (root / "open").mkdir(mode=0o755)
        (root / "open" / "a.html").write_bytes(C.good_html())
        (root / "closed").mkdir(mode=0o700)
        (root / "closed" / "b.html").write_bytes(C.good_html())
        os.chmod(root / "closed", 0o000)
        files, refused = _walk_as_nobody(root)
        assert files == ["open/a.html"]
        assert refused == [("closed/", "unreadable folder: Permission denied; the files below it were not listed "
                                       "(check its permissions)")]
    finally:
        os.chmod(root / "closed", 0o700)
        subprocess.run(["rm", "-rf", str(root)], check=False)


def test_a_later_stage_failing_on_one_document_costs_that_document(tmp_path, monkeypatch):
    src = _source(tmp_path, {"bad.html": C.good_html("Poisoned page"), "good.html": C.good_html("Good page")})
    settings = Settings()
    real = clean.normalize_blocks  # the clean chain's last step, as the pipeline runs it (derive -> clean)

    def poisoned(blocks, s=None, fmt=None):
        if any("Poisoned" in b.text for b in blocks):
            raise ValueError("a bug in a stage")
        return real(blocks, s, fmt)

    monkeypatch.setattr(clean, "normalize_blocks", poisoned)
    store = Store(tmp_path / "out")
    _, blocks, _, _ = _parse(src, settings, store=store)
    _, normalized, rows = derive_all(store, src, settings)
    assert normalized.num_rows == blocks.num_rows  # nothing lost: the bad document keeps its parsed blocks
    assert "stage_failed" in rows["bad.html"]["flags"] and "stage_failed" not in rows["good.html"]["flags"]
    assert rows["bad.html"]["part_errors"] == ["normalisation: ValueError: a bug in a stage"]
    assert rows["bad.html"]["kept_chars"] > 0
    real_figures = derive.document_figures

    def poisoned_figures(blocks, report):
        if any("Poisoned" in b.text for b in blocks):
            raise ZeroDivisionError("a bug in the figures")
        return real_figures(blocks, report)

    monkeypatch.setattr(derive, "document_figures", poisoned_figures)
    store = Store(tmp_path / "out2")
    _parse(src, settings, store=store)
    _, _, rows = derive_all(store, src, settings)
    assert rows["bad.html"]["status"] == "failed" and rows["good.html"]["status"] == "ok"
    assert rows["bad.html"]["error"] == "quality figures could not be computed (ZeroDivisionError: a bug in the figures)"


def test_schemas_accept_what_the_inventory_writes(tmp_path):
    src = _source(tmp_path, {b"\xe9t\xe9.pdf": C.good_pdf(), "a.docx": C.good_docx()})
    raw = raw_files_table(src, Path("/nonexistent"), Settings())
    assert raw.schema == RAW_FILES_SCHEMA and raw.num_rows == 2
    assert {r["path"] for r in raw.to_pylist()} == {"\\xe9t\\xe9.pdf", "a.docx"}
