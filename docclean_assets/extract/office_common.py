"""Helpers shared by the DOCX and PPTX backends: package sniffing, safe XML, Markdown tables."""
from __future__ import annotations

import re

from lxml import etree

OLE_MAGIC = b"\xd0\xcf\x11\xe0"
ZIP_MAGIC = b"PK"

MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
MC_ALTERNATE = f"{{{MC_NS}}}AlternateContent"
MC_CHOICE = f"{{{MC_NS}}}Choice"
MC_FALLBACK = f"{{{MC_NS}}}Fallback"

# Never resolve entities or fetch anything from the network while parsing a part.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True)


def extraction_error(message: str) -> Exception:
    """An api.ExtractionError, imported lazily (api imports the backends lazily too)."""
    from docclean_assets.extract.api import ExtractionError

    return ExtractionError(message)


def check_package(data: bytes, fmt: str) -> None:
    """Refuse bytes that cannot be an OOXML package, with a message that says why."""
    if data[:4] == OLE_MAGIC:
        raise extraction_error(
            f"{fmt}: encrypted or legacy OLE container (password-protected OOXML or pre-2007 binary format)"
        )
    if data[:2] != ZIP_MAGIC:
        raise extraction_error(f"{fmt}: not a ZIP-based OOXML package (starts with {data[:8]!r})")


def parse_xml(blob: bytes) -> etree._Element:
    """Parse one package part safely."""
    return etree.fromstring(blob, _PARSER)


def alternate_branch(el: etree._Element) -> etree._Element | None:
    """The branch of an mc:AlternateContent to read: the first mc:Choice, else the mc:Fallback.

    Reading exactly one branch counts a text box or picture once (Choice and Fallback hold the
    same content in DrawingML and VML).
    """
    for child in el:
        if child.tag == MC_CHOICE:
            return child
    for child in el:
        if child.tag == MC_FALLBACK:
            return child
    return None


def iter_text_nodes(root: etree._Element, tags: frozenset[str]):
    """Every element in `tags` under root, in document order, reading one mc branch only."""
    stack = [root]
    while stack:
        el = stack.pop()
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag in tags:
            yield el
            continue
        if tag == MC_ALTERNATE:
            branch = alternate_branch(el)
            if branch is not None:
                stack.append(branch)
            continue
        stack.extend(reversed(el))


_WS_RUN = re.compile(r"[ \t\u00a0]*\n[ \t\u00a0]*")


def tidy(text: str) -> str:
    """Strip the ends of a block's text and the spaces around its internal newlines."""
    return _WS_RUN.sub("\n", text).strip()


def _cell(text: str) -> str:
    text = " ".join(text.split())
    return text.replace("|", "\\|")


def markdown_table(rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown pipe table; the first row is the header, short rows are padded."""
    rows = [r for r in rows if r is not None]
    if not rows:
        return ""
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        return ""
    norm = [[_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(norm[0]) + " |", "| " + " | ".join(["---"] * width) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in norm[1:]]
    return "\n".join(lines)


def table_has_text(rows: list[list[str]]) -> bool:
    """True when any cell holds non-whitespace text."""
    return any(c.strip() for r in rows for c in r)
