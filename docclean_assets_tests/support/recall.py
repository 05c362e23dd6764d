"""How much of a known text an extraction recovered: the share of its tokens found (OCR tests)."""
from __future__ import annotations

import re
from collections import Counter


MIN_RECALL = 0.8


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def recall(known: str, got: str) -> float:
    """Share of the known tokens (with multiplicity) found in `got`."""
    want, have = Counter(tokens(known)), Counter(tokens(got))
    return sum(min(n, have[t]) for t, n in want.items()) / sum(want.values())
