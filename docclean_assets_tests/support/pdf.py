"""PDF pages drawn in code with reportlab: deterministic prose, and paragraphs wrapped and placed by
their top edge (top-left origin, points)."""
from __future__ import annotations

import io
from collections.abc import Callable

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen import canvas

PAGE_W, PAGE_H = letter
# Two columns on a letter page, points: the left column's x, the right's, and their width.
LEFT, RIGHT, COL_W = 72.0, 316.0, 224.0


def make_pdf(draw: Callable[[canvas.Canvas], None], **kwargs: object) -> bytes:
    """Bytes of a PDF drawn by `draw` on letter pages."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter, **kwargs)
    draw(c)
    c.save()
    return buf.getvalue()


def words(tag: str, n: int) -> str:
    """Deterministic prose: `tag` then n distinct filler words."""
    filler = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    return tag + " " + " ".join(f"{filler[i % len(filler)]}{i}" for i in range(n))


def para(c: canvas.Canvas, text: str, x: float, top: float, width: float, size: float = 10,
         font: str = "Helvetica", leading: float | None = None) -> float:
    """Draw `text` wrapped to `width` with its first line's top at `top` (top-left origin, points);
    return the top of the line after the paragraph."""
    leading = leading or size * 1.2
    for line in simpleSplit(text, font, size, width):
        c.setFont(font, size)
        c.drawString(x, PAGE_H - top - size * 0.8, line)
        top += leading
    return top


QUOTE = "the harbour council voted to keep the lighthouse lit through every winter storm"


def magazine(display: str) -> bytes:
    """Two columns of prose; the left column's second paragraph holds QUOTE; `display` is set large
    across the right column."""

    def draw(c: canvas.Canvas) -> None:
        para(c, "Keeping the Light", LEFT, 40, 468, size=26, font="Helvetica-Bold")
        top = para(c, words("Opening", 60), LEFT, 80, COL_W) + 14
        top = para(c, f"Minutes record that {QUOTE}, despite the cost of oil and the objections of "
                   "two members who wanted the money spent on the pier.", LEFT, top, COL_W) + 14
        para(c, words("LeftMore", 50), LEFT, top, COL_W)
        top = para(c, words("RightOne", 40), RIGHT, 80, COL_W) + 20
        top = para(c, display, RIGHT, top, COL_W, size=17, font="Helvetica-Bold") + 20
        para(c, words("RightTwo", 40), RIGHT, top, COL_W)

    return make_pdf(draw)
