from docclean_assets.extract.boilerplate import (
    apply_repeats, blocks_to_page_repeats, docs_to_template_repeats, pattern_of,
)
from docclean_assets.extract.model import BBox, Block
from docclean_assets.extract.settings import BoilerplateSettings

S = BoilerplateSettings()
META = (("page_height", "792.0"), ("page_width", "612.0"))


def _b(text, page, y0, y1, seq=0):
    return Block("paragraph", text, seq=seq, page=page, bbox=BBox(72, y0, 540, y1), meta=META)


def _doc(pages, head=lambda p: "Journal of Irreproducible Results, Vol. 3", foot=lambda p: f"Page {p} of 8"):
    blocks = []
    for p in range(1, pages + 1):
        blocks += [_b(head(p), p, 30, 42), _b(f"Body text of page {p} that says something new.", p, 100, 700),
                   _b(foot(p), p, 750, 762)]
    return blocks


def test_digits_normalised():
    assert pattern_of("Page 3 of 8") == pattern_of("Page 4 of 8") == "page # of #"
    assert pattern_of("  xiv ") == "#"


def test_running_head_and_page_numbers_dropped_with_reasons():
    blocks = _doc(5)
    repeats = blocks_to_page_repeats("d", blocks, 5, S)
    out = apply_repeats("d", blocks, repeats, S)
    reasons = {b.text: b.drop_reason for b in out}
    assert reasons["Journal of Irreproducible Results, Vol. 3"] == "running_head"
    assert reasons["Page 2 of 8"] == "page_number"
    assert all(b.drop_reason is None for b in out if b.text.startswith("Body"))


def test_alternating_heads_caught():
    blocks = _doc(6, head=lambda p: "Smith et al." if p % 2 == 0 else "A Study of Things")
    repeats = blocks_to_page_repeats("d", blocks, 6, S)
    assert {r.example for r in repeats if r.band == "top"} == {"Smith et al.", "A Study of Things"}


def test_alternating_heads_are_counted_per_parity():
    """Nine pages, no head on the title page: each alternate is on 4 pages (under 0.45 of 9) but on
    every even page, and on 4 of the 5 odd ones. A line on 4 pages of both parities is no head."""
    def head(p):
        return "" if p == 1 else "Journal of Irreproducible Results" if p % 2 == 0 else "Okafor: Notebook Practices"
    blocks = [b for b in _doc(9, head=head) if b.text]
    repeats = blocks_to_page_repeats("d", blocks, 9, S)
    assert {r.example for r in repeats if r.band == "top"} == {"Journal of Irreproducible Results",
                                                               "Okafor: Notebook Practices"}
    mixed = [b for b in _doc(9, head=lambda p: "Draft for comment" if p in (2, 3, 6, 7) else "") if b.text]
    assert not [r for r in blocks_to_page_repeats("d", mixed, 9, S) if r.band == "top"]


def _sized(text, page, y0, y1, size, kind="paragraph"):
    meta = (*META, ("font_size", str(size)))
    return Block(kind, text, page=page, bbox=BBox(72, y0, 540, y1), meta=meta)


def test_short_document_drops_band_lines_set_off_from_the_text():
    """One page: repetition cannot prove a head, but a single small line clear of the text can."""
    blocks = [_sized("Journal of Irreproducible Results 3 (2014)", 1, 30, 38, 8),
              _sized("Body text " * 40, 1, 100, 700, 10),
              _sized("12", 1, 750, 759, 8)]
    out = apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 1, S), S)
    assert [b.drop_reason for b in out] == ["running_head", None, "page_number"]


def test_short_document_keeps_letterhead_text_near_the_band_and_multi_line_blocks():
    blocks = [_sized("ACME HARBOUR WORKS", 1, 30, 46, 16, kind="title"),  # larger than the body
              _sized("Harbour Road 1, Port Town", 1, 48, 58, 10),  # set off by less than 1.5 lines
              _sized("Body text " * 40, 1, 62, 700, 10),
              _sized("Signed by the harbour master and the council clerk, in two copies", 1, 720, 760, 10),
              _sized("Body text " * 40, 2, 40, 700, 10)]
    repeats = blocks_to_page_repeats("d", blocks, 2, S)
    assert repeats == []
    assert all(b.drop_reason is None for b in apply_repeats("d", blocks, repeats, S))


def test_repeat_outside_bands_is_content():
    blocks = [_b("A repeated sentence in the middle.", p, 300, 320) for p in range(1, 6)]
    assert blocks_to_page_repeats("d", blocks, 5, S) == []


def test_site_template_across_documents():
    docs = [(f"p{i}.html", [Block("paragraph", "Accept cookies"), Block("paragraph", f"Article {i} text unique {'x' * i}")])
            for i in range(4)]
    repeats = docs_to_template_repeats(docs, S)
    assert [r.example for r in repeats] == ["Accept cookies"]
    out = apply_repeats("x", docs[0][1], repeats, S)
    assert [b.drop_reason for b in out] == ["site_template", None]


def test_template_needs_enough_documents():
    docs = [(f"p{i}.html", [Block("paragraph", "Accept cookies")]) for i in range(2)]
    assert docs_to_template_repeats(docs, S) == []


def test_shared_heading_kept_when_it_heads_distinct_content():
    docs = []
    for i in range(4):
        docs.append((f"p{i}.html", [
            Block("heading", "Related articles", seq=0), Block("paragraph", "Same teaser everywhere", seq=1),
            Block("heading", "Troubleshooting", seq=2), Block("paragraph", f"Page {i} specific fix number {i}", seq=3),
        ]))
    repeats = docs_to_template_repeats(docs, S)
    out = apply_repeats("x", docs[0][1], repeats, S)
    assert [b.drop_reason for b in out] == ["site_template", "site_template", None, None]


def test_alternate_head_in_the_same_slot_is_a_running_head():
    meta = META + (("font_size", "8.0"),)
    blocks = []
    for p in range(1, 5):
        head = "Journal of Irreproducible Results, Vol. 3" if p < 4 else "Okafor & Lindqvist · Notebook Practices"
        blocks += [Block("paragraph", head, page=p, bbox=BBox(72, 30, 300, 40), meta=meta),
                   Block("paragraph", f"Body of page {p}, which continues a sentence", page=p, bbox=BBox(72, 100, 540, 700), meta=meta)]
    # Same band, other slot: a section title set lower and larger is not the head's alternate.
    blocks.append(Block("paragraph", "4 Discussion", page=4, bbox=BBox(72, 50, 200, 62), meta=META + (("font_size", "12.0"),)))
    repeats = blocks_to_page_repeats("d", blocks, 4, S)
    out = {b.text: b.drop_reason for b in apply_repeats("d", blocks, repeats, S)}
    assert out["Okafor & Lindqvist · Notebook Practices"] == "running_head"
    assert out["4 Discussion"] is None


def test_a_pages_only_line_is_its_content_not_furniture():
    # a divider-page document: each page holds one line, in the top band, of the same shape
    blocks = [_b(f"Part {p}", p, 30, 42, seq=p) for p in range(1, 6)]
    repeats = blocks_to_page_repeats("d", blocks, 5, S)
    assert repeats == []
    assert all(b.drop_reason is None for b in apply_repeats("d", blocks, repeats, S))


def test_a_running_head_alone_on_a_page_stays_while_its_repeats_go():
    blocks = _doc(5) + [_b("Journal of Irreproducible Results, Vol. 3", 6, 30, 42, seq=99)]
    repeats = blocks_to_page_repeats("d", blocks, 6, S)
    out = apply_repeats("d", blocks, repeats, S)
    heads = [b for b in out if b.text.startswith("Journal")]
    assert [b.drop_reason for b in heads if b.page <= 5] == ["running_head"] * 5
    assert [b.drop_reason for b in heads if b.page == 6] == [None]


def test_a_short_documents_only_line_is_not_furniture():
    meta = (*META, ("font_size", "10"))
    lone = Block("paragraph", "Minutes of the annual meeting", seq=0, page=1, bbox=BBox(72, 30, 300, 42), meta=meta)
    repeats = blocks_to_page_repeats("d", [lone], 1, S)
    assert repeats == []


# -- the outermost line of a short document's page: furniture by its layout ------------------------
def _piece(text, x0, x1, y0, y1, size, page=1, kind="paragraph"):
    return Block(kind, text, seq=int(y0 * 10 + x0), page=page, bbox=BBox(x0, y0, x1, y1),
                 meta=(*META, ("font_size", str(size))))


def _page_of_text(page=1, top=120, lines=30, size=7.0):
    """A page of body paragraphs from `top`, 7 pt type, each paragraph three lines."""
    return [_piece(f"Paragraph {i} of the page says something of its own, at some length here.", 72, 540,
                   top + i * 4 * size, top + i * 4 * size + 3 * 1.2 * size, size, page) for i in range(lines // 3)]


def _dropped(blocks):
    repeats = blocks_to_page_repeats("d", blocks, 1, S)
    return {b.text: b.drop_reason for b in apply_repeats("d", blocks, repeats, S) if b.drop_reason}


def test_a_foot_of_three_slots_a_little_larger_than_the_body_is_furniture():
    foot = [_piece("PLOS Neglected Tropical Diseases | www.plosntds.org", 72, 250, 754, 762, 8.0),
            _piece("1", 304, 308, 754, 762, 8.0),
            _piece("March 2014 | Volume 8 | Issue 3 | e2748", 400, 540, 754, 762, 8.0)]
    assert _dropped(_page_of_text() + foot) == {
        "PLOS Neglected Tropical Diseases | www.plosntds.org": "running_foot", "1": "page_number",
        "March 2014 | Volume 8 | Issue 3 | e2748": "running_foot"}


def test_a_head_holding_a_page_counter_is_furniture_outside_the_band_and_without_a_gap():
    # a small page (300 pt) whose head sits just below the band and right on the first text line
    meta = (("page_height", "300.0"), ("page_width", "180.0"))
    head = [Block("paragraph", "400", seq=1, page=1, bbox=BBox(29, 27, 34, 30.6), meta=(*meta, ("font_size", "3.0"))),
            Block("title", "BRITISH HUSBANDRY.", seq=2, page=1, bbox=BBox(70, 26, 112, 30.6), meta=(*meta, ("font_size", "4.0"))),
            Block("paragraph", "[Ch. XIX.", seq=3, page=1, bbox=BBox(141, 27, 157, 30.6), meta=(*meta, ("font_size", "2.5")))]
    text = [Block("paragraph", f"Line {i} of the book's own text, set in three point type.", seq=10 + i, page=1,
                  bbox=BBox(29, 31 + 10 * i, 156, 39 + 10 * i), meta=(*meta, ("font_size", "3.0"))) for i in range(20)]
    assert set(_dropped(head + text)) == {"400", "BRITISH HUSBANDRY.", "[Ch. XIX."}


def test_a_headings_number_and_title_on_the_first_line_are_no_head():
    heading = [_piece("2", 72, 80, 100, 110, 8.0, kind="heading"), _piece("Methods", 100, 150, 100, 110, 8.0, kind="heading")]
    assert _dropped(heading + _page_of_text(top=130)) == {}


def test_a_lone_page_counter_needs_a_gap_from_the_text():
    text = _page_of_text()
    end = max(b.bbox.y1 for b in text)
    set_off = text + [_piece("62", 300, 310, end + 26, end + 33, 7.0)]  # 26 pt clear of the text, mid-page
    assert _dropped(set_off) == {"62": "page_number"}
    right_below = text + [_piece("62", 300, 310, end + 2, end + 9, 7.0)]  # the text's last line, continued
    assert _dropped(right_below) == {}


def test_a_long_documents_heads_that_repetition_misses_are_furniture_by_layout():
    # each page's head names its own section beside the page number at the outer margin: no head
    # text recurs, so repetition finds only the numbers; the layout finds the whole line
    sections = ["Methods of the survey", "Results in brief", "What the figures mean", "Further work"]
    blocks = []
    for p, section in enumerate(sections, 1):
        number = _piece(str(p), 530, 540, 40, 48, 7.0, page=p) if p % 2 else _piece(str(p), 72, 80, 40, 48, 7.0, page=p)
        head = _piece(section, 72, 200, 40, 48, 7.0, page=p) if p % 2 else _piece(section, 400, 540, 40, 48, 7.0, page=p)
        blocks += [number, head, *_page_of_text(page=p, top=80)]
    dropped = {b.text: b.drop_reason for b in apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 4, S), S)
               if b.drop_reason}
    assert dropped == {**{s: "running_head" for s in sections}, **{str(p): "page_number" for p in range(1, 5)}}


def test_a_long_documents_first_page_furniture_goes_but_a_sentence_fragment_stays():
    blocks = []
    for p in range(1, 5):
        blocks += _page_of_text(page=p, top=80)
    end = max(b.bbox.y1 for b in blocks if b.page == 1)
    licence = _piece("© The Author 2014. Published by Oxford University Press.", 72, 400, 760, 767, 6.5, page=1)
    fragment = _piece("deduction if you were covered by a", 72, 240, 20, 27, 6.5, page=1)  # top band, set off
    later = _piece("Received 3 May 2014; accepted 9 June 2014.", 72, 300, 760, 767, 6.5, page=3)
    assert 760 - end > 20  # each is set off from its page's text
    blocks += [licence, fragment, later]
    dropped = {b.text: b.drop_reason for b in apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 4, S), S)
               if b.drop_reason}
    assert dropped == {licence.text: "running_foot"}  # page 1's own; page 3's line is no furniture of page 1's


def _paper(pages, extra):
    """A paged document of body text at 10 pt (a page's text from 62 to 700 pt) plus `extra` blocks."""
    return [_sized("Body text " * 40, p, 62, 700, 10) for p in range(1, pages + 1)] + extra


def test_a_first_pages_doi_over_licence_block_is_furniture_elsewhere_not():
    """The DOI line and the licence line under it (7.5 pt, one block of two lines) on page 1 of a
    4-page paper: dropped, though no other page repeats them; the same block on page 3 stays."""
    doi = "https://doi.org/10.5555/jcr.2024.0010 \u00a9 2024 The Authors. Published under CC BY 4.0."
    blocks = _paper(4, [_sized(doi, 1, 785, 804, 7.5), _sized("A closing remark of two lines " * 2, 3, 785, 804, 7.5)])
    out = {(b.page, b.text): b.drop_reason for b in apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 4, S), S)}
    assert out[(1, doi)] == "running_foot" and out[(3, "A closing remark of two lines " * 2)] is None


def test_a_short_papers_alternating_heads_printed_once_each_share_a_slot():
    """Three pages: the journal's head on page 2, the short title on page 3, once each (no repetition
    of text), in one slot 1.2 body lines above the text: both heads. Lines in different slots stay."""
    heads = [_sized("J. Coastal Rec.", 2, 40, 48, 8), _sized("Station 5 tide records", 3, 40, 48, 8)]
    out = apply_repeats("d", _paper(3, heads), blocks_to_page_repeats("d", _paper(3, heads), 3, S), S)
    assert {b.text: b.drop_reason for b in out if b.page > 1 and b.bbox.y0 < 60} == \
        {"J. Coastal Rec.": "running_head", "Station 5 tide records": "running_head"}
    apart = [_sized("J. Coastal Rec.", 2, 40, 48, 8), _sized("Station 5 tide records", 3, 30, 38, 8)]
    blocks = _paper(3, apart)
    assert all(b.drop_reason is None for b in apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 3, S), S))


def test_a_lists_last_items_in_the_bottom_band_stay_body():
    """A one-page memo whose list runs into the bottom band: its items follow each other 2 pt apart,
    the first 4 pt under the text. Stacked under text, not set off: none is furniture (measured
    past each other, the second and third were 18 and 32 pt clear of the paragraph)."""
    items = [_sized(f"{k}) Tide tables of {year}.", 1, 716 + 14 * i, 728 + 14 * i, 10)
             for i, (k, year) in enumerate(zip("ABC", (2021, 2022, 2023)))]
    blocks = [_sized("Body text " * 40, 1, 62, 712, 10), *items]
    out = apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 1, S), S)
    assert all(b.drop_reason is None for b in out)


def _filing_page(page, end, foot, extra_heading=None):
    """A page rendered from HTML: its text ends at `end` points, its page number and foot right under it."""
    blocks = [_sized(extra_heading, page, 60, 72, 10.0, kind="heading")] if extra_heading else []
    blocks += [_sized(f"Plan text of page {page}, its own words.", page, 80, end - 40, 10.0),
               _sized(f"Section {page}.1 goes on here.", page, end - 36, end - 24, 10.0),
               _sized(f"- {page} -", page, end, end + 12, 10.0), _sized(foot, page, end + 11, end + 19, 8.0)]
    return blocks


def test_feet_and_page_numbers_set_where_each_pages_text_ends_go_on_a_run_of_pages():
    # an exhibit of a filing: page number over the exhibit's foot, at any height, on 12 pages of 40
    heights = [300, 650, 420, 560, 380, 610, 330, 500, 700, 450, 520, 350]
    blocks = [b for i, end in enumerate(heights, start=20)
              for b in _filing_page(i, end, "Pension Equalization Plan", extra_heading="Article II")]
    blocks += [_sized(f"Other part, page {p}, text that differs.", p, 80, 700, 10.0) for p in range(1, 20)]
    out = apply_repeats("d", blocks, blocks_to_page_repeats("d", blocks, 40, S), S)
    reasons = {b.text: b.drop_reason for b in out}
    assert reasons["- 21 -"] == "page_number" and reasons["Pension Equalization Plan"] == "running_foot"
    assert reasons["Article II"] is None  # a heading repeated at the pages' tops is never taken
    assert reasons["Section 21.1 goes on here."] is None  # a page's own last words stay
    # the same foot on too short a run of pages is content
    short = [b for i, end in enumerate(heights[:4], start=20) for b in _filing_page(i, end, "Pension Equalization Plan")]
    short += [_sized(f"Other part, page {p}, text that differs.", p, 80, 700, 10.0) for p in range(1, 20)]
    out = apply_repeats("d", short, blocks_to_page_repeats("d", short, 40, S), S)
    assert {b.text: b.drop_reason for b in out}["Pension Equalization Plan"] is None
