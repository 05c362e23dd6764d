"""Per-source rules for HTML pages: a type below the HTML backend and the dispatcher that passes them."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HtmlRules:
    """Per-source CSS rules: `keep` names the article container, `drop` removes nodes inside it;
    `comments_as_body` puts reader comments in the body (as paragraphs) instead of kind 'comment'."""

    keep: str | None = None
    drop: tuple[str, ...] = ()
    comments_as_body: bool = False
