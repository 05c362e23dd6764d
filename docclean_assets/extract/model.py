"""The one record that flows through every stage, and the per-document diagnostics."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum


# Backends mark a hyphen that ended a printed line with a soft hyphen (U+00AD): "distri\u00adbution";
# normalisation decides from the document whether the word is whole without it.
LINE_BREAK_HYPHEN = "\u00ad"


class Kind(StrEnum):
    """What a block is in the document; the body is a subset of these."""

    TITLE = "title"
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE = "table"
    CAPTION = "caption"
    CODE = "code"
    FOOTNOTE = "footnote"
    CALLOUT = "callout"
    PULL_QUOTE = "pull_quote"
    MARGIN_NOTE = "margin_note"
    SPEAKER_NOTES = "speaker_notes"
    COMMENT = "comment"
    IMAGE_TEXT = "image_text"


# A call-out (boxed panel, sidebar, text box) is content set apart: it stays in the body as its own
# block after the paragraph it belongs to, never concatenated into it. Pull quotes (duplicates),
# margin notes and footnotes (linked by `anchor`), notes and comments are not body.
BODY_KINDS = frozenset(
    {Kind.TITLE, Kind.HEADING, Kind.PARAGRAPH, Kind.LIST_ITEM, Kind.TABLE, Kind.CAPTION, Kind.CODE, Kind.CALLOUT}
)


class DropReason(StrEnum):
    """Why a block left the body; a dropped block keeps its text."""

    RUNNING_HEAD = "running_head"  # repeated in the top band across pages
    RUNNING_FOOT = "running_foot"  # repeated in the bottom band across pages
    PAGE_NUMBER = "page_number"
    SITE_TEMPLATE = "site_template"  # repeated across the documents of a source
    # page furniture (a top or bottom band line) repeated across a source's paged documents: a
    # journal's masthead, licence line or DOI line, even where it is on one page of each document
    SOURCE_FURNITURE = "source_furniture"
    BOILERPLATE = "boilerplate"  # template text found by the HTML extractor (nav, footer, cookie banner)
    HEADER_FOOTER = "header_footer"  # DOCX/PPTX header and footer parts
    WATERMARK = "watermark"
    DELETED_REVISION = "deleted_revision"  # tracked-change deletion (w:del, w:moveFrom)
    DUPLICATE = "duplicate"  # a pull quote or repeated display text already in the body
    EMPTY = "empty"  # nothing but whitespace
    SELECTOR_DROP = "selector_drop"  # removed by a per-source CSS drop rule
    HIDDEN = "hidden"  # an HTML element hidden from every reader (hidden, aria-hidden, display:none, <template>)
    TOC = "toc"  # an in-page table of contents: links to the page's own headings, and its label
    CODE_TOOLBAR = "code_toolbar"  # the buttons and labels of a code block's toolbar ("Copy", "Python")
    TEASER = "teaser"  # linked headlines of other pages with their summaries (related stories)
    OCR_REPLACED = "ocr_replaced"  # a PDF page's unusable text layer (unmapped glyphs), replaced by its OCR
    # a paragraph's part after a column, page or float break: its text is in the block named by meta
    # `continues`, the paragraph's first part (extract/continuations.py)
    CONTINUED = "continued"


@dataclass(frozen=True, slots=True)
class BBox:
    """A rectangle in PDF points (1/72 inch) with a top-left origin: y grows downwards."""

    x0: float
    y0: float
    x1: float
    y1: float

    def __post_init__(self) -> None:
        if self.x1 < self.x0 or self.y1 < self.y0:
            raise ValueError(f"inverted bbox {self}")

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def union(self, other: BBox) -> BBox:
        """The smallest box holding both."""
        return BBox(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))


@dataclass(frozen=True, slots=True)
class Block:
    """One typed piece of text in reading order; dropped blocks keep text and a reason."""

    kind: str
    text: str
    seq: int = 0  # reading order within the document, assigned by the backend's last stage
    orig_text: str | None = None  # text before normalisation (None: identical to text)
    page: int | None = None  # 1-based page or slide; None for DOCX and HTML
    bbox: BBox | None = None
    drop_reason: str | None = None
    level: int | None = None  # heading level (1 = top) or list depth
    anchor: int | None = None  # seq of the body block this one refers to (comment, callout, note)
    meta: tuple[tuple[str, str], ...] = ()  # small typed extras (author, matched_offset, ...)

    def __post_init__(self) -> None:
        if self.kind not in Kind._value2member_map_:
            raise ValueError(f"unknown block kind {self.kind!r}")
        if self.drop_reason is not None and self.drop_reason not in DropReason._value2member_map_:
            raise ValueError(f"unknown drop reason {self.drop_reason!r}")
        if self.page is not None and self.page < 1:
            raise ValueError(f"page is 1-based, got {self.page}")

    @property
    def in_body(self) -> bool:
        """True when the block is part of the linear narrative."""
        return self.drop_reason is None and self.kind in BODY_KINDS

    def dropped(self, reason: str) -> Block:
        """The same block, removed from the body for `reason`."""
        return replace(self, drop_reason=str(DropReason(reason)))

    def with_text(self, text: str) -> Block:
        """The same block with new text, remembering the first original."""
        if text == self.text:
            return self
        return replace(self, text=text, orig_text=self.orig_text if self.orig_text is not None else self.text)

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """One value from `meta`."""
        return dict(self.meta).get(key, default)


def count_chars(text: str) -> int:
    """Non-whitespace characters: the unit of raw_chars and kept_chars, so layout spacing never counts."""
    return len("".join(text.split()))  # split() drops exactly the chars str.isspace() calls whitespace


def renumber(blocks: list[Block]) -> list[Block]:
    """Assign seq 0..n-1 in list order."""
    return [b if b.seq == i else replace(b, seq=i) for i, b in enumerate(blocks)]


@dataclass(slots=True)
class DocReport:
    """Diagnostics of one document: the chances of silent loss, counted.

    These fields are the report's one list: extract/schema.py derives its table columns from them (in
    this order; int -> int32 unless the field's metadata names another Arrow type, float -> float64,
    str -> string, list[str] -> list<string>), so a counter added here is a column everywhere.
    """

    # Each field's `doc` is its column's description in the Dagster UI (and `arrow` its Arrow type
    # where that is not the default).
    format: str = field(default="", metadata={"doc": "The sniffed format: pdf | docx | pptx | html."})
    method: str = field(default="", metadata={"doc": "How the body was obtained: jsonld | rules | trafilatura | "
                                                     "whole_page | text_layer | ooxml."})
    pages: int = field(default=0, metadata={"doc": "Pages (PDF) or slides (PPTX); 0 for other formats."})
    raw_chars: int = field(default=0, metadata={
        "arrow": "int64", "doc": "Non-whitespace characters of the whole extracted text, before any removal."})
    columns: int = field(default=0, metadata={"doc": "The largest number of text columns detected on any page."})
    footnotes: int = field(default=0, metadata={"doc": "Footnotes and endnotes found (kept apart from the body, linked)."})
    unanchored_notes: list[str] = field(default_factory=list, metadata={
        "doc": "'<page>:<marker>' of each note whose reference in the text was not found ('-': no marker)."})
    unresolved_regions: int = field(default=0, metadata={"doc": "Regions whose role could not be decided (kept, but unsure)."})
    deletions: int = field(default=0, metadata={"doc": "Tracked deletions (w:del): their text is not in the body."})
    insertions: int = field(default=0, metadata={"doc": "Tracked insertions (w:ins): their text is in the body."})
    moves: int = field(default=0, metadata={"doc": "Tracked moves (w:moveFrom / w:moveTo pairs)."})
    comment_refs: int = field(default=0, metadata={"doc": "Reviewer comments anchored in the text (kept as kind='comment')."})
    embedded_objects: int = field(default=0, metadata={"doc": "OLE objects and other embedded files (their content is not read)."})
    picture_shapes: int = field(default=0, metadata={"doc": "Pictures: text inside them counts only where OCR read it."})
    callouts: int = field(default=0, metadata={"doc": "Call-out panels, sidebars and text boxes, kept apart from the prose."})
    pull_quotes: int = field(default=0, metadata={"doc": "Display text repeating the body, kept out of it."})
    margin_notes: int = field(default=0, metadata={"doc": "Short notes beside the text (clause numbers, stamps), linked, not spliced."})
    tables: int = field(default=0, metadata={"doc": "Table blocks (Markdown tables and fallbacks)."})
    tables_fallback: int = field(default=0, metadata={"doc": "Tables whose columns could not be aligned: a description plus their text."})
    reader_comments: int = field(default=0, metadata={"doc": "Comments under a web page, kept as kind='comment' (not body)."})
    page_kind: str = field(default="", metadata={
        "doc": "A web page's kind, which decides its content: thread | article | product | listing | page."})
    posts: int = field(default=0, metadata={"doc": "Posts of a forum or Q&A thread, kept as body (one block each)."})
    flags: list[str] = field(default_factory=list, metadata={
        "doc": "Names of what the document showed (broken_part, value_clamped, below_retention_band ...)."})
    # OCR (issue 9)
    ocr_pages: int = field(default=0, metadata={"doc": "Pages rendered and read by OCR."})
    ocr_pictures: int = field(default=0, metadata={"doc": "Pictures whose text OCR read."})
    ocr_pictures_empty: int = field(default=0, metadata={"doc": "Pictures OCR read without finding confident text."})
    ocr_pictures_skipped: int = field(default=0, metadata={
        "doc": "Pictures large enough to hold text that OCR did not read: photos, pictures without "
               "text-like marks, and those over the document's picture or time budget."})
    ocr_confidence: float = field(default=0.0, metadata={"doc": "Mean word confidence (0-100) of the OCR text kept; 0 without OCR."})
    # Parts of a package (a slide, a header, a JSON-LD script, an embedded chunk) that could not be
    # read: each costs only itself, is counted here and flags the document `broken_part`.
    broken_parts: int = field(default=0, metadata={"doc": "Parts of the file that could not be read (each costs only itself)."})
    part_errors: list[str] = field(default_factory=list, metadata={"doc": "'<part>: <why>' for each broken part."})

    def flag(self, name: str) -> None:
        """Add a flag once."""
        if name not in self.flags:
            self.flags.append(name)

    def part_failed(self, part: str, why: str) -> None:
        """Count one part that could not be read (the rest of the document stands) and say why."""
        self.broken_parts += 1
        self.part_errors.append(f"{part}: {why}")
        self.flag("broken_part")


@dataclass(slots=True)
class Extraction:
    """What a backend returns: blocks in reading order, diagnostics, and its intermediates."""

    blocks: list[Block]
    report: DocReport
    # Each stage's output, for debugging only (nothing reads it as an input): the PDF backend's typed
    # `PdfTrace` (pdf/trace.py, one `PageTrace` per page), a dict of named values for the others.
    trace: object = field(default_factory=dict)
