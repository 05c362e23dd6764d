"""Caps checked before (or inside) a backend so hostile input is refused or degraded, never parsed
without bound: pages per PDF, characters per PDF page (both checked in the PDF backend's own pass:
each file is opened once), HTML size and nesting depth. The OOXML zip
caps live in office.common.check_package (they need the zip directory)."""
from __future__ import annotations

import re

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.model import Block, Extraction, Kind, count_chars, renumber
from docclean_assets.extract.settings import LimitSettings
from docclean_assets.extract.sniff import HTML_SNIFF_BYTES, html_encoding

CHAR_CAP_FLAG = "page_char_cap"  # a page's text came as plain lines, without layout analysis
ENCRYPTED_FLAG = "encrypted"  # opened with the empty user password (owner password only)


def check_pdf_pages(pages: int, limits: LimitSettings) -> None:
    """Refuse a PDF with more than `pdf_max_pages` pages."""
    if pages > limits.pdf_max_pages:
        raise ExtractionError(f"pdf: too many pages: {pages} (limit {limits.pdf_max_pages} pages)")


def flooded_text(textpage, limits: LimitSettings) -> str | None:  # noqa: ANN001 - a pypdfium2 PdfTextPage
    """The page's plain text when it holds more than `pdf_max_page_chars` non-space characters or
    `pdf_max_page_codepoints` characters of any kind (its glyphs expand through ToUnicode): such a
    page is kept as plain lines, without layout analysis (see `merge_flooded`); else None."""
    n = textpage.count_chars()  # code points, a glyph's whole expansion included
    if n <= limits.pdf_max_page_chars:
        return None
    text = textpage.get_text_range()
    return text if n > limits.pdf_max_page_codepoints or count_chars(text) > limits.pdf_max_page_chars else None


def merge_flooded(result: Extraction, flooded: dict[int, str]) -> Extraction:
    """The backend's blocks with each flooded page's text (1-based page -> its plain text) inserted
    as plain paragraphs (one per line, whitespace runs collapsed), in page order."""
    if not flooded:
        return result
    extra = []
    for page, text in sorted(flooded.items()):
        lines = [" ".join(ln.split()) for ln in text.replace("\r\n", "\n").split("\n")]
        extra += [Block(kind=Kind.PARAGRAPH, text=ln, page=page, meta=(("degraded", CHAR_CAP_FLAG),)) for ln in lines if ln]
        result.report.raw_chars += count_chars(text)
    blocks = sorted(result.blocks + extra, key=lambda b: b.page or 0)  # stable: each page keeps its order
    result.report.flag(CHAR_CAP_FLAG)
    if extra and "no_text_layer" in result.report.flags:  # only the set-aside pages had text
        result.report.flags.remove("no_text_layer")
    result.report.pages = max(result.report.pages, max(flooded))
    return Extraction(renumber(blocks), result.report, result.trace)


# On the lower-cased bytes. The search for a tag's end stops at the next "<" (linear); a tag whose end
# is not found before it (a "<" in an attribute value) counts as opening an element.
_TAG = re.compile(rb"<(/?)([a-z][a-z0-9-]*)(?:[^<>]*?(/?)>)?")
# Elements that never nest (void) or whose end tag is optional (an open one is closed by a sibling):
# counting them would overstate the depth of ordinary sloppy pages.
_FLAT = frozenset(b"""area base br col embed hr img input link meta param source track wbr p li dt dd tr td th
    option optgroup thead tbody tfoot colgroup caption rb rt rp html head body""".split())
_RAW = frozenset({b"script", b"style", b"textarea", b"title", b"xmp", b"noscript"})
# Inside these, "<path/>" closes itself; in HTML proper the slash is ignored ("<div/>" opens a div).
_FOREIGN = frozenset({b"svg", b"math"})


def check_html_bytes(data: bytes, limits: LimitSettings) -> None:
    """Refuse an HTML page larger than `html_max_mib`, or whose tags open more than `html_max_depth`
    levels (an estimate from the bytes of the depth the parser would build, which is quadratic in it)."""
    if len(data) > limits.html_max_mib * (1 << 20):
        raise ExtractionError(f"html: page too large: {len(data) / (1 << 20):.1f} MiB (limit {limits.html_max_mib:g} MiB)")
    encoding = html_encoding(data[:HTML_SNIFF_BYTES])
    if encoding is not None and encoding.startswith(("utf-16", "utf-32")):  # tags are not ASCII bytes there
        data = data.decode(encoding, errors="replace").encode("utf-8", errors="replace")
    open_tags: list[bytes] = []
    foreign, raw_until = 0, None  # open svg/math elements; the raw-text element being skipped
    for m in _TAG.finditer(data.lower()):  # bytes.lower() changes A-Z only: the same tags, none lowered one by one
        closing, tag, self_closing = m.groups()
        if raw_until is not None:  # inside script/style: only its own end tag counts
            if closing and tag == raw_until:
                raw_until = None
            continue
        if tag in _RAW and not closing:
            raw_until = tag
        elif tag in _FLAT or (self_closing and foreign and not closing):
            continue
        elif closing:
            foreign -= _close(open_tags, tag)
        else:
            open_tags.append(tag)
            foreign += tag in _FOREIGN
            if len(open_tags) > limits.html_max_depth:
                raise ExtractionError(_too_deep(limits))


def _close(open_tags: list[bytes], tag: bytes) -> int:
    """Close `tag` and what is open inside it, as the parser does (an end tag nothing opened is
    ignored); the number of svg/math elements closed."""
    for i in range(len(open_tags) - 1, -1, -1):  # at most html_max_depth steps
        if open_tags[i] == tag:
            closed = open_tags[i:]
            del open_tags[i:]
            return sum(t in _FOREIGN for t in closed)
    return 0


def _too_deep(limits: LimitSettings) -> str:
    return f"html: elements nested more than {limits.html_max_depth} levels deep (limit html_max_depth)"


def check_html_depth(root, limits: LimitSettings) -> int:  # noqa: ANN001 - a selectolax LexborNode
    """Refuse a DOM nested deeper than `html_max_depth` elements, or whose elements' depths add up to
    more than `html_max_ancestors` (later stages keep each node's path of ancestors); else the number
    of elements. Iterative: the walk itself must not recurse."""
    if root is None:
        return 0
    stack, elements, ancestors = [(root, 1)], 0, 0
    while stack:
        node, depth = stack.pop()
        elements += 1
        ancestors += depth
        if depth > limits.html_max_depth:
            raise ExtractionError(_too_deep(limits))
        if ancestors > limits.html_max_ancestors:
            raise ExtractionError(f"html: too many deeply nested elements: their depths add up to more than "
                                  f"{limits.html_max_ancestors:,} (limit html_max_ancestors)")
        child = node.child
        while child is not None:
            if child.tag and not child.tag.startswith("-"):
                stack.append((child, depth + 1))
            child = child.next
    return elements
