"""Repetition: running heads and page numbers across the pages of a document (compared after
digits become '#'), the site template across the documents of a source (compared exactly), and page
furniture across the paged documents of a source (band lines, digits as '#')."""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from docclean_assets.extract.model import Block, DropReason, Kind
from docclean_assets.extract.settings import BoilerplateSettings

_DIGITS = re.compile(r"\d+")
_ROMAN_PAGE = re.compile(r"^[ivxlcdm]+$")
# The start of an address (a URL, a DOI, a host name): a page stamp, never the middle of a sentence.
_ADDRESS = re.compile(r"^(?:https?://|www\.|doi:|doi\.org/)", re.IGNORECASE)
# A pattern that is nothing but a page counter: "#", "- # -", "page # of #", "# / #", "p. #", and a
# section's "f-#" or "a-#" (a filing's financial-statement and exhibit pages).
# Possessive spaces: two space runs around an optional bracket must not trade characters (quadratic
# on a long run of spaces); a bracket is never a space, so the matches are the same.
_PAGE_NUMBER = re.compile(r"^(?:page|p\.|pg\.?|seite|página|pagina)?\s*+[-–—(\[]?\s*+(?:[a-z]{1,2}-)?#\s*+[-–—)\]]?(?:\s*+(?:of|/|von|de)\s*+#)?$")


@dataclass(frozen=True, slots=True)
class Repeat:
    """One repeated text: where it repeats and how often."""

    scope: str  # 'pages' | 'documents'
    doc_id: str | None
    band: str | None
    pattern: str
    example: str
    count: int
    out_of: int
    seen_in: tuple[str, ...]
    drop_reason: str


def pattern_of(text: str) -> str:
    """Case-folded, whitespace-collapsed text with every digit run as '#'."""
    folded = " ".join(text.split()).casefold()
    if _ROMAN_PAGE.match(folded):
        return "#"
    return _DIGITS.sub("#", folded)


def template_pattern_of(text: str) -> str:
    """Case-folded, whitespace-collapsed text: across documents digits count (an article's
    "Report 3 of the harbour works" must not match another's "Report 4 ...")."""
    return " ".join(text.split()).casefold()


def band_of(block: Block, band_fraction: float) -> str | None:
    """'top' or 'bottom' when the block lies wholly in that band of its page, else None."""
    height = block.get_meta("page_height")
    if block.bbox is None or block.page is None or height is None:
        return None
    h = float(height)
    if block.bbox.y1 <= band_fraction * h:
        return "top"
    if block.bbox.y0 >= (1.0 - band_fraction) * h:
        return "bottom"
    return None


def _chrome_reason(pattern: str, band: str) -> str:
    """page_number for a bare counter, else running head or foot by band."""
    if _PAGE_NUMBER.match(pattern):
        return DropReason.PAGE_NUMBER
    return DropReason.RUNNING_HEAD if band == "top" else DropReason.RUNNING_FOOT


def blocks_to_page_repeats(doc_id: str, blocks: list[Block], pages: int, s: BoilerplateSettings) -> list[Repeat]:
    """Texts that recur in the top or bottom band on enough of a document's pages; in a document too
    short for repetition, the band lines that are set off as page furniture."""
    if pages < s.min_pages:
        return _band_furniture(doc_id, blocks, pages, s)
    sole = sole_lines(blocks)
    seen: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for b in blocks:
        if b.drop_reason is not None or len(b.text) > s.max_chars or id(b) in sole:
            continue
        band = band_of(b, s.band_fraction)
        if band is not None:
            seen[(band, pattern_of(b.text))].setdefault(b.page, b.text)  # type: ignore[arg-type]
    repeats = []
    for (band, pattern), where in sorted(seen.items()):
        if pattern and _on_enough_pages(set(where), pages, s):
            repeats.append(Repeat("pages", doc_id, band, pattern, next(iter(where.values())), len(where), pages,
                                  tuple(str(p) for p in sorted(where)), _chrome_reason(pattern, band)))
    repeats += _slot_mates(doc_id, blocks, pages, repeats, s)
    repeats += _edge_runs(doc_id, blocks, pages, {(r.band, r.pattern) for r in repeats}, s)
    known = {(r.band, r.pattern) for r in repeats}
    body = _body_size(blocks)
    if body is None:
        return repeats
    # the first page's own furniture (a DOI or licence line, a masthead) occurs on that page only
    first = min((b.page for b in blocks if b.page is not None), default=None)
    found = _merged(_layout_furniture(blocks, body, s, only_page=first), _slot_furniture(blocks, pages, body, s))
    return repeats + _repeats_of(doc_id, pages, {k: v for k, v in found.items() if k not in known})


def _on_enough_pages(where: set[int], pages: int, s: BoilerplateSettings) -> bool:
    """On at least `min_page_fraction` of the pages, or only on pages of one parity and on at least
    `parity_min_page_fraction` of those: alternating heads (the journal on even pages, the short
    title on odd ones) each cover half the pages less the title page and blank pages."""
    if len(where) >= max(2, s.min_page_fraction * pages):
        return True
    parities = {p % 2 for p in where}
    if len(parities) != 1:
        return False
    of_parity = pages // 2 if parities == {0} else (pages + 1) // 2
    return len(where) >= max(2, s.parity_min_page_fraction * of_parity)


def sole_lines(blocks: list[Block]) -> set[int]:
    """ids of the blocks that are the only body text of their page: a page's whole content is never
    its furniture, however often the same text recurs (a divider page, a one-line slide export)."""
    per_page: dict[int, list[Block]] = defaultdict(list)
    for b in blocks:
        if b.page is not None and b.in_body:
            per_page[b.page].append(b)
    return {id(group[0]) for group in per_page.values() if len(group) == 1}


def _body_size(blocks: list[Block]) -> float | None:
    """The font size (points) that sets most of the body's characters."""
    weight: dict[float, int] = defaultdict(int)
    for b in blocks:
        size = b.get_meta("font_size")
        if b.in_body and size is not None:
            weight[float(size)] += len(b.text)
    return max(weight, key=lambda k: weight[k]) if weight else None


def _band_furniture(doc_id: str, blocks: list[Block], pages: int, s: BoilerplateSettings) -> list[Repeat]:
    """Single band lines no larger than the body, set off from the text inward by a clear gap, and
    pages' outermost lines that are furniture by their layout (`_edge_furniture`): a running head,
    foot or page number that repetition cannot prove on a one- or two-page document."""
    body = _body_size(blocks)
    return [] if body is None else _repeats_of(doc_id, pages, _layout_furniture(blocks, body, s))


def _layout_furniture(blocks: list[Block], body: float, s: BoilerplateSettings,
                      only_page: int | None = None) -> dict[tuple[str, str], dict[int, str]]:
    """(band, pattern) -> {page: text} of what a document's own layout marks as furniture: single band
    lines set off from the text (on `only_page`, when given) and every page's outermost lines."""
    return _merged(_set_off_band_lines(blocks, body, s, only_page), _edge_found(blocks, body, s))


def _merged(found: dict[tuple[str, str], dict[int, str]],
            more: dict[tuple[str, str], dict[int, str]]) -> dict[tuple[str, str], dict[int, str]]:
    """`found` (a defaultdict) with the pages of `more` added where it has none."""
    for key, where in more.items():
        for page, text in where.items():
            found[key].setdefault(page, text)
    return found


def _set_off_band_lines(blocks: list[Block], body: float, s: BoilerplateSettings,
                        only_page: int | None = None) -> dict[tuple[str, str], dict[int, str]]:
    """(band, pattern) -> {page: text} of `_set_off` band blocks (of `only_page`, when given: there,
    of up to `first_page_band_max_lines` lines)."""
    found: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for b, band in _set_off(blocks, body, s, only_page):
        found[(band, pattern_of(b.text))].setdefault(b.page, b.text)  # type: ignore[arg-type]
    return found


def _set_off(blocks: list[Block], body: float, s: BoilerplateSettings, only_page: int | None = None,
             gap_lines: float | None = None) -> list[tuple[Block, str]]:
    """(block, band) of the band blocks no larger than the body, set off from the text inward by
    `gap_lines` body lines (default `short_doc_min_gap_lines`), that are no fragment of a sentence
    (see `_continues_a_sentence`): single lines, or on `only_page` up to `first_page_band_max_lines`
    lines (a first page's DOI line over its licence line, set as one block)."""
    gap = (s.short_doc_min_gap_lines if gap_lines is None else gap_lines) * s.body_line_height_em * body
    extra_lines = s.first_page_band_max_lines - 1 if only_page is not None else 0
    cands = []
    for b in blocks:
        if (only_page is not None and b.page != only_page) or _continues_a_sentence(b.text):
            continue
        band = band_of(b, s.band_fraction) if b.in_body and b.kind != Kind.TITLE else None
        size = b.get_meta("font_size")
        if band is None or size is None or len(b.text) > s.max_chars or float(size) > s.short_doc_max_size_ratio * body:
            continue
        tallest = (s.single_line_max_height_em + extra_lines * s.body_line_height_em) * float(size)
        if b.bbox.height <= tallest:
            cands.append((b, band))
    # Set off: clear of the nearest block inward by the gap, or stacked on a band block that is (a
    # licence line under a DOI line); a stack that runs on from the text (a list's last items
    # in the band) is not. Innermost first, so each block's inward neighbour is decided before it.
    cands.sort(key=lambda c: -c[0].bbox.y1 if c[1] == "top" else c[0].bbox.y0)
    per_page: dict[int | None, list[Block]] = defaultdict(list)  # each candidate scans its own page only
    for o in blocks:
        per_page[o.page].append(o)
    off: set[int] = set()
    for b, band in cands:
        near = _inward_nearest(b, band, per_page[b.page])
        if near is not None and (near[1] >= gap or id(near[0]) in off):  # a page's only line is its content
            off.add(id(b))
    return [(b, band) for b, band in cands if id(b) in off]


def _slot_furniture(blocks: list[Block], pages: int, body: float,
                    s: BoilerplateSettings) -> dict[tuple[str, str], dict[int, str]]:
    """(band, pattern) -> {page: text} of band lines clear of the text by `slot_min_gap_lines` that
    sit in one slot (their box within `slot_tolerance_pt`, one font size) on enough of the pages
    after the first (`min_page_fraction`, at least 2; a title page carries its own furniture),
    whatever their text: a short paper's alternating heads, each printed once, or heads naming the
    section."""
    first = min((b.page for b in blocks if b.page is not None), default=1)
    lines = [(b, band) for b, band in _set_off(blocks, body, s, gap_lines=s.slot_min_gap_lines)
             if b.kind in (Kind.PARAGRAPH, Kind.LIST_ITEM)]
    slots = [(b, band, _slot(b)) for b, band in lines]
    tol = s.slot_tolerance_pt
    found: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for b, band, (y0, y1, size) in slots:
        mates = {o.page for o, other, (a, c, z) in slots if other == band and o.page != first and z == size
                 and abs(a - y0) <= tol and abs(c - y1) <= tol}
        if len(mates) >= max(2, s.min_page_fraction * (pages - 1)):
            found[(band, pattern_of(b.text))].setdefault(b.page, b.text)  # type: ignore[arg-type]
    return found


def _continues_a_sentence(text: str) -> bool:
    """Words that start in lower case and end on a letter ("deduction if you were covered by a"): the
    middle of a sentence a column or page break set apart, never furniture. A lower-case stamp is one
    word ("www.tobaccocontrol.com"), ends on a digit ("doi:10.1/x", "arXiv:2401.1") or opens with an
    address, which no sentence's middle does ("https://doi.org/10.1/x \u00b7 \u00a9 2026 The Authors")."""
    words = text.split()
    return len(words) >= 3 and words[0][0].islower() and words[-1][-1].isalpha() and not _ADDRESS.match(words[0])


def _repeats_of(doc_id: str, pages: int, found: dict[tuple[str, str], dict[int, str]]) -> list[Repeat]:
    """A Repeat per (band, pattern) found, with the pages it was found on."""
    return [Repeat("pages", doc_id, band, pattern, next(iter(where.values())), len(where), pages,
                   tuple(str(p) for p in sorted(where)), _chrome_reason(pattern, band))
            for (band, pattern), where in sorted(found.items()) if pattern]


def _edge_found(blocks: list[Block], body: float, s: BoilerplateSettings) -> dict[tuple[str, str], dict[int, str]]:
    """(edge, pattern) -> {page: text} of the pages' outermost lines that are furniture by layout."""
    gap = s.short_doc_min_gap_lines * s.body_line_height_em * body
    found: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for pieces, edge, page in _edge_lines(blocks, s):
        if _edge_furniture(pieces, edge, page, body, gap, s):
            for b in pieces:
                found[(edge, pattern_of(b.text))].setdefault(b.page, b.text)  # type: ignore[arg-type]
    return found


def _inward_nearest(b: Block, band: str, blocks: list[Block]) -> tuple[Block, float] | None:
    """The nearest body block of `b`'s page towards the page's middle, and the points between them."""
    inward = [o for o in blocks if o.page == b.page and o.bbox is not None and o.in_body and o is not b
              and (o.bbox.y0 >= b.bbox.y1 if band == "top" else o.bbox.y1 <= b.bbox.y0)]
    return min(((o, o.bbox.y0 - b.bbox.y1 if band == "top" else b.bbox.y0 - o.bbox.y1) for o in inward),
               key=lambda og: og[1], default=None)


def _measured_body_per_page(blocks: list[Block]) -> dict[int, list[Block]]:
    """page -> its body blocks that have a box and a font size (what edge rules can measure)."""
    per_page: dict[int, list[Block]] = defaultdict(list)
    for b in blocks:
        if b.in_body and b.bbox is not None and b.page is not None and b.get_meta("font_size") is not None:
            per_page[b.page].append(b)
    return per_page


def _single_line(b: Block, s: BoilerplateSettings) -> bool:
    """Whether a measured block is one line high (`single_line_max_height_em` of its font size)."""
    return b.bbox.height <= s.single_line_max_height_em * float(b.get_meta("font_size"))


def _edge_lines(blocks: list[Block], s: BoilerplateSettings) -> list[tuple[list[Block], str, list[Block]]]:
    """Each page's outermost line at the top and at the bottom: the body blocks on the baseline band
    of the page's first (last) block, when that block is a single line (`single_line_max_height_em`);
    with the edge ('top' / 'bottom') and the page's body blocks."""
    per_page = _measured_body_per_page(blocks)
    out = []
    for page in sorted(per_page):
        on_page = per_page[page]
        for edge, outer in (("top", min(on_page, key=lambda b: b.bbox.y0)), ("bottom", max(on_page, key=lambda b: b.bbox.y1))):
            if not _single_line(outer, s):
                continue
            mid = (outer.bbox.y0 + outer.bbox.y1) / 2
            pieces = sorted((b for b in on_page if b.bbox.y0 <= mid <= b.bbox.y1), key=lambda b: b.bbox.x0)
            if len(pieces) < len(on_page):  # a page's only line is its content
                out.append((pieces, edge, on_page))
    return out


def _edge_furniture(pieces: list[Block], edge: str, page: list[Block], body: float, gap: float,
                    s: BoilerplateSettings) -> bool:
    """Whether a page's outermost line is furniture by its layout: pieces spread across the text
    width holding a page counter (its other pieces may be larger: a head's title) or at least
    `edge_line_min_pieces` pieces no larger than `edge_line_max_size_ratio` of the body; or a lone
    page counter set off from the text by `gap` points."""
    if any(len(b.text) > s.edge_piece_max_chars or not _single_line(b, s) for b in pieces):
        return False
    counters = sum(1 for b in pieces if _PAGE_NUMBER.match(pattern_of(b.text)))
    if len(pieces) == 1:
        nearest = _inward_nearest(pieces[0], edge, page) if counters else None
        return nearest is not None and nearest[1] >= gap
    width = max(o.bbox.x1 for o in page) - min(o.bbox.x0 for o in page)
    if width <= 0 or pieces[-1].bbox.x1 - pieces[0].bbox.x0 < s.edge_line_min_spread * width:
        return False  # a heading's number and title side by side are no head
    if counters:
        return True
    small = all(float(b.get_meta("font_size")) <= s.edge_line_max_size_ratio * body for b in pieces)
    return small and len(pieces) >= s.edge_line_min_pieces


_NOT_EDGE_TEXT = frozenset({Kind.HEADING, Kind.TITLE, Kind.TABLE})


def _edge_stacks(blocks: list[Block], s: BoilerplateSettings) -> dict[int, str]:
    """id -> edge ('top' / 'bottom') of the blocks among each page's `edge_stack_lines` outermost
    body blocks at either edge that are single short lines (a multi-line block ends the stack), and
    no heading, title or table: where a page's furniture sits when the page ends where its text does."""
    out: dict[int, str] = {}
    for on_page in _measured_body_per_page(blocks).values():
        if len(on_page) <= 2 * s.edge_stack_lines:  # a page of a few lines is its content
            continue
        for edge, order in (("top", sorted(on_page, key=lambda b: b.bbox.y0)),
                            ("bottom", sorted(on_page, key=lambda b: -b.bbox.y1))):
            for b in order[:s.edge_stack_lines]:
                if not _single_line(b, s):
                    break
                if b.kind not in _NOT_EDGE_TEXT and len(b.text) <= s.edge_piece_max_chars:
                    out.setdefault(id(b), edge)
    return out


def _longest_run(pages: Iterable[int], max_gap: int) -> int:
    """The most pages in one run of pages no more than `max_gap` pages apart."""
    best = run = 0
    prev = None
    for p in sorted(pages):
        run = run + 1 if prev is not None and p - prev <= max_gap + 1 else 1
        best, prev = max(best, run), p
    return best


def _edge_runs(doc_id: str, blocks: list[Block], pages: int, known: set[tuple[str | None, str]],
               s: BoilerplateSettings) -> list[Repeat]:
    """Texts among the pages' outermost lines (`_edge_stacks`) that recur there on a run of at least
    `edge_run_min_pages` pages: the feet and page numbers of one part of a long document (a filing's
    F-pages, an exhibit's "- 2 -" above its title), set wherever each page's text ends."""
    stacks = _edge_stacks(blocks, s)
    seen: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for b in blocks:
        if id(b) in stacks:
            seen[(stacks[id(b)], pattern_of(b.text))].setdefault(b.page, b.text)  # type: ignore[arg-type]
    found = {k: where for k, where in seen.items()
             if k not in known and k[1] and _longest_run(where, s.edge_run_max_gap_pages) >= s.edge_run_min_pages}
    return _repeats_of(doc_id, pages, found)


def _slot(b: Block) -> tuple[float, float, str | None]:
    return (b.bbox.y0, b.bbox.y1, b.get_meta("font_size")) if b.bbox else (0.0, 0.0, None)


def _slot_mates(doc_id: str, blocks: list[Block], pages: int, repeats: list[Repeat], s: BoilerplateSettings) -> list[Repeat]:
    """Band texts set in the very slot of a repeated head (same baseline band, same size) on a
    page that lacks it: the other half of alternating even/odd heads, or a head that varies."""
    found = {(r.band, r.pattern) for r in repeats}
    sole = sole_lines(blocks)
    slots: dict[str, list[tuple[float, float, str | None]]] = defaultdict(list)
    pages_with: dict[str, set[int]] = defaultdict(set)
    for b in blocks:
        band = band_of(b, s.band_fraction) if b.drop_reason is None else None
        if band is not None and (band, pattern_of(b.text)) in found:
            slots[band].append(_slot(b))
            pages_with[band].add(b.page)  # type: ignore[arg-type]
    mates: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for b in blocks:
        band = band_of(b, s.band_fraction) if b.drop_reason is None and len(b.text) <= s.max_chars else None
        if band is None or (band, pattern_of(b.text)) in found or b.page in pages_with[band] or id(b) in sole:
            continue
        y0, y1, size = _slot(b)
        if any(abs(y0 - a) <= s.slot_tolerance_pt and abs(y1 - c) <= s.slot_tolerance_pt and size == z
               for a, c, z in slots[band]):
            mates[(band, pattern_of(b.text))].setdefault(b.page, b.text)  # type: ignore[arg-type]
    return [Repeat("pages", doc_id, band, pattern, next(iter(where.values())), len(where), pages,
                   tuple(str(p) for p in sorted(where)), _chrome_reason(pattern, band))
            for (band, pattern), where in sorted(mates.items())]


def band_patterns(blocks: list[Block], s: BoilerplateSettings) -> dict[tuple[str, str], str]:
    """(band, pattern) -> text of every short top or bottom band line of a paged document, whether a
    stage dropped it already or not (a masthead found on nine documents is furniture on the tenth); a
    page's only line is its content, never furniture."""
    sole = sole_lines(blocks)
    found: dict[tuple[str, str], str] = {}
    for b in blocks:
        if not 0 < len(b.text) <= s.max_chars or id(b) in sole or b.drop_reason == DropReason.WATERMARK:
            continue
        band = band_of(b, s.band_fraction)
        pattern = pattern_of(b.text) if band is not None else ""
        if pattern:
            found.setdefault((band, pattern), b.text)  # type: ignore[index]
    return found


def source_furniture_reason(pattern: str) -> str:
    """page_number for a bare counter (a source of one-page documents numbered alike), else
    source_furniture."""
    return DropReason.PAGE_NUMBER if _PAGE_NUMBER.match(pattern) else DropReason.SOURCE_FURNITURE


def docs_to_template_repeats(docs: Iterable[tuple[str, list[Block]]], s: BoilerplateSettings) -> list[Repeat]:
    """Short texts that recur across enough of a source's documents: the site template. Blocks a
    backend already dropped count too: a menu recognised on nine pages is template on the tenth."""
    seen: dict[str, dict[str, str]] = defaultdict(dict)
    n_docs = 0
    for path, blocks in docs:
        n_docs += 1
        for b in blocks:
            if 0 < len(b.text) <= s.max_chars:
                seen[template_pattern_of(b.text)].setdefault(path, b.text)
    need = max(s.min_docs, s.min_doc_fraction * n_docs)
    return [
        Repeat("documents", None, None, pattern, next(iter(where.values())), len(where), n_docs,
               tuple(sorted(where)), DropReason.SITE_TEMPLATE)
        for pattern, where in sorted(seen.items())
        if len(where) >= need and pattern
    ]


def apply_repeats(doc_id: str, blocks: list[Block], repeats: Iterable[Repeat], s: BoilerplateSettings) -> list[Block]:
    """Blocks with every repeated text dropped for its reason; other blocks unchanged."""
    by_band: dict[tuple[str | None, str], str] = {}
    template: dict[str, str] = {}
    for r in repeats:
        if r.scope == "pages" and r.doc_id == doc_id:
            by_band[(r.band, r.pattern)] = r.drop_reason
        elif r.scope == "source_pages":
            by_band.setdefault((r.band, r.pattern), r.drop_reason)  # the document's own reason first
        elif r.scope == "documents":
            template[r.pattern] = r.drop_reason
    if not by_band and not template:
        return blocks
    sole = sole_lines(blocks) if by_band else set()
    edges = {id(b): edge for pieces, edge, _page in _edge_lines(blocks, s) for b in pieces} if by_band else {}
    stacks = _edge_stacks(blocks, s) if by_band else {}
    reasons: list[str | None] = []
    for b in blocks:
        reason = None
        if b.drop_reason is None and len(b.text) <= s.max_chars:
            band = band_of(b, s.band_fraction) or edges.get(id(b)) or stacks.get(id(b))
            page_reason = None if id(b) in sole else by_band.get((band, pattern_of(b.text)))
            reason = page_reason or template.get(template_pattern_of(b.text))
        reasons.append(reason)
    _keep_headings_of_distinct_content(blocks, reasons)
    return [b.dropped(r) if r else b for b, r in zip(blocks, reasons)]


_SHARED = (DropReason.SITE_TEMPLATE, DropReason.SOURCE_FURNITURE)  # found across documents, not pages


def _keep_headings_of_distinct_content(blocks: list[Block], reasons: list[str | None]) -> None:
    """A heading every page shares ("Troubleshooting") stays when what follows it is the page's own."""
    live = [i for i, b in enumerate(blocks) if b.drop_reason is None]
    for pos, i in enumerate(live):
        if reasons[i] in _SHARED and blocks[i].kind in (Kind.HEADING, Kind.TITLE):
            nxt = live[pos + 1] if pos + 1 < len(live) else None
            if nxt is not None and reasons[nxt] is None and blocks[nxt].kind not in (Kind.HEADING, Kind.TITLE):
                reasons[i] = None
