"""A document's kept content as Markdown or plain text (issue 36): what `docclean text` writes.

Two stages: `blocks_to_pieces` decides what is shown and where (kept blocks only, a call-out after
the block it is anchored to, footnotes collected with a label and a reference on the block that cites
them, heading levels made contiguous), and `pieces_to_markdown` / `pieces_to_text` only spell them.
Dropped blocks never appear: they stay, with their reasons, in the tables (a paragraph continued
across a break is one block already, extract/continuations.py).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from docclean_assets.extract.chunk import CHUNK_KINDS
from docclean_assets.extract.chunk_tables import cells, is_separator
from docclean_assets.extract.model import Block, Kind

# Content set beside the prose, shown as a labelled block after the block it belongs to.
SIDE_LABELS = {Kind.CALLOUT: "Call-out", Kind.SPEAKER_NOTES: "Speaker notes", Kind.IMAGE_TEXT: "Text in picture"}
_MAX_DEPTH = 6  # Markdown has six heading levels
# A list label that numbers its item ("3.", "12)", "(4)"): kept as an ordered item's number.
_NUMBERED = re.compile(r"^\(?(\d{1,4})[.)]$")
_LABEL_CHARS = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class Piece:
    """One thing to show: its kind, its text (note references added), its heading depth (1 = the
    document's title level) or list depth, and a label (list marker, side label)."""

    kind: str
    text: str
    depth: int = 1
    label: str = ""
    notes: tuple[str, ...] = ()  # labels of the footnotes this piece cites


@dataclass(frozen=True, slots=True)
class Note:
    """A footnote or endnote: its label and its text without the marker it was printed with."""

    label: str
    text: str


def kept_blocks(blocks: Sequence[Block]) -> list[Block]:
    """The blocks a document's text shows, in reading order: kept, and content (the kinds chunks take)."""
    return sorted((b for b in blocks if b.drop_reason is None and b.kind in CHUNK_KINDS), key=lambda b: b.seq)


def blocks_to_pieces(blocks: Sequence[Block]) -> tuple[list[Piece], list[Note]]:
    """The pieces of a document's kept content in reading order, and its notes."""
    kept = kept_blocks(blocks)
    notes, cites = _notes(kept)
    depth_of = _heading_depths(kept)
    shown = [b for b in kept if b.kind != Kind.FOOTNOTE]  # in order, or beside one
    hosts = {b.seq for b in shown if b.kind not in SIDE_LABELS}  # what side content may sit after
    beside: dict[int, list[Block]] = {}
    order: list[Block] = []
    for b in shown:
        if b.kind in SIDE_LABELS and b.anchor in hosts:
            beside.setdefault(b.anchor, []).append(b)
        else:  # unanchored, or anchored to something not shown on its own: where it stands
            order.append(b)
    pieces: list[Piece] = []
    for b in order:
        pieces.append(_piece(b, b.text.strip(), depth_of, cites.get(b.seq, ())))
        pieces += [_piece(side, side.text.strip(), depth_of, cites.get(side.seq, ()))
                   for side in beside.get(b.seq, [])]
    return pieces, notes


def _heading_depths(kept: list[Block]) -> dict[int, int]:
    """Heading level -> Markdown depth: the levels a document uses, made contiguous, under its title."""
    levels = sorted({b.level or 1 for b in kept if b.kind == Kind.HEADING})
    top = 2 if any(b.kind == Kind.TITLE for b in kept) else 1
    return {level: min(top + rank, _MAX_DEPTH) for rank, level in enumerate(levels)}


def _notes(kept: list[Block]) -> tuple[list[Note], dict[int, tuple[str, ...]]]:
    """The footnotes with unique labels, and the labels each block cites (by its anchor)."""
    notes: list[Note] = []
    cites: dict[int, list[str]] = {}
    used: set[str] = set()
    for b in kept:
        if b.kind != Kind.FOOTNOTE:
            continue
        marker = b.get_meta("marker") or b.get_meta("id") or ""
        label = _LABEL_CHARS.sub("", marker) or str(len(notes) + 1)
        if label in used:  # a marker printed again (notes numbered per chapter or page)
            label = f"{label}-{len(notes) + 1}"
        used.add(label)
        text = b.text.strip()
        if marker and text.startswith(marker) and text[len(marker):len(marker) + 1] in (" ", ".", ")", ""):
            text = text[len(marker):].lstrip(" .)")
        notes.append(Note(label, text))
        if b.anchor is not None:
            cites.setdefault(b.anchor, []).append(label)
    return notes, {seq: tuple(labels) for seq, labels in cites.items()}


def _piece(b: Block, text: str, depth_of: dict[int, int], notes: tuple[str, ...]) -> Piece:
    """The piece one block shows as."""
    if b.kind == Kind.TITLE:
        return Piece(b.kind, text, 1, notes=notes)
    if b.kind == Kind.HEADING:
        return Piece(b.kind, text, depth_of.get(b.level or 1, 1), notes=notes)
    if b.kind == Kind.LIST_ITEM:
        label = (b.get_meta("list_label") or "").strip()
        if label and text.startswith(label):
            text = text[len(label):].lstrip()
        number = _NUMBERED.match(label)
        return Piece(b.kind, text, max(b.level or 1, 1), number.group(1) + "." if number else "-", notes)
    return Piece(b.kind, text, label=SIDE_LABELS.get(b.kind, ""), notes=notes)


# -- spelling ---------------------------------------------------------------------------------------
def pieces_to_markdown(pieces: Sequence[Piece], notes: Sequence[Note]) -> str:
    """Markdown: headings as #, list items, pipe tables, side content as labelled quotes, footnotes as [^n]."""
    return _spelt(pieces, _markdown_block, [f"[^{n.label}]: {_one_line(n.text)}" for n in notes], "[^{}]")


def pieces_to_text(pieces: Sequence[Piece], notes: Sequence[Note]) -> str:
    """Plain text: the same pieces without markup (tables as cells between bars, notes as [n])."""
    return _spelt(pieces, _text_block, [f"[{n.label}] {_one_line(n.text)}" for n in notes], "[{}]")


def _spelt(pieces: Sequence[Piece], block: Callable[[Piece, str], str], note_lines: list[str], ref: str) -> str:
    """The pieces one after another (items of one list on consecutive lines, others after a blank line),
    each spelt by `block` with its note references, then the notes."""
    out = [(block(p, "".join(ref.format(n) for n in p.notes)), p.kind == Kind.LIST_ITEM) for p in pieces]
    if note_lines:
        out.append(("\n".join(note_lines), False))
    parts: list[str] = []
    for i, (text, item) in enumerate(out):
        if i:
            parts.append("\n" if item and out[i - 1][1] else "\n\n")
        parts.append(text)
    return "".join(parts) + "\n" if parts else ""


def _markdown_block(p: Piece, refs: str) -> str:
    if p.kind in (Kind.TITLE, Kind.HEADING):
        return "#" * p.depth + " " + _one_line(p.text) + refs
    if p.kind == Kind.LIST_ITEM:
        return _item(p, refs)
    if p.kind == Kind.CODE:
        fence = "~~~" if "```" in p.text else "```"
        return f"{fence}\n{p.text}\n{fence}"
    if p.kind == Kind.TABLE:
        return p.text + (f"\n\n{refs}" if refs else "")
    if p.kind == Kind.CAPTION:
        return f"*{_one_line(p.text)}*{refs}"
    if p.label:
        lines = f"**{p.label}:** {p.text}{refs}".splitlines()
        return "\n".join("> " + line if line.strip() else ">" for line in lines)
    return p.text + refs


def _text_block(p: Piece, refs: str) -> str:
    if p.kind == Kind.LIST_ITEM:
        return _item(p, refs)
    if p.kind == Kind.TABLE:  # cells between bars, no header rule; an escaped bar stays inside its cell
        return "\n".join(" | ".join(cells(line, unescape=False)).rstrip()
                         for line in p.text.splitlines() if not is_separator(line)) + refs
    if p.label:
        return f"{p.label}: {p.text}{refs}"
    return p.text + refs


def _item(p: Piece, refs: str) -> str:
    """A list item on one line, indented by its depth, with its marker."""
    return "  " * (p.depth - 1) + p.label + " " + _one_line(p.text) + refs


def blocks_to_markdown(blocks: Sequence[Block]) -> str:
    """A document's kept content as Markdown."""
    return pieces_to_markdown(*blocks_to_pieces(blocks))


def blocks_to_text(blocks: Sequence[Block]) -> str:
    """A document's kept content as plain text."""
    return pieces_to_text(*blocks_to_pieces(blocks))


def _one_line(text: str) -> str:
    return " ".join(text.split())
