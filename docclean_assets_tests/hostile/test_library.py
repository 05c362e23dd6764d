"""Hostile inputs at the library level: each becomes one clear ExtractionError (or a correctly
degraded result), in a worker with a time and memory limit, never a crash or a hang."""
import http.server
import threading

import pytest

from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.settings import LimitSettings, Settings
from docclean_assets_tests.hostile import cases as C

LIMITS = LimitSettings(timeout_s=5, memory_mb=2048, workers=2)


def _run(tmp_path, docs: dict[str, tuple[str, bytes]], limits: LimitSettings = LIMITS) -> dict:
    jobs = []
    for name, (fmt, data) in docs.items():
        p = tmp_path / name
        p.write_bytes(data)
        jobs.append(Job(name, str(p), fmt, {"settings": Settings(limits=limits)}))
    return {job.key: outcome for job, outcome in run_jobs(jobs, limits)}


def _refused(data: bytes, fmt: str, settings: Settings | None = None) -> str:
    with pytest.raises(ExtractionError) as err:
        extract_document(data, fmt, settings)
    return str(err.value)


@pytest.mark.parametrize("fmt, build", [("pdf", C.good_pdf), ("docx", C.good_docx), ("pptx", C.good_pptx)])
def test_empty_and_truncated_files_are_refused_with_a_reason(fmt, build):
    assert _refused(b"", fmt) == "empty file (0 bytes)"
    message = _refused(C.truncated(build()), fmt)
    expected = "corrupt or unreadable PDF" if fmt == "pdf" else f"{fmt}: corrupt or truncated ZIP package"
    assert message.startswith(expected), message


def test_truncated_html_degrades_to_what_arrived():
    result = extract_document(C.truncated(C.good_html(), 0.75), "html")
    assert "Harbour works" in " ".join(b.text for b in result.blocks)


def test_wrong_format_for_the_bytes_is_refused_not_crashed():
    assert _refused(C.good_docx(), "pdf").startswith("corrupt or unreadable PDF")
    assert _refused(C.good_pdf(), "docx").startswith("docx: not a ZIP-based OOXML package")
    assert _refused(C.good_docx(), "pptx").startswith("pptx: unreadable package")


def test_broken_xref_table_is_recovered_or_refused():
    try:
        result = extract_document(C.broken_xref_pdf(), "pdf")
    except ExtractionError as exc:
        assert "PDF" in str(exc)
    else:
        assert "harbour works" in " ".join(b.text for b in result.blocks)


def test_encrypted_pdf_needs_a_password_or_is_flagged():
    assert _refused(C.encrypted_pdf("user"), "pdf") == "encrypted: needs a password"
    opened = extract_document(C.encrypted_pdf(""), "pdf")  # owner password only: every viewer opens it
    assert "encrypted" in opened.report.flags
    assert "harbour works" in " ".join(b.text for b in opened.blocks)


def test_looping_pdfs_finish_within_the_limit(tmp_path):
    out = _run(tmp_path, {"tree.pdf": ("pdf", C.page_tree_cycle_pdf()), "xobject.pdf": ("pdf", C.xobject_cycle_pdf())})
    for name, o in out.items():
        assert o.kind in ("ok", "refused"), (name, o.kind, o.error)  # not "timeout": the worker was never killed
    assert "Looping page tree" in " ".join(b.text for b in out["tree.pdf"].result.blocks)
    assert "Before the form" in " ".join(b.text for b in out["xobject.pdf"].result.blocks)


def test_a_page_of_200000_characters_is_degraded_with_a_flag_and_keeps_its_text():
    result = extract_document(C.dense_pdf(200_000), "pdf")
    assert "page_char_cap" in result.report.flags
    assert result.report.raw_chars > 150_000
    assert sum(len(b.text) for b in result.blocks) > 150_000
    # under the cap the same page goes through layout analysis (no flag)
    small = extract_document(C.dense_pdf(5_000), "pdf")
    assert "page_char_cap" not in small.report.flags


def test_page_cap_refuses_long_pdfs():
    one_page = Settings(limits=LimitSettings(pdf_max_pages=1))
    assert extract_document(C.good_pdf(), "pdf", one_page).report.pages == 1
    msg = _refused(_two_pages(), "pdf", one_page)
    assert msg == "pdf: too many pages: 2 (limit 1 pages)"


def _two_pages() -> bytes:
    import io

    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, invariant=1)
    for i in range(2):
        c.drawString(72, 700, f"Page {i + 1} of a short memo.")
        c.showPage()
    c.save()
    return buf.getvalue()


def test_zip_bomb_is_refused_from_the_directory_before_decompression(tmp_path, bomb_docx):
    assert len(bomb_docx) < 5 * C.MIB
    out = _run(tmp_path, {"bomb.docx": ("docx", bomb_docx)}, LimitSettings(timeout_s=5, memory_mb=512))
    o = out["bomb.docx"]
    assert o.kind == "refused"
    assert o.error == "docx: zip bomb suspected: 2.1 GiB uncompressed (limit 512 MiB)"
    assert o.peak_rss_mb < 300  # refused unread, not inflated into 512 MiB and killed


def test_ratio_bomb_under_the_size_cap_is_refused():
    ratio_bomb = C.zip_bomb(C.good_pptx(), 256 * C.MIB, name="ppt/media/image9.bin")
    msg = _refused(ratio_bomb, "pptx")
    assert msg.startswith("pptx: zip bomb suspected: ppt/media/image9.bin expands") and "(limit 200:1)" in msg


def test_deeply_nested_docx_xml_is_refused_and_nested_packages_are_never_opened():
    msg = _refused(C.deep_nesting_docx(5_000), "docx")
    assert msg.startswith("docx: unreadable package") and "depth" in msg
    outer = extract_document(C.nested_zip_docx(), "docx")  # the inner bomb is an opaque embedded file
    assert "The outer document is fine and readable." in [b.text for b in outer.blocks]


def test_billion_laughs_is_refused_without_expanding_anything(tmp_path):
    out = _run(tmp_path, {"laughs.docx": ("docx", C.billion_laughs_docx())})
    o = out["laughs.docx"]
    assert o.error == "docx: word/document.xml declares a DTD/entities (refused: OOXML parts never do)"
    assert o.peak_rss_mb < 400


def test_external_entities_are_never_read_or_fetched(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("CANARY-7f3a-do-not-leak")
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"REMOTE-CANARY")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        data = C.xxe_docx(secret.as_uri(), f"http://127.0.0.1:{server.server_address[1]}/entity")
        msg = _refused(data, "docx")
        assert msg == "docx: word/document.xml declares a DTD/entities (refused: OOXML parts never do)"
        assert "CANARY" not in msg
        # even a parser reached past the package check does not expand them (defence in depth)
        from docclean_assets.extract.office.common import parse_xml

        root = parse_xml(C._docx_xml("<w:p><w:r><w:t>&secret;</w:t></w:r></w:p>",
                                     f'<!DOCTYPE w:document [<!ENTITY secret SYSTEM "{secret.as_uri()}">]>\n').encode())
        assert "CANARY" not in "".join(root.itertext())
    finally:
        server.shutdown()
        server.server_close()
    assert hits == []


def test_huge_and_deeply_nested_html_are_refused_before_parsing(tmp_path):
    out = _run(tmp_path, {"huge.html": ("html", C.huge_html()), "deep.html": ("html", C.deep_html())})
    assert out["huge.html"].error == "html: page too large: 50.0 MiB (limit 5 MiB)"
    assert out["deep.html"].error == "html: elements nested more than 512 levels deep (limit html_max_depth)"
    assert all(o.kind == "refused" and o.peak_rss_mb < 600 for o in out.values())  # refused before parsing


def test_moderately_deep_html_still_parses():
    result = extract_document(C.deep_html(300), "html")
    assert "deep text" in " ".join(b.text for b in result.blocks)


def test_invalid_utf8_is_replaced_and_flagged():
    result = extract_document(C.invalid_utf8_html(), "html")
    assert "encoding_replaced" in result.report.flags
    text = " ".join(b.text for b in result.blocks)
    assert "river crossings" in text and "footpath to stay open" in text
    text.encode("utf-8")  # no lone surrogates reach the tables
