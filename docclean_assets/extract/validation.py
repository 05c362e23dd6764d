"""Checks shared by every settings section: numbers that must not be negative, ratios within [0, 1]."""
from __future__ import annotations

from dataclasses import fields


def check_positive(obj: object) -> None:
    """Reject negative numbers in any numeric field of a settings section."""
    for f in fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"{type(obj).__name__}.{f.name} must be >= 0, got {value}")


def check_fraction(obj: object, *names: str) -> None:
    """Reject a ratio outside [0, 1]."""
    for name in names:
        value = getattr(obj, name)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{type(obj).__name__}.{name} must be within [0, 1], got {value}")
