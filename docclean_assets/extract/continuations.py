"""Paragraphs continued across a column, a page or a float (PDF), made one block.

A paragraph continues when the body paragraph or list item before it in reading order left its
sentence open and the break between the two is the layout's, not the author's:
- across columns or pages: the first part closes a run of its column in reading order and the second
  opens one, and neither is read out of the columns' order (a page's foot line under the last column,
  a DOI or a licence, comes back to the first column: it never joins the prose);
- within one column: a float or an aside (a figure's text, a caption, a table, a pull quote, a panel)
  sits between them.
Across such a break a sentence is left open when the first part ends without a sentence's end; a
break that falls at a sentence's end is a paragraph's only where the document opens its paragraphs
with a first-line indent and the second part's first line is flush with its others.
The first part takes the second's text (a word hyphenated across the break joined with the
line-break marker, so normalisation decides "mol-|ecule" against "long-|form" as inside a
paragraph) and lists in meta `parts` the page and box of every part; the second is dropped as
`continued`, its text kept and meta `continues` naming the first. Notes and asides anchored on the
second part are anchored on the whole paragraph. A note run on at the next page's foot (meta `note`
"continued", set by the PDF backend) is joined to its note the same way.
"""
from __future__ import annotations

from dataclasses import replace

from docclean_assets.extract.model import LINE_BREAK_HYPHEN, BBox, Block, DropReason, Kind

_FULL_STOPS = frozenset(".!?:;")
_CLOSING = "\"'\u201d\u2019)]"  # closing quotes and brackets
_SENTENCE_END = _FULL_STOPS | frozenset(_CLOSING)
# What may follow a sentence's full stop: closing quotes and brackets, a note's marker ("stated.12").
_CLOSERS = _CLOSING + "0123456789\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079"
# Blocks the reader steps over between the two parts of a paragraph; floats (tables, captions)
# too: they sit where the layout put them, not where the sentence is.
ASIDES = frozenset({Kind.FOOTNOTE, Kind.CALLOUT, Kind.PULL_QUOTE, Kind.MARGIN_NOTE, Kind.IMAGE_TEXT, Kind.COMMENT,
                    Kind.CAPTION, Kind.TABLE})
# A first part shorter than this, in words, is no prose cut by a break: a figure's tick label or unit
# set as a paragraph ("30", "mm"); the last line of a column of prose holds five words or more.
MIN_PART_WORDS = 3
# What a sentence left open may end with before a second part that starts with a capital or a digit
# (a name, a number: "reported by | Lindqvist", "in | 2019"): a word in lower case, a comma or a
# dash; a lower-case start needs no more. A label or code ("item58", "Table") is no open sentence.
_OPEN_BEFORE_CAPITAL = frozenset(",-\u2013\u2014")
# Meta `note` of a note's part that runs on at the next page's foot (marked by the PDF backend).
CONTINUED_NOTE = "continued"
# Meta of a paragraph of two lines or more (PDF): how far its first line starts right of the others, em.
FIRST_INDENT_META = "first_indent_em"
# A first line starting this far right of the others is indented: LaTeX's \parindent is 1-1.5 em,
# Word's 0.5 in about 4 em; a justified or ragged line starts within 0.1 em of the others.
INDENT_MIN_EM = 0.8
# A document opens its paragraphs with an indent when at least this share of its flow paragraphs
# of two lines or more do (LaTeX sets the paragraph after a heading flush, about one in four).
INDENTED_MIN_SHARE = 0.6


def _flow(b: Block) -> bool:
    """A kept block of a page's flow (PDF blocks carry a column; asides are not flow)."""
    return b.get_meta("column") is not None and b.drop_reason is None and b.kind not in ASIDES


def _column(b: Block) -> tuple[int | None, str | None]:
    return b.page, b.get_meta("column")


def _prose(b: Block) -> bool:
    """Whether the block is long enough to be prose a break cut (MIN_PART_WORDS)."""
    return len(b.text.split()) >= MIN_PART_WORDS


def _left_open(text: str, after: str) -> bool:
    """Whether `text` ends inside a sentence that `after` carries on."""
    last, first = text.rstrip()[-1:], after.lstrip()[:1]
    if not last or not first or last in _SENTENCE_END or len(text.split()) < MIN_PART_WORDS:
        return False
    if first.islower():
        return True
    word = text.split()[-1]
    return (first.isupper() or first.isdigit()) and ((word.isalpha() and word.islower()) or last in _OPEN_BEFORE_CAPITAL)


def _item_left_open(item: Block, b: Block) -> bool:
    """Whether a list item's sentence left open carries on in `b`, its unlabelled rest: only a start in
    lower case tells (a capital or a figure after a list item is as often the next paragraph, a
    transcript's line number)."""
    return b.text.lstrip()[:1].islower() and _left_open(item.text, b.text)


def _may_end_paragraph(b: Block, i: int, closes: set[int]) -> bool:
    """Whether a flush block could be the rest of a paragraph broken after a full stop: it ends a
    sentence, or its column's run ends with it (it may run on again). A statement's title set at the
    top of the next page ("Consolidated Balance Sheets (In millions)") does neither."""
    return b.text.rstrip().rstrip(_CLOSERS)[-1:] in _FULL_STOPS or i in closes


def _indents_paragraphs(blocks: list[Block]) -> bool:
    """Whether the document opens its paragraphs with a first-line indent (INDENTED_MIN_SHARE)."""
    indents = [float(v) for b in blocks if _flow(b) and b.kind == Kind.PARAGRAPH
               and (v := b.get_meta(FIRST_INDENT_META)) is not None]
    return bool(indents) and sum(x >= INDENT_MIN_EM for x in indents) >= INDENTED_MIN_SHARE * len(indents)


def _flush(b: Block) -> bool:
    """Whether the block's first line is known to start flush with its others."""
    v = b.get_meta(FIRST_INDENT_META)
    return v is not None and float(v) < INDENT_MIN_EM


def _runs(blocks: list[Block]) -> tuple[set[int], set[int], set[int]]:
    """Indexes of the flow blocks that open a run of one (page, column) in reading order, of those that
    close one, and of those off the columns' order: a block of an earlier column read after a later
    one on its page (a foot line under the last column, a full-width panel) is no part of the flow."""
    flow = [i for i, b in enumerate(blocks) if _flow(b)]
    opens = {i for k, i in enumerate(flow) if k == 0 or _column(blocks[flow[k - 1]]) != _column(blocks[i])}
    closes = {i for k, i in enumerate(flow) if k == len(flow) - 1 or _column(blocks[flow[k + 1]]) != _column(blocks[i])}
    off: set[int] = set()
    furthest: dict[int | None, int] = {}
    for i in flow:
        page, column = _column(blocks[i])
        col = int(column) if column.lstrip("-").isdigit() else 0
        if col < furthest.get(page, col):
            off.add(i)
        furthest[page] = max(col, furthest.get(page, col))
    return opens, closes, off


def _layout_break(blocks: list[Block], prev: int, i: int, opens: set[int], closes: set[int]) -> bool:
    """Whether the layout, not the author, put the break between blocks `prev` and `i`."""
    if _column(blocks[prev]) != _column(blocks[i]):
        return prev in closes and i in opens
    return any(b.kind in ASIDES for b in blocks[prev + 1:i])


def _box(b: Block) -> str:
    """'page:x0,y0,x1,y1' of a block, either side left empty when unknown."""
    page, bb = "" if b.page is None else b.page, b.bbox
    return f"{page}:{bb.x0:.1f},{bb.y0:.1f},{bb.x1:.1f},{bb.y1:.1f}" if bb is not None else f"{page}:"


def part_boxes(b: Block) -> list[tuple[int | None, BBox | None]]:
    """(page, box) of each part of a block: one for a block that is not a joined paragraph."""
    parts = b.get_meta("parts")
    if parts is None:
        return [(b.page, b.bbox)]
    out = []
    for part in parts.split(" "):
        page, _, coords = part.partition(":")
        out.append((int(page) if page else None, BBox(*map(float, coords.split(","))) if coords else None))
    return out


def _join(first: Block, second: Block) -> Block:
    """The first part with the second's text after it and both parts' boxes in meta `parts`."""
    head, tail = first.text.rstrip(), second.text.lstrip()
    word = tail.partition(" ")[0]
    if head.endswith("-") and head[-2:-1].isalpha() and word[:1].isalpha():
        text = head[:-1] + LINE_BREAK_HYPHEN + tail  # the line-break marker between the halves
    else:
        text = f"{head} {tail}"
    orig = f"{first.orig_text if first.orig_text is not None else first.text} " \
           f"{second.orig_text if second.orig_text is not None else second.text}"
    parts = " ".join(p for p in (first.get_meta("parts") or _box(first), second.get_meta("parts") or _box(second)))
    meta = tuple((k, v) for k, v in first.meta if k != "parts") + (("parts", parts),)
    return replace(first, text=text, orig_text=orig, meta=meta)


def blocks_to_joined_paragraphs(blocks: list[Block]) -> list[Block]:
    """The blocks with each paragraph continued across a layout break made one block (module docstring)."""
    out = list(blocks)
    opens, closes, off = _runs(out)
    indented = _indents_paragraphs(out)
    root: int | None = None  # the paragraph's first part, which collects the text
    prev: int | None = None  # its latest part, where the break is measured
    moved: dict[int, int] = {}  # seq of a dropped part -> seq of the whole paragraph
    note: int | None = None  # the latest note, which a note run on at the next page's foot continues
    for i, b in enumerate(out):
        if b.kind == Kind.FOOTNOTE and b.drop_reason is None:
            if b.get_meta("note") == CONTINUED_NOTE and note is not None:
                out[note] = _join(out[note], b)
                out[i] = replace(b.dropped(DropReason.CONTINUED), meta=(*b.meta, ("continues", str(out[note].seq))))
                continue
            note = i
        if not _flow(b):
            continue
        if b.kind not in (Kind.PARAGRAPH, Kind.LIST_ITEM) or i in off:
            root = prev = None
            continue
        if root is None or b.kind != Kind.PARAGRAPH:
            carried = False
        elif out[root].kind == Kind.LIST_ITEM:
            carried = _item_left_open(out[root], b)
        else:
            carried = _left_open(out[root].text, b.text) or (
                indented and _flush(b) and _prose(out[root]) and _may_end_paragraph(b, i, closes))
        if carried and _layout_break(out, prev, i, opens, closes):
            out[root] = _join(out[root], b)
            out[i] = replace(b.dropped(DropReason.CONTINUED), meta=(*b.meta, ("continues", str(out[root].seq))))
            moved[b.seq] = out[root].seq
            prev = i
            continue
        root = prev = i
    if not moved:
        return out
    return [replace(b, anchor=moved[b.anchor]) if b.anchor in moved else b for b in out]
