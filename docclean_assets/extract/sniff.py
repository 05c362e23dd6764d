"""Format from the bytes themselves, and the content address of a document."""
from __future__ import annotations

import codecs
import hashlib
import io
import zipfile
from pathlib import Path

FORMATS = ("pdf", "docx", "pptx", "html")
EXTENSIONS = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".html": "html", ".htm": "html"}

# How far into the file the HTML sniffer looks for a markup signature, bytes.
HTML_SNIFF_BYTES = 4096
# ...and for the PDF header "%PDF-": readers accept it within the first 1024 bytes (junk before it is common).
PDF_SNIFF_BYTES = 1024
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<title", b"<div", b"<p>", b"<article")
# Byte-order marks and what they announce; UTF-32 first: its little-endian mark starts with UTF-16's.
BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
# A head with fewer zero bytes than this fraction is no UTF-16 markup: its ASCII tags are half zeros.
UTF16_MIN_ZERO_FRACTION = 0.125


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
    head = data[:PDF_SNIFF_BYTES]
    if b"%PDF-" in head:
        return "pdf"
    if data[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = set(zf.namelist())
        except (zipfile.BadZipFile, ValueError, OSError):
            return None
        return _zip_format(names)
    return "html" if html_encoding(data[:HTML_SNIFF_BYTES]) is not None else None


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """The encoding a byte-order mark at the start announces, and the mark's length in bytes."""
    for bom, enc in BOMS:
        if data.startswith(bom):
            return enc, len(bom)
    return None


def html_encoding(head: bytes) -> str | None:
    """How a head with HTML markup is encoded: its BOM's encoding, "utf-16-le"/"utf-16-be" for markup
    in UTF-16 without a BOM ("<\\0h\\0t\\0m\\0l\\0"), "ascii" for markup in any ASCII-compatible
    encoding; None when it shows no markup."""
    found = bom_encoding(head)
    if found is not None:
        return found[0] if _has_markup(head[found[1]:].decode(found[0], errors="replace")) else None
    if any(marker in head.lower() for marker in _HTML_MARKERS):
        return "ascii"
    if head.count(0) < UTF16_MIN_ZERO_FRACTION * len(head):
        return None
    # the zero byte of an ASCII character comes second in little-endian, first in big-endian
    enc = "utf-16-le" if head[1::2].count(0) >= head[0::2].count(0) else "utf-16-be"
    return enc if _has_markup(head.decode(enc, errors="replace")) else None


def _has_markup(text: str) -> bool:
    """Whether decoded text shows one of the HTML signatures."""
    low = text.lower().encode("utf-8", errors="replace")
    return any(marker in low for marker in _HTML_MARKERS)
