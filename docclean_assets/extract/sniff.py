"""Format from the bytes themselves, and the content address of a document."""
from __future__ import annotations

import hashlib
import io
import zipfile

FORMATS = ("pdf", "docx", "pptx", "html")
EXTENSIONS = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".html": "html", ".htm": "html"}

# How far into the file the HTML sniffer looks for a markup signature, bytes.
HTML_SNIFF_BYTES = 4096
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<title", b"<div", b"<p>", b"<article")


def doc_id(data: bytes) -> str:
    """sha256 of the bytes: the same content always has the same id."""
    return hashlib.sha256(data).hexdigest()


def format_from_extension(name: str) -> str | None:
    """The format an extension claims, or None when docclean does not read it."""
    dot = name.rfind(".")
    return EXTENSIONS.get(name[dot:].lower()) if dot >= 0 else None


def sniff_format(data: bytes) -> str | None:
    """The format the bytes are in, or None when they are none of pdf/docx/pptx/html."""
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf"
    if data[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = set(zf.namelist())
        except (zipfile.BadZipFile, ValueError, OSError):
            return None
        if "word/document.xml" in names:
            return "docx"
        if "ppt/presentation.xml" in names:
            return "pptx"
        return None
    text = data[:HTML_SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if any(marker in text for marker in _HTML_MARKERS):
        return "html"
    return None
