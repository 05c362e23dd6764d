"""The PDF path's thresholds: named, unit-bearing, each with what it was calibrated on."""
from __future__ import annotations

from dataclasses import dataclass

from docclean_assets.extract.validation import Fraction, check_section


@dataclass(frozen=True, slots=True)
class PdfSettings:
    """Geometry thresholds of the PDF path, in PDF points unless named otherwise; grouped by the stage
    (module) that reads them, in pipeline order."""

    # ---- chars (chars.py, pdfium.py): reading frame, font sizes, fill colours
    # A page is read in the frame where its text is upright (the displayed page turned by a multiple
    # of 90 degrees) when more than this fraction of its non-space chars run along one sideways or
    # upside-down axis there, and it has at least `page_turn_min_chars` of them (half a line: fewer
    # sideways labels decide nothing). Corpus pages with sideways text (arXiv and Federal Register
    # margin stamps, rotated table headers) have at most 24% of it; a turned landscape page, ~100%.
    page_turn_min_fraction: Fraction = 0.5
    page_turn_min_chars: int = 50
    # Font sizes are compared after rounding to this step, points, so that 9.9626 and 9.96264 count
    # as one size; a half point is finer than the steps documents set between body, footnote and
    # heading sizes (historical default).
    size_step_pt: float = 0.5
    # Body size assumed for a document without a single drawn non-space char (no text is then
    # measured against it); 10 pt, the commonest body size (historical default).
    body_size_fallback_pt: float = 10.0
    # A page holding at least this many non-space chars has a body size of its own (its modal size):
    # a heading must outsize it as well as the document's. A filing's exhibits (contracts, plans) are
    # set at 10-11 pt beside the 10-K's 8-9 pt, and every short paragraph, list item and page number
    # in them was a size heading (3,143 of the 28 filings' 12,241 headings); an exhibit page holds
    # ~2,000-3,000 chars, a cover or divider page under 800, which keeps the document's body.
    page_body_min_chars: int = 800
    # The pages that lead up to where the document's body size takes hold, when set smaller, judge
    # their bold headings against their own body size: a filing's 10-K at 9 pt before 190 pages of
    # exhibits at 11 pt (Walmart 2018) that set the document's body. A page's part body is the size
    # most pages with a body of their own (above) set within this many pages either side, so a page
    # or three of small print (a statement, its notes, a cover) moves nothing; and the leading pages
    # count only from this many on (a cover and a contents page are no document of their own). Only
    # the leading part: JPMorgan's 10-Qs set their notes at 8 pt between 10 pt sections, and bold
    # 8 pt lines there are table labels ("Revenue", "Total retained loans"), not headings.
    part_body_window_pages: int = 5
    part_body_min_lead_pages: int = 10
    # A fill colour counts as grey (its lightness is compared with the watermark and reversed-text
    # bounds) when its RGB channels differ by at most this fraction of the channel range; more is a
    # chromatic colour. Carried over from the pdfplumber-based char layer (historical default).
    grey_max_channel_spread_fraction: Fraction = 0.1
    # An upright glyph whose loose box starts more than this many em left of its origin is drawn
    # past its pen box (an italic "f"): PDFium's loose box is then its ink, which reaches over the
    # space beside it ("cashflows", "ofoperations" in 10-K filings set in TimesNewRoman-Italic, whose
    # "f" overhangs 0.15-0.2 em); its box is narrowed to the pen box (to the next glyph's origin, else
    # its advance in the font). Other glyphs' loose boxes start at their origin exactly (0 em).
    glyph_overhang_min_em: float = 0.05
    # A space PDFium infers between two upright glyphs (from the fonts' advances, where the file
    # draws none) is kept as a word break when the pen gap it sits in is at least this many em:
    # justified 10-K text sets word gaps of 0.11 em ("of operations" in TimesNewRoman-Italic at
    # 9 pt: 1.05 pt), under `word_gap_em`, while in-word kerning stays below 0.05 em (LaTeX).
    # Smaller inferred gaps are ignored: PDFium also infers spaces inside loosely set OCR words.
    inferred_space_min_em: float = 0.08

    # ---- graphics (graphics.py): painted paths
    # A painted path no thicker than this many points in one direction is a rule (table and footnote
    # rules, underlines), not a box; LaTeX \hrule and booktabs rules are 0.4-0.8 pt, Word borders
    # 0.5-1.5 pt, while shaded boxes and cells are several points high.
    rule_max_thickness_pt: float = 2.0
    # A path of straight segments is a box when its corners take two distinct x and two distinct y
    # values after rounding to this many decimal places of a point (float noise of generated
    # content streams; historical default since the PDFium graphics layer).
    rect_corner_decimals: int = 2

    # ---- watermark (watermark.py): rotated lines, large light-grey text
    # Chars rotated more than this many degrees off the horizontal whose run's baseline is also
    # rotated form a rotated line (diagonal: watermark; ~90 deg: margin note such as arXiv stamps).
    rotated_min_angle_deg: float = 8.0
    # A rotated run needs at least this many chars to be a line of its own.
    rotated_min_chars: int = 3
    # ...and its first and last glyph origins at least this many em apart: chars turned one by one
    # on a horizontal baseline (pseudo-italic, wobbly display type) do not progress along their own
    # direction (historical default).
    rotated_min_run_em: float = 0.5
    # Consecutive rotated chars whose angles differ by more than this many degrees start a new run
    # (two stamps at different angles drawn one after the other; historical default).
    rotated_run_max_step_deg: float = 3.0
    # Large light-grey text: size >= this factor of the body size and grey lightness within
    # [watermark_min_lightness, watermark_max_lightness] (0 black, 1 white; white is excluded as it
    # is usually text on a dark banner); calibrated on reportlab/Word "DRAFT" stamps at 0.75-0.9.
    watermark_min_size_ratio: float = 2.0
    watermark_min_lightness: Fraction = 0.6
    watermark_max_lightness: Fraction = 0.97

    # ---- lines (lines.py): chars to words to lines
    # Characters whose vertical centres differ by less than this fraction of the font size share a
    # line; calibrated on LaTeX and Word papers where sub/superscripts shift by ~0.3 em.
    line_overlap_ratio: Fraction = 0.5
    # ...but a row holds one line of text per stretch of x: chars within this many em (of the larger
    # size) of each other's baseline form one baseline group (a line's glyphs share their baseline to
    # ~0.01 pt in the corpus PDFs; two rows of 7 pt type 1 pt apart are 0.14 em apart), and two groups
    # whose glyphs overlap horizontally, each over more than `row_collision_overlap` of the narrower
    # glyph's width, on at least `row_collision_chars` glyphs, are different lines even within the
    # row's tolerance: a table's small-type rows beside a larger column, read as one row, interleaved
    # their characters ("REexvpeennusee"). One glyph is an accent drawn raised over its letter.
    baseline_group_em: float = 0.1
    # A drop cap: a lone letter set at least this many times its row's most common size (an initial
    # sunk into two lines is ~2.7x their size, its cap height spanning a leading plus a cap height;
    # a BMJ article's 3-line "O" is 3.7x, 31.7 pt over 8.5 pt) is read as the first letter of the
    # line starting at most `drop_cap_max_gap_em` of that line's size to its right whose top is
    # nearest the cap's. A word of big letters beside small text is display type, not a cap.
    drop_cap_min_size_ratio: float = 2.5
    drop_cap_max_gap_em: float = 1.0
    row_collision_overlap: Fraction = 0.5
    row_collision_chars: int = 2
    # ...and one such glyph is enough when the two baselines lie more than this many em (of the larger
    # glyph) apart: a sub- and a superscript stacked at one x are ~0.9 em of their size apart (LaTeX's
    # x_i^2 at 10 pt: +3.5 and -2.5 pt in 6.5 pt type), an accent sits on its letter's baseline or
    # above it by less; two notes' markers set one above the other at the margin, a line apart, are
    # 1.8 em apart (generated articles: 5 pt markers on 9 pt leading).
    stack_max_em: float = 1.3
    # A horizontal gap wider than this many em starts a new word. A LaTeX Times interword space
    # measures exactly 0.25 em and shrinks below it in justified lines (pdfminer's 0.25 glued words
    # together in the papermage ACL paper); in-word kerning gaps stay below 0.05 em there.
    word_gap_em: float = 0.12
    # Overprinted duplicate chars (fake bold) closer than this many em are dropped.
    duplicate_char_em: float = 0.1
    # Words on one row further apart than this many em belong to different lines (cells, columns);
    # Federal Register gutters measure 1.08 em (9.7 pt at 9 pt), LaTeX ones >= 1.8 em; stretched
    # justified spaces in the corpus stay below 0.8 em.
    line_split_gap_em: float = 1.0
    # ...but only when the gap is structural: the nearest `split_context_rows` rows above and below
    # (within `split_context_em` em) that have words within `split_near_em` em of it must mostly
    # leave a free run of at least `split_free_em` em inside its x-range too (at least
    # `split_min_support_rows` of them). Justified spaces in narrow columns reach 1.5-2 em at a
    # different x on every row (the notebook-practices sample, ACL papers); gutters stay free on
    # every row even where a paragraph indent or a ragged edge moves the words beside them
    # (normal_4pages 22 pt gutter, a 11 pt sidebar gap in olmOCR's multi_column_miss).
    split_context_rows: int = 3
    split_min_support_rows: int = 2
    split_context_em: float = 6.0
    split_free_em: float = 0.8
    split_near_em: float = 2.0
    # A gap this wide (em) splits a row without support from its neighbours (a one-row table, a
    # label and a value far apart); stretched justified spaces stay below ~3 em.
    isolated_split_gap_em: float = 4.0
    # Raised and lowered text (superscripts, subscripts, footnote markers) that landed on a line of
    # its own joins the line of larger type it overlaps: a line of at most `raised_max_chars` chars,
    # set at most `raised_max_size_fraction` of the host line's size, overlapping the host's band
    # by at least `raised_min_overlap_fraction` of its own height and at most `raised_max_gap_em`
    # host em beside it horizontally; hosts are looked for from `raised_search_em` em above it (em
    # of the smallest host size the ratio allows). LaTeX sets scripts at 0.7 of the text size;
    # historical defaults.
    raised_max_chars: int = 6
    raised_max_size_fraction: Fraction = 0.85
    raised_min_overlap_fraction: Fraction = 0.3
    raised_max_gap_em: float = 0.5
    raised_search_em: float = 2.0
    # A run before its host (a note's marker hung in front of the note) may stand this many host em
    # from it: notes set with a hanging marker leave 0.3-1 em (the generated articles 0.7 em).
    raised_max_lead_gap_em: float = 1.0
    # A run of such smaller type is a superscript (a footnote reference marker, an exponent) when its
    # baseline is at least this many em (of the row's main size) above the row's baseline. LaTeX
    # raises footnote marks ~0.36 em and Word superscripts ~0.33 em; a subscript or a baseline
    # wobble of a few hundredths of an em is neither (calibrated on those two and the corpus PDFs).
    script_min_rise_em: float = 0.15

    # ---- blocks (blocks.py): lines to paragraphs
    # Vertical gap between lines, in multiples of the line's font size, above which a new paragraph
    # starts; body leading is ~1.2 em in the corpus papers, paragraph skips are >= 1.6 em.
    paragraph_gap_em: float = 0.6
    # A page set with a wider leading than `paragraph_gap_em` (1.5- or double-spaced: PepsiCo's plans
    # and indentures in its 10-Ks, 11 pt at 0.75-1.2 em, paragraph skips 1.7 em) starts a paragraph
    # where the gap passes its leading by this many em (the corpus papers' skip over their leading,
    # 0.6 - 0.2) or under a line that did not wrap. Its leading is the median gap under lines that wrap
    # mid-sentence over a line starting in lower case (certainly one paragraph), measured from at
    # least this many of them.
    paragraph_gap_over_leading_em: float = 0.4
    paragraph_leading_min_pairs: int = 5
    # A line wrapped (its paragraph goes on below it) when the next line's first word, after a space of
    # this many em, would not have fit before the right edge of the lines in its column: justified
    # and ragged text alike (Times' space is 0.25 em wide, justified spaces wider).
    paragraph_word_space_em: float = 0.25
    # Adjacent lines whose dominant sizes differ by more than this factor start a new block.
    size_change_ratio: float = 1.1
    # A line continues a block only when their x-ranges overlap by at least this fraction of the
    # narrower of the two (a line in the next column, or a caption beside a figure, does not).
    block_min_overlap_fraction: Fraction = 0.5
    # A line starting more than this many em left of a block of two or more lines starts a new
    # item (hanging outdent of list items and bibliography entries; historical default).
    outdent_max_em: float = 2.0
    # A line starting this many em right of its block's left edge opens a new paragraph (first-line
    # indent); LaTeX \parindent is 1-1.5 em, Word's 0.5 in is ~4 em ...
    indent_min_em: float = 0.8
    # ...and at most this many em: a paragraph of two lines whose short last line lies wholly left of
    # its first line's indent still joins it (PepsiCo's plan definitions indent 5.9 em, 0.9 in at 11 pt;
    # Word's default 0.5 in is 3.3-4 em). A line further left is another column's or a heading's.
    indent_max_em: float = 8.0
    # ...when the line before it began within this many em of the block's left edge (it was no
    # indented first line, nor a hanging list item's continuation).
    indent_prev_left_em: float = 0.5
    # ...and the indented line starts at least this many em left of the block's right edge (a short
    # line set far right, such as a signature or a flush-right date, is no indent).
    indent_min_room_em: float = 4.0
    # A line is bold when at least this fraction of its chars are set in a bold font; a bold
    # first line narrower than `bold_heading_max_width_fraction` of the regular line after it, or a
    # bold line narrower than that fraction of the regular block above it, is a heading and gets a
    # block of its own (historical defaults).
    bold_line_min_fraction: Fraction = 0.8
    bold_heading_max_width_fraction: Fraction = 0.7
    # A block whose last line lies more than this many em above the current line is closed: no
    # later line may join it (keeps the search linear; well above `paragraph_gap_em`).
    block_open_max_gap_em: float = 3.0

    # ---- columns (columns.py): gutters
    # A gutter is an x-band crossed by blocks over at most this fraction of the page's text height
    # ("empty over most of the height"); calibrated on ACL/LaTeX two-column and Federal Register pages.
    gutter_max_cover: Fraction = 0.5
    # Narrowest gutter accepted, points; LaTeX \columnsep is 10-24 pt, Federal Register ~ 10 pt.
    gutter_min_width_pt: float = 6.0
    # Inside a low-coverage x-band, the gutter proper is the widest stretch within this fraction of the
    # text height above the band's emptiest point (ragged or wide blocks of one column reach into it);
    # historical default, shared with OfficeSettings.gutter_floor_slack.
    gutter_floor_slack: Fraction = 0.05
    # Each side of a gutter must hold text stacked at least this fraction of the text height, and be
    # at least `column_min_width_fraction` of the text width (so line-number margins are no column).
    column_min_fill: Fraction = 0.3
    column_min_width_fraction: Fraction = 0.15
    # ...or, less filled, open within `column_short_top_em` em of the text's top with at least this
    # many lines: the short last column of an article's last page (the generated articles' last
    # columns hold 8-20 lines; a stray label or a page number beside one column holds one or two).
    column_short_min_lines: int = 5
    column_short_top_em: float = 2.0
    # A column holds prose: its lines average at least this many words (table columns hold 1-3).
    column_min_words_per_line: float = 3.0
    # A block belongs to a column when it lies within the column's x-range grown by this many
    # points on each side (blocks end a hair past the gutter edges measured from them).
    column_edge_tolerance_pt: float = 1.0
    # After gutters are known, a line crossing one is split at a word gap of at least this many em
    # lying in the gutter band (lines merged across a narrow gutter); normal spaces are ~0.25 em.
    gutter_split_gap_em: float = 0.6

    # ---- reading order (order.py)
    # Blocks whose tops differ by at most this many em (of the smaller font size) start on the
    # same row and are read left to right (historical default).
    row_align_em: float = 0.5
    # A page region is a grid of cards, read row by row, when headings in different columns start
    # at the same height (within `grid_align_em` em) on at least this many rows; a paper's two
    # columns align a heading pair by chance, not two (olmOCR mathfuncs card grid).
    grid_min_aligned_rows: int = 2
    grid_align_em: float = 0.5

    # ---- ruled tables (tables.py)
    # Ruled: the page's rules and box edges are snapped together within `table_snap_tolerance_pt`,
    # joined across gaps up to `table_join_tolerance_pt`, and cross within
    # `table_intersection_tolerance_pt` (pdfplumber's defaults, 3 pt, suit Word, LaTeX and report
    # tables of the corpus); edges shorter than `table_edge_min_length_pt` are dropped. A ruled grid
    # needs `table_min_rows` x `table_min_cols` cells (rows and columns holding text) and must hold at least
    # `table_ruled_min_cell_share` of the chars inside its frame (coloured cell backgrounds that cover
    # part of a table do not make a grid of it: discoverworld table 4).
    table_snap_tolerance_pt: float = 3.0
    table_join_tolerance_pt: float = 3.0
    table_intersection_tolerance_pt: float = 3.0
    table_edge_min_length_pt: float = 3.0
    table_min_rows: int = 2
    table_min_cols: int = 2
    table_ruled_min_cell_share: Fraction = 0.9
    # A ruled grid with fewer cells holding text than this is a framed panel, not a table.
    table_ruled_min_filled_cells: int = 2
    # Two lines of one ruled cell whose bands overlap by more than this fraction of the shorter
    # one's height sit side by side: the cell hides an unruled column boundary (shaded cells that
    # rule only part of a table), and the grid is left to the borderless stage.
    table_side_by_side_min_overlap_fraction: Fraction = 0.5

    # ---- borderless tables (table_grid.py)
    # At least `table_min_aligned_rows` rows of two or more cells (lines split at aligned gaps),
    # consecutive rows at most `table_row_gap_em` body em apart (report and paper tables:
    # 0.2-1.2 em; paragraph breaks of prose are larger only together with the cell test), columns
    # separated by an x-gap of at least `table_min_column_gap_em` body em crossed by at most
    # `table_max_straddle_share` of the rows. Prose is rejected by words per cell: a cell of more
    # than `table_max_cell_words` words ends the table, and the mean over the table must stay at
    # most `table_max_mean_cell_words` (paper and report tables: 1-3; prose lines: 8-15).
    table_min_aligned_rows: int = 3
    table_row_gap_em: float = 1.5
    table_min_column_gap_em: float = 0.8
    table_max_straddle_share: Fraction = 0.25
    table_max_cell_words: int = 10
    table_max_mean_cell_words: float = 4.0
    # A row's first cell may run to this many words when every other cell holds figures: a row label
    # (filings' statement labels run to ~20 words: "Income before income taxes and equity in income
    # of affiliated companies"); prose split at aligned gaps has words, not figures, beside it.
    table_max_label_words: int = 24
    # At most this many single-cell rows in a row inside a borderless table (section labels,
    # wrapped cell lines); more end it.
    table_max_single_rows: int = 2
    # More, up to this many rows, when they are a statement's nested section labels in its label
    # column and its labelled figures go on after them in its columns. Filings nest three to five
    # rows: 3M's and CVS's balance sheets ("Commitments and contingencies", "Equity", "3M Company
    # shareholders' equity:"), JPMorgan's notes ("Available-for-sale securities", "Mortgage-backed
    # securities:", "Residential:"), Amcor's five (three labels, then the two lines of its share
    # class's description). A table that follows under its own heading opens with column heads.
    table_max_section_labels: int = 5
    # A row further below a borderless table than `table_row_gap_em` but at most this many body em
    # still belongs to it when its cells keep the table's columns: its label starts where the
    # table's labels do and every further cell starts or ends within `table_column_align_em` body em
    # of where a cell of the table does. Filings' statements set subtotals and sections 1.1-2.2 em
    # below the rows before them (financebench_dev statements; rows within a section: 0-0.7 em);
    # right-aligned figures end within ~0.3 em of each other (a closing parenthesis hangs past).
    table_section_gap_em: float = 2.5
    table_column_align_em: float = 0.5
    # A statement's one-cell section labels ("Liabilities and Shareholders' Equity", "Commitments and
    # contingencies", of at most `table_max_cell_words` words) may start up to this many body em left
    # of its row labels (besides `table_column_align_em`): filings set them at the margin, 0.7-1.4
    # em left of the rows under them (Activision's, Amcor's and MGM's statements).
    table_label_outdent_em: float = 1.0
    # A line above a borderless table heads its value columns only when it starts at most this many
    # body em left of their leftmost figures: filings' column heads ("Carrying", "Share options",
    # "Percent of our") start 0.3-0.8 em left of them, the statements' centred titles ("Consolidated
    # Balance Sheets", "($ in millions)") 8-40 em (3M, Boeing and Amcor's 10-Ks).
    table_head_max_lead_em: float = 1.5
    # A line crossing a column boundary of a borderless table is cut there when the word gap holding
    # the boundary is at least this many body em (header rows set with ~1 em gaps; a spanning
    # cell's own word spaces are ~0.25 em).
    table_cell_split_gap_em: float = 0.5
    # A borderless grid filling fewer than this fraction of its row x column slots cannot be
    # aligned: it falls back to a description plus its text (corpus tables fill 0.6-1.0).
    table_min_density: Fraction = 0.5
    # Pictures and stroked curves covering more than this fraction of a borderless candidate's box
    # make it a figure's labels, not a table (report contents pages with thumbnails and tax tables
    # with bracket marks stay at ~0.1; the plots of GeoTopo are well above).
    table_max_picture_share: Fraction = 0.2
    # A stroked, unfilled path counts as a curve (plot lines, axes) when its short side is at least
    # this fraction of its long one; thinner paths are rules and brackets (historical default).
    table_curve_min_aspect_fraction: Fraction = 0.1
    # Two tables found in neighbouring column bands whose first and last rows lie within this many
    # body em of each other are read again as one table across the gutter (a table set across both
    # columns of a page, whose column gap falls on the page's gutter; rows of one table share their
    # baselines exactly, so a fraction of a line absorbs the boxes' rounding).
    table_stitch_tolerance_em: float = 0.5
    # A one-cell row closer to the row above than this fraction of the table's row pitch, starting
    # where that row's first cell starts, is a wrapped line of that cell: a cell's lines follow at the
    # font's leading (1.1-1.2 em), rows at the pitch, which adds padding (booktabs and Word add
    # 0.3-0.6 em; the generated tables: 10.5 pt lines in 14 pt rows, 0.75). Rows set at the leading
    # alone (dense statements) keep such a line as a row of its own.
    table_wrap_max_pitch_fraction: Fraction = 0.85
    # Aligned text with at least `table_math_min_delimiter_pieces` pieces of large brackets, or with
    # more than `table_max_math_cell_share` of its non-empty cells holding math symbols (figures
    # aside), is a display formula, not a borderless table. Calibrated on the corpus: GeoTopo's
    # matrices and case splits have 2+ pieces or a share of 0.5-1.0; its symbol list (a real table
    # of symbols and their meaning) 0.27-0.41; data tables of the papers under 0.25.
    table_math_min_delimiter_pieces: int = 2
    table_max_math_cell_share: Fraction = 0.6
    # A header cell with a horizontal rule under it, at most this many body em below its text and
    # above the next row, spans the columns the rule covers: booktabs' \cmidrule and a filing's
    # underline under "Year Ended" (0.1-0.3 em under the glyphs in the generated tables and the
    # olmOCR-bench filings; the next row starts ~0.4 em further down).
    table_spanner_rule_max_gap_em: float = 0.6
    # The cell must be centred on the rule: its middle within this many body em of the rule's (LaTeX's
    # \multicolumn{c} and filings centre a spanning header, 0-0.6 em off with \cmidrule's trimmed
    # ends; a row label left on a rule that closes a group of columns, a tax table's "Your tax
    # is-", sits several em off).
    table_spanner_centre_tolerance_em: float = 1.0
    # A column label turned upright or slanted (pdf/turned_heads.py) is no larger than this many
    # body em: tables set their labels at body size or smaller (the generated tables 0.9, the
    # olmOCR-bench crazy tables 1.0), diagonal watermarks at 3-10.
    table_turned_head_max_size_em: float = 1.5

    # ---- kinds (kinds.py): headings and title
    # A line is a heading when its size exceeds the body's modal size by this factor (1.15 = 15%).
    heading_size_ratio: float = 1.15
    # Larger-font blocks longer than this many characters are text set large, not headings.
    heading_max_chars: int = 250
    # Bold, standalone blocks up to this many characters may be headings.
    bold_heading_max_chars: int = 120
    # A bold heading: at least this share of its chars bold, at most this many lines, set at least
    # this fraction of the body size: guards against bold emphasis inside prose being taken for a
    # heading (0.95 lets a heading a hair below body size through; historical defaults). Three
    # lines: a financial statement's centred title (company, statement, period) and a heading
    # wrapped in a narrow column (IRS instructions, the Federal Register); read on the 28 filings
    # and the corpus's PDFs, ~40 of ~45 three-line bold blocks are headings, four-line ones only 5
    # of 8 (form labels "Participant: Grant Date: Number of Shares: Fee Type:", a list of names).
    # A last line wholly in parentheses set in regular weight, a statement's unit note "(In millions,
    # except per share data)", counts in none of these (American Water Works' and Square's titles).
    bold_heading_min_bold_fraction: Fraction = 0.9
    bold_heading_max_lines: int = 3
    bold_heading_min_size_ratio: float = 0.95
    # Heading levels stop at this depth (the h1..h6 of Markdown and HTML; historical default).
    heading_max_level: int = 6
    # The title is the largest heading on page 1 starting above this fraction of the page height.
    title_max_top_fraction: Fraction = 0.4

    # ---- footnotes (footnotes.py)
    # Footnotes: blocks centred below this fraction of the page height, in a font at most
    # `footnote_size_ratio` of the body size; calibrated on LaTeX (8 pt vs 10 pt) and Word footnotes.
    footnote_min_top_fraction: Fraction = 0.5
    footnote_size_ratio: float = 0.92
    # A footnote holds at least this many letters (a lone marker or page number is none; historical
    # default) ...
    footnote_min_letters: int = 3
    # ... and starts with a marker, or with a first glyph set below this fraction of its line's
    # size (a raised footnote number; LaTeX sets it at ~0.7 of the note's size; historical default).
    footnote_marker_size_ratio: float = 0.85
    # Blocks shorter than this many characters are page furniture (page numbers, running heads):
    # skipped when walking up to a footnote run and when looking for the body block above it
    # (historical default).
    footnote_furniture_max_chars: int = 20
    # A footnote run ends at a vertical gap above this many body em: notes follow each other
    # closely, a larger gap means page furniture below them (historical default).
    footnote_run_max_gap_em: float = 1.5

    # ---- endnotes (endnotes.py)
    # The numbered run closing a document is its endnotes when it holds at least this many notes ...
    endnote_min_notes: int = 2
    # ... the text before it cites at least this share of their numbers with superscripts no footnote
    # took (a stray unreferenced note allowed; a numbered list the text never cites is content) ...
    endnote_min_cited_share: Fraction = 0.8
    # ... and fewer than this share of its entries hold a year: a numbered bibliography cited by
    # superscripts dates nearly every entry, notes few (the generated endnotes none).
    endnote_max_dated_share: Fraction = 0.5

    # ---- regions (regions.py): call-out panels, sidebars, margin notes
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
    panel_max_page_fraction: Fraction = 0.6
    panel_max_text_share: Fraction = 0.5
    # A char belongs to a panel when its centre lies inside the box grown by this many points
    # (PDFium's loose char boxes reach past tightly drawn borders by ~0.5 pt).
    panel_edge_tolerance_pt: float = 1.0
    # A painted box whose left or right edge meets another painted box of the same top and bottom
    # within this many points is a cell of a tiled row (the cell backgrounds of a table rendered
    # from HTML: SEC filings paint every cell, 0 pt apart), not a panel; a call-out is set apart.
    panel_tile_tolerance_pt: float = 1.0
    # Reversed text: chars at least this light (grey level, 1 = white) on a fill at most
    # `panel_dark_max_luminance` (relative luminance, 0 black .. 1 white); Word and InDesign
    # "white on navy" panels measure 1.0 on 0.1-0.35.
    reversed_min_lightness: Fraction = 0.75
    panel_dark_max_luminance: Fraction = 0.45
    # Paint at least this light (relative luminance, fraction of white's) is invisible on a white
    # page: white rules and boxes mask content or carry links, they frame nothing, so they make no
    # panel (regions.py) and no table rule or drawing (tables.py, table_grid.py). Historical default.
    invisible_min_luminance: Fraction = 0.97
    # Sidebars without a drawn box: a stack of blocks sharing left and right edges (within
    # `sidebar_align_em` em) over at least `sidebar_min_height_em` em and `sidebar_min_lines` lines,
    # beside other text, and at most `sidebar_max_width_ratio` of the page's main text measure (the
    # char-weighted median line width). Magazine and report sidebars run at 0.3-0.5 of the main
    # measure; the two columns of a paper are equal (ratio 1).
    sidebar_max_width_ratio: Fraction = 0.6
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
    margin_note_max_width_fraction: Fraction = 0.3
    margin_note_max_lines: int = 6
    # Containment is a chars x panels matrix; a page drawing more candidate boxes than this keeps
    # the largest (grids of cell boxes belong to tables, found before panels; a bound on work,
    # historical default).
    panel_max_per_page: int = 400
    # The main text's left and right edges for margin notes: these char-weighted quantiles of the
    # line starts and ends, so a few indented or short lines do not move the edges (historical
    # defaults).
    margin_text_left_quantile: Fraction = 0.1
    margin_text_right_quantile: Fraction = 0.9
    # Blocks of a sidebar may touch what lies between them by this many points: guards against
    # rounding of boxes (historical default).
    sidebar_edge_tolerance_pt: float = 1.0
    # An aside goes after a body block ending at most this many points below the aside's top edge
    # (rounding of boxes: a panel drawn flush with the paragraph above it; historical default).
    aside_anchor_tolerance_pt: float = 1.0
    # Asides placed after the same block are read like text columns: a stack of panels is read top
    # to bottom before the stack to its right. Two panels whose x-ranges overlap by at most this many
    # points are side by side (card frames with drop shadows overlap their neighbour by 1-2 pt in
    # olmOCR's mathfuncs pages; pdfplumber's 3 pt snap tolerance).
    aside_column_overlap_pt: float = 3.0

    # ---- pull quotes (pullquotes.py)
    # Pull quotes: display text set at least this factor above the body's modal size, of at least
    # `pull_quote_min_tokens` words, that repeats body text of its own page or the
    # `pull_quote_page_window` pages around it. Magazine pull quotes run 1.4-2.5x body size; an
    # abridged quote matches when this fraction of its words occur, in order, in one body passage.
    pull_quote_min_size_ratio: float = 1.25
    pull_quote_min_tokens: int = 5
    pull_quote_page_window: int = 1
    pull_quote_min_overlap: Fraction = 0.8
    # ...and of at most this many words: pull quotes are one to three sentences (the corpus's has 6
    # words, magazine ones 10-60); longer display text is a standfirst or an intro set large, and
    # matching it against the body costs time quadratic in its length.
    pull_quote_max_tokens: int = 120
    # Display text with more than this fraction of its words of 4+ letters capitalised is title case:
    # a heading named by a cross-reference, not a quote (calibrated on the IRS instructions and the
    # German lecture notes of the corpus, whose section titles repeat in their tables of contents and
    # cross-references; sentence-case quotes, German nouns included, stay well under 0.6).
    pull_quote_max_title_case_share: Fraction = 0.6
    # An abridged pull quote's pieces must occur within a passage at most this many times the
    # quote's length (guards against pieces scattered over a page matching by chance; historical
    # default).
    pull_quote_abridged_span_factor: float = 3.0
    # Candidate passages for the word-overlap test are this many times the quote's word count long
    # (room for the words an abridged quote left out; historical default).
    pull_quote_overlap_window_factor: float = 1.5
    # At most this many passages (those holding the most of the quote's words) are aligned with a
    # quote: in prose a few passages qualify, in text made of the quote's own words every one would
    # (a bound on work, not a tuned value; historical default).
    pull_quote_overlap_max_passages: int = 64

    # ---- captions (captions.py)
    # Captions link to the table or figure whose box lies within this many body em above or below
    # them (LaTeX and Word put captions 0.5-2 em from their float).
    caption_max_gap_em: float = 4.0
    # Graphics of one figure lie within this many points of each other (plot axes, labels' boxes).
    figure_cluster_gap_pt: float = 12.0
    # A figure's graphics are grown from the seed nearest its caption for at most this many passes
    # (each pass adds every graphic near the box so far; real figures settle in a few; a bound on
    # work, historical default).
    figure_max_grow_passes: int = 20

    # ---- figures (figures.py): the text of drawings out of the flow
    # A drawing (its marks' cluster, grown by frames and axes) is a figure when at least this many
    # body em wide and high: smaller clusters are icons, bullets, arrows and underlines.
    figure_min_side_em: float = 3.0
    # Blocks of at most this many words and lines, set no larger than `figure_label_max_size_ratio`
    # x the body size, within `figure_label_reach_em` body em of a figure are its labels: tick labels
    # sit ~1 em below an axis, y-axis labels and titles 1-2.5 em beside it (matplotlib, Excel, TikZ
    # defaults); the generated articles' tick labels and units; a legend entry is a few words.
    figure_label_max_words: int = 8
    figure_label_max_lines: int = 2
    figure_label_max_size_ratio: float = 1.0
    figure_label_reach_em: float = 2.5
    # ...and that are no sentence: this many words or more ending in a full stop, a question or an
    # exclamation mark is prose set near a figure (labels and axis titles end on a word or a unit).
    figure_sentence_min_words: int = 4
    # A drawing that a block of this many words or more mostly lies on is decoration behind prose
    # (a banner, a tinted shape), no figure: a figure's own text is labels, not sentences.
    figure_prose_min_words: int = 15

    def __post_init__(self) -> None:
        check_section(self)
        if self.table_min_rows < 1 or self.table_min_cols < 2 or self.table_min_aligned_rows < 2:
            raise ValueError("PdfSettings tables need table_min_rows >= 1, table_min_cols >= 2, table_min_aligned_rows >= 2")
        if self.table_section_gap_em < self.table_row_gap_em:
            raise ValueError("PdfSettings.table_section_gap_em must be >= table_row_gap_em")
        if self.table_max_section_labels < self.table_max_single_rows:
            raise ValueError("PdfSettings.table_max_section_labels must be >= table_max_single_rows")
        if self.watermark_min_lightness > self.watermark_max_lightness:
            raise ValueError("PdfSettings.watermark_min_lightness must be <= watermark_max_lightness")
        if self.heading_size_ratio < 1.0 or self.size_change_ratio < 1.0:
            raise ValueError("PdfSettings size ratios must be >= 1")
        if self.paragraph_leading_min_pairs < 1:
            raise ValueError("PdfSettings.paragraph_leading_min_pairs must be at least 1")
        if self.rotated_min_angle_deg >= 45:
            raise ValueError("PdfSettings.rotated_min_angle_deg must be < 45")
