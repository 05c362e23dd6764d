"""Stage 3: lines to blocks (paragraphs) from spacing, size changes and indentation, never newlines."""
from __future__ import annotations

from dataclasses import dataclass
from statistics import median

import numpy as np

from docclean_assets.extract.pdf.labels import follows, is_first, list_label
from docclean_assets.extract.pdf.model import Line, PBlock
from docclean_assets.extract.pdf.settings import PdfSettings


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


@dataclass(slots=True)
class _Open:
    """A block `lines_to_blocks` is still growing: its lines so far and their box."""

    lines: list[Line]
    x0: float
    top: float
    x1: float
    bottom: float

    def add(self, ln: Line) -> None:
        """Append a line, growing the box."""
        self.lines.append(ln)
        self.x0, self.top = min(self.x0, ln.x0), min(self.top, ln.top)
        self.x1, self.bottom = max(self.x1, ln.x1), max(self.bottom, ln.bottom)


def _continues(blk: _Open, ln: Line, s: PdfSettings, paragraph_gap_em: float) -> bool:
    """Whether `ln` continues `blk` as the next line of the same paragraph."""
    last = blk.lines[-1]
    size = max(ln.size, last.size)
    gap = ln.top - last.bottom
    if gap > paragraph_gap_em * size:  # overlap is fine: tall math boxes overlap lines
        return False
    big, small = max(ln.size, last.size), min(ln.size, last.size)
    if small <= 0 or big / small > s.size_change_ratio:
        return False
    bx0, bx1 = blk.x0, blk.x1
    width = max(min(bx1 - bx0, ln.x1 - ln.x0), 1.0)  # 1 pt: a guard for zero-width boxes, no threshold
    if _overlap(bx0, bx1, ln.x0, ln.x1) < s.block_min_overlap_fraction * width:
        return False
    # The line must not begin left of the block by much (a hanging outdent starts a new item) ...
    if ln.x0 < bx0 - s.outdent_max_em * size and len(blk.lines) > 1:
        return False
    # ... and a first-line indent after a line that began at the block's left edge opens a new
    # paragraph, whether that line ran full width or fell short (a paragraph's last line).
    indent = ln.x0 - bx0
    room = ln.x0 < bx1 - s.indent_min_room_em * size
    if len(blk.lines) > 1 and indent > s.indent_min_em * size and room:
        prev_starts_left = last.x0 - bx0 < s.indent_prev_left_em * size
        if prev_starts_left:
            return False
    # A labelled line opens a new list item: the label after the block's own (2. after 1., the same
    # bullet again), or a list's first label right after the line that introduces it (":").
    label = list_label(ln.text)
    if label is not None:
        first = list_label(blk.lines[0].text)
        if (first is not None and follows(first, label)) or (is_first(label) and last.text.rstrip().endswith(":")):
            return False
    # A standalone bold line (heading) above regular text splits the block; so does a bold line
    # narrower than the regular text above it (a heading set close under a paragraph).
    last_bold = last.bold >= s.bold_line_min_fraction * last.n
    this_bold = ln.bold >= s.bold_line_min_fraction * ln.n
    narrower = last.x1 - last.x0 < s.bold_heading_max_width_fraction * (ln.x1 - ln.x0)
    if last_bold != this_bold and len(blk.lines) == 1 and last_bold and narrower:
        return False
    if this_bold and not last_bold and ln.x1 - ln.x0 < s.bold_heading_max_width_fraction * (bx1 - bx0):
        return False
    return True


def _line_above(lines: list[Line], i: int, s: PdfSettings) -> Line | None:
    """The nearest line above `lines[i]` (sorted by top) that overlaps it horizontally, within reach."""
    ln, best = lines[i], None
    for above in reversed(lines[:i]):
        if ln.top - above.bottom > s.block_open_max_gap_em * max(ln.size, above.size):
            break
        if above.top < ln.top and _overlap(above.x0, above.x1, ln.x0, ln.x1) > 0 and (
                best is None or above.bottom > best.bottom):
            best = above
    return best


class _Edges:
    """The right edge of the lines each line shares its column with (the lines overlapping it)."""

    def __init__(self, lines: list[Line]) -> None:
        self.x0 = np.array([ln.x0 for ln in lines])
        self.x1 = np.array([ln.x1 for ln in lines])

    def of(self, line: Line) -> float:
        return float(self.x1[(self.x1 > line.x0) & (self.x0 < line.x1)].max(initial=line.x1))


def _wrapped(line: Line, below: Line, edges: _Edges, s: PdfSettings) -> bool:
    """The line ended because the first word of the line below would not fit beside it before its
    column's edge: the text wrapped there (justified or ragged), no author broke it."""
    first = below.words[0] if below.words else None
    width = first.x1 - first.x0 if first is not None else 0.0
    return line.x1 + s.paragraph_word_space_em * line.size + width > edges.of(line)


def page_leading_em(lines: list[Line], s: PdfSettings, edges: _Edges | None = None) -> float | None:
    """The gap between the lines of one paragraph on this page, em: the median under lines that wrap
    mid-sentence (end in a letter or comma where the next word did not fit) over a line that starts
    in lower case; None below `paragraph_leading_min_pairs` of them."""
    gaps, edges = [], edges if edges is not None else _Edges(lines)
    for i, ln in enumerate(lines):
        if not ln.text[:1].islower():
            continue
        above = _line_above(lines, i, s)
        if above is None or not (above.text[-1:].isalpha() or above.text[-1:] in ",-"):
            continue
        big, small = max(ln.size, above.size), min(ln.size, above.size)
        if small > 0 and big / small <= s.size_change_ratio and _wrapped(above, ln, edges, s):
            gaps.append((ln.top - above.bottom) / big)
    return median(gaps) if len(gaps) >= s.paragraph_leading_min_pairs else None


def paragraph_gap_of(lines: list[Line], s: PdfSettings, edges: _Edges | None = None) -> float:
    """The line gap, em, above which a line on this page starts a new paragraph: `paragraph_gap_em`, or
    past the page's own leading on a page set wider than that (1.5- or double-spaced)."""
    leading = page_leading_em(lines, s, edges)
    if leading is None or leading < s.paragraph_gap_em:
        return s.paragraph_gap_em
    return leading + s.paragraph_gap_over_leading_em


def _under_its_indent(open_: list[_Open], ln: Line, edges: _Edges, gap_em: float, s: PdfSettings) -> _Open | None:
    """The one-line block whose first line is indented right past all of `ln` when `ln` is that
    paragraph's short last line: within an indent of it, a line's gap below it, and the first line
    wrapped (`ln`'s first word would not have fit beside it)."""
    for b in open_:
        first = b.lines[0]
        big, small = max(ln.size, first.size), min(ln.size, first.size)
        if len(b.lines) != 1 or not ln.x0 < ln.x1 <= first.x0 or first.x0 - ln.x0 > s.indent_max_em * first.size:
            continue
        if small > 0 and big / small <= s.size_change_ratio and 0 <= ln.top - first.bottom <= gap_em * big and (
                _wrapped(first, ln, edges, s)):
            return b
    return None


def lines_to_blocks(lines: list[Line], page: int, settings: PdfSettings) -> list[PBlock]:
    """Group lines (sorted by top) into paragraph blocks.

    Each line continues the most recent open block it overlaps horizontally when the vertical gap is
    at most the page's paragraph gap (`paragraph_gap_of`) x font size, the size does not jump, and no
    first-line indent or heading boundary intervenes (on a page set wider, the line above must have
    wrapped); a short last line under a deep first-line indent joins it too (`_under_its_indent`);
    otherwise it opens a new block. Blocks in different columns never share lines because their lines
    do not overlap horizontally.
    """
    blocks: list[_Open] = []
    open_: list[_Open] = []
    edges = _Edges(lines)
    gap_em = paragraph_gap_of(lines, settings, edges)
    # where the leading is as wide as a paragraph skip, only a line that wrapped goes on below: a line
    # the author broke (a paragraph's last, a title's) ends its block
    wide = gap_em > settings.paragraph_gap_em
    for ln in lines:
        # Close blocks left far behind (bounded search keeps this linear in practice).
        reach = settings.block_open_max_gap_em
        open_ = [b for b in open_ if ln.top - b.lines[-1].bottom <= reach * max(ln.size, b.lines[-1].size)]
        # Only the nearest block above that overlaps the line horizontally may take it.
        near = [b for b in open_ if _overlap(b.x0, b.x1, ln.x0, ln.x1) > 0 and b.lines[-1].top < ln.top]
        target = max(near, key=lambda b: b.lines[-1].bottom) if near else None
        if (target is not None and _continues(target, ln, settings, gap_em)
                and (not wide or _wrapped(target.lines[-1], ln, edges, settings))):
            target.add(ln)
        elif target is None and (indented := _under_its_indent(open_, ln, edges, gap_em, settings)) is not None:
            indented.add(ln)
        else:
            blk = _Open([ln], ln.x0, ln.top, ln.x1, ln.bottom)
            blocks.append(blk)
            open_.append(blk)
    return [PBlock(b.lines, page) for b in blocks]
