"""All of docclean's settings: the shared sections (normalize, boilerplate, limits, quality) and `Settings`,
which gathers them with each format's own (pdf/, office/, html/, ocr/ settings.py).

Each field says its unit in its name or comment and what it was calibrated on. Sections are
frozen dataclasses gathered in `Settings`; `Settings()` is the default configuration. The Dagster
layer's own section (fetch, in docclean_assets/ingest/sources.py) is read with the same `section_from_dict`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, TypeVar


from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.ocr.settings import OcrSettings
from docclean_assets.extract.office.settings import OfficeSettings
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.validation import Fraction, SettingError, check_section, did_you_mean

S = TypeVar("S")


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
    # A PDF whose font maps an "ff"/"ffi" ligature to one "f" reads "af ected", "suf icient": the
    # pair is made whole ("affected") when the word with the missing "f" has at least this Zipf
    # frequency and beats the fragment after the gap by `lost_ligature_margin_zipf`. Calibrated on
    # 10-K filings: affect 4.6 against "ect" 3.5; "ef ort" (effort 4.9, "ort" 5.3) stays as read.
    lost_ligature_min_zipf: float = 3.0
    lost_ligature_margin_zipf: float = 1.0
    # A PDF that sets a word gap as a negative kerning leaves "ofDecember", "toNote": a lower-case
    # word of at least `glued_left_min_zipf` run into a capitalised word of at least
    # `glued_right_min_zipf`, the whole unknown to the word lists, is split. Calibrated on 10-K
    # filings ("endedDecember": ended 4.9, December 5.1); brand names that start with one lower-case
    # letter (iPhone, eBay) or end in capitals (macOS) never match.
    glued_left_min_zipf: float = 4.5
    glued_right_min_zipf: float = 3.0
    # A PDF that draws a gap inside a word leaves "Incom e", "Balance Shee t", "OVERVI EW": two
    # parts one space apart, the second lower-case (or both capitals), are joined when the joined
    # word has at least `split_word_min_zipf` and beats the rarer part by `split_word_margin_zipf`
    # (100x as frequent). Only pairs with a single letter or a part rarer than
    # `split_word_part_max_zipf` are looked up (~1 us a word). Calibrated on the 28
    # financebench_dev filings (68 joins) and the corpus's 51 other PDFs, all read as right (income
    # 5.0 over "incom" 1.8); "is a" (isa 3.6), "can not", "any one" are never joined, and neither is
    # "liquid ity" (liquidity 3.5 beats the rarer part, "ity" 2.2, by only 1.3). A margin of 1.5
    # joined "D E" and "e l" (Spanish "de", "el").
    split_word_min_zipf: float = 3.0
    split_word_margin_zipf: float = 2.0
    split_word_part_max_zipf: float = 3.0

    def __post_init__(self) -> None:
        check_section(self)
        if not self.languages or not all(isinstance(x, str) and x for x in self.languages):
            raise ValueError("NormalizeSettings.languages must name at least one language")


@dataclass(frozen=True, slots=True)
class BoilerplateSettings:
    """Repetition thresholds for running heads and site templates."""

    # Height of the top and bottom bands where running heads and feet live, as a fraction of the
    # page height; calibrated on journal and report layouts (heads sit in the top ~8%).
    band_fraction: Fraction = 0.1
    # A document needs at least this many pages before page-repetition removes anything, so a
    # two-page memo does not lose its letterhead as "repeated".
    min_pages: int = 3
    # A normalised line is repeated chrome when it occurs on at least this fraction of the pages
    # (0.5 also catches alternating even/odd heads, which each cover half the pages).
    min_page_fraction: Fraction = 0.45
    # ... or, for a line found on pages of one parity only, on at least this fraction of the pages of
    # that parity: an alternating head is on every page of its parity but the title page and blank
    # ones (a 9-page paper's heads on pages 2-8 and 3-9 each cover 4 of 9 pages, under 0.45, but 4 of
    # 4 even and 4 of 5 odd pages; a 5-page paper's odd head covers 2 of its 3 odd pages).
    parity_min_page_fraction: Fraction = 0.6
    # A block is site template when it occurs in at least this fraction of a source's documents
    # and in at least `min_docs` of them.
    min_doc_fraction: Fraction = 0.5
    min_docs: int = 3
    # Longer texts are never template: a repeated 300-character paragraph is a quotation.
    max_chars: int = 200
    # A band text on a page without the repeated head, whose box lies within this many points of
    # the head's box (top and bottom) in the same font size, is that head's alternate (even/odd
    # heads, a head that names the section); heads sit on a fixed baseline, 2 pt absorbs rounding.
    slot_tolerance_pt: float = 2.0
    # Band lines of one slot on several pages, whatever their text (a 3-page paper's alternating
    # heads, each printed once), are furniture when clear of the text by this many body lines: the
    # repeated slot is the evidence a single page lacks (generated papers set heads 1.5-2 body lines
    # above the text; a paragraph's own lines are 0.1-0.2 lines apart box to box).
    slot_min_gap_lines: float = 1.0
    # In a document shorter than `min_pages` (and on a longer one's first page, whose own furniture
    # repeats nowhere), a single band line no larger than this factor of the body size, set off from
    # the nearest text inward by at least `short_doc_min_gap_lines` body line heights, is page
    # furniture (journal heads, download stamps, page numbers). Calibrated on the olmOCR-bench single
    # pages: heads sit 2-3 lines clear of the text, while text that merely starts in the band
    # continues at one line's distance.
    short_doc_min_gap_lines: float = 1.5
    short_doc_max_size_ratio: float = 1.05
    # On a longer document's first page such a set-off band block may hold up to this many lines: a
    # DOI line over a licence line and a "Received ... accepted" line, set 10 pt apart in 7.5 pt
    # type, are one block (generated journal first pages; one line elsewhere, where a letter's
    # signature block could sit in the bottom band).
    first_page_band_max_lines: int = 3
    # A body line's height from baseline to baseline, in em of the body size: the unit of
    # `short_doc_min_gap_lines` (single-spaced body text is set at ~1.2 em; historical default).
    body_line_height_em: float = 1.2
    # A band block taller than this many em of its own font size holds more than one line, and is
    # no page furniture (one line's box is ~1.0-1.2 em, two lines' ~2.2 em; historical default).
    single_line_max_height_em: float = 1.6
    # In any paged document, the outermost line of a page (nothing but page margin beyond it, its
    # pieces single lines on one baseline) is furniture by its layout even outside the band or
    # without a clear gap, when its pieces (each at most `edge_piece_max_chars` characters) spread
    # over at least `edge_line_min_spread` of the page's text width and hold a bare page counter
    # ("400 BRITISH HUSBANDRY. [Ch. XIX."), or number at least `edge_line_min_pieces` no larger than
    # `edge_line_max_size_ratio` of the body size (a foot's left, centre and right slots); a lone
    # page counter needs the gap. Calibrated on the olmOCR-bench single pages: the PLOS foot is 8 pt
    # over a 7 pt body (1.14), a manual's foot 10 pt over 8 pt (1.25); heads and feet span 0.96-1.0
    # of the text width, a heading's number and title far less; pieces hold at most 50 characters.
    edge_line_min_pieces: int = 3
    edge_line_min_spread: Fraction = 0.6
    edge_piece_max_chars: int = 60
    edge_line_max_size_ratio: float = 1.3
    # Pages that end where their text ends (filings rendered from HTML) carry their foot and page
    # number right under the last line, at any height: a short single line among a page's
    # `edge_stack_lines` outermost lines at either edge (a page number sits over an exhibit's title
    # there) whose text recurs there on a run of at least `edge_run_min_pages` pages, none more than
    # `edge_run_max_gap_pages` apart (a full-page table without its foot), is furniture. Calibrated
    # on 10-K filings: F-pages and exhibits run 45-320 pages; a table continued over two or three
    # pages repeats its title, and headings are never taken.
    edge_stack_lines: int = 2
    edge_run_min_pages: int = 5
    edge_run_max_gap_pages: int = 1

    def __post_init__(self) -> None:
        check_section(self)
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
    # Warm workers (engine/isolate.py) take document after document; one is replaced after this many, a
    # bound on what a slow leak in a native library can pile up. A new worker starts in ~10 ms from
    # the fork server, plus ~0.5 s of tables a backend loads on first use: < 1 ms a document at 1000.
    worker_max_documents: int = 1000
    # Resident memory, MiB, a worker may hold above what it held fresh: past it after a document, the
    # worker collects garbage and returns the C heap's free pages to the system, and is replaced if
    # it is still past it. Over the corpus's 387 documents (10-K filings of 100-300 pages among
    # them; bench/worker_growth.py) one worker starts at 87 MiB, sits at a median 212 after a
    # document, is trimmed after 27 large ones (which leave up to 420) and is never replaced.
    worker_max_growth_mb: int = 256
    # Seconds an idle worker waits for a document before it exits, its memory back to the machine:
    # far longer than any gap between a run's documents or a cluster worker's tasks (a batch commit
    # takes under a second), short against the minutes between scheduled runs.
    worker_idle_s: float = 60.0
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
        check_section(self)
        if self.timeout_s <= 0 or self.memory_mb < 256:
            raise ValueError("timeout_s must be > 0 and memory_mb >= 256")
        if self.zip_max_ratio < 1 or self.zip_max_uncompressed_mib < 1 or self.pdf_max_pages < 1:
            raise ValueError("zip_max_ratio, zip_max_uncompressed_mib and pdf_max_pages must be >= 1")
        if self.pdf_max_page_codepoints < self.pdf_max_page_chars:
            raise ValueError("pdf_max_page_codepoints must be >= pdf_max_page_chars")


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
    # Share of a source's documents (0-1) that may fail before its failed_documents check fails at
    # ERROR severity (any fewer failures warn). A tenth: docclean fails none of ../shared/corpus's 339
    # public test files (bench/RESULTS.md), so a folder's few bad files (an encrypted PDF, a truncated
    # download) stay well under it, and a tenth of a source failing has a cause of its own (a wrong
    # format, a broken fetch, a missing password).
    max_failed_share: Fraction = 0.1

    def __post_init__(self) -> None:
        check_section(self)


CHUNK_FOOTNOTES = ("own", "append")  # ChunkSettings.footnotes: a chunk of their own, or added to their anchor's


@dataclass(frozen=True, slots=True)
class ChunkSettings:
    """How a document's kept blocks are cut into retrieval chunks (extract/chunk.py)."""

    # A chunk's budget in tokens of `tokenizer`: neighbours under one heading are merged up to it, and
    # longer units are split under it. 256 words: the passage size of the common retrieval setups
    # (~200-word windows, embedding models' 256-512 word-piece inputs); issue 34 asks for at most
    # ~400 words on average.
    max_tokens: int = 256
    # How tokens are counted: "words" (whitespace-separated; no model, no download), or the path of
    # a Hugging Face tokenizer.json the user supplies (read offline with the `tokenizers` library).
    tokenizer: str = "words"
    # Footnotes: "own" chunks linked to the chunk holding their anchor, or "append"ed to that chunk
    # (when they fit its budget; else their own chunk, linked).
    footnotes: str = "own"
    # A paragraph ending in a colon, at most this many tokens long, right before a list or a table,
    # is its lead-in and travels with it ("Total sales change:"; filings' "The following table
    # shows ...:" sentences run to ~35 words). The short non-sentence lines right above a table on
    # its page, together at most this long, are its title (filings' statement titles with company,
    # periods and unit run to ~30 words) and are repeated in every part of a split table.
    lead_in_max_tokens: int = 40
    # At most this many leading rows of a table, besides its Markdown header row, are header rows
    # (repeated in every part of a split table, and the column labels of its values) when they head
    # the columns (no label, years beside a label, or a unit alone): filings' statements stack 1-3
    # (unit, period, year, region) over the data.
    table_header_max_rows: int = 4
    # Whether `embed_text` writes a table's figures, each beside its row and column labels ("Net
    # sales: 2023 $ 1,200, 2022 1,100"), or leaves them out (its title, labels and years only; `text`
    # keeps the whole table). Amounts are words no question shares and dilute what it does share:
    # on financebench_dev (28 filings, 59 questions), leaving them out of the embedded and the BM25
    # text raised recall@5 within the filing from 0.24 to 0.32 (embeddings) and 0.34 to 0.39 (BM25).
    embed_table_figures: bool = False
    # Parts of a compound document (extract/chunk_parts.py): headings opened before a part do not head
    # it. A page's prose (paragraphs and list items) has a size of its own from this many non-space
    # chars: a filing's exhibit page holds ~2,000-3,000, a cover or divider page under 800.
    part_prose_min_chars: int = 800
    # A part begins where the prose size changes and holds on this many pages with prose in a row;
    # the filings' exhibits run 4-150 pages, while a single page of small print (a table's notes, a
    # statement) changes nothing.
    part_min_pages: int = 3
    # Blocks before a part's opening heading on its page are at most this many characters long: running
    # heads and exhibit labels ("Exhibit 10.36", "Table of Contents") are under 60; a longer block is
    # body text, and the page opens no part.
    part_lead_max_chars: int = 120
    # A part's opening heading is a title when its middle is within this fraction of the page width
    # from the page's middle and it is at most `part_title_max_width` of the page wide. In the 28
    # filings, 52 lasting prose size changes open with a heading: 31 of those headings are centred
    # (exhibit titles, certifications), none of JPMorgan's 9 (its 10-Qs switch between 10 and 8 pt
    # prose between sections, each under a flush-left heading).
    part_title_centre_tolerance: Fraction = 0.05
    part_title_max_width: Fraction = 0.8

    def __post_init__(self) -> None:
        check_section(self)
        if self.part_min_pages < 1:
            raise ValueError("part_min_pages must be at least 1")
        if self.max_tokens < 16:
            raise ValueError("max_tokens must be at least 16: smaller chunks hold no sentence")
        if self.footnotes not in CHUNK_FOOTNOTES:
            raise ValueError(f"footnotes must be one of {', '.join(CHUNK_FOOTNOTES)}, got {self.footnotes!r}")
        if not self.tokenizer:
            raise ValueError('tokenizer must be "words" or the path of a tokenizer.json')


@dataclass(frozen=True, slots=True)
class Settings:
    """All of docclean's thresholds."""

    pdf: PdfSettings = field(default_factory=PdfSettings)
    office: OfficeSettings = field(default_factory=OfficeSettings)
    html: HtmlSettings = field(default_factory=HtmlSettings)
    boilerplate: BoilerplateSettings = field(default_factory=BoilerplateSettings)
    normalize: NormalizeSettings = field(default_factory=NormalizeSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    quality: QualitySettings = field(default_factory=QualitySettings)
    ocr: OcrSettings = field(default_factory=OcrSettings)  # OCR of scanned pages and pictures (issue 9)
    chunk: ChunkSettings = field(default_factory=ChunkSettings)  # retrieval chunks (issue 34)

    def __post_init__(self) -> None:
        check_section(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Settings:
        """Settings with the given sections overridden; an unknown section or key, a value of the wrong
        type or out of its range is a ValueError naming it (`settings.pdf.word_gap_em: ...`)."""
        settings = cls()
        for section, values in (data or {}).items():
            if section not in (names := {f.name for f in fields(cls)}):
                raise ValueError(f"unknown settings section {section!r}{did_you_mean(section, names)}")
            settings = replace(settings, **{section: section_from_dict(section, getattr(settings, section), values)})
        return settings

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Plain nested dict of every value."""
        out: dict[str, dict[str, Any]] = {}
        for f in fields(self):
            section = getattr(self, f.name)
            assert is_dataclass(section)
            out[f.name] = {g.name: getattr(section, g.name) for g in fields(section)}
        return out


def section_from_dict(name: str, current: S, values: object) -> S:
    """Settings section `current` with the `values` a user wrote under `settings.<name>` overridden; an
    unknown key, a value of the wrong type or out of its range is a ValueError naming it."""
    if not isinstance(values, dict):
        raise ValueError(f"settings.{name}: expected a mapping of keys to values, got {values!r}")
    known = {f.name for f in fields(current)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown settings key(s) in {name}: {unknown}{did_you_mean(unknown[0], known)}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    try:
        return replace(current, **values)  # type: ignore[type-var]
    except SettingError as exc:
        raise ValueError(f"settings.{name}.{exc.key}: {exc.reason}") from exc
    except ValueError as exc:  # a check across fields
        raise ValueError(f"settings.{name}: {exc}") from exc
