"""Every threshold docclean uses: named, unit-bearing, defaulted and validated in one place.

Each field says its unit in its name or comment and what it was calibrated on. Sections are
frozen dataclasses gathered in `Settings`; `Settings()` is the default configuration.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any


def _check_positive(obj: object) -> None:
    """Reject negative numbers in any numeric field of a settings section."""
    for f in fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"{type(obj).__name__}.{f.name} must be >= 0, got {value}")


def _check_fraction(obj: object, *names: str) -> None:
    """Reject a ratio outside [0, 1]."""
    for name in names:
        value = getattr(obj, name)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{type(obj).__name__}.{name} must be within [0, 1], got {value}")


@dataclass(frozen=True, slots=True)
class PdfSettings:
    """Geometry thresholds of the PDF path, in PDF points unless named otherwise."""

    # Characters whose vertical centres differ by less than this fraction of the font size share a
    # line; calibrated on LaTeX and Word papers where sub/superscripts shift by ~0.3 em.
    line_overlap_ratio: float = 0.5
    # A horizontal gap wider than this many em starts a new word. A LaTeX Times interword space
    # measures exactly 0.25 em and shrinks below it in justified lines (pdfminer's 0.25 glued words
    # together in the papermage ACL paper); in-word kerning gaps stay below 0.05 em there.
    word_gap_em: float = 0.12
    # Vertical gap between lines, in multiples of the line's font size, above which a new paragraph
    # starts; body leading is ~1.2 em in the corpus papers, paragraph skips are >= 1.6 em.
    paragraph_gap_em: float = 0.6
    # A line is a heading when its size exceeds the body's modal size by this factor (1.15 = 15%).
    heading_size_ratio: float = 1.15
    # Words on one row further apart than this many em belong to different lines (cells, columns);
    # Federal Register gutters measure 1.08 em (9.7 pt at 9 pt), LaTeX ones >= 1.8 em; stretched
    # justified spaces in the corpus stay below 0.8 em.
    line_split_gap_em: float = 1.0
    # ...but only when the gap is structural: the nearest `split_context_rows` rows above and below
    # (within `split_context_em` em) that have words within `split_near_em` em of it must mostly
    # leave a free run of at least `split_free_em` em inside its x-range too. Justified spaces in
    # narrow columns reach 1.5-2 em at a different x on every row (the notebook-practices sample,
    # ACL papers); gutters stay free on every row even where a paragraph indent or a ragged edge
    # moves the words beside them (normal_4pages 22 pt gutter, a 11 pt sidebar gap in olmOCR's
    # multi_column_miss).
    # A page region is a grid of cards, read row by row, when headings in different columns start
    # at the same height (within `grid_align_em` em) on at least this many rows; a paper's two
    # columns align a heading pair by chance, not two (olmOCR mathfuncs card grid).
    grid_min_aligned_rows: int = 2
    grid_align_em: float = 0.5
    split_context_rows: int = 3
    split_min_support_rows: int = 2
    split_context_em: float = 6.0
    split_free_em: float = 0.8
    split_near_em: float = 2.0
    # A gap this wide (em) splits a row without support from its neighbours (a one-row table, a
    # label and a value far apart); stretched justified spaces stay below ~3 em.
    isolated_split_gap_em: float = 4.0
    # After gutters are known, a line crossing one is split at a word gap of at least this many em
    # lying in the gutter band (lines merged across a narrow gutter); normal spaces are ~0.25 em.
    gutter_split_gap_em: float = 0.6
    # A line starting this many em right of its block's left edge after a full previous line opens a
    # new paragraph (first-line indent); LaTeX \parindent is 1-1.5 em, Word's 0.5 in is ~4 em.
    indent_min_em: float = 0.8
    # Adjacent lines whose dominant sizes differ by more than this factor start a new block.
    size_change_ratio: float = 1.1
    # A gutter is an x-band crossed by blocks over at most this fraction of the page's text height
    # ("empty over most of the height"); calibrated on ACL/LaTeX two-column and Federal Register pages.
    gutter_max_cover: float = 0.5
    # Narrowest gutter accepted, points; LaTeX \columnsep is 10-24 pt, Federal Register ~ 10 pt.
    gutter_min_width_pt: float = 6.0
    # Each side of a gutter must hold text stacked at least this fraction of the text height, and be
    # at least `column_min_width_fraction` of the text width (so line-number margins are no column).
    column_min_fill: float = 0.3
    column_min_width_fraction: float = 0.15
    # A column holds prose: its lines average at least this many words (table columns hold 1-3).
    column_min_words_per_line: float = 3.0
    # Footnotes: blocks centred below this fraction of the page height, in a font at most
    # `footnote_size_ratio` of the body size; calibrated on LaTeX (8 pt vs 10 pt) and Word footnotes.
    footnote_min_top_fraction: float = 0.5
    footnote_size_ratio: float = 0.92
    # Larger-font blocks longer than this many characters are text set large, not headings.
    heading_max_chars: int = 250
    # Bold, standalone blocks up to this many characters may be headings.
    bold_heading_max_chars: int = 120
    # The title is the largest heading on page 1 starting above this fraction of the page height.
    title_max_top_fraction: float = 0.4
    # Chars rotated more than this many degrees off the horizontal whose run's baseline is also
    # rotated form a rotated line (diagonal: watermark; ~90 deg: margin note such as arXiv stamps).
    rotated_min_angle_deg: float = 8.0
    # A rotated run needs at least this many chars to be a line of its own.
    rotated_min_chars: int = 3
    # A page is read in the frame where its text is upright (the displayed page turned by a multiple
    # of 90 degrees) when more than this fraction of its non-space chars run along one sideways or
    # upside-down axis there, and it has at least `page_turn_min_chars` of them (half a line: fewer
    # sideways labels decide nothing). Corpus pages with sideways text (arXiv and Federal Register
    # margin stamps, rotated table headers) have at most 24% of it; a turned landscape page, ~100%.
    page_turn_min_fraction: float = 0.5
    page_turn_min_chars: int = 50
    # Large light-grey text: size >= this factor of the body size and grey lightness within
    # [watermark_min_lightness, watermark_max_lightness] (0 black, 1 white; white is excluded as it
    # is usually text on a dark banner); calibrated on reportlab/Word "DRAFT" stamps at 0.75-0.9.
    watermark_min_size_ratio: float = 2.0
    watermark_min_lightness: float = 0.6
    watermark_max_lightness: float = 0.97
    # Overprinted duplicate chars (fake bold) closer than this many em are dropped.
    duplicate_char_em: float = 0.1
    # Call-out panels: a filled or stroked box drawn in the file whose text is set apart from the
    # prose. Narrower than this many body em it is a bullet, swatch or icon, not a panel.
    panel_min_width_em: float = 6.0
    # A panel holds at least this many lines: one-line boxes are heading bands, highlighted
    # phrases, buttons and shaded table rows (seen across the corpus papers and reports), and stay
    # in the flow.
    panel_min_lines: int = 2
    # A box covering more than this fraction of the page area, or holding more than
    # `panel_max_text_share` of the page's characters, is a page background or a frame around the
    # body (slide-like reports, tinted pages), not a call-out.
    panel_max_page_fraction: float = 0.6
    panel_max_text_share: float = 0.5
    # A char belongs to a panel when its centre lies inside the box grown by this many points
    # (PDFium's loose char boxes reach past tightly drawn borders by ~0.5 pt).
    panel_edge_tolerance_pt: float = 1.0
    # Reversed text: chars at least this light (grey level, 1 = white) on a fill at most
    # `panel_dark_max_luminance` (relative luminance, 0 black .. 1 white); Word and InDesign
    # "white on navy" panels measure 1.0 on 0.1-0.35.
    reversed_min_lightness: float = 0.75
    panel_dark_max_luminance: float = 0.45
    # Sidebars without a drawn box: a stack of blocks sharing left and right edges (within
    # `sidebar_align_em` em) over at least `sidebar_min_height_em` em and `sidebar_min_lines` lines,
    # beside other text, and at most `sidebar_max_width_ratio` of the page's main text measure (the
    # char-weighted median line width). Magazine and report sidebars run at 0.3-0.5 of the main
    # measure; the two columns of a paper are equal (ratio 1).
    sidebar_max_width_ratio: float = 0.6
    sidebar_min_height_em: float = 8.0
    sidebar_min_lines: int = 4
    sidebar_align_em: float = 1.0
    # Blocks of one sidebar are stacked at most this many em apart (paragraph skips and a heading
    # above its text stay below 2.5 em in the generated and corpus reports).
    sidebar_max_gap_em: float = 3.0
    # Margin notes: blocks wholly outside the main text's left or right edge (char-weighted 10th
    # and 90th percentiles of line starts and ends) by at least this many em, no wider than
    # `margin_note_max_width_fraction` of the main text width and at most `margin_note_max_lines`
    # lines, beside a body block. Contract clause numbers and revision marks sit 1-3 em outside.
    margin_note_min_gap_em: float = 1.0
    margin_note_max_width_fraction: float = 0.3
    margin_note_max_lines: int = 6
    # Pull quotes: display text set at least this factor above the body's modal size, of at least
    # `pull_quote_min_tokens` words, that repeats body text of its own page or the
    # `pull_quote_page_window` pages around it. Magazine pull quotes run 1.4-2.5x body size; an
    # abridged quote matches when this fraction of its words occur, in order, in one body passage.
    pull_quote_min_size_ratio: float = 1.25
    pull_quote_min_tokens: int = 5
    pull_quote_page_window: int = 1
    pull_quote_min_overlap: float = 0.8
    # ...and of at most this many words: pull quotes are one to three sentences (the corpus's has 6
    # words, magazine ones 10-60); longer display text is a standfirst or an intro set large, and
    # matching it against the body costs time quadratic in its length.
    pull_quote_max_tokens: int = 120
    # Display text with more than this fraction of its words of 4+ letters capitalised is title case:
    # a heading named by a cross-reference, not a quote (calibrated on the IRS instructions and the
    # German lecture notes of the corpus, whose section titles repeat in their tables of contents and
    # cross-references; sentence-case quotes, German nouns included, stay well under 0.6).
    pull_quote_max_title_case_share: float = 0.6
    # A painted path no thicker than this many points in one direction is a rule (table and footnote
    # rules, underlines), not a box; LaTeX \hrule and booktabs rules are 0.4-0.8 pt, Word borders
    # 0.5-1.5 pt, while shaded boxes and cells are several points high.
    rule_max_thickness_pt: float = 2.0
    # Tables. Ruled: the page's rules and box edges are snapped together within
    # `table_snap_tolerance_pt`, joined across gaps up to `table_join_tolerance_pt`, and cross within
    # `table_intersection_tolerance_pt` (pdfplumber's defaults, 3 pt, suit Word, LaTeX and report
    # tables of the corpus); edges shorter than `table_edge_min_length_pt` are dropped. A ruled grid
    # needs `table_min_rows` x `table_min_cols` cells and must hold at least
    # `table_ruled_min_cell_share` of the chars inside its frame (coloured cell backgrounds that cover
    # part of a table do not make a grid of it: discoverworld table 4).
    table_snap_tolerance_pt: float = 3.0
    table_join_tolerance_pt: float = 3.0
    table_intersection_tolerance_pt: float = 3.0
    table_edge_min_length_pt: float = 3.0
    table_min_rows: int = 2
    table_min_cols: int = 2
    table_ruled_min_cell_share: float = 0.9
    # Borderless tables: at least `table_min_aligned_rows` rows of two or more cells (lines split at
    # aligned gaps), consecutive rows at most `table_row_gap_em` body em apart (report and paper
    # tables: 0.2-1.2 em; paragraph breaks of prose are larger only together with the cell test),
    # columns separated by an x-gap of at least `table_min_column_gap_em` body em crossed by at most
    # `table_max_straddle_share` of the rows. Prose is rejected by words per cell: a cell of more
    # than `table_max_cell_words` words ends the table, and the mean over the table must stay at
    # most `table_max_mean_cell_words` (paper and report tables: 1-3; prose lines: 8-15).
    table_min_aligned_rows: int = 3
    table_row_gap_em: float = 1.5
    table_min_column_gap_em: float = 0.8
    table_max_straddle_share: float = 0.25
    table_max_cell_words: int = 10
    table_max_mean_cell_words: float = 4.0
    # At most this many single-cell rows in a row inside a borderless table (section labels,
    # wrapped cell lines); more end it.
    table_max_single_rows: int = 2
    # A line crossing a column boundary of a borderless table is cut there when the word gap holding
    # the boundary is at least this many body em (header rows set with ~1 em gaps; a spanning
    # cell's own word spaces are ~0.25 em).
    table_cell_split_gap_em: float = 0.5
    # A borderless grid filling fewer than this fraction of its row x column slots cannot be
    # aligned: it falls back to a description plus its text (corpus tables fill 0.6-1.0).
    table_min_density: float = 0.5
    # Pictures and stroked curves covering more than this fraction of a borderless candidate's box
    # make it a figure's labels, not a table (report contents pages with thumbnails and tax tables
    # with bracket marks stay at ~0.1; the plots of GeoTopo are well above).
    table_max_picture_share: float = 0.2
    # Aligned text with at least `table_math_min_delimiter_pieces` pieces of large brackets, or with
    # more than `table_max_math_cell_share` of its non-empty cells holding math symbols (figures
    # aside), is a display formula, not a borderless table. Calibrated on the corpus: GeoTopo's
    # matrices and case splits have 2+ pieces or a share of 0.5-1.0; its symbol list (a real table
    # of symbols and their meaning) 0.27-0.41; data tables of the papers under 0.25.
    table_math_min_delimiter_pieces: int = 2
    table_max_math_cell_share: float = 0.6
    # Captions link to the table or figure whose box lies within this many body em above or below
    # them (LaTeX and Word put captions 0.5-2 em from their float).
    caption_max_gap_em: float = 4.0
    # Graphics of one figure lie within this many points of each other (plot axes, labels' boxes).
    figure_cluster_gap_pt: float = 12.0

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_fraction(self, "table_ruled_min_cell_share", "table_max_straddle_share", "table_min_density",
                        "table_max_picture_share", "table_max_math_cell_share")
        if self.table_min_rows < 1 or self.table_min_cols < 2 or self.table_min_aligned_rows < 2:
            raise ValueError("PdfSettings tables need table_min_rows >= 1, table_min_cols >= 2, table_min_aligned_rows >= 2")
        _check_fraction(
            self,
            "line_overlap_ratio",
            "gutter_max_cover",
            "column_min_fill",
            "column_min_width_fraction",
            "footnote_min_top_fraction",
            "title_max_top_fraction",
            "watermark_min_lightness",
            "watermark_max_lightness",
            "panel_max_page_fraction",
            "panel_max_text_share",
            "reversed_min_lightness",
            "panel_dark_max_luminance",
            "sidebar_max_width_ratio",
            "margin_note_max_width_fraction",
            "pull_quote_min_overlap",
            "pull_quote_max_title_case_share",
            "page_turn_min_fraction",
        )
        if self.watermark_min_lightness > self.watermark_max_lightness:
            raise ValueError("PdfSettings.watermark_min_lightness must be <= watermark_max_lightness")
        if self.heading_size_ratio < 1.0 or self.size_change_ratio < 1.0:
            raise ValueError("PdfSettings size ratios must be >= 1")
        if self.rotated_min_angle_deg >= 45:
            raise ValueError("PdfSettings.rotated_min_angle_deg must be < 45")


@dataclass(frozen=True, slots=True)
class OfficeSettings:
    """DOCX and PPTX thresholds."""

    # Shapes whose vertical extents overlap by less than this fraction of the shorter one sit one
    # above the other (separate bands); calibrated on the corpus decks, where stacked text boxes
    # touch or overlap by a few points of padding only.
    band_overlap_ratio: float = 0.2

    # --- Slide columns (issue 6): the geometry-only gutter finder of extract/layout.py, shared with
    # the PDF path (which adds its prose checks on top). Slide geometry is read in EMU and converted
    # to points (12,700 EMU = 1 pt; a 10-inch slide is 720 pt wide) before any of these apply.
    # A gutter is an x-band crossed by shapes over at most this fraction of the height stacked at the
    # densest x-position; the PDF's value, confirmed on two-column corpus decks with a full-width footer.
    gutter_max_cover: float = 0.5
    # Narrowest gutter between two shapes' text areas, points (6 pt = 76,200 EMU), as for PDF columns.
    gutter_min_width_pt: float = 6.0
    # The text area lies this far inside a shape's frame on the left and right, points: DrawingML's
    # default bodyPr lIns/rIns of 91,440 EMU; frames that touch still read as two columns.
    gutter_text_inset_pt: float = 7.2
    # Shapes whose tops differ by at most this many points start on the same row (read left to right);
    # about half a line of 18-24 pt slide body text.
    gutter_row_tolerance_pt: float = 10.0

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_fraction(self, "band_overlap_ratio", "gutter_max_cover")


@dataclass(frozen=True, slots=True)
class HtmlSettings:
    """HTML extraction thresholds."""

    # A page with more elements than this is not given to trafilatura: its body is the page minus
    # its chrome (flag `extractor_skipped`). trafilatura is quadratic in the paragraphs (libxml2
    # evaluating `//p//text()`, also in its fast mode): an article of 30,000 paragraphs takes 4.5 s,
    # 50,000 14 s, 200,000 over 100 s; other shapes (div, li, td, a, br) less. The corpus pages have
    # at most 4,635 elements.
    extractor_max_elements: int = 30_000
    # A 2xx page whose visible text is shorter than this (characters) while it carries script
    # bundles is a client-rendered shell; a real article has hundreds of characters.
    shell_max_chars: int = 200
    # A JSON-LD articleBody shorter than this fraction of the visible page text is a teaser.
    jsonld_min_visible_ratio: float = 0.25
    # How many leading words of a JSON-LD articleBody must occur (letters and digits only) in the
    # visible text; 8 words is unique within a page and survives quote/dash differences
    # (scrapinghub_aeb pages with articleBody).
    jsonld_prefix_words: int = 8
    # A DOM unit whose key (letters and digits) is shorter than this many characters counts as kept
    # only when it equals, or is most of, one segment of the extractor's output; longer units may
    # match anywhere in it. 25 characters is ~5 words: nav labels ("Home", "Share") stay below it.
    match_min_chars: int = 25
    # Fraction of a unit (or of an extractor segment) that must be matched for it to count as
    # matched; 0.5 tolerates the extractor trimming a child (button, byline) out of a paragraph.
    match_min_coverage: float = 0.5
    # Steps (html_match.SCAN_CHARS_PER_STEP) the substring searches of the alignment, and of reader
    # comments in JSON-LD, may each spend on one page, about a microsecond each; past it only exact
    # matches count (flag `alignment_budget`). The corpus pages need at most 2,647 steps; 30,000
    # elements of kept paragraphs and dropped menu entries 1.4 million; 50,000 two-cell tables sharing
    # their cells would have needed billions.
    match_max_steps: int = 5_000_000
    # The main content container is the deepest element holding at least this fraction of the kept
    # paragraph characters; 0.8 leaves room for a stray kept line elsewhere (calibrated on the
    # mozilla_readability and scrapinghub_aeb pages).
    main_container_share: float = 0.8
    # A <table> is reference data (kept even when the extractor dropped it) when inside the main
    # container with at least this many rows and columns and at most this fraction of link text;
    # link-dense grids are navigation.
    table_min_rows: int = 2
    table_min_cols: int = 2
    table_max_link_ratio: float = 0.5
    # A table cell holding block elements and more than this many characters makes the table a
    # layout table (segmented as ordinary content, not as one Markdown block); data cells are short.
    layout_cell_chars: int = 300
    # Text under nav/footer/aside, chrome roles, chrome class words (cookie, breadcrumb, share...) or
    # hidden elements is removed from the body even when the extractor kept it, unless such regions
    # hold at least this fraction of the kept characters (a wrapper marked "menu"/"sidebar" holding
    # the whole page). scrapinghub_aeb token F1: 0.958 at 0.0 (no veto), 0.959 at 0.3, 0.962 at 0.7.
    template_max_share: float = 0.7

    # ---- reader comments (issue 7, html_comments.py)
    # A unit counts as a JSON-LD Comment's text only when its key (letters and digits) has at least
    # this many characters: shorter ones ("Reply", a name) recur in any thread. Same scale as
    # match_min_chars.
    comment_jsonld_min_chars: int = 25

    # ---- standfirst (issue 7, html_lede.py)
    # A dropped paragraph between the title and the first body paragraph is the article's lede when
    # it has at least this many words (bylines, dates and photo credits have fewer), at most this
    # fraction of link text, the two are at most this many units apart, and its first characters
    # (key: letters and digits) are the page's meta description's, or the reverse. Measured: the
    # description match keeps photo captions out (scrapinghub_aeb token F1 0.9591 without, 0.9596
    # with) and finds 3 more trafilatura_eval 'with' snippets.
    lede_min_words: int = 12
    lede_max_link_ratio: float = 0.3
    lede_max_gap_units: int = 8
    lede_description_key_chars: int = 60

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_fraction(
            self, "jsonld_min_visible_ratio", "match_min_coverage", "main_container_share",
            "table_max_link_ratio", "template_max_share", "lede_max_link_ratio",
        )
        if self.jsonld_prefix_words < 1 or self.table_min_rows < 1 or self.table_min_cols < 1:
            raise ValueError("jsonld_prefix_words, table_min_rows and table_min_cols must be >= 1")


@dataclass(frozen=True, slots=True)
class NormalizeSettings:
    """The normalisation pass."""

    # wordfreq languages consulted when a document's own spelling does not decide a line-break
    # hyphen; each costs ~70 MB once per process. The word counts as known if any of them knows it.
    languages: tuple[str, ...] = ("en", "de", "fr", "es")
    # Keep "co-\noperation" hyphenated only when the hyphenated form is at least this much more
    # frequent (Zipf units: log10 of occurrences per billion words) than the joined one; 0 = simply
    # more frequent. Calibrated on well-known/wellknown (5.3 vs 1.6), e-mail/email (4.6 vs 4.7).
    keep_hyphen_margin_zipf: float = 0.0

    def __post_init__(self) -> None:
        _check_positive(self)
        if not self.languages or not all(isinstance(x, str) and x for x in self.languages):
            raise ValueError("NormalizeSettings.languages must name at least one language")


@dataclass(frozen=True, slots=True)
class BoilerplateSettings:
    """Repetition thresholds for running heads and site templates."""

    # Height of the top and bottom bands where running heads and feet live, as a fraction of the
    # page height; calibrated on journal and report layouts (heads sit in the top ~8%).
    band_fraction: float = 0.1
    # A document needs at least this many pages before page-repetition removes anything, so a
    # two-page memo does not lose its letterhead as "repeated".
    min_pages: int = 3
    # A normalised line is repeated chrome when it occurs on at least this fraction of the pages
    # (0.5 also catches alternating even/odd heads, which each cover half the pages).
    min_page_fraction: float = 0.45
    # A block is site template when it occurs in at least this fraction of a source's documents
    # and in at least `min_docs` of them.
    min_doc_fraction: float = 0.5
    min_docs: int = 3
    # Longer texts are never template: a repeated 300-character paragraph is a quotation.
    max_chars: int = 200
    # A band text on a page without the repeated head, whose box lies within this many points of
    # the head's box (top and bottom) in the same font size, is that head's alternate (even/odd
    # heads, a head that names the section); heads sit on a fixed baseline, 2 pt absorbs rounding.
    slot_tolerance_pt: float = 2.0
    # In a document shorter than `min_pages`, a single band line no larger than this factor of the
    # body size, set off from the nearest text inward by at least `short_doc_min_gap_lines` body
    # line heights, is page furniture (journal heads, download stamps, page numbers). Calibrated on
    # the olmOCR-bench single pages: heads sit 2-3 lines clear of the text, while text that merely
    # starts in the band continues at one line's distance.
    short_doc_min_gap_lines: float = 1.5
    short_doc_max_size_ratio: float = 1.05

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_fraction(self, "band_fraction", "min_page_fraction", "min_doc_fraction")
        if self.min_pages < 2 or self.min_docs < 2:
            raise ValueError("repetition needs at least two pages or documents")


@dataclass(frozen=True, slots=True)
class LimitSettings:
    """Per-document isolation limits, and the caps that refuse hostile input before it is parsed."""

    timeout_s: float = 120.0  # wall-clock seconds one document may take to parse
    memory_mb: int = 4096  # address-space ceiling of the worker process, MiB (numpy and PDFium reserve ~1 GiB of address space before any work)
    max_bytes: int = 200 * 1024 * 1024  # larger files are refused unread, from their size alone
    # Characters of text (text plus orig_text of every block) one document may yield; a larger
    # result is refused in its worker, so the parent's linear later stages stay bounded. The
    # largest corpus document yields 0.45 M characters (bug65649.docx; the 117-page GeoTopo book
    # 0.14 M); 50 M is a 15,000-page book.
    max_text_chars: int = 50_000_000
    workers: int = 0  # parallel parse processes; 0 = one per core
    # Total uncompressed size of a DOCX/PPTX package per its zip directory, MiB; checked before any
    # part is decompressed. The largest corpus package unpacks to 15 MiB (bug65649.docx).
    zip_max_uncompressed_mib: int = 512
    # Largest uncompressed/compressed ratio of one zip member of at least 1 MiB uncompressed; corpus
    # OOXML parts reach 42:1 (highly repetitive XML), deflated zeros reach ~1030:1.
    zip_max_ratio: float = 200.0
    # Pages per PDF; longer files are refused. Long legitimate documents (manuals, regulations,
    # bound annual reports) stay below 3000 pages.
    pdf_max_pages: int = 5000
    # Non-space characters on one PDF page above which its layout analysis is skipped: the page's
    # text comes as plain lines (flag page_char_cap). Dense legitimate pages (Federal Register,
    # 6 pt tables) carry 10-20k; layout analysis of a 200k-char page takes ~20 s.
    pdf_max_page_chars: int = 50_000
    # ...or more than this many characters of any kind, whitespace included: a ToUnicode map may
    # expand one glyph to thousands of characters (PDFium collapses runs of spaces, not of tabs, line
    # breaks or other blanks). Corpus pages carry at most 1.75 characters per non-space one.
    pdf_max_page_codepoints: int = 200_000
    # HTML larger than this, MiB, is refused before parsing; real article pages weigh 0.05-3 MiB.
    # Under it, with html_max_depth, html_max_ancestors and HtmlSettings.extractor_max_elements and
    # match_max_steps, a page stays well inside timeout_s whatever its shape: 200,000 sibling div, p,
    # li, a, td or br elements, one 4 MB text node, 50,000 small tables, 100,000 paragraphs 400 deep,
    # 5 MiB of plain paragraphs took 1-11 s each (2-core machine).
    html_max_mib: float = 5.0
    # Element nesting depth of an HTML page above which it is refused (estimated from the tags, then
    # measured on the DOM); Blink caps its DOM at 512 levels; the 253 corpus pages estimate <= 137.
    html_max_depth: int = 512
    # Sum of the depths of an HTML page's elements above which it is refused: each text unit keeps
    # the path of its ancestors, so memory grows with it (600,000 paragraphs 500 deep, 300 million:
    # 2.9 GB and 23 s). The corpus pages reach 92,427; 40 million (100,000 paragraphs 400 deep)
    # takes 3 s and 460 MB.
    html_max_ancestors: int = 50_000_000

    def __post_init__(self) -> None:
        _check_positive(self)
        if self.timeout_s <= 0 or self.memory_mb < 256:
            raise ValueError("timeout_s must be > 0 and memory_mb >= 256")
        if self.zip_max_ratio < 1 or self.zip_max_uncompressed_mib < 1 or self.pdf_max_pages < 1:
            raise ValueError("zip_max_ratio, zip_max_uncompressed_mib and pdf_max_pages must be >= 1")
        if self.pdf_max_page_codepoints < self.pdf_max_page_chars:
            raise ValueError("pdf_max_page_codepoints must be >= pdf_max_page_chars")


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """How URL sources are fetched."""

    timeout_s: float = 30.0  # seconds per URL attempt in all: connect, redirects and the whole body
    max_bytes: int = 50 * 1024 * 1024  # a larger response is refused and recorded as the URL's error
    # A 5xx answer or a connection failure is retried this many times; 4xx never is. Two retries
    # ride out a server restart or a load-balancer blip without hammering a dead site.
    retries: int = 2
    # Wait before retry n (1-based) is retry_base_delay_s * 2**(n-1) seconds (0.5, 1, 2 ...).
    retry_base_delay_s: float = 0.5
    # Redirects followed per URL (http and https targets only); browsers stop at ~20, real sites use 1-3.
    max_redirects: int = 5
    # For sources with `render: true`: wall-clock seconds Chromium may take per page, and the virtual
    # time (ms) its scripts get before the DOM is taken; single-page apps in the tests render in <1 s.
    render_timeout_s: float = 30.0
    render_script_budget_ms: int = 5000

    def __post_init__(self) -> None:
        _check_positive(self)
        if self.timeout_s <= 0 or self.max_bytes <= 0:
            raise ValueError("fetch timeout_s and max_bytes must be > 0")


@dataclass(frozen=True, slots=True)
class QualitySettings:
    """How the retention band is learned from a source's own distribution."""

    # The band floor is median - k * MAD (scaled to sigma) of the source's retention ratios;
    # k = 3 is the usual robust outlier fence.
    mad_k: float = 3.0
    # Fewer documents than this and the band is not learned (nothing is flagged by it).
    min_docs_for_band: int = 5
    # The learned band is never narrower than median ± this (ratio units): identical documents have
    # MAD 0, and a 2-point wobble in a template site's ratio is not a loss.
    min_halfwidth: float = 0.05

    def __post_init__(self) -> None:
        _check_positive(self)


# --------------------------------------------------------------------------- OCR (issue 9)
@dataclass(frozen=True, slots=True)
class OcrSettings:
    """When and how text that is only pixels is recovered (Debian's tesseract-ocr, run as a
    subprocess); the per-source `ocr: auto | off | force` option decides whether it runs at all."""

    tesseract_cmd: str = "tesseract"  # the engine's executable, looked up on PATH
    language: str = "eng"  # tesseract traineddata name(s), '+'-joined (tesseract-ocr-eng ships eng)
    # Scanned or unmapped PDF pages are rendered at this resolution, dots per inch; tesseract's
    # accuracy plateaus at 300 dpi for 8-12 pt text and its time grows with the pixel count.
    page_dpi: int = 300
    # A page's text layer is unusable when it has fewer than `min_text_chars` non-space chars, or
    # when at least `max_unmapped_fraction` of them are unmapped (private-use code points, U+FFFD,
    # control codes, "(cid:N)"); font subsets without a ToUnicode map give ~100% unmapped.
    min_text_chars: int = 1
    max_unmapped_fraction: float = 0.5
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
    # A picture is a photo, and skipped, when less than this fraction of a greyscale thumbnail lies
    # within `background_tolerance` grey levels (0-255) of its most common level: screenshots,
    # scanned text and charts have a plain background over >= half their area, photos do not.
    picture_min_background_fraction: float = 0.35
    background_tolerance: int = 24
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
    mostly_ocr_fraction: float = 0.5

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_fraction(self, "max_unmapped_fraction", "picture_min_background_fraction", "mostly_ocr_fraction")
        if self.page_dpi < 72 or self.picture_dpi < 72 or self.upscale_max_factor < 1:
            raise ValueError("OcrSettings dpi must be >= 72 and upscale_max_factor >= 1")
        if not self.tesseract_cmd or not self.language:
            raise ValueError("OcrSettings.tesseract_cmd and language must be set")


@dataclass(frozen=True, slots=True)
class Settings:
    """All of docclean's thresholds."""

    pdf: PdfSettings = field(default_factory=PdfSettings)
    office: OfficeSettings = field(default_factory=OfficeSettings)
    html: HtmlSettings = field(default_factory=HtmlSettings)
    boilerplate: BoilerplateSettings = field(default_factory=BoilerplateSettings)
    normalize: NormalizeSettings = field(default_factory=NormalizeSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    fetch: FetchSettings = field(default_factory=FetchSettings)
    quality: QualitySettings = field(default_factory=QualitySettings)
    ocr: OcrSettings = field(default_factory=OcrSettings)  # OCR of scanned pages and pictures (issue 9)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Settings:
        """Settings with the given sections overridden; unknown keys are errors."""
        settings = cls()
        for section, values in (data or {}).items():
            if section not in {f.name for f in fields(cls)}:
                raise ValueError(f"unknown settings section {section!r}")
            current = getattr(settings, section)
            known = {f.name for f in fields(current)}
            unknown = set(values) - known
            if unknown:
                raise ValueError(f"unknown settings key(s) in {section}: {sorted(unknown)}")
            values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
            settings = replace(settings, **{section: replace(current, **values)})
        return settings

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Plain nested dict of every value."""
        out: dict[str, dict[str, Any]] = {}
        for f in fields(self):
            section = getattr(self, f.name)
            assert is_dataclass(section)
            out[f.name] = {g.name: getattr(section, g.name) for g in fields(section)}
        return out
