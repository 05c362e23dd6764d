"""Right-to-left lines: glyphs come off the page in visual (left-to-right) order; Arabic and Hebrew
are read from the right. Undo the visual reordering so text is stored in the order it is read."""
from __future__ import annotations

import unicodedata

_RTL = frozenset({"R", "AL"})
_LTR_RUN = frozenset({"L", "EN", "AN"})  # Latin words and numbers keep their own direction
_FIRST_RTL = "\u0590"  # the first right-to-left block (Hebrew): no code point below it is R or AL


def is_rtl(text: str) -> bool:
    """More strong right-to-left characters than strong left-to-right ones."""
    if not text or max(text) < _FIRST_RTL:  # Latin, Greek, Cyrillic...: no right-to-left letter at all
        return False
    rtl = ltr = 0
    for c in text:
        b = unicodedata.bidirectional(c)
        if b in _RTL:
            rtl += 1
        elif b == "L":
            ltr += 1
    return rtl > ltr


def visual_to_logical(text: str) -> str:
    """A line drawn in visual order, in reading order: a right-to-left line is reversed, and each
    left-to-right stretch inside it (a Latin word, a number, "Python 3.11") is turned back."""
    if not is_rtl(text):
        return text
    rev = text[::-1]
    kinds = ["l" if b in _LTR_RUN else "r" if b in _RTL else "n" for b in map(unicodedata.bidirectional, rev)]
    out, i = [], 0
    while i < len(rev):
        if kinds[i] != "l":
            out.append(rev[i])
            i += 1
            continue
        j = end = i  # the stretch runs to the last LTR char before the next RTL one
        while j < len(rev) and kinds[j] != "r":
            if kinds[j] == "l":
                end = j
            j += 1
        out.append(rev[i:end + 1][::-1])
        i = end + 1
    return "".join(out)
