"""The DOCX and PPTX paths' thresholds: named, unit-bearing, each with what it was calibrated on."""
from __future__ import annotations

from dataclasses import dataclass

from docclean_assets.extract.validation import Fraction, check_section


@dataclass(frozen=True, slots=True)
class OfficeSettings:
    """DOCX and PPTX thresholds."""

    # Shapes whose vertical extents overlap by less than this fraction of the shorter one sit one
    # above the other (separate bands); calibrated on the corpus decks, where stacked text boxes
    # touch or overlap by a few points of padding only.
    band_overlap_ratio: Fraction = 0.2

    # --- Slide columns (issue 6): the geometry-only gutter finder of extract/layout.py, shared with
    # the PDF path (which adds its prose checks on top). Slide geometry is read in EMU and converted
    # to points (12,700 EMU = 1 pt; a 10-inch slide is 720 pt wide) before any of these apply.
    # A gutter is an x-band crossed by shapes over at most this fraction of the height stacked at the
    # densest x-position; the PDF's value, confirmed on two-column corpus decks with a full-width footer.
    gutter_max_cover: Fraction = 0.5
    # Narrowest gutter between two shapes' text areas, points (6 pt = 76,200 EMU), as for PDF columns.
    gutter_min_width_pt: float = 6.0
    # The text area lies this far inside a shape's frame on the left and right, points: DrawingML's
    # default bodyPr lIns/rIns of 91,440 EMU; frames that touch still read as two columns.
    gutter_text_inset_pt: float = 7.2
    # Shapes whose tops differ by at most this many points start on the same row (read left to right);
    # about half a line of 18-24 pt slide body text.
    gutter_row_tolerance_pt: float = 10.0
    # Inside a low-coverage x-band, the gutter proper is the widest stretch within this fraction of the
    # region's height above the band's emptiest point (ragged or wide boxes of one column reach into
    # it); the PDF path's value (PdfSettings.gutter_floor_slack), historical default.
    gutter_floor_slack: Fraction = 0.05
    # Columns are looked for inside columns at most this many levels deep, then a region is read by
    # rows; guards the recursion against pathological shape stacks (historical default; corpus decks
    # nest at most 2 levels).
    columns_max_depth: int = 8
    # Shapes may lie off the slide by this fraction of its width (height) on each side before their box
    # is clamped (flag geometry_clamped); corpus shapes overhang the slide by at most 11%, a shape at
    # x = 2e13 EMU (schema-valid) by 2.7 million slide widths.
    off_slide_margin: float = 1.0

    def __post_init__(self) -> None:
        check_section(self)
