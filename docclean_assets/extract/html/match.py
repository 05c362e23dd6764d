"""The extractor's output (trafilatura XML tree) as segments, and their alignment to DOM units."""
from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from docclean_assets.extract.html.dom import clean_text, key, markdown_table

_TR_INLINE = frozenset({"hi", "ref", "del", "graphic", "span", "a", "b", "i", "em", "strong", "sub", "sup"})
_TR_KIND = {"head": "heading", "p": "paragraph", "item": "list_item", "quote": "paragraph", "code": "code"}


@dataclass(slots=True)
class Seg:
    """One block of the extractor's output; cells of a table carry the table's index."""

    kind: str
    text: str
    key: str
    level: int | None = None
    table: int | None = None  # index of the table segment a cell belongs to
    rows: list[list[str]] | None = None  # for kind == "table"


def segments(body: object) -> list[Seg]:
    """Flatten a trafilatura body element (lxml) into segments in output order."""
    out: list[Seg] = []
    if body is None:
        return out
    buf: list[str] = []

    def flush(kind: str, level: int | None) -> None:
        text = clean_text("".join(buf))
        buf.clear()
        if text:
            out.append(Seg(kind, text, key(text), level))

    def walk(root: object) -> None:
        # explicit stack of (children, kind, level, block to flush when done, tail): the output
        # nests as deep as the page, and html_max_depth may be set beyond Python's recursion limit
        buf.append(root.text or "")  # type: ignore[attr-defined]
        stack: list[tuple] = [(iter(root), "paragraph", None, None, None)]  # type: ignore[arg-type]
        while stack:
            children, kind, level, block, tail = stack[-1]
            ch = next(children, None)
            if ch is None:
                stack.pop()
                if block is not None:
                    flush(*block)
                if tail:
                    buf.append(tail)
                continue
            tag = ch.tag if isinstance(ch.tag, str) else ""
            if tag in _TR_INLINE or (tag and tag not in ("lb", "table")):
                if tag not in _TR_INLINE:  # a block: what came before it is a segment of its own
                    flush(kind, level)
                    kind, level = _TR_KIND.get(tag, "paragraph"), _level(ch, level)
                buf.append(ch.text or "")
                stack.append((iter(ch), kind, level, None if tag in _TR_INLINE else (kind, level), ch.tail))
                continue
            if tag == "lb":
                buf.append("\n")
            elif tag == "table":
                flush(kind, level)
                _table(ch)
            if ch.tail:
                buf.append(ch.tail)

    def _table(tab: object) -> None:
        rows = []
        for row in tab.iter("row"):  # type: ignore[attr-defined]
            cells = [clean_text(" ".join(c.itertext())).replace("\n", " ") for c in row if c.tag == "cell"]
            if any(cells):
                rows.append(cells)
        if not rows:
            return
        t = len(out)
        out.append(Seg("table", markdown_table(rows), "", rows=rows))
        for row in rows:
            for cell in row:
                if key(cell):
                    out.append(Seg("cell", cell, key(cell), table=t))

    walk(body)
    flush("paragraph", None)
    return out


def _level(el: object, level: int | None) -> int | None:
    """A heading's level from its rend attribute (h1-h6, else 2); other blocks keep their parent's."""
    if el.tag != "head":  # type: ignore[attr-defined]
        return level
    rend = (el.get("rend") or "h2").lower()  # type: ignore[attr-defined]
    return int(rend[1]) if len(rend) == 2 and rend[1].isdigit() else 2


# A step of the alignment's substring search: one candidate position, segment or cell examined, or
# this many characters of the extractor's output scanned (a C-speed scan of 4 KiB costs about as much
# as one candidate examined in Python, ~1 us).
SCAN_CHARS_PER_STEP = 4096


class Matcher:
    """Aligns DOM units to extractor segments on letter-and-digit keys, consuming each text once.

    Exact matches are dictionary look-ups; the substring search behind the looser matches spends at
    most `max_steps` steps (see SCAN_CHARS_PER_STEP) per page, after which only exact matches count
    (`over_budget`): a page of 200,000 repeated or dropped units cannot make the alignment quadratic."""

    def __init__(self, segs: list[Seg], min_chars: int, coverage: float, max_steps: int = 1 << 62) -> None:
        self.segs = segs
        self.min_chars = min_chars
        self.coverage = coverage
        self.text_ids = [j for j, s in enumerate(segs) if s.kind != "table"]
        self.start: dict[int, int] = {}
        parts, pos = [], 0
        self.exact: dict[str, list[int]] = {}
        for j in self.text_ids:
            self.start[j] = pos
            parts.append(segs[j].key)
            pos += len(segs[j].key)
            self.exact.setdefault(segs[j].key, []).append(j)
        self.joined = "".join(parts)
        self.symbols: dict[str, list[int]] = {}  # segments without letters or digits, by text
        for j in self.text_ids:
            if not segs[j].key:
                self.symbols.setdefault(segs[j].text, []).append(j)
        self.bounds = sorted((self.start[j], j) for j in self.text_ids)
        self.covered = bytearray(len(self.joined))
        self.seg_unit: dict[int, int] = {}  # segment index -> unit index that matched it first
        self.cursor = 0
        # Per key (or symbol text): index of the first candidate not yet ruled out. Coverage only
        # grows, so a segment that fails a test once fails it for good and is never looked at again.
        self._skip: dict[tuple[str, str], int] = {}
        # keys of the long segments (at least min_chars) by their first min_chars characters
        self.long_keys: dict[str, list[str]] = {}
        for k in self.exact:
            if len(k) >= max(1, min_chars):
                self.long_keys.setdefault(k[:max(1, min_chars)], []).append(k)
        self.cells: dict[int, list[int]] = {}  # table segment -> its cell segments
        self.cell_tables: dict[str, list[int]] = {}  # cell key -> tables holding such a cell, in order
        for j in self.text_ids:
            t = segs[j].table
            if t is not None:
                self.cells.setdefault(t, []).append(j)
                tables = self.cell_tables.setdefault(segs[j].key, [])
                if not tables or tables[-1] != t:
                    tables.append(t)
        self.spent_tables: set[int] = set()  # tables whose every cell is consumed
        self.steps_left = max_steps
        self.over_budget = False

    def _span(self, j: int) -> tuple[int, int]:
        return self.start[j], self.start[j] + len(self.segs[j].key)

    def _free(self, a: int, b: int) -> float:
        return 1.0 - self.covered.count(1, a, b) / max(1, b - a)

    def _spend(self, steps: int = 1) -> bool:
        """Pay for a step of the substring search; False once the page's budget is spent."""
        self.steps_left -= steps
        if self.steps_left < 0:
            self.over_budget = True
        return not self.over_budget

    def _take(self, a: int, b: int, unit: int) -> None:
        self.covered[a:b] = b"\x01" * (b - a)
        self.cursor = b


        i = max(0, bisect.bisect_right(self.bounds, (a, 1 << 60)) - 1)
        while i < len(self.bounds) and self.bounds[i][0] < b:
            j = self.bounds[i][1]
            if self._span(j)[1] > a:
                self.seg_unit.setdefault(j, unit)
            i += 1

    def _first(self, pool: str, name: str, cands: list[int], ok: Callable[[int], bool]) -> int | None:
        """The first of `cands` that passes `ok`, never testing again one that failed before."""
        i = self._skip.get((pool, name), 0)
        while i < len(cands) and not ok(cands[i]):
            i += 1
        self._skip[(pool, name)] = i
        return cands[i] if i < len(cands) else None

    def match_symbols(self, text: str, unit: int) -> bool:
        """A unit without letters or digits ("***", "|") is kept when the output has the same text."""
        j = self._first("symbols", text, self.symbols.get(text, []), lambda j: j not in self.seg_unit)
        if j is None:
            return False
        self.seg_unit[j] = unit
        return True

    def match_exact(self, ukey: str, unit: int) -> bool:
        """First pass: the unit is exactly one unconsumed segment (the strongest evidence)."""
        if not ukey:
            return False
        j = self._first("whole", ukey, self.exact.get(ukey, []), lambda j: self._free(*self._span(j)) >= 1.0)
        if j is None:
            return False
        self._take(*self._span(j), unit)
        return True

    def match(self, ukey: str, unit: int) -> bool:
        """Second pass: True (and the text consumed) when the unit's text is in the output."""
        if not ukey:
            return False
        j = self._first("most", ukey, self.exact.get(ukey, []), lambda j: self._free(*self._span(j)) >= self.coverage)
        if j is not None:
            self._take(*self._span(j), unit)
            return True
        n = len(ukey)
        pos = self._find(ukey)
        if pos is not None:
            self._take(pos, pos + n, unit)
            return True
        if n >= self.min_chars:  # the extractor kept only part of the unit (trimmed a child)
            inside = self._inside(ukey)
            if sum(len(self.segs[j].key) for j in inside) >= self.coverage * n:
                for j in inside:
                    self._take(*self._span(j), unit)
                return True
        return False

    def _find(self, ukey: str) -> int | None:
        """Where the unit's key lies in the output, mostly unconsumed: from the cursor on, then before
        it; a short key only at the cursor or as most of one segment."""
        n, joined = len(ukey), self.joined
        for lo, hi in ((self.cursor, len(joined)), (0, self.cursor + n - 1)):  # positions >= cursor, then < cursor
            at = lo
            while not self.over_budget:
                pos = joined.find(ukey, at, hi)
                if not self._spend(1 + ((hi if pos < 0 else pos) - at) // SCAN_CHARS_PER_STEP) or pos < 0:
                    break
                if self._free(pos, pos + n) >= self.coverage and (
                    n >= self.min_chars or pos == self.cursor or self._majority(pos, n)
                ):
                    return pos
                at = pos + 1
                if self.coverage > 0:  # an occurrence with nothing free fails: jump past covered text
                    free = self.covered.find(0, at)
                    if free < 0:
                        break
                    at = max(at, free - n + 1)
        return None

    def _inside(self, ukey: str) -> list[int]:
        """Long segments (at least min_chars), mostly unconsumed, whose key lies within `ukey`."""
        m = max(1, self.min_chars)
        found: set[str] = set()
        for p in range(len(ukey) - m + 1):
            for k in self.long_keys.get(ukey[p:p + m], ()):
                if not self._spend():
                    return []
                if k not in found and ukey.startswith(k, p):
                    found.add(k)
        inside = []
        for k in found:
            inside += [j for j in self.exact[k] if self._spend() and self._free(*self._span(j)) >= self.coverage]
        return [] if self.over_budget else sorted(inside)

    def _majority(self, pos: int, n: int) -> bool:
        """A short key counts only inside one segment it makes most of."""


        i = bisect.bisect_right(self.bounds, (pos, 1 << 60)) - 1
        if i < 0:
            return False
        a, b = self._span(self.bounds[i][1])
        return pos + n <= b and n >= self.coverage * (b - a)

    def match_table(self, cell_keys: list[str], unit: int) -> bool:
        """A DOM table is kept when most of its cells are cells of one extracted table."""
        keys = [k for k in cell_keys if k]
        if not keys:
            return False
        # only a table sharing a cell can have hits (any table passes a coverage of 0)
        for t in sorted(self.cells) if self.coverage == 0 else self._tables_with(keys):
            if not self._spend(len(self.cells[t]) + len(keys)):
                return False
            pool: dict[str, list[int]] = {}
            for j in self.cells[t]:
                if self._free(*self._span(j)) > 0:
                    pool.setdefault(self.segs[j].key, []).append(j)
            if not pool:  # every cell consumed, for good
                self.spent_tables.add(t)
                continue
            hits, used = [], dict.fromkeys(pool, 0)
            for k in keys:
                if used.get(k, 0) < len(pool.get(k, ())):
                    hits.append(pool[k][used[k]])
                    used[k] += 1
            if len(hits) >= self.coverage * len(keys):
                for j in hits:
                    self._take(*self._span(j), unit)
                self.seg_unit.setdefault(t, unit)
                return True
        return False

    def _tables_with(self, keys: list[str]) -> Iterator[int]:
        """Tables holding a cell with one of the keys, in order; spent ones at the front of a key's
        list are passed over for good."""
        runs = []
        for k in set(keys):
            tables = self.cell_tables.get(k, [])
            i = self._skip.get(("tables", k), 0)
            while i < len(tables) and tables[i] in self.spent_tables:
                i += 1
            self._skip[("tables", k)] = i
            runs.append(map(tables.__getitem__, range(i, len(tables))))
        last = None
        for t in heapq.merge(*runs):
            if t != last:
                yield t
            last = t

    def unmatched(self) -> list[int]:
        """Segments (tables whole) the units did not account for, in output order."""
        out = []
        table_free: dict[int, list[float]] = {}
        for j in self.text_ids:
            s = self.segs[j]
            free = self._free(*self._span(j))
            if s.table is not None:
                table_free.setdefault(s.table, []).append(free)
            elif s.key and free > 1.0 - self.coverage:
                out.append(j)
            elif not s.key and j not in self.seg_unit:
                out.append(j)
        for t, frees in table_free.items():
            if sum(1 for f in frees if f > 1.0 - self.coverage) > (1.0 - self.coverage) * len(frees):
                out.append(t)
        return sorted(out)

    def anchors(self, js: list[int]) -> dict[int, int]:
        """For each unmatched segment, the unit after which it belongs: the one matched to the nearest
        earlier segment (-1: before every unit)."""
        want, out, last = set(js), {}, -1
        for i in range(max(js, default=-1) + 1):
            if i in want:
                out[i] = last
            last = self.seg_unit.get(i, last)
        return out
