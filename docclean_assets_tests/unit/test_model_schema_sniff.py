import io
import zipfile

import pytest

from docclean_assets.extract.model import BBox, Block, renumber
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DocRef, blocks_to_table, table_to_blocks
from docclean_assets.extract.sniff import doc_id, format_from_extension, sniff_format


def test_block_is_frozen_and_validated():
    b = Block("paragraph", "x")
    with pytest.raises(AttributeError):
        b.text = "y"  # type: ignore[misc]
    with pytest.raises(ValueError):
        Block("prose", "x")
    with pytest.raises(ValueError):
        Block("paragraph", "x", drop_reason="because")
    with pytest.raises(ValueError):
        BBox(10, 10, 5, 20)
    assert not hasattr(b, "__dict__")  # slotted


def test_drop_keeps_text_and_with_text_keeps_first_original():
    b = Block("paragraph", "a").with_text("b").with_text("c")
    assert b.orig_text == "a" and b.text == "c"
    d = b.dropped("watermark")
    assert d.text == "c" and not d.in_body


def test_schema_round_trip():
    ref = DocRef("s", "abc", "dir/x.pdf", "pdf")
    blocks = renumber([Block("heading", "T", page=1, bbox=BBox(1, 2, 3, 4), level=1, meta=(("k", "v"),)),
                       Block("comment", "c", anchor=0, meta=(("author", "Ann"),))])
    table = blocks_to_table((ref, b) for b in blocks)
    assert table.schema.equals(BLOCKS_SCHEMA)
    back = [b for _, b in table_to_blocks(table)]
    assert back == blocks


def _zip(names):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in names:
            zf.writestr(n, "<x/>")
    return buf.getvalue()


def test_sniff_from_bytes_not_extension():
    assert sniff_format(b"%PDF-1.7\n...") == "pdf"
    assert sniff_format(_zip(["word/document.xml"])) == "docx"
    assert sniff_format(_zip(["ppt/presentation.xml"])) == "pptx"
    assert sniff_format(_zip(["other.txt"])) is None
    assert sniff_format(b"\xef\xbb\xbf<!DOCTYPE html><html>") == "html"
    assert sniff_format(b"just text") is None
    assert format_from_extension("A.HTM") == "html" and format_from_extension("x.txt") is None
    assert doc_id(b"a") == doc_id(b"a") != doc_id(b"b")


def test_file_sniffing_matches_byte_sniffing(tmp_path):
    from docclean_assets.extract.sniff import file_doc_id, sniff_file

    cases = {"a.pdf": b"%PDF-1.7\n...", "b.docx": _zip(["word/document.xml"]), "c.bin": _zip(["x"]),
             "d.html": b"<!doctype html><p>x</p>", "e.txt": b"plain", "f.zip": b"PK\x03\x04truncated"}
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        assert sniff_file(p) == sniff_format(data), name
        assert file_doc_id(p) == doc_id(data)


def test_lone_surrogates_never_fail_a_parquet_write(tmp_path):
    import pyarrow.parquet as pq

    ref = DocRef("s", "abc", "x.pdf", "pdf")
    table = blocks_to_table([(ref, Block("paragraph", "ok \udb82\udc54 end", orig_text="\udb82"))])
    pq.write_table(table, tmp_path / "t.parquet")
    row = pq.read_table(tmp_path / "t.parquet").to_pylist()[0]
    assert row["text"] == "ok \ufffd\ufffd end" and row["orig_text"] == "\ufffd"
