"""DOCX documents built in code: python-docx documents with raw WordprocessingML injected, saved and
extracted."""
from __future__ import annotations

import io

from lxml import etree

from docclean_assets.extract.office.docx import extract_docx
from docclean_assets.extract.settings import Settings

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NSDECL = (
    f'xmlns:w="{W_NS}" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:v="urn:schemas-microsoft-com:vml" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
)


def inject_xml(document, xml: str) -> None:
    """Append raw body XML (one or more elements) before the final sectPr."""
    wrapper = etree.fromstring(f"<w:wrap {NSDECL}>{xml}</w:wrap>")
    body = document.element.body
    sect = body.find(f"{{{W_NS}}}sectPr")
    for el in list(wrapper):
        if sect is not None:
            sect.addprevious(el)
        else:
            body.append(el)


def docx_bytes(document) -> bytes:
    """The document saved as DOCX bytes."""
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def extract_doc(document):
    """The document saved and extracted with default settings."""
    return extract_docx(docx_bytes(document), Settings())


def body_blocks(ex) -> list:
    """The extraction's body blocks."""
    return [b for b in ex.blocks if b.in_body]
