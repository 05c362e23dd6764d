"""The PDF path's trace: what each stage produced on each page, kept for debugging and for
`docclean inspect --stage` (the way pdfplumber's `TableFinder` keeps edges, intersections and cells).

The orchestrator (pdf/document.py) records each stage's actual output: stages return new values and
never change their inputs, so a stage's record is what that stage produced, whatever later stages
do. Records are references to those outputs, not copies. Nothing reads the trace as an input.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from docclean_assets.extract.layout import Gutter
from docclean_assets.extract.pdf.model import Line, PBlock, Word
from docclean_assets.extract.pdf.chars import Char, PageInfo
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.table_model import TableBlock
from docclean_assets.extract.pdf.watermark import CharSplit


@dataclass(frozen=True, slots=True)
class PageTrace:
    """One page's stage outputs, in the order the stages run."""

    info: PageInfo
    chars: list[Char]  # the page's glyphs as read (pdf/chars.py)
    graphics: list[Graphic]  # its vector paths and pictures (pdf/graphics.py)
    split: CharSplit  # chars by role: normal, rotated lines, light watermark candidates (pdf/watermark.py)
    ruled_tables: list[TableBlock]  # tables drawn with rules (pdf/tables.py)
    callouts: list[PBlock]  # call-out panels taken out of the flow (pdf/regions.py)
    words: list[Word]  # the flow's words (pdf/lines.py)
    lines: list[Line]  # its lines, split at gutters, borderless tables taken out (pdf/lines.py, columns.py)
    gutters: list[Gutter]  # column gutters of the flow without its asides (pdf/columns.py)
    borderless_tables: list[TableBlock]  # tables found by aligned columns (pdf/table_grid.py)
    margin_notes: list[PBlock]  # blocks in the outer margins, out of the flow (pdf/regions.py)
    sidebars: list[PBlock]  # narrow stacks beside the text, each one callout (pdf/regions.py)
    figure_text: list[PBlock]  # labels of drawings (tick labels, axis titles), out of the flow (pdf/figures.py)
    blocks: list[PBlock]  # the flow before kinds: paragraphs, tables, watermark and rotated text (pdf/blocks.py)
    kinds: list[PBlock]  # the flow with title, headings, captions and list items labelled (pdf/kinds.py)
    order: list[PBlock]  # the flow in reading order, columns set (pdf/order.py)
    footnotes: list[PBlock]  # reading order with footnotes labelled (pdf/footnotes.py)
    asides: list[PBlock]  # reading order with the asides placed after their anchors (pdf/regions.py)
    captions: list[PBlock]  # captions linked to their tables and figures (pdf/captions.py)
    pull_quotes: list[PBlock]  # display text repeating the body labelled (pdf/pullquotes.py): the page's result

    @property
    def tables(self) -> list[TableBlock]:
        """Every table of the page, ruled first."""
        return self.ruled_tables + self.borderless_tables


# Stages that `docclean inspect --stage` can draw: every record that holds boxes.
STAGES: tuple[str, ...] = tuple(f.name for f in fields(PageTrace) if f.name not in ("info", "split")) + (
    "tables",
)


@dataclass(frozen=True, slots=True)
class PdfTrace:
    """A PDF's trace: the body font size the stages compared against, and each page's record."""

    body_size: float
    pages: tuple[PageTrace, ...]

    def page(self, number: int) -> PageTrace:
        """The record of page `number` (1-based); KeyError when the page has none."""
        for p in self.pages:
            if p.info.number == number:
                return p
        raise KeyError(number)
