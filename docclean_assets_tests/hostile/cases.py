"""Builders of hostile documents (bytes), shared by the library-level and pipeline-level tests."""
from __future__ import annotations

import io
import zipfile
import zlib

GIB = 1 << 30
MIB = 1 << 20
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def good_pdf(text: str = "A readable page about the harbour works and the new footbridge.", **canvas_kw) -> bytes:
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792), invariant=1, **canvas_kw)
    c.setFont("Helvetica", 11)
    for i in range(3):
        c.drawString(72, 700 - 20 * i, f"{text} Line {i + 1}.")
    c.showPage()
    c.save()
    return buf.getvalue()


def encrypted_pdf(user_password: str) -> bytes:
    """Encrypted with an owner password; with user_password '' any viewer opens it without asking."""
    from reportlab.lib.pdfencrypt import StandardEncryption

    return good_pdf(encrypt=StandardEncryption(user_password, "owner-secret"))


def dense_pdf(chars: int = 200_000) -> bytes:
    """One page carrying `chars` characters in 2 pt type (a text-layer flood)."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792), invariant=1)
    c.setFont("Helvetica", 2)
    per_line, line = 500, "abcdefghij klmnopqrs tuvwxyz " * 20
    y = 790.0
    for i in range(chars // per_line):
        c.drawString(2, y, line[:per_line])
        y -= 1.9
        if y < 2:
            y = 790.0
    c.showPage()
    c.save()
    return buf.getvalue()


def broken_xref_pdf() -> bytes:
    """A good PDF whose xref offsets all point to the wrong place and whose startxref lies."""
    data = good_pdf()
    head, _, tail = data.rpartition(b"xref")
    lines = tail.split(b"\n")
    lines = [ln.replace(b"0000000", b"9999999", 1) if ln.endswith((b" n ", b" n")) else ln for ln in lines]
    return (head + b"xref" + b"\n".join(lines)).replace(b"startxref\n", b"startxref\n9").rstrip()


def raw_pdf(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF from numbered object bodies, with a correct xref table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def pdf_stream(content: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n" % (len(content), extra) + content + b"\nendstream"


def page_tree_cycle_pdf() -> bytes:
    """The Pages node lists itself among its kids (and the page's parent points back)."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        pdf_stream(b"BT /F1 12 Tf 72 700 Td (Looping page tree) Tj ET"),
        _FONT,
        b"<< /Type /Outlines /First 7 0 R /Last 7 0 R /Count 1 >>",
        b"<< /Title (Loop) /Parent 6 0 R /Next 7 0 R /Prev 7 0 R >>",  # an outline item that is its own sibling
    ])


def xobject_cycle_pdf() -> bytes:
    """A page whose content draws a form XObject that draws itself (infinite recursion if followed)."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >> >>",
        pdf_stream(b"BT /F1 12 Tf 72 700 Td (Before the form) Tj ET /X1 Do"),
        _FONT,
        pdf_stream(b"BT /F1 12 Tf 72 600 Td (Inside the form) Tj ET /X1 Do",
                b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>"),
    ])


def _docx_xml(body: str, prolog: str = "") -> str:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n{prolog}'
            f'<w:document xmlns:w="{_W}"><w:body>{body}</w:body></w:document>')


def good_docx(text: str = "A short policy paragraph about remote working and equipment.") -> bytes:
    import docx

    doc = docx.Document()
    doc.add_heading("Remote working", level=1)
    doc.add_paragraph(text)
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def good_pptx(text: str = "Quarterly results were better than forecast.") -> bytes:
    import pptx

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Results"
    slide.placeholders[1].text = text
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def replace_member(package: bytes, name: str, content: bytes) -> bytes:
    """The package with one member's bytes replaced (or added)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename != name:
                dst.writestr(info, src.read(info))
        dst.writestr(name, content)
    return out.getvalue()


class _RepeatDeflate:
    """A deflate compressor for a run of zero chunks: each full-flushed chunk compresses to the same
    bytes, so they are computed once (2 GiB of zeros is built in ~1 s instead of ~15 s)."""

    def __init__(self) -> None:
        self._once: dict[int, bytes] = {}

    def compress(self, data: bytes) -> bytes:
        if len(data) not in self._once:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            self._once[len(data)] = c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)
        return self._once[len(data)]

    def flush(self) -> bytes:
        return zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def zip_bomb(package: bytes, uncompressed: int, name: str = "word/media/image1.bin") -> bytes:
    """The package plus one member holding `uncompressed` zero bytes, deflated (zipfile writes it;
    the zero chunks are compressed once and repeated)."""
    out = io.BytesIO(replace_member(package, "__placeholder__", b""))
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as fh:
            fh._compressor = _RepeatDeflate()  # noqa: SLF001 - test-only shortcut, see class docstring
            chunk = bytes(16 * MIB)
            for _ in range(uncompressed // len(chunk)):
                fh.write(chunk)
    return out.getvalue()


def deep_nesting_docx(depth: int = 100_000) -> bytes:
    """word/document.xml with `depth` nested elements (a stack-exhaustion bomb)."""
    body = "<w:sdt><w:sdtContent>" * depth + "<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + "</w:sdtContent></w:sdt>" * depth
    return replace_member(good_docx(), "word/document.xml", _docx_xml(body).encode())


def nested_zip_docx() -> bytes:
    """A good DOCX carrying an embedded package that is itself a zip bomb (never opened)."""
    inner = zip_bomb(good_docx(), 2 * GIB + GIB // 10)
    return replace_member(good_docx("The outer document is fine and readable."), "word/embeddings/inner.docx", inner)


LAUGHS = "".join(f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1)) * 10}">' for i in range(1, 10))
BILLION_LAUGHS = f'<!DOCTYPE w:document [<!ENTITY lol0 "lol">{LAUGHS}]>\n'


def billion_laughs_docx() -> bytes:
    body = "<w:p><w:r><w:t>Before &lol9; after</w:t></w:r></w:p>"
    return replace_member(good_docx(), "word/document.xml", _docx_xml(body, BILLION_LAUGHS).encode())


def xxe_docx(file_url: str, http_url: str) -> bytes:
    """External entities pointing at a local file and at an HTTP URL, both used in the body."""
    prolog = f'<!DOCTYPE w:document [<!ENTITY secret SYSTEM "{file_url}"><!ENTITY remote SYSTEM "{http_url}">]>\n'
    body = "<w:p><w:r><w:t>Value: &secret; and &remote; end</w:t></w:r></w:p>"
    return replace_member(good_docx(), "word/document.xml", _docx_xml(body, prolog).encode())


def good_html(title: str = "Harbour works") -> bytes:
    return (f"<html><head><title>{title}</title></head><body><main><article><h1>{title}</h1>"
            "<p>The committee met on a Tuesday and reviewed the figures in detail before voting.</p>"
            "<p>Residents along the river asked for the footpath to stay open during the works.</p>"
            "</article></main></body></html>").encode()


def huge_html(size: int = 50 * MIB) -> bytes:
    para = b"<p>The contractor expects the second phase to begin once the ground has dried out.</p>\n"
    return b"<html><body><main>" + para * (size // len(para)) + b"</main></body></html>"


def deep_html(depth: int = 100_000) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"<p>deep text</p>" + b"</div>" * depth + b"</body></html>"


def invalid_utf8_html() -> bytes:
    return (b'<html><head><meta charset="utf-8"><title>Bad bytes</title></head><body><main><article>'
            b"<p>Valid start of a paragraph about river crossings \xff\xfe\xc3\x28 and \xed\xa0\x80 more.</p>"
            b"<p>Residents along the river asked for the footpath to stay open during the works.</p>"
            b"</article></main></body></html>")


def truncated(data: bytes, fraction: float = 0.5) -> bytes:
    return data[: int(len(data) * fraction)]


# ------------------------------------------------------------ minimal fuzz findings (regressions)
def members(package: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def rezip(parts: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, blob in parts.items():
            zf.writestr(name, blob)
    return out.getvalue()


def malformed_declaration_docx() -> bytes:
    """Fuzz class 'XMLSyntaxError at parser.pxi': a part read as raw XML (footnotes) whose XML
    declaration lost its version."""
    from docclean_assets_tests.fixtures.build_docx import contract_docx

    parts = members(contract_docx())
    xml = parts["word/footnotes.xml"]
    parts["word/footnotes.xml"] = b'<?xml encoding="UTF-8"?>' + xml[xml.index(b"?>") + 2:]
    return rezip(parts)


def corrupt_deflate_docx() -> bytes:
    """Fuzz class 'zlib error at zipfile.py': a member whose deflate stream is garbage."""
    data = bytearray(good_docx())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start:start + 8] = b"\xff" * 8  # BTYPE=11: an invalid deflate block type
    return bytes(data)


def swapped_parts_pptx() -> bytes:
    """Fuzz class 'AttributeError at presentation.py': presentation.xml holds a slide's XML."""
    parts = members(good_pptx())
    parts["ppt/presentation.xml"], parts["ppt/slides/slide1.xml"] = parts["ppt/slides/slide1.xml"], parts["ppt/presentation.xml"]
    return rezip(parts)


def dangling_relationship_pptx() -> bytes:
    """Fuzz class 'KeyError at package.py': the slide list names a relationship that was removed."""
    import re

    parts = members(good_pptx())
    rels = parts["ppt/_rels/presentation.xml.rels"]
    parts["ppt/_rels/presentation.xml.rels"] = re.sub(rb'<Relationship [^>]*Target="slides/slide1.xml"[^>]*/>', b"", rels)
    return rezip(parts)


# ------------------------------------------------------------ issue 14: what one file can cost
def one_line_pages_pdf(pages: int = 4) -> bytes:
    """Divider pages: each holds one line, in the top band, of the same shape ("Part 1", "Part 2").
    Repetition alone would call every line a running head and leave the document empty."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792), invariant=1)
    c.setFont("Helvetica", 11)
    for p in range(1, pages + 1):
        c.drawString(72, 760, f"Part {p} of the harbour works report")
        c.showPage()
    c.save()
    return buf.getvalue()


def sparse_file(path, size: int) -> None:
    """A file of `size` bytes that takes no disk space (hashing it would read every byte)."""
    with open(path, "wb") as fh:
        fh.truncate(size)


def too_deep_folder(root, data: bytes, name: str = "lost.pdf", levels: int = 20) -> str:
    """A folder below root whose absolute path is longer than PATH_MAX, so nobody (root included)
    can list it by path; made one level at a time. Returns its relative path."""
    import os

    fd = os.open(root, os.O_RDONLY)
    rel = []
    try:
        for _ in range(levels):
            os.mkdir("d" * 250, dir_fd=fd)
            nfd = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
            rel.append("d" * 250)
        with open(os.open(name, os.O_WRONLY | os.O_CREAT, dir_fd=fd), "wb") as fh:
            fh.write(data)
    finally:
        os.close(fd)
    return "/".join(rel)
