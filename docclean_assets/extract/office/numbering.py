"""List labels of numbered and bulleted DOCX paragraphs ("1.", "a)", "iv.", "2.3", "•"), computed
from numbering.xml the way Word renders them.

A paragraph's numbering is its own w:numPr or its style's (following basedOn). Each w:num points to
a w:abstractNum whose levels give numFmt, lvlText ("%1.%2."), start and lvlRestart. Counters belong
to the abstract list, so w:num instances sharing one continue each other's numbering; a w:num with
a lvlOverride/startOverride restarts its levels the first time it is used. Advancing a level resets
the deeper levels (unless their lvlRestart says otherwise).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from docclean_assets.extract.model import DocReport
from docclean_assets.extract.office.common import STYLE_CHAIN_MAX, w, xml_int

MAX_LEVELS = 9  # WordprocessingML defines levels 0-8
# Largest list start (w:start, w:startOverride) Word accepts; a larger one is clamped to it.
MAX_START = 32767
# Counters beyond these render in decimal: Roman numerals stop at 3999 (MMMCMXCIX), and Word's
# letters at 780 ("zz...z", 30 letters): a hostile start never makes a label longer than that.
MAX_ROMAN = 3999
MAX_LETTERS = 780
BULLET = "\u2022"
_PLACEHOLDER = re.compile(r"%([1-9])")
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def _val(el: etree._Element | None) -> str | None:
    return None if el is None else el.get(w("val"))


def _roman(n: int) -> str:
    out = []
    for value, letters in _ROMAN:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def _letters(n: int) -> str:
    """Word's alphabetic numbering: a..z, then aa..zz, aaa..."""
    if n <= 0:
        return ""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str) -> str:
    """One counter in a numFmt; formats without a plain-text rendering (and counters beyond a
    format's range) fall back to decimal."""
    if fmt in ("lowerLetter", "upperLetter") and n <= MAX_LETTERS:
        return _letters(n) if fmt == "lowerLetter" else _letters(n).upper()
    if fmt in ("lowerRoman", "upperRoman") and 0 < n <= MAX_ROMAN:
        return _roman(n) if fmt == "lowerRoman" else _roman(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt == "none":
        return ""
    return str(n)


def _bullet_text(text: str) -> str:
    """A bullet's lvlText; symbol-font glyphs (private use area) and empty text read as a bullet."""
    kept = "".join(c for c in text if not 0xE000 <= ord(c) <= 0xF8FF).strip()
    return kept or BULLET


@dataclass(frozen=True)
class Level:
    """One level of an abstract list."""

    fmt: str = "decimal"
    text: str = "%1."
    start: int = 1
    restart: int | None = None  # lvlRestart: restart after this 1-based level is used (0 = never)
    legal: bool = False  # isLgl: every placeholder in decimal


def _start(el: etree._Element | None, default: int | None, report: DocReport | None) -> int | None:
    """A w:start or w:startOverride, 0-MAX_START."""
    return xml_int(_val(el), 0, MAX_START, default, report)


def _ilvl(value: str | None, report: DocReport | None) -> int | None:
    """The level index a list level definition is for, 0-8; None (the definition is ignored) when out of range."""
    return xml_int(value, 0, MAX_LEVELS - 1, None, report, clamp=False)


def _level(lvl: etree._Element, base: Level | None = None, report: DocReport | None = None) -> Level:
    base = base or Level()
    text_el = lvl.find(w("lvlText"))
    return Level(
        fmt=_val(lvl.find(w("numFmt"))) or base.fmt,
        text=text_el.get(w("val"), "") if text_el is not None else base.text,
        start=_start(lvl.find(w("start")), base.start, report),  # type: ignore[arg-type]
        restart=xml_int(_val(lvl.find(w("lvlRestart"))), 0, MAX_LEVELS, base.restart, report),
        legal=lvl.find(w("isLgl")) is not None or base.legal,
    )


class Numbering:
    """Renders list labels in document order; one instance per document (it keeps the counters)."""

    def __init__(self, numbering_root: etree._Element | None, styles_root: etree._Element | None,
                 report: DocReport | None = None) -> None:
        self.report = report  # flagged value_clamped when a level or start is out of range
        self._abstract: dict[str, dict[int, Level]] = {}
        self._nums: dict[str, tuple[str, dict[int, Level], dict[int, int]]] = {}
        self._styles: dict[str, tuple[str | None, str | None, int | None]] = {}
        self._counters: dict[str, list[int | None]] = {}
        self._started: set[str] = set()
        self._links: dict[str, str] = {}  # abstractNumId -> numbering style it merely points to
        if numbering_root is not None:
            self._read_numbering(numbering_root)
        if styles_root is not None:
            for st in styles_root.iter(w("style")):
                sid = st.get(w("styleId"))
                num = st.find(f"{w('pPr')}/{w('numPr')}")
                based = _val(st.find(w("basedOn")))
                if sid is not None:
                    num_id = _val(num.find(w("numId"))) if num is not None else None
                    ilvl = None if num is None else xml_int(_val(num.find(w("ilvl"))), 0, MAX_LEVELS - 1, None, report)
                    self._styles[sid] = (based, num_id, ilvl)

    def _read_numbering(self, root: etree._Element) -> None:
        for absn in root.iter(w("abstractNum")):
            aid = absn.get(w("abstractNumId"))
            if aid is None:
                continue
            levels: dict[int, Level] = {}
            for lvl in absn.findall(w("lvl")):
                i = _ilvl(lvl.get(w("ilvl"), "0"), self.report)
                if i is not None:
                    levels[i] = _level(lvl, report=self.report)
            self._abstract[aid] = levels
            link = _val(absn.find(w("numStyleLink")))
            if link:
                self._links[aid] = link
        for num in root.iter(w("num")):
            nid, aid = num.get(w("numId")), _val(num.find(w("abstractNumId")))
            if nid is None or aid is None:
                continue
            overrides: dict[int, Level] = {}
            starts: dict[int, int] = {}
            for ov in num.findall(w("lvlOverride")):
                i = _ilvl(ov.get(w("ilvl"), "0"), self.report)
                if i is None:
                    continue
                start = _start(ov.find(w("startOverride")), None, self.report)
                if start is not None:
                    starts[i] = start
                lvl = ov.find(w("lvl"))
                if lvl is not None:
                    overrides[i] = _level(lvl, self._abstract.get(aid, {}).get(i), self.report)
            self._nums[nid] = (aid, overrides, starts)

    def _style_num(self, sid: str | None) -> tuple[str | None, int | None]:
        """numId and ilvl a paragraph style gives, following basedOn (closest style wins each)."""
        num_id: str | None = None
        ilvl: int | None = None
        seen: set[str] = set()
        while sid is not None and sid not in seen and len(seen) < STYLE_CHAIN_MAX:
            seen.add(sid)
            based, s_num, s_ilvl = self._styles.get(sid, (None, None, None))
            num_id = num_id if num_id is not None else s_num
            ilvl = ilvl if ilvl is not None else s_ilvl
            sid = based
        return num_id, ilvl

    def paragraph_num(self, p: etree._Element) -> tuple[str, int] | None:
        """(numId, ilvl) of a w:p from its own numPr or its style; None when not numbered."""
        ppr = p.find(w("pPr"))
        sid = _val(ppr.find(w("pStyle"))) if ppr is not None else None
        num_id, ilvl = self._style_num(sid)
        num = ppr.find(w("numPr")) if ppr is not None else None
        if num is not None:
            num_id = _val(num.find(w("numId"))) or num_id
            ilvl = xml_int(_val(num.find(w("ilvl"))), 0, MAX_LEVELS - 1, ilvl, self.report)
        if num_id is None or num_id == "0" or num_id not in self._nums:
            return None
        return num_id, ilvl or 0

    def _levels(self, num_id: str) -> tuple[str, dict[int, Level]]:
        """The abstract list of a w:num (through a numStyleLink) and its levels with overrides."""
        aid, overrides, _ = self._nums[num_id]
        if aid in self._links:
            linked, _ilvl = self._style_num(self._links[aid])
            if linked in self._nums and self._nums[linked][0] not in self._links:
                aid = self._nums[linked][0]
        return aid, {**self._abstract.get(aid, {}), **overrides}

    def label(self, num_id: str, ilvl: int) -> str:
        """Advance the list's counter at `ilvl` and render the label ('' for numFmt none or an
        undefined level)."""
        aid, levels = self._levels(num_id)
        counters = self._counters.setdefault(aid, [None] * MAX_LEVELS)
        if num_id not in self._started:
            self._started.add(num_id)
            for i, start in self._nums[num_id][2].items():
                if 0 <= i < MAX_LEVELS:
                    counters[i] = start - 1
                    for d in range(i + 1, MAX_LEVELS):
                        counters[d] = None
        level = levels.get(ilvl)
        if level is None:  # a level the list does not define shows no label
            return ""
        current = counters[ilvl]
        counters[ilvl] = level.start if current is None else current + 1
        for d in range(ilvl + 1, MAX_LEVELS):
            restart = levels.get(d, Level()).restart
            if restart is None or ilvl < restart:
                counters[d] = None
        if level.fmt == "bullet":
            return _bullet_text(level.text)

        def placeholder(m: re.Match[str]) -> str:
            i = int(m.group(1)) - 1
            lv = levels.get(i, Level())
            n = counters[i] if counters[i] is not None else lv.start
            return format_number(n, "decimal" if level.legal and lv.fmt != "none" else lv.fmt)

        return _PLACEHOLDER.sub(placeholder, level.text).strip()
