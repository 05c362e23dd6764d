"""The DTD/entity refusal for every member of an OOXML package, decided by its content.

OOXML parts never declare a DTD; a part that does carries entities (billion laughs, external
entities reading files or URLs). Which members an XML parser reads depends on [Content_Types].xml
and the relationships, not on member names, so every member is read as libxml2 would read it: the
encoding from its first bytes (a byte-order mark, or '<?' in UTF-16 or UTF-32), then from its XML
declaration; then its prolog up to the root element, in chunks, however long its comments are. A
member that is not XML (an image) stops at its first character. A declared encoding that cannot be
checked is refused too: OOXML parts are UTF-8 or UTF-16 (ECMA-376 Part 2, 8.1.4). The lxml parser
flags (resolve_entities=False, no_network) stay as a second line of defence.
"""
from __future__ import annotations

import codecs
import re
from typing import IO

# Bytes read first (the root element of a real part starts within them), then per further read.
FIRST_READ_BYTES = 4096
# Bytes of a package member looked at to tell XML from a binary part (looks_like_xml): a BOM, blanks, '<'.
XML_SNIFF_BYTES = 256
READ_BYTES = 64 * 1024
# Longest XML declaration read (a real one is under 100 characters).
DECL_MAX_CHARS = 4096
# Characters an HTML doctype (an altChunk's HTML page) may take, with its public and system ids.
DOCTYPE_MAX_CHARS = 4096

# How lxml's libxml2 detects the encoding from the first bytes (UTF-32 byte-order marks before
# UTF-16's, which they start with): pattern -> (codec, length of the byte-order mark).
_DETECT = (
    (b"\xff\xfe\x00\x00", "utf-32-le", 4),
    (b"\x00\x00\xfe\xff", "utf-32-be", 4),
    (b"\x00\x00\x00\x3c", "utf-32-be", 0),
    (b"\x3c\x00\x00\x00", "utf-32-le", 0),
    (b"\x3c\x00\x3f\x00", "utf-16-le", 0),
    (b"\x00\x3c\x00\x3f", "utf-16-be", 0),
    (b"\xef\xbb\xbf", "latin-1", 3),
    (b"\xfe\xff", "utf-16-be", 2),
    (b"\xff\xfe", "utf-16-le", 2),
)
_EBCDIC = b"\x4c\x6f\xa7\x94"
# Declared encodings each detected family may carry. Every 8-bit one is read as Latin-1: the
# prolog's markup is ASCII, which all of them encode as ASCII bytes that no multi-byte sequence uses.
_ALLOWED = {
    "latin-1": re.compile(r"utf-?8|(?:us-)?ascii|iso-?8859-(?:[1-9]|1[0-6])|latin-?[1-9]|(?:windows|cp)-?125[0-8]"),
    "utf-16-le": re.compile(r"utf-?16(?:le)?|ucs-?2|iso-10646-ucs-2"),
    "utf-16-be": re.compile(r"utf-?16(?:be)?|ucs-?2|iso-10646-ucs-2"),
    "utf-32-le": re.compile(r"utf-?32(?:le)?|ucs-?4|iso-10646-ucs-4"),
    "utf-32-be": re.compile(r"utf-?32(?:be)?|ucs-?4|iso-10646-ucs-4"),
}
_ENCODING = re.compile(r"""encoding\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_NOT_SPACE = re.compile(r"[^ \t\r\n]")
_QUOTED = r"""(?:"[^"]*"|'[^']*')"""
# A doctype naming html with no internal subset declares no entity, and its external ids are never
# loaded (no parser here loads DTDs or touches the network): an altChunk's HTML page may carry one.
_HTML_DOCTYPE = re.compile(
    rf"<!DOCTYPE[ \t\r\n]+html(?:[ \t\r\n]+(?:SYSTEM[ \t\r\n]+{_QUOTED}|PUBLIC[ \t\r\n]+{_QUOTED}"
    rf"(?:[ \t\r\n]+{_QUOTED})?))?[ \t\r\n]*>",
    re.IGNORECASE,
)


class Refused(Exception):
    """A member that must not reach an XML parser; the message names it and says why."""


def _shown(name: str) -> str:
    """A member name fit for an error message (control characters escaped)."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in name)


def _dtd(name: str, fmt: str) -> Refused:
    return Refused(f"{fmt}: {_shown(name)} declares a DTD/entities (refused: OOXML parts never do)")


def _unchecked(name: str, fmt: str, what: str) -> Refused:
    return Refused(f"{fmt}: {_shown(name)} {what} (refused: OOXML parts are UTF-8 or UTF-16)")


class _Text:
    """The decoded text of one member, pulled in chunks; buf[pos:] is what is left to scan."""

    def __init__(self, fh: IO[bytes], codec: str, first: bytes) -> None:
        self.fh = fh
        self.decoder = codecs.getincrementaldecoder(codec)("replace")
        self.buf = self.decoder.decode(first)
        self.pos = 0
        self.eof = False

    def fill(self, n: int) -> bool:
        """At least n characters ahead of pos; False when the member ends with fewer."""
        while len(self.buf) - self.pos < n and not self.eof:
            raw = self.fh.read(READ_BYTES)
            self.eof = not raw
            self.buf = self.buf[self.pos:] + self.decoder.decode(raw, final=self.eof)
            self.pos = 0
        return len(self.buf) - self.pos >= n

    def startswith(self, prefix: str) -> bool:
        return self.fill(len(prefix)) and self.buf.startswith(prefix, self.pos)

    def skip_space(self) -> bool:
        """Move to the next non-whitespace character; False at the end of the member."""
        while True:
            m = _NOT_SPACE.search(self.buf, self.pos)
            if m is not None:
                self.pos = m.start()
                return True
            self.pos = len(self.buf)
            if not self.fill(1):
                return False

    def skip_past(self, end: str) -> bool:
        """Move past the next `end`; False when the member ends first."""
        while True:
            i = self.buf.find(end, self.pos)
            if i >= 0:
                self.pos = i + len(end)
                return True
            self.pos = max(self.pos, len(self.buf) - len(end) + 1)  # `end` may straddle two chunks
            if not self.fill(len(self.buf) - self.pos + 1):
                return False


def _codec(head: bytes) -> tuple[str, int]:
    """The codec the prolog is read with, and the length of its byte-order mark."""
    for prefix, codec, bom in _DETECT:
        if head.startswith(prefix):
            return codec, bom
    return "latin-1", 0


def _declaration(text: _Text, codec: str, name: str, fmt: str) -> None:
    """Refuse an XML declaration whose encoding the prolog could not be checked in."""
    text.fill(DECL_MAX_CHARS)
    end = text.buf.find("?>", text.pos, text.pos + DECL_MAX_CHARS)
    if end < 0:
        raise _unchecked(name, fmt, "has an XML declaration that cannot be checked for its encoding")
    decl = text.buf[text.pos:end]
    m = _ENCODING.search(decl)
    if m is None:
        if "encoding" in decl:
            raise _unchecked(name, fmt, "has an XML declaration that cannot be checked for its encoding")
        return
    declared = (m.group(1) if m.group(1) is not None else m.group(2)).strip().lower().replace("_", "-")
    if _ALLOWED[codec].fullmatch(declared):
        return
    if any(allowed.fullmatch(declared) for allowed in _ALLOWED.values()):
        raise _unchecked(name, fmt, f"declares the encoding {declared!r} but its bytes are in another one")
    what = f"declares the encoding {_shown(declared[:40])!r}, which cannot be checked for a DTD"
    raise _unchecked(name, fmt, what)


def check_member(fh: IO[bytes], name: str, fmt: str) -> None:
    """Raise Refused when the member, read as an XML parser would, declares a DTD before its root
    element (or is in an encoding that cannot be checked); read nothing past the root element."""
    head = fh.read(FIRST_READ_BYTES)
    if head.startswith(_EBCDIC):
        raise _unchecked(name, fmt, "is in EBCDIC, an encoding that cannot be checked for a DTD")
    codec, bom = _codec(head)
    text = _Text(fh, codec, head[bom:])
    if text.startswith("<?xml") and text.fill(6) and text.buf[text.pos + 5] in " \t\r\n":
        _declaration(text, codec, name, fmt)
    while text.skip_space():
        if text.startswith("<?"):
            text.pos += 2
            if not text.skip_past("?>"):
                return
        elif text.startswith("<!--"):
            text.pos += 4
            if not text.skip_past("-->"):
                return
        elif text.startswith("<!"):
            text.fill(DOCTYPE_MAX_CHARS)
            m = _HTML_DOCTYPE.match(text.buf, text.pos, text.pos + DOCTYPE_MAX_CHARS)
            if m is None:
                raise _dtd(name, fmt)
            text.pos = m.end()
        else:
            return  # the root element, or no XML at all: no DTD can follow


def looks_like_xml(head: bytes) -> bool:
    """Whether an XML parser would start reading these bytes as a document: '<' first, after a
    byte-order mark and whitespace (an image or an OLE file is not)."""
    codec, bom = _codec(head)
    text = codecs.decode(head[bom:bom + 64], codec, "replace")
    return text.lstrip(" \t\r\n").startswith("<")
