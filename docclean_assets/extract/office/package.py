"""Opening a DOCX or PPTX package, so that one part that cannot be read costs only that part.

python-docx and python-pptx parse many parts as they open a package (slides, notes, charts,
headers, comments, numbering, relationships) and fail whole on any of them, or on a relationship
whose target is missing (python-pptx drops such relationships silently instead). Every internal
relationship target is looked up in the package, so a missing part is always reported. When
opening fails, the package is examined: every member that cannot be decompressed, or that looks
like XML (or has a content type the library parses as XML) and does not parse with the library's
own parser, is broken. If the package's skeleton ([Content_Types].xml, _rels/.rels, the main part)
is among the broken, the document fails with an error naming it; otherwise each broken or missing
part is replaced by an empty stand-in, the package is opened again, and the backends report each
one as a failed part (and skip the stand-ins, which read as empty).

Main parts: besides .docx and .pptx, the macro-enabled and template variants (.docm, .dotx, .dotm;
.pptm, .ppsx, .ppsm, .potx, .potm) hold the same WordprocessingML or PresentationML and are read
the same way, flagged `macro_enabled` where they carry macros: macros are never run, and their
vbaProject.bin is never opened (it stays an opaque member like any embedded file).
"""
from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import dataclass, field

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.model import DocReport
from docclean_assets.extract.office.common import check_package, describe, parse_xml
from docclean_assets.extract.office.xmlcheck import XML_SNIFF_BYTES, looks_like_xml
from docclean_assets.extract.settings import LimitSettings

_OPC_RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_MAIN_RELTYPES = frozenset({
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
    "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument",
})
_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml."
_PML = "application/vnd.openxmlformats-officedocument.presentationml."
# Main-part content types each backend reads -> whether the package may carry macros.
MAIN_TYPES = {
    "docx": {
        _WML + "document.main+xml": False,
        _WML + "template.main+xml": False,
        "application/vnd.ms-word.document.macroEnabled.main+xml": True,
        "application/vnd.ms-word.template.macroEnabledTemplate.main+xml": True,
    },
    "pptx": {
        _PML + "presentation.main+xml": False,
        _PML + "slideshow.main+xml": False,
        _PML + "template.main+xml": False,
        "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml": True,
        "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml": True,
        "application/vnd.ms-powerpoint.template.macroEnabled.main+xml": True,
    },
}
# What a main part's content type says the package is (for the error of a package of another kind).
_KINDS = (("wordprocessingml", "a Word document", ".docx"), ("ms-word", "a Word document", ".docx"),
          ("presentationml", "a PowerPoint presentation", ".pptx"),
          ("ms-powerpoint", "a PowerPoint presentation", ".pptx"),
          ("spreadsheetml", "an Excel workbook", ".xlsx"), ("ms-excel", "an Excel workbook", ".xlsx"))
_SKELETON = ("[Content_Types].xml", "_rels/.rels")
_STAND_IN = b'<unreadable xmlns="urn:docclean:unreadable-part"/>'
_EMPTY_RELS = f'<Relationships xmlns="{_OPC_RELS_NS}"/>'.encode()


@dataclass
class Opened:
    """An opened package: python-docx's Document or python-pptx's Presentation, and what was set aside."""

    doc: object
    macros: bool = False  # a macro-enabled variant (.docm, .pptm...): read, never run
    broken: dict[str, str] = field(default_factory=dict)  # member name -> why it could not be read
    # (source member, relationship id) of the relationships whose target is missing (reported once,
    # as the missing part)
    dangling: set[tuple[str, str]] = field(default_factory=set)

    def unreadable(self, part) -> bool:  # noqa: ANN001 - a python-docx or python-pptx Part
        """Whether `part` is the empty stand-in of a part that could not be read (already reported)."""
        return str(part.partname).lstrip("/") in self.broken

    def dangles(self, source, rid: str | None) -> bool:  # noqa: ANN001 - a python-docx or python-pptx Part
        """Whether relationship `rid` of part `source` points to a missing part (already reported)."""
        return (str(source.partname).lstrip("/"), rid or "") in self.dangling

    def to_report(self, report: DocReport) -> None:
        """Each part set aside as a failed part; the macro flag."""
        for name, why in self.broken.items():
            report.part_failed(name, why)
        if self.macros:
            report.flag("macro_enabled")


def open_package(data: bytes, fmt: str, limits: LimitSettings) -> Opened:
    """The package opened by its library, with broken or missing parts set aside; an ExtractionError
    when the bytes are refused, or when the package's skeleton or main part cannot be read."""
    check_package(data, fmt, limits)
    missing, dangling = _missing_targets(data)
    try:
        return _load(data, fmt, missing, dangling)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - the libraries raise many types for a broken package
        if _is_ExtractionError(exc):
            raise
        first = exc
    broken = {**_broken_members(data, fmt), **missing}
    if broken:
        try:
            return _load(_set_aside(data, broken), fmt, broken, dangling)
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - still unreadable: the first error says why
            if _is_ExtractionError(exc):
                raise
    raise ExtractionError(f"{fmt}: unreadable package ({describe(first)})") from first


def _is_ExtractionError(exc: Exception) -> bool:
    return isinstance(exc, ExtractionError)


def _load(data: bytes, fmt: str, broken: dict[str, str], dangling: set[tuple[str, str]]) -> Opened:
    """Open with python-docx or python-pptx, accepting every main-part variant of the format."""
    if fmt == "docx":
        from docx.opc.part import PartFactory
        from docx.package import Package
        from docx.parts.document import DocumentPart as MainPart
    else:
        from pptx.opc.package import PartFactory
        from pptx.package import Package
        from pptx.parts.presentation import PresentationPart as MainPart
    for content_type in MAIN_TYPES[fmt]:
        PartFactory.part_type_for.setdefault(content_type, MainPart)  # the libraries' own registry
    main = Package.open(io.BytesIO(data)).main_document_part
    content_type = main.content_type
    if content_type not in MAIN_TYPES[fmt] or not isinstance(main, MainPart):
        raise ExtractionError(_not_main(fmt, content_type))
    doc = main.document if fmt == "docx" else main.presentation
    return Opened(doc, MAIN_TYPES[fmt][content_type], dict(broken), dangling)


def _not_main(fmt: str, content_type: str) -> str:
    """The error for a package whose main part is not of `fmt`: what it is and what to do."""
    for key, kind, ext in _KINDS:
        if key in content_type:
            return (f"{fmt}: unreadable package (its main part is {kind}, content type {content_type!r}); "
                    f"give the file its real extension ({ext}) or remove it from the source")
    return (f"{fmt}: unreadable package (its main part has content type {content_type!r}); "
            f"save it again as .{fmt} in the application that made it, or remove it from the source")


def _broken_members(data: bytes, fmt: str) -> dict[str, str]:
    """Member name -> why it cannot be read, for members that cannot be decompressed, and members
    that look like XML or have a content type the library parses as XML but do not parse; an
    ExtractionError when that includes the skeleton or the main part."""
    parse, xml_types = _library_parser(fmt)
    broken: dict[str, str] = {}
    rels: dict[str, bytes] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        content_type = _content_types(zf, names)
        for info in zf.infolist():
            try:
                blob = zf.read(info)
                if not looks_like_xml(blob[:XML_SNIFF_BYTES]) and content_type(info.filename) not in xml_types:
                    continue
                parse(blob)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever zipfile or the parser says is why
                broken[info.filename] = describe(exc)
                continue
            if info.filename.endswith(".rels"):
                rels[info.filename] = blob
    main = _main_part(rels.get("_rels/.rels"))
    for name in (*_SKELETON, main):
        if name in broken or name not in names:
            why = broken.get(name, "missing from the package")
            raise ExtractionError(f"{fmt}: unreadable package ({why}) in {name}")
    return broken


def _missing_targets(data: bytes) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """The internal relationship targets missing from the package (member name -> why), and the
    (source member, relationship id) pairs pointing to them; .rels members that do not parse are
    left to the libraries (and to _broken_members)."""
    missing: dict[str, str] = {}
    dangling: set[tuple[str, str]] = set()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        for rels_name in sorted(n for n in names if n.endswith(".rels")):
            try:
                targets = _internal_targets(rels_name, zf.read(rels_name))
            except Exception:  # noqa: BLE001 - an unreadable .rels member is a broken part of its own
                continue
            source = _source_of(rels_name)
            for rid, target in targets:
                if target not in names:
                    missing.setdefault(target, "missing from the package")
                    dangling.add((source, rid))
    return missing, dangling


def _source_of(rels_name: str) -> str:
    """The member an .rels member holds the relationships of ('word/_rels/x.xml.rels' -> 'word/x.xml')."""
    folder, base = posixpath.split(rels_name)
    return posixpath.join(posixpath.dirname(folder), base.removesuffix(".rels"))


def _library_parser(fmt: str):
    """The parser python-docx or python-pptx loads parts with (its limits decide what it refuses),
    and the content types it parses as XML when it opens a package."""
    if fmt == "docx":
        from docx.opc.part import PartFactory, XmlPart
        from docx.oxml.parser import parse_xml as parse
    else:
        from pptx.opc.package import PartFactory, XmlPart
        from pptx.oxml import parse_xml as parse
    return parse, frozenset(ct for ct, cls in PartFactory.part_type_for.items() if issubclass(cls, XmlPart))


def _content_types(zf: zipfile.ZipFile, names: set[str]):
    """Member name -> its content type per [Content_Types].xml (an override, else its extension's
    default; case-insensitive, as the libraries look them up), '' when it has none."""
    overrides: dict[str, str] = {}
    defaults: dict[str, str] = {}
    try:
        root = parse_xml(zf.read("[Content_Types].xml")) if "[Content_Types].xml" in names else None
    except Exception:  # noqa: BLE001 - reported below as the skeleton being unreadable
        root = None
    for el in root.iter() if root is not None else ():
        tag = el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""
        if tag == "Override":
            overrides[el.get("PartName", "").lower()] = el.get("ContentType", "")
        elif tag == "Default":
            defaults[el.get("Extension", "").lower()] = el.get("ContentType", "")

    def content_type(name: str) -> str:
        ext = name.rsplit(".", 1)[-1].lower() if "." in posixpath.basename(name) else ""
        return overrides.get("/" + name.lower()) or defaults.get(ext, "")

    return content_type


def _main_part(package_rels: bytes | None) -> str:
    """The member name of the main part, from the package relationships."""
    if package_rels is not None:
        for rel in parse_xml(package_rels).iter(f"{{{_OPC_RELS_NS}}}Relationship"):
            if rel.get("Type") in _MAIN_RELTYPES and rel.get("TargetMode") != "External":
                return posixpath.normpath(posixpath.join("/", rel.get("Target", ""))).lstrip("/")
    return "_rels/.rels"  # no main part named: the package relationships are what is unreadable


def _internal_targets(rels_name: str, blob: bytes) -> list[tuple[str, str]]:
    """(relationship id, member name) of what an .rels member points to, resolved as python-docx and
    python-pptx do (PackURI.from_rel_ref: the target joined onto the source part's folder, normalised)."""
    folder = posixpath.dirname(posixpath.dirname(rels_name))  # "word/_rels/x.xml.rels" -> "word"
    base = "/" + folder if folder else "/"
    out = []
    for rel in parse_xml(blob).iter(f"{{{_OPC_RELS_NS}}}Relationship"):
        target = rel.get("Target")
        if target and rel.get("TargetMode") != "External":
            out.append((rel.get("Id", ""), posixpath.normpath(posixpath.join(base, target)).lstrip("/")))
    return out


def _set_aside(data: bytes, broken: dict[str, str]) -> bytes:
    """The package with an empty stand-in for each broken member (added for each missing one)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if info.filename not in broken:
                dst.writestr(info.filename, src.read(info))
        for name in broken:
            dst.writestr(name, _EMPTY_RELS if name.endswith(".rels") else _STAND_IN)
    return out.getvalue()
