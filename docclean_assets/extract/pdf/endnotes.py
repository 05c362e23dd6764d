"""Stage 7c: endnotes, the numbered notes after the text, linked to the superscripts that cite them.

A document's endnotes are the run of blocks closing it that each open with the next number ("1.",
"2." ... or a raised 1, 2 ...), at least `endnote_min_notes` of them, where the text before the run
cites at least `endnote_min_cited_share` of those numbers with superscripts that no footnote took.
A numbered bibliography cited by superscripts (medical and Nature styles) has that shape too; its
entries hold a year, notes mostly do not, so a run where `endnote_max_dated_share` or more of the
entries hold one stays as it is.

Each endnote becomes a `footnote` block (meta `note` "endnote" and `marker`) anchored to the block
holding its first reference, whose text loses that superscript, as for footnotes (pdf/footnotes.py).
"""
from __future__ import annotations

import re

from docclean_assets.extract.pdf.model import PBlock
from docclean_assets.extract.pdf.footnotes import HOLDERS, note_marker, references
from docclean_assets.extract.pdf.settings import PdfSettings

_YEAR = re.compile(r"\b(1[6-9]|20)\d\d[a-z]?\b")
_ITEM_KINDS = ("paragraph", "list_item")


def _closing_run(flat: list[PBlock], s: PdfSettings) -> tuple[int, list[str]]:
    """Index of the first block of the numbered run closing the document, and the run's markers,
    skipping page furniture (dropped blocks, page numbers) on the way up."""
    start, markers = len(flat), []
    for i in range(len(flat) - 1, -1, -1):
        b = flat[i]
        if b.drop_reason is not None or b.kind == "margin_note" or len(b.text) < s.footnote_furniture_max_chars \
                and not any(ch.isalpha() for ch in b.text):
            continue
        found = note_marker(b) if b.kind in _ITEM_KINDS else None
        if found is None or not found[0].isdigit():
            break
        start, markers = i, [found[0], *markers]
    return start, markers


def pages_to_endnotes(pages: list[list[PBlock]], s: PdfSettings) -> list[list[PBlock]]:
    """The pages with the document's endnotes labelled and linked (relabelled copies, in place)."""
    flat = [b for page in pages for b in page]
    start, markers = _closing_run(flat, s)
    numbers = [int(m) for m in markers]
    if len(numbers) < s.endnote_min_notes or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return pages
    items = [b for b in flat[start:] if b.kind in _ITEM_KINDS and note_marker(b) is not None]
    if sum(bool(_YEAR.search(b.text)) for b in items) >= s.endnote_max_dated_share * len(items):
        return pages  # a bibliography
    notes = dict(zip(markers, items, strict=True))
    holders = [b for b in flat[:start] if b.kind in HOLDERS and b.drop_reason is None]
    holder_of, cuts = references(holders, notes)
    if len(holder_of) < s.endnote_min_cited_share * len(notes):
        return pages
    new: dict[int, PBlock] = {}
    for b in holders:
        if id(b) in cuts:
            refs = " ".join(r for r, h in holder_of.items() if h is b)
            before = dict(b.extra).get("footnote_refs")
            extra = (*((k, v) for k, v in b.extra if k != "footnote_refs"),
                     ("footnote_refs", f"{before} {refs}" if before else refs))
            new[id(b)] = b.relabel(unmarked=b.unmarked | frozenset(cuts[id(b)]), extra=extra)
    for marker, b in notes.items():
        new[id(b)] = b.relabel(kind="footnote", extra=(*b.extra, ("note", "endnote"), ("marker", marker)),
                               anchor_to=holder_of.get(marker))
    return [[new.get(id(b), b) for b in page] for page in pages]
