"""When and how OCR runs: named, unit-bearing thresholds, each with what it was calibrated on."""
from __future__ import annotations

from dataclasses import dataclass

from docclean_assets.extract.validation import Fraction, check_section


@dataclass(frozen=True, slots=True)
class OcrSettings:
    """When and how text that is only pixels is recovered (tesseract through tesserocr, with Debian's
    models); the per-source `ocr: auto | off | force` option decides whether it runs at all."""

    # The folder of tesseract's trained models; empty: $TESSDATA_PREFIX or the usual system folders
    # (Debian's tesseract-ocr-eng installs /usr/share/tesseract-ocr/5/tessdata).
    tessdata_dir: str = ""
    language: str = "eng"  # tesseract traineddata name(s), '+'-joined (tesseract-ocr-eng ships eng)
    # Scanned or unmapped PDF pages are rendered at this resolution, dots per inch; tesseract's
    # accuracy plateaus at 300 dpi for 8-12 pt text and its time grows with the pixel count.
    page_dpi: int = 300
    # A page's text layer is unusable when it has fewer than `min_text_chars` non-space chars, or
    # when at least `max_unmapped_fraction` of them are unmapped (private-use code points, U+FFFD,
    # control codes, "(cid:N)"); font subsets without a ToUnicode map give ~100% unmapped.
    min_text_chars: int = 1
    max_unmapped_fraction: Fraction = 0.5
    # Pictures on text pages (and in DOCX/PPTX) are OCR'd only when at least this large on the page,
    # points (a 1 x 0.25 inch label holds one line of 10 pt text), and at least this many pixels
    # in the image itself on each side: icons, bullets and rules are smaller.
    picture_min_width_pt: float = 72.0
    picture_min_height_pt: float = 18.0
    picture_min_side_px: int = 32
    # A picture overlaid by more than this many text-layer chars already has its text (a scan with
    # an invisible OCR layer, a figure with real-text labels) and is not OCR'd unless forced.
    picture_max_layer_chars: int = 20
    # Pictures on a text page are rendered at this resolution before OCR, dots per inch.
    picture_dpi: int = 200
    # Embedded office images whose shorter side is below this many pixels are upscaled to it before
    # OCR (tesseract needs an x-height of ~10 px; 96-dpi screenshots of 9-11 pt text have ~6-8 px).
    upscale_below_px: int = 600
    upscale_max_factor: float = 3.0
    # ...but never past this many pixels: a 5000 x 300 banner strip would grow to 10 MP and take
    # seconds to read (tesseract's time grows with the pixel count; corpus decks, 2026-12).
    upscale_max_pixels: int = 3_000_000
    # Resolution assumed for an embedded office image without a plausible one of its own (tesseract
    # uses it to size its character models): Office pastes screenshots at 96 dpi; a stated resolution
    # counts only within [office_min_dpi, office_max_dpi] (screen 72 dpi to scanner 600 dpi).
    office_default_dpi: int = 96
    office_min_dpi: float = 72.0
    office_max_dpi: float = 600.0
    # A picture is a photo, and skipped, when less than this fraction of a greyscale thumbnail lies
    # within `background_tolerance` grey levels (0-255) of its most common level: screenshots,
    # scanned text and charts have a plain background over >= half their area, photos do not.
    picture_min_background_fraction: Fraction = 0.35
    background_tolerance: int = 24
    # The photo test looks at a thumbnail of about this many pixels on its longer side (every n-th
    # pixel, not an average); enough to see a plain background, cheap on a 20 MP photo (historical default).
    background_sample_px: int = 128
    # The text gate (ocr/gate.py): a picture that passed the size and photo tests is read only when
    # at least `text_gate_min_marks` marks sit on a common baseline next to another, on a copy
    # reduced to `text_gate_dpi` dots per inch. A mark is `glyph_min_height_pt` to
    # `glyph_max_height_pt` points tall (and at least `glyph_min_height_px` pixels), at most
    # `glyph_max_aspect` times as wide as tall (a whole word: bold or antialiased letters merge at
    # the gate's resolution), with ink over at least `glyph_min_fill` of its box; a neighbour is one
    # of the next `text_gate_neighbours` marks, at most `glyph_max_gap_em` of its height away, of a
    # height within `glyph_max_height_ratio` of it, its bottom (or top) within
    # `glyph_baseline_tolerance_em` of its height. Calibrated on the 150 pictures `ocr: auto` read in
    # the corpus (2026-12): each of the 92 whose text tesseract kept has at least 4 such marks (the
    # fewest: a Korean heading the English model reads as "1 ee"), and 28 of the 58 it read nothing
    # in (photos on white, knots, logos) have fewer than 3. 150 dpi keeps 6 pt text at ~6 px a
    # glyph. A picture of one short word ("go") or of one word whose letters touch has too few marks
    # and is skipped, counted in ocr_pictures_skipped.
    text_gate_min_marks: int = 3
    text_gate_dpi: float = 150.0
    text_gate_neighbours: int = 4
    glyph_min_height_pt: float = 2.5
    glyph_max_height_pt: float = 60.0
    glyph_min_height_px: int = 3
    glyph_max_aspect: float = 12.0
    glyph_min_fill: Fraction = 0.08
    glyph_max_gap_em: float = 1.5
    glyph_max_height_ratio: float = 2.0
    glyph_baseline_tolerance_em: Fraction = 0.25
    # At most this many pictures per document are OCR'd (in page order, largest first on a page);
    # the rest are skipped (flag ocr_picture_budget). Bounds `ocr: auto` on picture-heavy decks and reports.
    max_pictures_per_doc: int = 30
    # OCR engine-time budgets per document, seconds: pictures stop being read after
    # `picture_budget_s` (on the corpus the busiest documents, a Federal Register rule with 11
    # pictures of text and a deck of 16 screenshots, take 11-12 s), all OCR (scanned pages too)
    # after `doc_budget_s` (~60-90 pages at 300 dpi); flag ocr_time_budget. The document's worker gets `timeout_grant_s` extra seconds
    # over LimitSettings.timeout_s when OCR is on, so a long scan loses its last pages' OCR, not
    # the whole document.
    picture_budget_s: float = 15.0
    doc_budget_s: float = 180.0
    timeout_grant_s: float = 180.0
    # Seconds one tesseract call may take before it is abandoned (one page at 300 dpi takes 1-4 s).
    call_timeout_s: float = 60.0
    # Words below this tesseract confidence (0-100) are dropped: noise read from photos, rules and
    # textures scores < 30, real words on clean renders > 80.
    min_word_confidence: float = 30.0
    # An OCR'd picture whose kept words average below this confidence yields no block (counted as
    # ocr_pictures_empty): a chart or photo read as letter soup.
    min_block_confidence: float = 50.0
    # A document's text is "mostly OCR" (flag text_mostly_ocr) when OCR'd characters exceed this
    # fraction of all its characters.
    mostly_ocr_fraction: Fraction = 0.5

    def __post_init__(self) -> None:
        check_section(self)
        if self.page_dpi < 72 or self.picture_dpi < 72 or self.upscale_max_factor < 1:
            raise ValueError("OcrSettings dpi must be >= 72 and upscale_max_factor >= 1")
        if self.background_sample_px < 1 or self.office_min_dpi > self.office_max_dpi:
            raise ValueError("OcrSettings.background_sample_px must be >= 1 and office_min_dpi <= office_max_dpi")
        if not self.language:
            raise ValueError("OcrSettings.language must be set")
