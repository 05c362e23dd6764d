"""Stage 7: footnotes: the run of small-font blocks closing a column, below its body text.

A column's footnote run starts in the lower part of the page, is set smaller than the body's modal
size, begins with a marker (a number, *, dagger, or a raised smaller first glyph), and sits directly
below a body paragraph of that column. Reference lists in small type (no body paragraph directly
above them) and figure captions (no marker) are therefore not footnotes.

Then (`notes_to_links`) a run set without space between its notes is split into one block per
note, and each note is linked to the block that holds its reference: the first superscript run on
the page, in reading order, that reads as the note's marker. That run leaves the holder's text
(`PBlock.unmarked`; the Block's `orig_text` keeps it) and the note is anchored to the holder.
"""
from __future__ import annotations

import re

from dataclasses import replace

from docclean_assets.extract.continuations import CONTINUED_NOTE
from docclean_assets.extract.model import Block, Kind
from docclean_assets.extract.pdf.model import PBlock
from docclean_assets.extract.pdf.chars import PageInfo
from docclean_assets.extract.pdf.settings import PdfSettings

# A marker, then either a space and text or a letter directly ("3https://...", "1 The ..."); "16:21" is
# no marker.
# "1." and "*)" as house styles set a note's own marker; "1.5 mm" is no marker.
_MARKER = re.compile(r"^\s*(\d{1,3}|[*†‡§¶#∗]+|\(\d{1,3}\)|\[\d{1,3}\])[.)]?(\s+\S|[^\W\d_])")
_SYMBOLS = "*∗†‡§¶#"
# A reference: one marker or several ("1,2", "3–5" names its ends), nothing else.
_REFERENCE = re.compile(r"[0-9]{1,3}|[*∗†‡§¶#]{1,3}")
_REF_SEPARATORS = re.compile(r"[,–-]")
# Blocks whose superscripts may be footnote references.
HOLDERS = ("paragraph", "list_item", "heading", "title", "caption")


def _has_marker(b: PBlock, s: PdfSettings) -> bool:
    first = b.lines[0]
    text = first.text
    if sum(ch.isalpha() for ch in b.text) < s.footnote_min_letters:
        return False
    if _MARKER.match(text):
        return True
    w = first.words[0]
    return w.first_size < s.footnote_marker_size_ratio * first.size


def _carries_a_note(b: PBlock) -> bool:
    """Whether a block of small type opens with the last lines of a note begun on the page before:
    no marker on its first line, a raised one opening a later line (the page's own notes)."""
    return note_marker(b) is None and any((m := note_marker(b, i)) is not None and m[1] for i in range(1, len(b.lines)))


def page_footnotes(ordered: list[PBlock], info: PageInfo, body: float, settings: PdfSettings) -> list[PBlock]:
    """The page's blocks (in reading order) with its footnotes relabelled `footnote` (copies; the
    other blocks as they are)."""
    small = settings.footnote_size_ratio * body
    short = settings.footnote_furniture_max_chars
    content = [b for b in ordered if b.drop_reason is None and b.kind != "margin_note"]
    groups: dict[int, list[PBlock]] = {}
    for b in content:
        groups.setdefault(b.column, []).append(b)
    if -1 in groups:  # full-width footnotes close the whole page: compare against every block
        groups[-1] = list(content)
    notes: set[int] = set()  # id() of the blocks found to be footnotes

    def kind(b: PBlock) -> str:
        return "footnote" if id(b) in notes else b.kind

    for blocks in groups.values():
        seq = sorted(blocks, key=lambda b: (b.top, b.x0))
        # Walk up from the bottom while blocks are small (or short furniture such as a page number).
        i = len(seq)
        while i > 0 and (seq[i - 1].size <= small or len(seq[i - 1].text) < short):
            i -= 1
        start = next(
            (
                k
                for k in range(i, len(seq))
                if seq[k].size <= small
                and (seq[k].top + seq[k].bottom) / 2 >= settings.footnote_min_top_fraction * info.height
                and (_has_marker(seq[k], settings) or _carries_a_note(seq[k]))
            ),
            None,
        )
        if start is None:
            continue
        above = next((b for b in reversed(seq[:start]) if len(b.text) >= short), None)
        if above is None or kind(above) not in ("paragraph", "list_item") or above.size <= small:
            continue
        # The run continues while small blocks of that column follow closely (no page furniture).
        prev = seq[start]
        for b in seq[start:]:
            if b.column != seq[start].column:
                continue
            if sum(ch.isalpha() for ch in b.text) < settings.footnote_min_letters:
                continue  # a page number or a lone mark below the notes: furniture, not a note
            if b.size > small or kind(b) not in ("paragraph", "list_item", "footnote"):
                break
            if b.size != seq[start].size and not _has_marker(b, settings):
                break  # a page's notes share one size: other small print below them (a colophon) is no note
            if b.top - prev.bottom > settings.footnote_run_max_gap_em * body:
                break
            notes.add(id(b))
            prev = b
    return [b.relabel(kind="footnote") if id(b) in notes and b.kind != "footnote" else b for b in ordered]


def _bare(marker: str) -> str:
    """A marker without its brackets, the asterisk operator read as an asterisk."""
    return marker.strip("()[]").replace("∗", "*")


def note_marker(b: PBlock, line: int = 0) -> tuple[str, bool] | None:
    """The marker line `line` of a note starts with and whether it is raised: its first word's
    leading superscript run, else a number or symbol before its text."""
    ln = b.lines[line]
    if ln.words:
        w = ln.words[0]
        if w.raised and w.raised[0][0] == 0:
            return _bare(w.text[:w.raised[0][1]]), True
    m = _MARKER.match(ln.text)
    return (_bare(m.group(1)), False) if m else None


def _starts_note(current: str | None, found: tuple[str, bool] | None) -> bool:
    """Whether a line of a note run opens the next note: a raised marker, the next number, or
    another symbol (a wrapped line starting with "12 people" inside note 3 does not)."""
    if found is None:
        return False
    marker, raised = found
    if raised:
        return marker != current
    if current is None:
        return False
    if marker.isdigit() and current.isdigit():
        return int(marker) == int(current) + 1
    return marker[0] in _SYMBOLS and current[0] in _SYMBOLS and marker != current


def _split_notes(b: PBlock) -> list[PBlock]:
    """A footnote block as one block per note it holds (notes set without space between them)."""
    first = note_marker(b)
    current = first[0] if first else None
    starts = [0]
    for i in range(1, len(b.lines)):
        found = note_marker(b, i)
        if _starts_note(current, found):
            starts.append(i)
            current = found[0] if found else current
    if len(starts) == 1:
        return [b]
    ends = [*starts[1:], len(b.lines)]
    return [replace(b, lines=b.lines[a:e]) for a, e in zip(starts, ends, strict=True)]


def _join_hanging(ordered: list[PBlock]) -> list[PBlock]:
    """Footnote blocks with a markerless footnote block right under them in their column joined to
    it: a note's wrapped lines hang under its text, which the paragraph stage reads as a first-line
    indent opening a new block."""
    out: list[PBlock] = []
    for b in ordered:
        prev = out[-1] if out else None
        if (prev is not None and b.kind == prev.kind == "footnote" and b.column == prev.column
                and note_marker(b) is None and prev.top < b.top <= prev.bottom + prev.lines[-1].size):
            out[-1] = replace(prev, lines=(*prev.lines, *b.lines))
        else:
            out.append(b)
    return out


def _reference(text: str, before: str) -> list[str] | None:
    """The markers a superscript run names, or None when it is no reference: an exponent (after a
    digit or a one-letter symbol: "10²", "x²") or anything but markers and separators."""
    if before[-1:].isdigit() or (len(before) == 1 and before.isalpha()):
        return None
    tokens = [t.strip() for t in _REF_SEPARATORS.split(text)]
    if not tokens or not all(_REFERENCE.fullmatch(t) for t in tokens):
        return None
    return [_bare(t) for t in tokens]


def references(blocks: list[PBlock], notes: dict[str, PBlock]) -> tuple[dict[str, PBlock], dict[int, set]]:
    """For each marker of `notes`, the block holding its first reference in reading order, and per
    holder (by id) the superscript runs to cut: (line, word, run) indexes."""
    holder_of: dict[str, PBlock] = {}
    cuts: dict[int, set[tuple[int, int, int]]] = {}
    for b in blocks:
        if b.kind not in HOLDERS or b.drop_reason is not None:
            continue
        for i, ln in enumerate(b.lines):
            for j, w in enumerate(ln.words):
                for k, (a, e) in enumerate(w.raised):
                    if (i, j, k) in b.unmarked:
                        continue  # a reference another note took already
                    refs = _reference(w.text[a:e], w.text[:a])
                    if refs and all(r in notes and r not in holder_of for r in refs):
                        holder_of.update(dict.fromkeys(refs, b))
                        cuts.setdefault(id(b), set()).add((i, j, k))
    return holder_of, cuts


def notes_to_links(ordered: list[PBlock]) -> list[PBlock]:
    """The page's blocks (reading order, footnotes labelled) with notes split one per block, each
    anchored to the block holding its reference, whose text loses that superscript marker."""
    blocks = [n for b in _join_hanging(ordered) for n in (_split_notes(b) if b.kind == "footnote" else [b])]
    markers = {id(b): m[0] for b in blocks if b.kind == "footnote" and (m := note_marker(b)) is not None}
    notes: dict[str, PBlock] = {}
    for b in blocks:
        if id(b) in markers:
            notes.setdefault(markers[id(b)], b)
    if not notes:
        return blocks
    holder_of, cuts = references(blocks, notes)
    new = {id(b): b.relabel(unmarked=frozenset(cuts[id(b)]),
                            extra=(*b.extra, ("footnote_refs", " ".join(r for r, h in holder_of.items() if h is b))))
           for b in blocks if id(b) in cuts}
    out = []
    for b in blocks:
        marker = markers.get(id(b))
        if marker is None:
            out.append(new.get(id(b), b))
            continue
        holder = holder_of.get(marker)
        extra = (*b.extra, ("note", "footnote"), ("marker", marker))
        out.append(b.relabel(extra=extra, anchor_to=None if holder is None else new[id(holder)]))
    return out


def notes_to_continuations(blocks: list[Block]) -> list[Block]:
    """The document's blocks with each note begun on one page and run on at the next page's foot
    marked: a page's first footnote without a marker, after a note of the page before that left its
    sentence open, gets meta `note` = "continued" (normalisation joins it to that note)."""
    out = list(blocks)
    last: int | None = None  # the latest footnote so far
    for i, b in enumerate(out):
        if b.kind != Kind.FOOTNOTE:
            continue
        prev = out[last] if last is not None else None
        # the page's first note (the note before it is on the page before), without a marker
        if (prev is not None and b.get_meta("marker") is None and prev.page is not None and b.page == prev.page + 1
                and prev.text.rstrip()[-1:] not in ".!?"):
            meta = tuple((k, v) for k, v in b.meta if k != "note") + (("note", CONTINUED_NOTE),)
            out[i] = replace(b, meta=meta)
        last = i
    return out


def counted_notes(blocks: list[Block]) -> tuple[int, list[str]]:
    """The document's notes (blocks that open one with a marker, and markerless footnote blocks that
    neither run on from the page before nor continue the footnote block right before them on their
    page), and "page:marker" of each note whose reference was not found ("page:-": no marker)."""
    count, unanchored, prev = 0, [], None
    for b in blocks:
        if b.kind == Kind.FOOTNOTE and b.get_meta("note") != CONTINUED_NOTE:
            marker = b.get_meta("marker")
            if marker is not None or prev is None or prev.kind != Kind.FOOTNOTE or prev.page != b.page:
                count += 1
                if b.anchor is None:
                    unanchored.append(f"{b.page}:{marker or '-'}")
        prev = b
    return count, unanchored
