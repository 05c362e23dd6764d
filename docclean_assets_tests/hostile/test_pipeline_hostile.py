"""One source folder holding every hostile case at once, next to good files: one quality_report row
per file with the expected status and error, the good files ok, no file needing the time limit."""
import dagster as dg

from docclean_assets.defs.definitions import build_defs
from docclean_assets.store.tables import Store
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
    result = dg.materialize([*defs.assets, *defs.asset_checks], partition_key="hostile", resources=defs.resources,
                            raise_on_error=False)
    assert result.success
    rows = Store(data).connect().execute("SELECT path, status, error, flags FROM quality_report").fetchall()
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
    leaked = Store(data).connect().execute(
        "SELECT count(*) FROM normalized_blocks WHERE text LIKE '%CANARY%'").fetchone()[0]
    assert leaked == 0


# ---------------------------------------------------------------- issue 14: every class, one source
def _issue14_files(tmp_path) -> dict:
    """One hostile file per class of issue 14 (name -> bytes, or a callable making it in place)."""
    from docclean_assets_tests.hostile import cases_office as O
    from docclean_assets_tests.hostile import cases_pdf as P
    from docclean_assets_tests.hostile import cases_text as T

    token = T.tokens(120_000)
    return {
        "good/report.pdf": C.good_pdf(), "good/policy.docx": C.good_docx(), "good/deck.pptx": C.good_pptx(),
        "good/page.html": C.good_html(),
        # 1. values no column can hold, names that are not UTF-8
        "values/pages.docx": O.docx_pages("99999999999"), "values/ilvl.docx": O.docx_list(ilvl="2147483647"),
        "values/lvl.pptx": O.pptx_levels("3000000000"), "values/lvl-inf.pptx": O.pptx_levels("INF"),
        b"names/caf\xe9.html": C.good_html("Caf\u00e9 page"), b"names/back\\slash.html": C.good_html("Backslash page"),
        # 2. inputs whose cost grows with what they hold
        "cost/letters.html": T.token_page(token["letters"]), "cost/cjk.html": T.token_page(token["cjk"]),
        "cost/siblings.html": T.sibling_page("div"), "cost/expanding.pdf": P.expanding_glyph_pdf(),
        # 4. geometry
        "geometry/far-shape.pptx": O.pptx_shape_at("20000000000000"), "geometry/gridspan.docx": O.docx_table(span="2147483647"),
        # 5. rotated pages
        "pdf/rotate90.pdf": P.rotated_page_pdf(90, 0),
        # 7. silent loss
        "loss/one-line-pages.pdf": C.one_line_pages_pdf(),
        "loss/altchunk.docx": O.docx_alt_chunk(b"<html><body><p>Imported chunk text.</p></body></html>", "text/html"),
        # 8. a broken part, UTF-16
        "parts/deep-jsonld.html": T.jsonld_page(100_000), "parts/utf16.html": T.utf16_page("utf-16-le", True),
        # 9. DTDs that used to get past the check
        "dtd/after-comment.docx": O.docx_dtd_after_comment(70_000),
        "dtd/utf16.docx": O.docx_dtd_encoded("utf-16-le", b"\xff\xfe"), "dtd/member.docx": O.docx_dtd_member("word/custom"),
        # 10. a macro-enabled document under .docx; a 64 GiB file
        "names/macros.docx": O.docm(),
        "huge.pdf": lambda path: C.sparse_file(path, 64 << 30),
    }


def test_every_class_of_issue_14_in_one_source_via_docclean_run(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    docs = tmp_path / "docs"
    files = _issue14_files(tmp_path)
    for name, data in files.items():
        path = Path(os.fsdecode(os.fsencode(docs) + b"/" + (name if isinstance(name, bytes) else name.encode())))
        path.parent.mkdir(parents=True, exist_ok=True)
        data(path) if callable(data) else path.write_bytes(data)
    deep = C.too_deep_folder(docs, C.good_pdf("A file nobody can list."))
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  hostile:\n    path: docs\n    ocr: 'off'\nsettings:\n  limits: {timeout_s: 60, memory_mb: 2048}\n")
    data_dir = tmp_path / "out"
    proc = subprocess.run([str(Path(sys.executable).parent / "docclean"), "run", "--sources", str(cfg),
                           "--data-dir", str(data_dir), "--quiet"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = Store(data_dir).connect().execute(
        "SELECT path, status, error, flags, part_errors, kept_chars FROM quality_report").fetchall()
    got = {p: dict(zip(("status", "error", "flags", "part_errors", "kept"), rest)) for p, *rest in rows}
    names = {os.fsdecode(n) if isinstance(n, bytes) else n for n in files}
    assert len(rows) == len(got) == len(files) + 1  # one row per file, the unlistable folder included
    [folder] = [p for p in got if p.endswith("/")]  # where the walk had to stop, inside the deep folder
    assert deep.startswith(folder.rstrip("/"))
    assert {p.replace("\\xe9", "\u00e9").replace("\\\\", "\\") for p in got if p != folder} == \
        {n.replace("\udce9", "\u00e9") for n in names}

    def ok(path: str, *flags: str) -> dict:
        row = got[path]
        assert row["status"] == "ok", (path, row)  # (kept may be 0: the token pages share a site template)
        assert set(flags) <= set(row["flags"]), (path, row["flags"])
        return row

    def failed(path: str, prefix: str) -> None:
        assert got[path]["status"] == "failed" and got[path]["error"].startswith(prefix), (path, got[path])

    for name in ("good/report.pdf", "good/policy.docx", "good/deck.pptx", "good/page.html", "names/caf\\xe9.html",
                 "names/back\\\\slash.html", "cost/letters.html", "cost/cjk.html", "cost/siblings.html",
                 "cost/expanding.pdf", "pdf/rotate90.pdf", "loss/one-line-pages.pdf", "parts/utf16.html"):
        ok(name)
    assert all(got[p]["kept"] > 0 and not got[p]["flags"] for p in got if p.startswith("good/"))
    for name in ("values/pages.docx", "values/ilvl.docx", "values/lvl.pptx", "values/lvl-inf.pptx"):
        ok(name, "value_clamped")
    ok("geometry/far-shape.pptx", "geometry_clamped")
    ok("geometry/gridspan.docx", "value_clamped")
    ok("loss/altchunk.docx")
    ok("names/macros.docx", "macro_enabled")
    assert ok("parts/deep-jsonld.html", "broken_part")["part_errors"][0].startswith("json-ld:")
    for name in ("dtd/after-comment.docx", "dtd/utf16.docx", "dtd/member.docx"):
        failed(name, "docx: ")
        assert "declares a DTD" in got[name]["error"], got[name]
    failed("huge.pdf", "file too large:")
    failed(folder, "unreadable folder: File name too long")
    con = Store(data_dir).connect()
    texts = dict(con.execute("SELECT path, string_agg(text, ' ' ORDER BY seq) FROM normalized_blocks "
                             "WHERE drop_reason IS NULL GROUP BY path").fetchall())
    assert "Imported chunk text." in texts["loss/altchunk.docx"]
    assert all(f"Part {p} of the harbour works report" in texts["loss/one-line-pages.pdf"] for p in range(1, 5))
    assert "\u6771\u4eac" in texts["parts/utf16.html"]  # 東京, decoded from UTF-16
    assert "Caf\u00e9 page" in texts["names/caf\\xe9.html"]
    assert not any("timed out" in (r["error"] or "") for r in got.values())
