"""The HTML path's trace: what each stage produced, kept for debugging and for `docclean inspect
PAGE.html --stage NAME` (as pdf/trace.py keeps the PDF path's, page by page).

The orchestrator (html/document.py) records each stage's output. A stage returns new values: the
units' statuses as a new tuple, the notes it adds to units as its own dict; it never changes the
statuses or the units it was given, so a stage's record is what that stage decided, whatever later
stages do. The one shared accumulator is the document's report, where each stage adds its flags.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.html.comments import Comment
from docclean_assets.extract.html.dom import Unit
from docclean_assets.extract.html.pagekind import PageKind
from docclean_assets.extract.model import Block, DropReason

COMMENT = "comment"  # status of a unit that is part of a reader comment (neither body nor dropped)
Status = tuple[str | None, ...]  # per unit: None = body, else a DropReason or COMMENT
Notes = dict[int, dict[str, str]]  # unit index -> meta a stage adds to its block (why it was rescued, ...)


@dataclass(frozen=True, slots=True)
class Decoded:
    """The page decoded and parsed, with what the later stages read off the whole document."""

    text: str  # the markup as the extractor reads it (noscript closed, streamed slots placed)
    encoding: str
    tree: LexborHTMLParser
    elements: int  # element count (guard.check_html_depth)
    scripts: list  # the JSON-LD scripts
    title: str
    title_source: str  # og:title | title | h1 | ''
    streamed_slots: bool  # streamed-in slots were moved to their placeholders


@dataclass(frozen=True, slots=True)
class Segmented:
    """The page as text units in DOM order, and what the source's selectors matched."""

    units: list[Unit]
    keys: list[str]  # each unit's comparison key (dom.key)
    keep_nodes: list | None  # the keep rule's matches; None without a keep rule
    drop_nodes: list
    keep_ids: frozenset[int]
    in_drop: tuple[bool, ...]  # per unit: under a drop rule's match


@dataclass(frozen=True, slots=True)
class Chosen:
    """The body as the first path that applies chose it: JSON-LD, the keep rule, the extractor's text
    aligned to the units, or the whole page without its chrome."""

    method: str  # jsonld | rules | trafilatura | whole_page
    status: Status
    furniture: dict[int, DropReason]  # in-page TOCs, code toolbars, hidden elements: out whatever was chosen
    extra: dict[int, list[Block]]  # body text no unit accounts for, by the unit it follows (-1: first)
    notes: Notes  # vetoed template regions, rescued reference tables and disclosure panels
    extractor_chars: int
    extractor_error: str | None


@dataclass(frozen=True, slots=True)
class Rescued:
    """What the extractor left out but the page holds as its own made body again; teaser cards taken
    as the page's entries or dropped; furniture and the drop rule's matches set out."""

    status: Status
    types: frozenset[str]  # the page's declared schema.org / Open Graph types
    entries: bool  # the teaser cards are the page's entries (a listing)
    notes: Notes  # rescued (why), role = entry


@dataclass(frozen=True, slots=True)
class Routed:
    """Reader comments and answers routed, the page's kind, nested articles dropped."""

    status: Status
    comments: list[Comment]
    page: PageKind
    roles: dict[int, str | None]  # first unit of each comment -> its role in the body (None: kept apart)
    notes: Notes  # comment_part = meta on the author lines of comments


@dataclass(frozen=True, slots=True)
class HtmlTrace:
    """Each stage's output, in the order the stages run."""

    decoded: Decoded
    segmented: Segmented
    chosen: Chosen
    rescued: Rescued
    routed: Routed
    blocks: list[Block]  # the page's blocks, as the extraction returns them

    @property
    def method(self) -> str:
        return self.chosen.method

    @property
    def page_kind(self) -> str:
        """The page's kind and why (pagekind.py)."""
        return self.routed.page.reason

    @property
    def title(self) -> str:
        return self.decoded.title

    @property
    def encoding(self) -> str:
        return self.decoded.encoding


# Stages `docclean inspect PAGE.html --stage NAME` shows: the ones with a status per unit, and blocks.
STAGES: tuple[str, ...] = tuple(f.name for f in fields(HtmlTrace) if f.name != "decoded")


def stage_lines(trace: HtmlTrace, stage: str, width: int = 100) -> list[str]:
    """One line per unit (or block) of `stage`'s output: its index, status, kind and text, cut to
    `width` characters; ValueError naming the stages for any other name."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}: one of {', '.join(STAGES)}")
    if stage == "blocks":
        return [_line(b.seq, b.drop_reason or "body", b.kind, b.text, width) for b in trace.blocks]
    units = trace.segmented.units
    status: Status = (tuple(DropReason.SELECTOR_DROP if d else None for d in trace.segmented.in_drop)
                      if stage == "segmented" else getattr(trace, stage).status)
    return [_line(i, "body" if st is None else str(st), u.kind, u.text, width)
            for i, (u, st) in enumerate(zip(units, status))]


def _line(i: int, status: str, kind: str, text: str, width: int) -> str:
    flat = " ".join(text.split())
    return f"{i:>5}  {status:<16} {kind:<12} {flat[:width]}"
