"""Format from the bytes themselves, and the content address of a document."""
from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

FORMATS = ("pdf", "docx", "pptx", "html")
EXTENSIONS = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".html": "html", ".htm": "html"}

# How far into the file the HTML sniffer looks for a markup signature, bytes.
HTML_SNIFF_BYTES = 4096
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<title", b"<div", b"<p>", b"<article")


def doc_id(data: bytes) -> str:
    """sha256 of the bytes: the same content always has the same id."""
    return hashlib.sha256(data).hexdigest()


def file_doc_id(path: str | Path) -> str:
    """sha256 of a file's bytes, streamed (a 2 GB file is never held in memory)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def sniff_file(path: str | Path) -> str | None:
    """sniff_format for a file on disk, reading only its head (and a zip's directory)."""
    with open(path, "rb") as fh:
        head = fh.read(HTML_SNIFF_BYTES)
    if head[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(path) as zf:
                return _zip_format(set(zf.namelist()))
        except (zipfile.BadZipFile, ValueError, OSError):
            return None
    return sniff_format(head)


def _zip_format(names: set[str]) -> str | None:
    """docx or pptx by the package's main part."""
    if "word/document.xml" in names:
        return "docx"
    if "ppt/presentation.xml" in names:
        return "pptx"
    return None


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
        return _zip_format(names)
    text = data[:HTML_SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if any(marker in text for marker in _HTML_MARKERS):
        return "html"
    return None
