"""Helpers shared by the DOCX and PPTX backends: package sniffing, safe XML, numbers read from XML,
parts that fail alone, Markdown tables."""
from __future__ import annotations

import io
import re
import traceback
import zipfile
import zlib
from collections.abc import Callable
from typing import TypeVar

from lxml import etree

from docclean_assets.extract.errors import ExtractionError, stable_message
from docclean_assets.extract.model import DocReport
from docclean_assets.extract.office.xmlcheck import Refused, check_member
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


# A style's basedOn chain is followed at most this many styles up (cycles stop at the first repeat);
# a guard against hostile chains, historical value: Word's built-in styles chain 2-4 deep.
STYLE_CHAIN_MAX = 32
GIB = 1 << 30
MIB = 1 << 20
# Members smaller than this are never judged by their ratio (tiny parts can compress very well).
RATIO_MIN_BYTES = MIB

# Never resolve entities or fetch anything from the network while parsing a part.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True)


def check_package(data: bytes, fmt: str, limits: LimitSettings | None = None) -> None:
    """Refuse bytes that cannot be an OOXML package, or that would unpack to more than the limits
    allow, or that hold a DTD in any member, with a message that says why. The zip directory is
    checked before any member is decompressed; then each member is read up to its root element."""
    if data[:4] == OLE_MAGIC:
        raise ExtractionError(
            f"{fmt}: encrypted or legacy OLE container (password-protected OOXML or pre-2007 binary format)"
        )
    if data[:2] != ZIP_MAGIC:
        raise ExtractionError(f"{fmt}: not a ZIP-based OOXML package (starts with {data[:8]!r})")
    limits = limits or LimitSettings()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            _check_zip_directory(infos, fmt, limits)
            for info in infos:
                _check_member(zf, info, fmt)
    except Refused as exc:
        raise ExtractionError(str(exc)) from None
    except zipfile.BadZipFile as exc:
        raise ExtractionError(f"{fmt}: corrupt or truncated ZIP package ({exc})") from exc
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError, ValueError, zlib.error) as exc:
        raise ExtractionError(f"{fmt}: unreadable ZIP package ({describe(exc)})") from exc


# What zipfile raises for a member it cannot decompress (corrupt deflate data, a bad local header, an
# unsupported method, encryption): no XML parser can be given its bytes either, so it holds no DTD
# risk; reading it later fails, and costs that part (or the document, when it is the main part).
_UNREADABLE_MEMBER = (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError)


def _check_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, fmt: str) -> None:
    """The DTD check of one member, skipped when the member cannot be decompressed at all."""
    try:
        with zf.open(info) as fh:
            check_member(fh, info.filename, fmt)
    except _UNREADABLE_MEMBER:
        return


def library_error(fmt: str, exc: Exception) -> Exception | None:
    """An ExtractionError for an exception raised inside python-docx/python-pptx/lxml/zipfile (a
    package whose parts confuse the library: dangling relationships, swapped or malformed parts), or
    None when it was raised in docclean's own code (a bug that must stay visible as a crash)."""
    if isinstance(exc, (MemoryError, RecursionError)):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or "docclean_assets" in frames[-1].filename:
        return None
    return ExtractionError(f"{fmt}: corrupt package part ({describe(exc)})")


def describe(exc: BaseException) -> str:
    """'<type>: <message>' of an exception without run-dependent text (object addresses; where the
    recursion limit happened to be hit), so the same file always gets the same error."""
    if isinstance(exc, RecursionError):
        return "RecursionError: nested too deeply to read"
    return stable_message(f"{type(exc).__name__}: {exc}")


T = TypeVar("T")


def read_part(report: DocReport, part: str, read: Callable[[], T]) -> T | None:
    """What `read()` returns, or None when the part cannot be read: that costs the part (counted
    and flagged by report.part_failed), not the document. MemoryError still propagates (the worker
    maps it to the memory limit)."""
    try:
        return read()
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure inside one part costs that part only
        report.part_failed(part, describe(exc))
        return None


def _size(n: float) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{n / MIB:.0f} MiB"


def _check_zip_directory(infos: list[zipfile.ZipInfo], fmt: str, limits: LimitSettings) -> None:
    """Zip-bomb caps on the sizes the central directory declares (zipfile never inflates a member
    beyond its declared size: it stops there and fails the CRC check)."""
    total = sum(i.file_size for i in infos)
    cap = limits.zip_max_uncompressed_mib * MIB
    if total > cap:
        raise ExtractionError(
            f"{fmt}: zip bomb suspected: {_size(total)} uncompressed (limit {limits.zip_max_uncompressed_mib} MiB)"
        )
    for i in infos:
        if i.file_size >= RATIO_MIN_BYTES and i.file_size > limits.zip_max_ratio * max(i.compress_size, 1):
            ratio = i.file_size / max(i.compress_size, 1)
            raise ExtractionError(
                f"{fmt}: zip bomb suspected: {i.filename} expands {ratio:.0f}:1 to {_size(i.file_size)} "
                f"(limit {limits.zip_max_ratio:g}:1)"
            )


def parse_xml(blob: bytes) -> etree._Element:
    """Parse one package part safely."""
    return etree.fromstring(blob, _PARSER)


# ---------------------------------------------------------------- numbers read from package XML
# The lexical forms of xsd:integer and xsd:double (whitespace collapsed); Python's int() and float()
# accept more ("1_000", Arabic-Indic digits, "infinity") and raise or overflow on what they refuse.
_XSD_INT = re.compile(r"[+-]?[0-9]+")
_XSD_DOUBLE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN")
# Digits beyond which an integer is out of every range used here (no int() of a 100,000-digit string).
_INT_MAX_DIGITS = 18
# Characters beyond which a decimal number is not parsed at all (xsd:double needs 25 at most).
_DOUBLE_MAX_CHARS = 64


def clamped(report: DocReport | None) -> None:
    """Record on the document that a value from its XML was out of range or malformed."""
    if report is not None:
        report.flag("value_clamped")


def xml_int(text: str | None, lo: int, hi: int, default: int | None, report: DocReport | None = None, *,
            clamp: bool = True) -> int | None:
    """An integer attribute of package XML within [lo, hi]: absent gives `default`; out of range it is
    clamped to the range (with clamp=False it gives `default`); malformed ('INF', '0x10', '1e3', '')
    it gives `default`. Anything but a valid in-range value flags the document `value_clamped`;
    nothing raises, whatever the text."""
    if text is None:
        return default
    s = text.strip()
    if _XSD_INT.fullmatch(s) is None:
        clamped(report)
        return default
    digits = s.lstrip("+-").lstrip("0")
    if len(digits) > _INT_MAX_DIGITS:  # out of every range used here: no int() of a huge string
        value = lo - 1 if s.startswith("-") else hi + 1
    else:
        value = int(s)
    if lo <= value <= hi:
        return value
    clamped(report)
    return min(max(value, lo), hi) if clamp else default


def xml_float(text: str | None, lo: float, hi: float, default: float, report: DocReport | None = None) -> float:
    """A decimal attribute of package XML within [lo, hi]: absent gives `default`; out of range
    (INF, 1e400 included) it is clamped; malformed (NaN, '0x10', '') it gives `default`; anything but
    a valid in-range value flags the document `value_clamped`; nothing raises."""
    if text is None:
        return default
    s = text.strip()
    if len(s) > _DOUBLE_MAX_CHARS or _XSD_DOUBLE.fullmatch(s) is None or s == "NaN":
        clamped(report)
        return default
    value = float(s)
    if lo <= value <= hi:
        return value
    clamped(report)
    return min(max(value, lo), hi)


def finite_clamp(value: float, lo: float, hi: float) -> float:
    """`value` within [lo, hi]; NaN (from inf - inf in a transform) gives `lo`."""
    if not value >= lo:
        return lo
    return hi if value > hi else value


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
    if next(root.iterancestors(MC_ALTERNATE, *tags), None) is None:
        # lxml's own walk (in C) over the elements in `tags`; those inside another found one or
        # inside an mc branch not read are skipped, as the walk below skips them.
        for el in root.iter(*tags):
            if next(el.iterancestors(MC_ALTERNATE, *tags), None) is None or _reached(el, root, tags):
                yield el
        return
    yield from walk_text_nodes(root, tags)


def walk_text_nodes(root: etree._Element, tags: frozenset[str]):
    """iter_text_nodes, element by element in Python (for a root inside a found or mc element)."""
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


def _reached(el: etree._Element, root: etree._Element, tags: frozenset[str]) -> bool:
    """Whether the walk from `root` reaches `el`: no element of `tags` above it, and below each
    mc:AlternateContent above it only the branch that is read."""
    child = el
    for up in el.iterancestors():
        if up.tag in tags or (up.tag == MC_ALTERNATE and alternate_branch(up) is not child):
            return False
        if up is root:
            return True
        child = up
    return True


# Spaces stripped around a block's internal newlines. Plain string code: the regex it replaces
# retried every start inside a run of spaces (quadratic on a long run without a newline).
_LINE_SPACES = " \t\u00a0"


def tidy(text: str) -> str:
    """Strip the ends of a block's text and the spaces around its internal newlines."""
    return "\n".join(line.strip(_LINE_SPACES) for line in text.split("\n")).strip()


def _cell(text: str) -> str:
    text = " ".join(text.split())
    return text.replace("|", "\\|")


# Cells (rows x widest row) up to which short rows are padded to the full width; beyond it (one row
# of 100,000 cells above 100,000 short ones) rows keep their own length, as GFM allows: a renderer
# fills short rows itself. The largest corpus DOCX/PPTX table has 30,240 cells (63 x 480).
TABLE_MAX_PADDED_CELLS = 1_000_000


def markdown_table(rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown pipe table; the first row is the header, short rows are padded
    (up to TABLE_MAX_PADDED_CELLS)."""
    rows = [r for r in rows if r is not None]
    if not rows:
        return ""
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        return ""
    pad = width * len(rows) <= TABLE_MAX_PADDED_CELLS
    norm = [[_cell(c) for c in r] for r in rows]
    norm = [r + [""] * (width - len(r)) if pad or i == 0 else r for i, r in enumerate(norm)]
    lines = ["| " + " | ".join(norm[0]) + " |", "| " + " | ".join(["---"] * width) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in norm[1:]]
    return "\n".join(lines)


def table_has_text(rows: list[list[str]]) -> bool:
    """True when any cell holds non-whitespace text."""
    return any(c.strip() for r in rows for c in r)
