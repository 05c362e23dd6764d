"""Helpers shared by the DOCX and PPTX backends: package sniffing, safe XML, Markdown tables."""
from __future__ import annotations

import io
import traceback
import zipfile
import zlib

from lxml import etree

from docclean_assets.extract.settings import LimitSettings

OLE_MAGIC = b"\xd0\xcf\x11\xe0"
ZIP_MAGIC = b"PK"

# OOXML namespaces shared by the DOCX, PPTX, equation and chart readers.
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
MC_ALTERNATE = f"{{{MC_NS}}}AlternateContent"
MC_CHOICE = f"{{{MC_NS}}}Choice"
MC_FALLBACK = f"{{{MC_NS}}}Fallback"



def w(name: str) -> str:
    """A WordprocessingML tag in Clark notation."""
    return f"{{{W_NS}}}{name}"


GIB = 1 << 30
MIB = 1 << 20
# Members smaller than this are never judged by their ratio (tiny parts can compress very well).
RATIO_MIN_BYTES = MIB
# How much of each XML part's head is read to find a DTD (the prolog comes before the root element).
PROLOG_BYTES = 64 * 1024

# Never resolve entities or fetch anything from the network while parsing a part.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True)


def extraction_error(message: str) -> Exception:
    """An api.ExtractionError, imported lazily (api imports the backends lazily too)."""
    from docclean_assets.extract.api import ExtractionError

    return ExtractionError(message)


def check_package(data: bytes, fmt: str, limits: LimitSettings | None = None) -> None:
    """Refuse bytes that cannot be an OOXML package, or that would unpack to more than the limits
    allow, with a message that says why. Only the zip directory and the head of each XML part are
    read: nothing is decompressed whole before the caps are checked."""
    if data[:4] == OLE_MAGIC:
        raise extraction_error(
            f"{fmt}: encrypted or legacy OLE container (password-protected OOXML or pre-2007 binary format)"
        )
    if data[:2] != ZIP_MAGIC:
        raise extraction_error(f"{fmt}: not a ZIP-based OOXML package (starts with {data[:8]!r})")
    limits = limits or LimitSettings()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            _check_zip_directory(infos, fmt, limits)
            for info in infos:
                if info.filename.endswith((".xml", ".rels")):
                    _check_prolog(zf, info, fmt)
    except zipfile.BadZipFile as exc:
        raise extraction_error(f"{fmt}: corrupt or truncated ZIP package ({exc})") from exc
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError, ValueError, zlib.error) as exc:
        raise extraction_error(f"{fmt}: unreadable ZIP package ({type(exc).__name__}: {exc})") from exc


def library_error(fmt: str, exc: Exception) -> Exception | None:
    """An ExtractionError for an exception raised inside python-docx/python-pptx/lxml/zipfile (a
    package whose parts confuse the library: dangling relationships, swapped or malformed parts), or
    None when it was raised in docclean's own code (a bug that must stay visible as a crash)."""
    if isinstance(exc, (MemoryError, RecursionError)):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or "docclean_assets" in frames[-1].filename:
        return None
    return extraction_error(f"{fmt}: corrupt package part ({type(exc).__name__}: {exc})")


def _size(n: float) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{n / MIB:.0f} MiB"


def _check_zip_directory(infos: list[zipfile.ZipInfo], fmt: str, limits: LimitSettings) -> None:
    """Zip-bomb caps on the sizes the central directory declares (zipfile never inflates a member
    beyond its declared size: it stops there and fails the CRC check)."""
    total = sum(i.file_size for i in infos)
    cap = limits.zip_max_uncompressed_mib * MIB
    if total > cap:
        raise extraction_error(
            f"{fmt}: zip bomb suspected: {_size(total)} uncompressed (limit {limits.zip_max_uncompressed_mib} MiB)"
        )
    for i in infos:
        if i.file_size >= RATIO_MIN_BYTES and i.file_size > limits.zip_max_ratio * max(i.compress_size, 1):
            ratio = i.file_size / max(i.compress_size, 1)
            raise extraction_error(
                f"{fmt}: zip bomb suspected: {i.filename} expands {ratio:.0f}:1 to {_size(i.file_size)} "
                f"(limit {limits.zip_max_ratio:g}:1)"
            )


def _check_prolog(zf: zipfile.ZipFile, info: zipfile.ZipInfo, fmt: str) -> None:
    """OOXML parts never declare a DTD: a part that does carries entities (billion laughs, external
    entities reading files or URLs) and is refused before any XML parser sees it."""
    with zf.open(info) as fh:
        head = fh.read(PROLOG_BYTES)
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise extraction_error(f"{fmt}: {info.filename} declares a DTD/entities (refused: OOXML parts never do)")


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


# Spaces stripped around a block's internal newlines. Plain string code: the regex it replaces
# retried every start inside a run of spaces (quadratic on a long run without a newline).
_LINE_SPACES = " \t\u00a0"


def tidy(text: str) -> str:
    """Strip the ends of a block's text and the spaces around its internal newlines."""
    return "\n".join(line.strip(_LINE_SPACES) for line in text.split("\n")).strip()


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
