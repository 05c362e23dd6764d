"""One source folder holding every hostile case at once, next to good files: one quality_report row
per file with the expected status and error, the good files ok, the run bounded in time."""
import time

import dagster as dg

from docclean_assets.graph import build_defs
from docclean_assets.store import ParquetStore
from docclean_assets_tests.hostile import cases as C

TIMEOUT_S = 5
DTD = "docx: word/document.xml declares a DTD/entities (refused: OOXML parts never do)"


def _folder(tmp_path, bomb_docx) -> dict[str, bytes]:
    files = {
        "good/report.pdf": C.good_pdf(), "good/policy.docx": C.good_docx(), "good/deck.pptx": C.good_pptx(),
        "good/page.html": C.good_html(),
        "empty/e.pdf": b"", "empty/e.docx": b"", "empty/e.pptx": b"", "empty/e.html": b"",
        "truncated/t.pdf": C.truncated(C.good_pdf()), "truncated/t.docx": C.truncated(C.good_docx()),
        "truncated/t.pptx": C.truncated(C.good_pptx()), "truncated/t.html": C.truncated(C.good_html(), 0.75),
        "wrong/docx-named.pdf": C.good_docx(), "wrong/text-named.pptx": b"just some text, not a deck",
        "pdf/broken-xref.pdf": C.broken_xref_pdf(), "pdf/encrypted-user.pdf": C.encrypted_pdf("user"),
        "pdf/encrypted-owner.pdf": C.encrypted_pdf(""), "pdf/tree-cycle.pdf": C.page_tree_cycle_pdf(),
        "pdf/xobject-cycle.pdf": C.xobject_cycle_pdf(), "pdf/dense.pdf": C.dense_pdf(200_000),
        "office/bomb.docx": bomb_docx, "office/deep.docx": C.deep_nesting_docx(5_000),
        "office/laughs.docx": C.billion_laughs_docx(),
        "office/xxe.docx": C.xxe_docx((tmp_path / "secret.txt").as_uri(), "http://127.0.0.1:9/x"),
        "html/huge.html": C.huge_html(), "html/deep.html": C.deep_html(), "html/bad-utf8.html": C.invalid_utf8_html(),
    }
    docs = tmp_path / "docs"
    for name, data in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_bytes(data)
    (tmp_path / "secret.txt").write_text("CANARY-outside-the-root")
    (docs / "escape.html").symlink_to(tmp_path / "secret.txt")
    return files


def test_a_folder_of_hostile_files_gives_one_row_each(tmp_path, bomb_docx):
    files = _folder(tmp_path, bomb_docx)
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  hostile:\n    path: docs\nsettings:\n  limits: {{timeout_s: {TIMEOUT_S}, memory_mb: 2048}}\n")
    data = tmp_path / "out"
    defs = build_defs(cfg, data)
    started = time.monotonic()
    result = dg.materialize([*defs.assets, *defs.asset_checks], partition_key="hostile", resources=defs.resources,
                            raise_on_error=False)
    elapsed = time.monotonic() - started
    assert result.success
    rows = ParquetStore(data).connect().execute("SELECT path, status, error, flags FROM quality_report").fetchall()
    got = {p: (s, e, f) for p, s, e, f in rows}
    assert len(rows) == len(got) == len(files) + 1  # one row per file, the refused link included

    def failed(path: str, error: str | None = None, prefix: str | None = None) -> None:
        status, err, _ = got[path]
        assert status == "failed", (path, got[path])
        if error is not None:
            assert err == error, (path, err)
        if prefix is not None:
            assert err and err.startswith(prefix), (path, err)

    for name in ("good/report.pdf", "good/policy.docx", "good/deck.pptx", "good/page.html", "truncated/t.html",
                 "html/bad-utf8.html", "pdf/encrypted-owner.pdf", "pdf/xobject-cycle.pdf", "wrong/docx-named.pdf"):
        assert got[name][0] == "ok", (name, got[name])
    for name in ("empty/e.pdf", "empty/e.docx", "empty/e.pptx", "empty/e.html"):
        failed(name, "empty file (0 bytes)")
    failed("truncated/t.pdf", prefix="corrupt or unreadable PDF")
    failed("truncated/t.docx", prefix="docx: corrupt or truncated ZIP package")
    failed("truncated/t.pptx", prefix="pptx: corrupt or truncated ZIP package")
    failed("wrong/text-named.pptx", prefix="unrecognised format (extension says pptx")
    assert "format_mismatch" in got["wrong/docx-named.pdf"][2]
    assert got["pdf/broken-xref.pdf"][0] in ("ok", "failed")
    failed("pdf/encrypted-user.pdf", "encrypted: needs a password")
    assert "encrypted" in got["pdf/encrypted-owner.pdf"][2]
    assert got["pdf/tree-cycle.pdf"][0] == "ok" or "timed out" not in (got["pdf/tree-cycle.pdf"][1] or "")
    assert got["pdf/dense.pdf"][0] == "ok" and "page_char_cap" in got["pdf/dense.pdf"][2]
    failed("office/bomb.docx", "docx: zip bomb suspected: 2.1 GiB uncompressed (limit 512 MiB)")
    failed("office/deep.docx", prefix="docx: unreadable package (XMLSyntaxError: Excessive depth")
    failed("office/laughs.docx", DTD)
    failed("office/xxe.docx", DTD)
    failed("html/huge.html", "html: page too large: 50.0 MiB (limit 5 MiB)")
    failed("html/deep.html", "html: elements nested more than 512 levels deep (limit html_max_depth)")
    failed("escape.html", "refused: symbolic link pointing outside the source root")
    assert not any("timed out" in (e or "") for _s, e, _f in got.values())  # nothing needed the limit
    leaked = ParquetStore(data).connect().execute(
        "SELECT count(*) FROM normalized_blocks WHERE text LIKE '%CANARY%'").fetchone()[0]
    assert leaked == 0
    assert elapsed < 60
