"""OCR words to lines to paragraphs, in page points: tesseract's own layout analysis (block,
paragraph, line numbers) groups the words; low-confidence words are left out."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from docclean_assets.extract.model import BBox, Block, count_chars
from docclean_assets.extract.ocr.engine import OcrRun, Word
from docclean_assets.extract.ocr.settings import OcrSettings


class Frame(NamedTuple):
    """Where an image lies on its page: point = origin + pixel * scale (top-left origin, points)."""

    x0: float
    y0: float
    sx: float  # points per pixel, horizontally
    sy: float  # points per pixel, vertically

    def box(self, w: Word) -> BBox:
        return BBox(self.x0 + w.left * self.sx, self.y0 + w.top * self.sy,
                    self.x0 + (w.left + w.width) * self.sx, self.y0 + (w.top + w.height) * self.sy)


class OcrParagraph(NamedTuple):
    """One paragraph read by OCR: text (lines joined by newlines), box in points, word confidences."""

    text: str
    bbox: BBox
    confidences: tuple[float, ...]

    @property
    def confidence(self) -> float:
        return sum(self.confidences) / len(self.confidences) if self.confidences else 0.0


def words_to_paragraphs(words: Sequence[Word], frame: Frame, s: OcrSettings) -> list[OcrParagraph]:
    """Paragraphs in tesseract's reading order from its confident words; empty ones are left out."""
    groups: dict[tuple[int, int], dict[int, list[Word]]] = {}
    for w in words:
        if w.conf < s.min_word_confidence:
            continue
        groups.setdefault((w.block, w.par), {}).setdefault(w.line, []).append(w)
    out = []
    for lines in groups.values():
        texts = [" ".join(w.text for w in sorted(ws, key=lambda w: w.left)) for _, ws in sorted(lines.items())]
        kept = [w for ws in lines.values() for w in ws]
        box = frame.box(kept[0])
        for w in kept[1:]:
            box = box.union(frame.box(w))
        out.append(OcrParagraph("\n".join(texts), box, tuple(w.conf for w in kept)))
    return out


def paragraphs_text(paragraphs: Sequence[OcrParagraph]) -> str:
    """One text for several paragraphs (a picture's), separated by blank lines."""
    return "\n\n".join(p.text for p in paragraphs)


def paragraphs_box(paragraphs: Sequence[OcrParagraph]) -> BBox:
    """The box around all paragraphs."""
    box = paragraphs[0].bbox
    for p in paragraphs[1:]:
        box = box.union(p.bbox)
    return box


def mean_confidence(paragraphs: Sequence[OcrParagraph]) -> float:
    """Mean word confidence over all paragraphs (0 when there are no words)."""
    confs = [c for p in paragraphs for c in p.confidences]
    return sum(confs) / len(confs) if confs else 0.0


def insert_at_position(page_blocks: list[Block], new: Block) -> int:
    """Where a picture's block goes among its page's blocks (in reading order): before the first
    block beside or below it in its horizontal band, else after the last block above it."""
    b = new.bbox
    assert b is not None
    beside = [i for i, x in enumerate(page_blocks) if x.bbox is not None
              and min(x.bbox.x1, b.x1) - max(x.bbox.x0, b.x0) > 0]
    for i in beside:
        if page_blocks[i].bbox.y0 >= b.y0:  # type: ignore[union-attr]
            return i
    if beside:
        return beside[-1] + 1
    above = [i for i, x in enumerate(page_blocks) if x.bbox is not None and x.bbox.y1 <= b.y0]
    return above[-1] + 1 if above else len(page_blocks)


def place_by_position(blocks: list[Block], start: int, new: list[Block], page: int) -> None:
    """Insert each new block among `blocks[start:]` (one page, in reading order) by position, or at
    the end without a box; anchors (list positions) pointing at or past an insertion follow it."""
    for blk in new:
        at = start + (insert_at_position(blocks[start:], blk) if blk.bbox is not None else len(blocks) - start)
        blocks[:] = [replace(b, anchor=b.anchor + 1) if b.anchor is not None and b.anchor >= at else b for b in blocks]
        blocks.insert(at, replace(blk, page=page))


def accept_picture_text(paras: list[OcrParagraph], run: OcrRun) -> bool:
    """Count an OCR'd picture as read (confident text) or empty; True when its text is kept."""
    conf = mean_confidence(paras)
    if not paras or conf < run.settings.min_block_confidence:
        run.pictures_empty += 1
        return False
    run.pictures += 1
    run.confidences.extend(c for p in paras for c in p.confidences)
    run.ocr_chars += sum(count_chars(p.text) for p in paras)
    return True
