"""Builders of hostile DOCX and PPTX packages (bytes) for issue 14: numbers out of every range,
shapes and spans far outside their page, parts that cannot be read, altChunk imports, DTDs hidden
from a name- or head-based check, macro-enabled and mislabelled packages."""
from __future__ import annotations

import io
import posixpath
import re
import zlib

from docclean_assets_tests.hostile import cases as C

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
NS = (f'xmlns:w="{W}" xmlns:r="{R}" xmlns:m="{M}" xmlns:a="{A}" '
      'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
      'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" '
      'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"')
DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
DTD = '<!DOCTYPE w:document [<!ENTITY e "EXPANDED">]>'
DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
PPTX_MAIN = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
CHART_CT = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"
# The hostile values every numeric attribute is tried with.
NUMBERS = ("2147483647", "3000000000", "99999999999999999999999", "INF", "-INF", "NaN", "-5", "1e400", "0x10", "",
           "1" * 5000)


def p(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def document(body: str, prolog: str = "") -> bytes:
    """A word/document.xml with `body` (and anything between the declaration and the root)."""
    return f"{DECL}{prolog}<w:document {NS}><w:body>{body}<w:sectPr/></w:body></w:document>".encode()


def add_part(parts: dict[str, bytes], name: str, blob: bytes, content_type: str | None, reltype: str,
             rid: str, source: str = "word/document.xml", external: bool = False) -> None:
    """Add a member, its content type (an Override) and a relationship to it from `source`."""
    parts[name] = blob
    if content_type:
        types = parts["[Content_Types].xml"].decode()
        parts["[Content_Types].xml"] = types.replace(
            "</Types>", f'<Override PartName="/{name}" ContentType="{content_type}"/></Types>').encode()
    rels_name = posixpath.join(posixpath.dirname(source), "_rels", posixpath.basename(source) + ".rels")
    empty = '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>'
    rels = parts.get(rels_name, empty.encode()).decode()
    target = name if external else posixpath.relpath(name, posixpath.dirname(source))
    mode = ' TargetMode="External"' if external else ""
    rel = f'<Relationship Id="{rid}" Type="{reltype}" Target="{target}"{mode}/>'
    rels = rels.replace("</Relationships>", rel + "</Relationships>")
    parts[rels_name] = rels.encode()


def docx_with(body: str, **extra: bytes) -> bytes:
    """The small good DOCX with `body` as its document and members replaced or added."""
    parts = C.members(C.good_docx())
    parts["word/document.xml"] = document(body)
    parts.update(extra)
    return C.rezip(parts)


def with_numbers(package: bytes, value: str) -> bytes:
    """Every numeric attribute value of every XML member (and app.xml's counts) replaced by `value`."""
    parts = C.members(package)
    for name, blob in parts.items():
        if name.endswith((".xml", ".rels")):
            blob = re.sub(rb'(\s[\w:]+=)"-?[0-9]+"', lambda m: m.group(1) + b'"' + value.encode() + b'"', blob)
            parts[name] = re.sub(rb">[0-9]+</", b">" + value.encode() + b"</", blob) if "docProps" in name else blob
    return C.rezip(parts)


# ------------------------------------------------------------------------- numbers (item 1)
def docx_pages(value: str) -> bytes:
    parts = C.members(C.good_docx())
    parts["docProps/app.xml"] = re.sub(rb"<Pages>[^<]*</Pages>", f"<Pages>{value}</Pages>".encode(),
                                       parts["docProps/app.xml"])
    return C.rezip(parts)


def numbering(start: str = "1", fmt: str = "decimal", ilvl: str = "0") -> bytes:
    return (f'{DECL}<w:numbering {NS}><w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="{ilvl}">'
            f'<w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>'
            '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num></w:numbering>').encode()


def list_item(text: str, ilvl: str = "0") -> str:
    return (f'<w:p><w:pPr><w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="1"/></w:numPr></w:pPr>'
            f"<w:r><w:t>{text}</w:t></w:r></w:p>")


def docx_list(ilvl: str = "0", start: str = "1", fmt: str = "decimal", items: int = 3) -> bytes:
    """A numbered list whose paragraphs use level `ilvl` of a list starting at `start` in `fmt`."""
    body = p("Before the list.") + "".join(list_item(f"Item {i}", ilvl) for i in range(items)) + p("After.")
    return docx_with(body, **{"word/numbering.xml": numbering(start, fmt)})


def table(span: str = "1", before: str = "0", after: str = "0", rows: int = 3) -> str:
    """A two-column grid; one row spans `span` columns with `before`/`after` grid cells around it."""
    row = "<w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr>"
    odd = (f'<w:tr><w:trPr><w:gridBefore w:val="{before}"/><w:gridAfter w:val="{after}"/></w:trPr>'
           f'<w:tc><w:tcPr><w:gridSpan w:val="{span}"/></w:tcPr><w:p><w:r><w:t>wide</w:t></w:r></w:p></w:tc></w:tr>')
    return ('<w:tbl><w:tblGrid><w:gridCol w:w="4000"/><w:gridCol w:w="4000"/></w:tblGrid>'
            + row + odd + row * rows + "</w:tbl>")


def docx_table(span: str = "1", before: str = "0", after: str = "0", rows: int = 3) -> bytes:
    return docx_with(p("Table follows.") + table(span, before, after, rows) + p("After the table."))


def docx_padding_bomb(cells: int = 20_000, rows: int = 20_000) -> bytes:
    """One row of `cells` cells above `rows` rows of one: padding every row to the widest row would
    make cells x rows table cells (400 million by default) from a file of a few hundred KiB."""
    wide = "<w:tr>" + "".join(f"<w:tc>{p(str(i))}</w:tc>" for i in range(cells)) + "</w:tr>"
    short = "".join(f"<w:tr><w:tc>{p(f'x{i}')}</w:tc></w:tr>" for i in range(rows))
    return docx_with(p("Before.") + "<w:tbl>" + wide + short + "</w:tbl>" + p("After."))


def docx_symbol(code: str) -> bytes:
    return docx_with(f'<w:p><w:r><w:t>Sign </w:t><w:sym w:font="Symbol" w:char="{code}"/><w:t> here</w:t></w:r></w:p>')


def docx_outline(value: str) -> bytes:
    return docx_with(f'<w:p><w:pPr><w:outlineLvl w:val="{value}"/></w:pPr><w:r><w:t>Outlined</w:t></w:r></w:p>')


def _pptx(build) -> bytes:
    from pptx import Presentation

    prs = Presentation()
    build(prs)
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def pptx_levels(value: str) -> bytes:
    """A bulleted body placeholder whose paragraphs carry a:pPr lvl=`value`."""
    def build(prs) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = "Levels"
        frame = slide.placeholders[1].text_frame
        frame.text = "First point"
        for text in ("Second point", "Third point"):
            frame.add_paragraph().text = text
        for para in frame.paragraphs:
            para._p.get_or_add_pPr().set("lvl", value)

    return _pptx(build)


def pptx_shape_at(x: str, y: str = "914400", cx: str = "2743200", cy: str = "914400") -> bytes:
    """A slide with a text box in the body and one whose a:off / a:ext say (x, y, cx, cy)."""
    from pptx.util import Pt

    def build(prs) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        for i, text in enumerate(("A paragraph on the slide.", "A paragraph placed far away.")):
            box = slide.shapes.add_textbox(Pt(40), Pt(40 + 60 * i), Pt(300), Pt(40))
            box.text_frame.text = text
        xfrm = box._element.spPr.xfrm
        xfrm.off.set("x", x)
        xfrm.off.set("y", y)
        xfrm.ext.set("cx", cx)
        xfrm.ext.set("cy", cy)

    return _pptx(build)


def pptx_scaled_group(levels: int = 30) -> bytes:
    """Groups nested `levels` deep, each scaling its children 2.7e13 times (an overflow to inf and NaN)."""
    from pptx.util import Pt

    def build(prs) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        group = slide.shapes
        for _ in range(levels):
            group = group.add_group_shape().shapes
        box = group.add_textbox(Pt(10), Pt(10), Pt(100), Pt(20))
        box.text_frame.text = "Deep inside scaled groups."
        for grp in slide.shapes._spTree.iter(f"{{{P}}}grpSpPr"):
            xfrm = grp.get_or_add_xfrm()
            huge = "27273042316900"
            for tag, attrs in (("off", {"x": "10", "y": "10"}), ("ext", {"cx": huge, "cy": huge}),
                               ("chOff", {"x": "0", "y": "0"}), ("chExt", {"cx": "1", "cy": "1"})):
                el = xfrm.find(f"{{{A}}}{tag}")
                if el is None:
                    el = xfrm.makeelement(f"{{{A}}}{tag}", {})
                    xfrm.append(el)
                for k, v in attrs.items():
                    el.set(k, v)

    return _pptx(build)


def pptx_chart(idx: str = "0", value: str = "1.5") -> bytes:
    """A slide with a column chart whose first value point has index `idx` and cached value `value`."""
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Pt

    def build(prs) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        data = CategoryChartData()
        data.categories = ["Q1", "Q2"]
        data.add_series("Revenue", (1.5, 2.25))
        frame = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Pt(40), Pt(80), Pt(600), Pt(300), data)
        pt = next(frame.chart.part._element.find(f".//{{{C_NS}}}val").iter(f"{{{C_NS}}}pt"))
        pt.set("idx", idx)
        pt.find(f"{{{C_NS}}}v").text = value

    return _pptx(build)


# ------------------------------------------------------------------------- parts (item 3)
def truncated_member(package: bytes, name: str) -> bytes:
    """The package with one member cut short (no longer well-formed XML)."""
    parts = C.members(package)
    parts[name] = parts[name][: len(parts[name]) * 2 // 3]
    return C.rezip(parts)


def corrupt_deflate(package: bytes, name: str) -> bytes:
    """The package with one member's deflate stream made invalid (zipfile cannot decompress it)."""
    import zipfile

    data = bytearray(package)
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        info = zf.getinfo(name)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start:start + 8] = b"\xff" * 8  # BTYPE=11: an invalid deflate block type
    return bytes(data)


def without_member(package: bytes, name: str) -> bytes:
    parts = C.members(package)
    del parts[name]
    return C.rezip(parts)


def deck(slides: int = 3, notes: bool = True) -> bytes:
    """A deck of numbered slides, each with a title, a body and speaker notes."""
    def build(prs) -> None:
        for i in range(1, slides + 1):
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = f"Slide {i} title"
            slide.placeholders[1].text = f"Body text of slide {i}."
            if notes:
                slide.notes_slide.notes_text_frame.text = f"Notes of slide {i}."

    return _pptx(build)


def _deep_math(depth: int) -> str:
    inner = "<m:f><m:num>" * depth + "<m:r><m:t>x</m:t></m:r>" + "</m:num><m:den/></m:f>" * depth
    return f"<m:oMath>{inner}</m:oMath>"


def docx_with_note(content: str, kind: str = "footnote") -> bytes:
    """A body paragraph referencing note 1 of `kind` (footnote, endnote), whose paragraph holds
    `content` (the notes are their own part, read with lxml)."""
    ref = f'<w:p><w:r><w:{kind}Reference w:id="1"/></w:r></w:p>'
    parts = C.members(docx_with(p("Body with a note.") + ref))
    notes = f'{DECL}<w:{kind}s {NS}><w:{kind} w:id="1"><w:p>{content}</w:p></w:{kind}></w:{kind}s>'.encode()
    add_part(parts, f"word/{kind}s.xml", notes,
             f"application/vnd.openxmlformats-officedocument.wordprocessingml.{kind}s+xml", RT + f"{kind}s", "rIdFn")
    return C.rezip(parts)


def docx_footnote_equation(depth: int = 900) -> bytes:
    """A footnote holding an equation nested `depth` fractions deep: deeper than Python's recursion
    limit, within the XML parser's."""
    return docx_with_note(f"<w:r><w:t>Note text.</w:t></w:r>{_deep_math(depth)}")


def docx_deep_footnote(depth: int = 1500) -> bytes:
    """A footnote whose text sits `depth` hyperlinks deep (read by recursion: deeper than Python's limit)."""
    return docx_with_note("<w:hyperlink>" * depth + "<w:r><w:t>deep</w:t></w:r>" + "</w:hyperlink>" * depth)


def docx_chart(chart_xml: bytes | None = None) -> bytes:
    """A DOCX with a chart between two paragraphs (`chart_xml`: its part's bytes)."""
    from pptx.chart.data import CategoryChartData
    from pptx.chart.xmlwriter import ChartXmlWriter
    from pptx.enum.chart import XL_CHART_TYPE

    if chart_xml is None:
        data = CategoryChartData()
        data.categories = ["Q1", "Q2"]
        data.add_series("Revenue", (1.5, 2.25))
        chart_xml = ChartXmlWriter(XL_CHART_TYPE.COLUMN_CLUSTERED, data).xml.encode()
    drawing = ('<w:p><w:r><w:drawing><wp:inline><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="1" name="Chart 1"/>'
               '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
               '<c:chart r:id="rIdChart"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>')
    parts = C.members(docx_with(p("Figures.") + drawing + p("After the chart.")))
    add_part(parts, "word/charts/chart1.xml", chart_xml, CHART_CT, RT + "chart", "rIdChart")
    return C.rezip(parts)


def png(size: int = 240) -> bytes:
    """A real PNG of `size` x `size` pixels (noise, so it does not compress to nothing)."""
    from PIL import Image

    image = Image.frombytes("L", (size, size), bytes((i * 7919) % 251 for i in range(size * size)))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def docx_picture(blob: bytes) -> bytes:
    """A DOCX whose body paragraph shows a picture with these bytes."""
    drawing = ('<w:p><w:r><w:t>Scan below.</w:t></w:r><w:r><w:drawing><wp:inline><wp:extent cx="2286000" cy="2286000"/>'
               '<wp:docPr id="2" name="Picture 2"/><a:graphic>'
               '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
               '<pic:pic><pic:blipFill><a:blip r:embed="rIdImg"/></pic:blipFill></pic:pic>'
               "</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>")
    parts = C.members(docx_with(drawing + p("After the picture.")))
    add_part(parts, "word/media/image1.png", blob, "image/png", RT + "image", "rIdImg")
    return C.rezip(parts)


def pptx_picture(blob: bytes) -> bytes:
    """A slide with a text box and a picture shape with these bytes."""
    from pptx.util import Pt

    def build(prs) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        slide.shapes.add_textbox(Pt(40), Pt(40), Pt(300), Pt(40)).text_frame.text = "A slide with a scan."
        slide.shapes.add_picture(io.BytesIO(png()), Pt(40), Pt(120), Pt(200), Pt(200))

    parts = C.members(_pptx(build))
    media = next(n for n in parts if n.startswith("ppt/media/"))
    parts[media] = blob
    return C.rezip(parts)


def _deck_with_comment(content: str) -> bytes:
    """A one-slide deck with a comment (its own part, read with lxml) whose paragraph holds `content`."""
    parts = C.members(deck(1, notes=False))
    comments = (f'{DECL}<p:cmLst xmlns:p="{P}" xmlns:a="{A}" xmlns:m="{M}"><p:cm authorId="0"><p:txBody>'
                f"<a:p>{content}</a:p></p:txBody></p:cm></p:cmLst>")
    add_part(parts, "ppt/comments/comment1.xml", comments.encode(),
             "application/vnd.openxmlformats-officedocument.presentationml.comments+xml", RT + "comments",
             "rIdCm", source="ppt/slides/slide1.xml")
    return C.rezip(parts)


def pptx_comment_equation(depth: int = 900) -> bytes:
    """A slide comment whose text holds an equation nested `depth` deep."""
    return _deck_with_comment(f"<a:r><a:t>Please check this.</a:t></a:r>{_deep_math(depth)}")


def pptx_deep_comment(depth: int = 1500) -> bytes:
    """A slide comment whose text sits `depth` elements deep inside its paragraph."""
    return _deck_with_comment('<x:g xmlns:x="urn:x">' * depth + "<a:r><a:t>deep</a:t></a:r>" + "</x:g>" * depth)


# ------------------------------------------------------------------------- altChunk (item 4)
def docx_alt_chunk(blob: bytes, content_type: str, name: str = "word/afchunk.htm") -> bytes:
    """'Before.', an altChunk importing `blob`, 'After.'."""
    parts = C.members(docx_with(p("Before the chunk.") + '<w:altChunk r:id="rIdChunk"/>' + p("After the chunk.")))
    add_part(parts, name, blob, content_type, RT + "aFChunk", "rIdChunk")
    return C.rezip(parts)


def mht(html: str) -> bytes:
    return ("MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b1\"\r\n\r\n--b1\r\n"
            "Content-Type: text/html; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
            + html.replace("=", "=3D") + "\r\n--b1--\r\n").encode()


# ------------------------------------------------------------------------- DTDs (item 5)
LAUGHS_BODY = p("Before &e; after")


def docx_dtd_after_comment(comment_bytes: int) -> bytes:
    """The document declares a DTD after a comment of `comment_bytes` bytes."""
    prolog = "<!--" + "x" * comment_bytes + "-->" + DTD
    return docx_with("", **{"word/document.xml": document(LAUGHS_BODY, prolog)})


def docx_dtd_encoded(codec: str, bom: bytes = b"", declare: str | None = "UTF-16") -> bytes:
    """The document part, with a DTD, encoded in `codec` (with `bom`, declaring `declare`)."""
    decl = f'<?xml version="1.0" encoding="{declare}"?>\n' if declare else ""
    text = f"{decl}{DTD}<w:document {NS}><w:body>{LAUGHS_BODY}<w:sectPr/></w:body></w:document>"
    return docx_with("", **{"word/document.xml": bom + text.encode(codec)})


def docx_dtd_member(name: str, referenced_as: str | None = None) -> bytes:
    """A member `name` (any name, no extension needed) with a DTD; `referenced_as`: a reltype the
    document relates to it with (so a library would parse it), else it is merely present."""
    blob = (DECL + DTD + f"<w:hdr {NS}>{p('&e;')}</w:hdr>").encode()
    parts = C.members(C.good_docx())
    if referenced_as:
        add_part(parts, name, blob, "application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml",
                 RT + referenced_as, "rIdHidden")
    else:
        parts[name] = blob
    return C.rezip(parts)


def docx_content_types_dtd() -> bytes:
    parts = C.members(C.good_docx())
    types = parts["[Content_Types].xml"]
    end = types.index(b"?>") + 2
    parts["[Content_Types].xml"] = types[:end] + b'<!DOCTYPE Types [<!ENTITY e "x">]>' + types[end:]
    return C.rezip(parts)


def docx_declared(encoding: str) -> bytes:
    """The document part declares `encoding` (its bytes stay ASCII)."""
    blob = document(p("Plain text."))
    return docx_with("", **{"word/document.xml": blob.replace(b'encoding="UTF-8"', f'encoding="{encoding}"'.encode())})


# ------------------------------------------------------------------------- main parts (item 6)
def with_main_type(package: bytes, content_type: str, main: str = "word/document.xml") -> bytes:
    """The package with its main part's content type replaced (a .docm, .dotx, .pptm... or a lie)."""
    parts = C.members(package)
    types = parts["[Content_Types].xml"].decode()
    types = re.sub(rf'(<Override PartName="/{re.escape(main)}" ContentType=")[^"]*"', rf'\g<1>{content_type}"', types)
    parts["[Content_Types].xml"] = types.encode()
    return C.rezip(parts)


def docm() -> bytes:
    """A macro-enabled Word document (as a .docm renamed .docx): a vbaProject part and its type."""
    parts = C.members(with_main_type(C.good_docx(), "application/vnd.ms-word.document.macroEnabled.main+xml"))
    vba = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + zlib.compress(b"Sub AutoOpen()\nEnd Sub\n")
    add_part(parts, "word/vbaProject.bin", vba, "application/vnd.ms-office.vbaProject",
             "http://schemas.microsoft.com/office/2006/relationships/vbaProject", "rIdVba")
    return C.rezip(parts)
