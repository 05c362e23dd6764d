"""The one check every settings section runs: each value has its field's annotated type and lies in its
range (numbers >= 0 unless annotated otherwise; `Fraction` fields within [0, 1]).

A section's `__post_init__` calls `check_section(self)`; a bad value raises `SettingError`, a
ValueError that names the field, which `Settings.from_dict` re-words as `settings.<section>.<key>`.
"""
from __future__ import annotations

import difflib
import math
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from typing import Annotated, Any


@dataclass(frozen=True, slots=True)
class Range:
    """Bounds of a numeric field, inclusive; None leaves that side open."""

    low: float | None = 0.0
    high: float | None = None

    def describe(self) -> str:
        if self.high is None:
            return f">= {self.low:g}" if self.low is not None else "a number"
        return f"within [{self.low:g}, {self.high:g}]" if self.low is not None else f"<= {self.high:g}"


NON_NEGATIVE = Range(0.0, None)  # every number unless its annotation says otherwise
# A share, ratio or lightness on the 0..1 scale: `band_fraction: Fraction = 0.1`.
Fraction = Annotated[float, Range(0.0, 1.0)]


class SettingError(ValueError):
    """A settings value of the wrong type or out of range; `key` is the field it was given for."""

    def __init__(self, section: str, key: str, reason: str) -> None:
        super().__init__(f"{section}.{key}: {reason}")
        self.section, self.key, self.reason = section, key, reason


# How alike an unknown key must be to a known one (difflib's ratio, 0-1) to be offered as "did you mean":
# 0.6 (difflib's own default) catches one or two letters wrong or swapped in keys of 4-25 letters.
SUGGEST_MIN_RATIO = 0.6


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """'; did you mean 'x'?' for the known name closest to a misspelt one, or '' when none is close."""
    close = difflib.get_close_matches(str(word), sorted(choices), n=1, cutoff=SUGGEST_MIN_RATIO)
    return f"; did you mean {close[0]!r}?" if close else ""


@cache
def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a section (they are strings under `from __future__ import annotations`)."""
    return typing.get_type_hints(cls, include_extras=True)


def _shown(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


def _is_number(value: object, hint: type) -> bool:
    """An int is a number of either kind, a float only of a float field; a bool is neither."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (hint is float and isinstance(value, float))


def type_error(value: object, hint: Any) -> str | None:
    """Why `value` does not have type `hint` (None when it does)."""
    if typing.get_origin(hint) is Annotated:
        return type_error(value, hint.__origin__)
    if hint in (int, float):
        wanted = "an integer" if hint is int else "a number"
        return None if _is_number(value, hint) else f"expected {wanted}, got {_shown(value)}"
    if hint in (str, bool):
        return None if type(value) is hint else f"expected {hint.__name__}, got {_shown(value)}"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        if not isinstance(value, tuple):
            return f"expected a list, got {_shown(value)}"
        for i, item in enumerate(value):
            why = type_error(item, args[0])
            if why:
                return f"item {i}: {why}"
        return None
    if origin in (typing.Union, types.UnionType):
        reasons = [type_error(value, a) for a in args]
        return None if None in reasons else f"expected {hint}, got {_shown(value)}"
    if hint is type(None):
        return None if value is None else f"expected None, got {_shown(value)}"
    if isinstance(hint, type) and is_dataclass(hint):
        return None if isinstance(value, hint) else f"expected a {hint.__name__} section, got {_shown(value)}"
    raise TypeError(f"settings validation does not know the type {hint!r}")  # a new kind of field: teach it here


def range_error(value: object, hint: Any) -> str | None:
    """Why the number `value` lies outside its field's range (None when it does not, or is no number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    bounds = next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Range)), NON_NEGATIVE)
    if isinstance(value, float) and math.isnan(value):
        return f"must be {bounds.describe()}, got nan"
    if (bounds.low is not None and value < bounds.low) or (bounds.high is not None and value > bounds.high):
        return f"must be {bounds.describe()}, got {value}"
    return None


def check_section(obj: object) -> None:
    """Reject any field of a settings section whose value has the wrong type or lies out of its range."""
    hints = _hints(type(obj))
    for f in fields(obj):  # type: ignore[arg-type]
        value, hint = getattr(obj, f.name), hints[f.name]
        why = type_error(value, hint) or range_error(value, hint)
        if why:
            raise SettingError(type(obj).__name__, f.name, why)
