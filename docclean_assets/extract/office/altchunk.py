"""altChunk: content a DOCX imports at a place in its body from another part (w:altChunk r:id ->
an aFChunk relationship), which Word converts when it opens the file.

HTML and XHTML, plain text and MHT (a MIME archive around an HTML page) are read here: headings,
paragraphs, list items, preformatted text and tables, each block marked in meta with the part it
came from. RTF and embedded Word packages are not read: the caller counts them as embedded objects
and flags the document (an embedded package is never opened, like every embedded file).
"""
from __future__ import annotations

import codecs
import email
import email.policy
import re
from collections.abc import Iterator

from lxml import etree
from lxml import html as lxml_html

from docclean_assets.extract.office.docx_body import Item
from docclean_assets.extract.model import Kind
from docclean_assets.extract.office.common import markdown_table, table_has_text

# Content types of the formats read (the part's content type in [Content_Types].xml decides).
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset({"text/plain"})
_MHT_TYPES = frozenset({"message/rfc822", "multipart/related", "application/x-mimearchive"})
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))

_XML_DECLARATION = re.compile(r"\s*<\?xml[^>]*\?>")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_SKIP = frozenset({"head", "script", "style", "noscript", "template", "title", "object", "iframe"})
_LISTS = frozenset({"ul", "ol", "menu"})
# Elements that start and end a block of text (the inline ones run on inside it).
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "html", "li", "main", "nav",
    "p", "pre", "section", "summary", *_HEADINGS, *_LISTS,
})


def chunk_format(content_type: str, blob: bytes) -> str | None:
    """'html', 'text' or 'mht' for a chunk that is read, None for one that is not (RTF, a package)."""
    content_type = content_type.split(";")[0].strip().lower()
    if content_type in _HTML_TYPES:
        return "html"
    if content_type in _TEXT_TYPES:
        return "text"
    if content_type in _MHT_TYPES:
        return "mht"
    return None


def chunk_items(blob: bytes, fmt: str, part: str) -> list[Item]:
    """The items of a chunk read in `fmt`, marked as coming from `part`."""
    if fmt == "mht":
        fmt, content = _mht_page(blob)
    else:
        content = _decoded(blob) if fmt == "text" else blob
    rows = _html_rows(content) if fmt == "html" else _text_rows(content)  # type: ignore[arg-type]
    meta = (("alt_chunk", part),)
    return [Item(kind, text=text, level=level, meta=meta) for kind, text, level in rows]


def _decoded(blob: bytes) -> str:
    """Text by its byte-order mark, else UTF-8 (undecodable bytes replaced)."""
    for bom, codec in _BOMS:
        if blob.startswith(bom):
            return blob[len(bom):].decode(codec, "replace")
    return blob.decode("utf-8", "replace")


def _mht_page(blob: bytes) -> tuple[str, str]:
    """The HTML page of a MIME archive (else its first plain-text part) as (format, text)."""
    message = email.message_from_bytes(blob, policy=email.policy.default)
    plain = None
    for sub in message.walk():
        kind = sub.get_content_type()
        if kind == "text/html":
            return "html", sub.get_content()
        if kind == "text/plain" and plain is None:
            plain = sub.get_content()
    return "text", plain or ""


def _text_rows(text: str) -> list[tuple[str, str, int | None]]:
    """One paragraph per non-empty line (as Word imports plain text)."""
    return [(Kind.PARAGRAPH, line.strip(), None) for line in text.splitlines() if line.strip()]


def _html_rows(content: bytes | str) -> list[tuple[str, str, int | None]]:
    """Headings, paragraphs, list items, code and tables of an HTML page, in document order."""
    if isinstance(content, bytes) and content.startswith(tuple(bom for bom, _ in _BOMS)):
        content = _decoded(content)
    if isinstance(content, str):  # lxml refuses text that declares an encoding
        m = _XML_DECLARATION.match(content)
        content = content[m.end():] if m else content
    if not content.strip():
        return []
    root = lxml_html.document_fromstring(content)
    rows: list[tuple[str, str, int | None]] = []
    buffer: list[str] = []  # text of the open block; "\n" stands for a <br>
    context: list[etree._Element] = []  # open block elements, innermost last

    def flush() -> None:
        kind, level, pre = _block_kind(context)
        text = _block_text(buffer, pre)
        buffer.clear()
        if text:
            rows.append((kind, text, level))

    walk = etree.iterwalk(root, events=("start", "end"))
    for event, el in walk:
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag in _SKIP or tag == "table" or not tag:
                walk.skip_subtree()
                if tag == "table":
                    flush()
                    rows += _table_block(el)
                continue
            if tag in _BLOCKS:
                flush()
                context.append(el)
            elif tag == "br":
                buffer.append("\n")
            buffer.append(_spaced(el.text, context))
            continue
        if tag in _BLOCKS and context and context[-1] is el:
            flush()
            context.pop()
        buffer.append(_spaced(el.tail, context))
    flush()
    return rows


def _spaced(text: str | None, context: list[etree._Element]) -> str:
    """Source text with its line breaks as spaces ("\n" in a block stands for a <br>), but in <pre>."""
    if not text or any(el.tag == "pre" for el in context):
        return text or ""
    return text.replace("\r", " ").replace("\n", " ")


def _block_text(buffer: list[str], pre: bool) -> str:
    """A block's text: whitespace collapsed on each line (kept inside <pre>, but for line ends)."""
    lines = "".join(buffer).split("\n")
    if pre:
        return "\n".join(line.rstrip() for line in lines).strip("\n")
    return "\n".join(t for t in (" ".join(line.split()) for line in lines) if t)


def _block_kind(context: list[etree._Element]) -> tuple[str, int | None, bool]:
    """Kind, level and whether whitespace is kept, for text inside the open blocks `context`."""
    for el in reversed(context):
        if el.tag in _HEADINGS:
            return Kind.HEADING, _HEADINGS[el.tag], False
        if el.tag == "pre":
            return Kind.CODE, None, True
        if el.tag == "li":
            return Kind.LIST_ITEM, sum(1 for c in context if c.tag in _LISTS) or 1, False
    return Kind.PARAGRAPH, None, False


def _table_block(table: etree._Element) -> list[tuple[str, str, int | None]]:
    """An HTML table as one Markdown table (nested tables read as their cells' text); none when empty."""
    rows = [[" ".join(" ".join(cell.itertext()).split()) for cell in tr if cell.tag in ("td", "th")]
            for tr in _own_rows(table)]
    return [(Kind.TABLE, markdown_table(rows), None)] if table_has_text(rows) else []


def _own_rows(table: etree._Element) -> Iterator[etree._Element]:
    """The table's rows, not those of tables nested in its cells."""
    for tr in table.iter("tr"):
        if next(tr.iterancestors("table"), None) is table:
            yield tr
