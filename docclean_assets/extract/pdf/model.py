"""The PDF backend's own types, owned by no stage: a page box, words, lines and blocks.

Every stage takes and returns these (pdf/lines.py makes words and lines, pdf/blocks.py blocks;
tables, asides, notes and reading order relabel them). `Block` (extract/model.py) is what leaves
the backend; `PBlock` is a block while the stages still work on its lines.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field, replace
from typing import NamedTuple

from docclean_assets.extract.bidi import visual_to_logical
from docclean_assets.extract.model import LINE_BREAK_HYPHEN


class Box(NamedTuple):
    """A rectangle on the page in top-left points."""

    x0: float
    top: float
    x1: float
    bottom: float


class Word(NamedTuple):
    """Chars of one row with no gap wider than `word_gap_em` between them."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float  # modal rounded font size of its chars
    n: int  # number of chars
    bold: int  # number of chars set in a bold font
    row: int  # index of the row (shared vertical band) the word was found in
    first_size: float  # font size of the first char (superscript footnote markers are smaller)
    # (start, end) offsets in `text` of runs set smaller and raised above the row's baseline
    # (superscripts: footnote reference markers, exponents); see `script_spans`
    raised: tuple[tuple[int, int], ...] = ()


class Line(NamedTuple):
    """Words of one row with no gap wider than `line_split_gap_em` between them."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float  # modal font size over the line's chars
    n: int
    bold: int
    words: tuple[Word, ...]

    def text_without(self, spans: frozenset[tuple[int, int]]) -> str:
        """The line's text with the given raised runs ((word index, run index)) left out."""
        texts = []
        for j, w in enumerate(self.words):
            t, cut = w.text, 0
            for k, (a, b) in enumerate(w.raised):
                if (j, k) in spans:
                    t = t[:a - cut] + t[b - cut:]
                    cut += b - a
            if t:
                texts.append(t)
        return visual_to_logical(" ".join(texts))


@dataclass(frozen=True, slots=True, eq=False)
class PBlock:
    """A block: its lines and its labels, frozen: stages return relabelled copies (`relabel`).
    Compared by identity (the orchestrator re-points anchors at a block's copy by identity)."""

    lines: Sequence[Line]  # kept as a tuple
    page: int
    kind: str = "paragraph"
    drop_reason: str | None = None
    level: int | None = None
    column: int = 0  # set by the reading-order stage
    extra: tuple[tuple[str, str], ...] = ()
    anchor_to: PBlock | None = None  # the body block an aside (call-out, margin note, pull quote) refers to
    parts: Sequence[PBlock] | None = None  # an aside built from several paragraphs: its text keeps their breaks
    # raised runs left out of `text` (footnote reference markers): (line, word, run) indexes into
    # `lines` and their words' `raised` runs; `marked_text` keeps them
    unmarked: frozenset[tuple[int, int, int]] = frozenset()
    box: InitVar[Box | None] = None  # the block's frame when it is not its lines' (a table's, a panel's)
    x0: float = field(init=False)
    top: float = field(init=False)
    x1: float = field(init=False)
    bottom: float = field(init=False)

    def __post_init__(self, box: Box | None) -> None:
        lines = tuple(self.lines)
        if box is None:
            box = (min(ln.x0 for ln in lines), min(ln.top for ln in lines),
                   max(ln.x1 for ln in lines), max(ln.bottom for ln in lines))
        object.__setattr__(self, "lines", lines)
        if self.parts is not None:
            object.__setattr__(self, "parts", tuple(self.parts))
        for name, value in zip(("x0", "top", "x1", "bottom"), box, strict=True):
            object.__setattr__(self, name, value)

    @property
    def is_form(self) -> bool:
        """A form's fields read from a grid (pdf/table_model.py): their kind is decided, not typography's."""
        return any(k == "form" for k, _ in self.extra)

    def relabel(self, **changes: object) -> PBlock:
        """A copy of the block (its frame kept) with the given fields changed; the block itself is left as it is."""
        return replace(self, box=(self.x0, self.top, self.x1, self.bottom), **changes)

    @property
    def size(self) -> float:
        """Modal font size over the block's chars."""
        sizes: Counter[float] = Counter()
        for ln in self.lines:
            sizes[ln.size] += ln.n
        return sizes.most_common(1)[0][0]

    @property
    def n(self) -> int:
        return sum(ln.n for ln in self.lines)

    @property
    def bold_fraction(self) -> float:
        n = self.n
        return sum(ln.bold for ln in self.lines) / n if n else 0.0

    @property
    def text(self) -> str:
        if self.parts:
            return "\n".join(p.text for p in self.parts)
        if not self.unmarked:
            return join_lines([ln.text for ln in self.lines])
        cut: dict[int, set[tuple[int, int]]] = {}
        for i, j, k in self.unmarked:
            cut.setdefault(i, set()).add((j, k))
        return join_lines([ln.text_without(frozenset(cut[i])) if i in cut else ln.text
                           for i, ln in enumerate(self.lines)])

    @property
    def marked_text(self) -> str:
        """The text with every raised run, footnote markers included, as drawn."""
        return replace(self, box=(self.x0, self.top, self.x1, self.bottom), unmarked=frozenset()).text


def join_lines(texts: list[str]) -> str:
    """Lines joined by one space; a hyphen ending a line after a letter becomes the soft-hyphen
    marker (the normalisation pass decides "distri-bution" vs "well-known" from the document)."""
    parts: list[str] = []  # non-empty; joined once, so linear however many lines end in a hyphen
    for t in texts:
        t = t.strip()
        if not t:
            continue
        last = parts[-1] if parts else ""
        if not last.endswith("-"):
            parts += (" ", t) if parts else (t,)
            continue
        before = last[-2] if len(last) > 1 else parts[-2][-1] if len(parts) > 1 else ""  # the char before the hyphen
        if before.isalpha() and t[:1].isalpha():
            parts[-1] = last[:-1] + LINE_BREAK_HYPHEN
        parts.append(t)
    return "".join(parts)
