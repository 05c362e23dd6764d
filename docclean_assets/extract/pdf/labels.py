"""List labels at the start of a PDF line: bullets ("•", "▪", "–") and enumerators ("1.", "2)",
"(a)", "iv."), and whether one label is the next after another (2. after 1., b) after a), iii. after
ii.). Read by stage 3 (a labelled line opens a new item) and stage 6 (list items, their label)."""
from __future__ import annotations

import re
from typing import NamedTuple

BULLETS = "•◦▪‣●○■□➢►–-*"
_BULLET = re.compile(rf"^([{re.escape(BULLETS)}])\s+\S")
# "1." "12)" "a." "b)" "(c)" "(3)" "iv." "(ii)": a short enumerator, then a space and text
_ENUM = re.compile(r"^(\()?(\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})(?(1)\)|[.)])\s+\S")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


class Label(NamedTuple):
    """A line's list label: its text, its kind (bullet, num, lower, upper, roman), its punctuation
    (the bullet glyph, ".", ")" or "()") and, for enumerators, its position."""

    text: str
    kind: str
    punct: str
    value: int


def _roman(s: str) -> int | None:
    """The value of a lower-case roman numeral, or None when `s` is none."""
    total, prev = 0, 0
    for ch in reversed(s):
        v = _ROMAN.get(ch)
        if v is None:
            return None
        total += -v if v < prev else v
        prev = max(prev, v)
    return total


def list_label(text: str) -> Label | None:
    """The list label a line starts with, or None."""
    text = text.lstrip()
    if m := _BULLET.match(text):
        return Label(m.group(1), "bullet", m.group(1), 0)
    m = _ENUM.match(text)
    if m is None:
        return None
    token = m.group(2)
    punct = "()" if m.group(1) else text[m.end(2)]
    label = text[: m.end(2) + 1]
    if token.isdigit():
        return Label(label, "num", punct, int(token))
    case = "lower" if token.islower() else "upper"
    if len(token) == 1:  # a letter; "i", "v", "x" alone read as letters too (an a, b, c list)
        return Label(label, case, punct, ord(token.lower()) - 96)
    value = _roman(token.lower()) if token.islower() or token.isupper() else None
    return None if value is None else Label(label, "roman", punct, value)


def follows(prev: Label, cur: Label) -> bool:
    """Whether `cur` is the list item after `prev`: the same bullet, or the next enumerator with the
    same punctuation ("ii." after "i.", which alone read as a letter)."""
    if prev.punct != cur.punct:
        return False
    if prev.kind == "bullet":
        return cur.kind == "bullet"
    if prev.kind == cur.kind:
        return cur.value == prev.value + 1
    return _is_i(prev) and cur.kind == "roman" and cur.value == 2


def is_first(label: Label) -> bool:
    """Whether the label opens a list: a bullet, or the first enumerator (1., a., i.)."""
    return label.kind == "bullet" or label.value == 1 or _is_i(label)


def _is_i(label: Label) -> bool:
    """Whether the label is "i" alone, read as a letter, which may open a roman list as well."""
    return label.kind in ("lower", "upper") and label.text.strip("().").lower() == "i"
