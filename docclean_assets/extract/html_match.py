"""The extractor's output (trafilatura XML tree) as segments, and their alignment to DOM units."""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from docclean_assets.extract.html_dom import clean_text, key, markdown_table

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

    def walk(el: object, kind: str, level: int | None) -> None:
        if el.text:  # type: ignore[attr-defined]
            buf.append(el.text)  # type: ignore[attr-defined]
        for ch in el:  # type: ignore[attr-defined]
            tag = ch.tag if isinstance(ch.tag, str) else ""
            if tag == "lb":
                buf.append("\n")
            elif tag in _TR_INLINE:
                walk(ch, kind, level)
            elif tag == "table":
                flush(kind, level)
                _table(ch)
            elif tag:
                flush(kind, level)
                new_kind = _TR_KIND.get(tag, "paragraph")
                new_level = level
                if tag == "head":
                    rend = (ch.get("rend") or "h2").lower()
                    new_level = int(rend[1]) if len(rend) == 2 and rend[1].isdigit() else 2
                walk(ch, new_kind, new_level)
                flush(new_kind, new_level)
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

    walk(body, "paragraph", None)
    flush("paragraph", None)
    return out


class Matcher:
    """Aligns DOM units to extractor segments on letter-and-digit keys, consuming each text once."""

    def __init__(self, segs: list[Seg], min_chars: int, coverage: float) -> None:
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

    def _span(self, j: int) -> tuple[int, int]:
        return self.start[j], self.start[j] + len(self.segs[j].key)

    def _free(self, a: int, b: int) -> float:
        return 1.0 - sum(self.covered[a:b]) / max(1, b - a)

    def _take(self, a: int, b: int, unit: int) -> None:
        self.covered[a:b] = b"\x01" * (b - a)
        self.cursor = b


        i = max(0, bisect.bisect_right(self.bounds, (a, 1 << 60)) - 1)
        while i < len(self.bounds) and self.bounds[i][0] < b:
            j = self.bounds[i][1]
            if self._span(j)[1] > a:
                self.seg_unit.setdefault(j, unit)
            i += 1

    def match_symbols(self, text: str, unit: int) -> bool:
        """A unit without letters or digits ("***", "|") is kept when the output has the same text."""
        for j in self.symbols.get(text, ()):
            if j not in self.seg_unit:
                self.seg_unit[j] = unit
                return True
        return False

    def match_exact(self, ukey: str, unit: int) -> bool:
        """First pass: the unit is exactly one unconsumed segment (the strongest evidence)."""
        for j in self.exact.get(ukey, ()) if ukey else ():
            a, b = self._span(j)
            if self._free(a, b) >= 1.0:
                self._take(a, b, unit)
                return True
        return False

    def match(self, ukey: str, unit: int) -> bool:
        """Second pass: True (and the text consumed) when the unit's text is in the output."""
        if not ukey:
            return False
        for j in self.exact.get(ukey, ()):
            a, b = self._span(j)
            if self._free(a, b) >= self.coverage:
                self._take(a, b, unit)
                return True
        n = len(ukey)
        for origin in (self.cursor, 0):
            pos = self.joined.find(ukey, origin)
            while pos >= 0:
                if self._free(pos, pos + n) >= self.coverage and (
                    n >= self.min_chars or pos == self.cursor or self._majority(pos, n)
                ):
                    self._take(pos, pos + n, unit)
                    return True
                pos = self.joined.find(ukey, pos + 1)
        if n >= self.min_chars:  # the extractor kept only part of the unit (trimmed a child)
            inside = [j for j in self.text_ids if len(self.segs[j].key) >= self.min_chars
                      and self._free(*self._span(j)) >= self.coverage and self.segs[j].key in ukey]
            if sum(len(self.segs[j].key) for j in inside) >= self.coverage * n:
                for j in inside:
                    self._take(*self._span(j), unit)
                return True
        return False

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
        by_table: dict[int, list[int]] = {}
        for j in self.text_ids:
            s = self.segs[j]
            if s.table is not None and self._free(*self._span(j)) > 0:
                by_table.setdefault(s.table, []).append(j)
        for t, cells in by_table.items():
            pool: dict[str, list[int]] = {}
            for j in cells:
                pool.setdefault(self.segs[j].key, []).append(j)
            hits = []
            for k in keys:
                if pool.get(k):
                    hits.append(pool[k].pop(0))
            if len(hits) >= self.coverage * len(keys):
                for j in hits:
                    self._take(*self._span(j), unit)
                self.seg_unit.setdefault(t, unit)
                return True
        return False

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

    def anchor(self, j: int) -> int:
        """The unit after which an unmatched segment belongs: the one matched to the nearest earlier segment."""
        for i in range(j - 1, -1, -1):
            if i in self.seg_unit:
                return self.seg_unit[i]
        return -1
