"""Stage 6: block kinds from typography: title, headings (with levels), captions, list items."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from docclean_assets.extract.pdf.model import Line, PBlock, join_lines
from docclean_assets.extract.pdf.chars import PageInfo
from docclean_assets.extract.pdf.labels import follows, is_first, list_label
from docclean_assets.extract.pdf.settings import PdfSettings

_PARENTHESES = re.compile(r"\([^()]*\)")
CAPTION = re.compile(r"^(Figure|Fig\.|Table|Tab\.|Listing|Algorithm|Abbildung|Tabelle)\s*[0-9IVX]+[a-z]?\s*[.:|]")


def _parenthetical(text: str) -> bool:
    """Whether the whole text is in parentheses: "(In millions)", "(Exact name of registrant as specified
    in its charter)", "(a)", "(Dollars in Millions) (Note 1)". Such a line remarks on what it stands
    beside (a unit, a form field's label, an amendment note, a list label): set large or bold, it is
    still no section's title."""
    text = text.strip()
    if not text.startswith("("):
        return False
    depth = 0
    for ch in text:
        if depth == 0 and ch != "(" and not ch.isspace():
            return False  # a character outside every parenthesis
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


# A clause that ends an enumeration's item: "(i) the Excluded Books and Records;", "grants; and".
_CLAUSE_END = re.compile(r";(\s+(and|or))?\s*$")


def _never_a_title(text: str) -> bool:
    """Text no heading is, however it is set: a parenthetical remark, or a clause ending in a semicolon
    (an item of an enumeration, set bold in a contract or a plan)."""
    return _parenthetical(text) or _CLAUSE_END.search(text) is not None


def _is_size_heading(b: PBlock, body: float, s: PdfSettings) -> bool:
    text = b.text
    return (
        b.size >= s.heading_size_ratio * body
        and len(text) <= s.heading_max_chars
        and not _never_a_title(text)
        and any(ch.isalnum() for ch in text)  # a rule of underscores or dashes set large titles nothing
    )


def _titled_lines(b: PBlock) -> Sequence[Line]:
    """The lines that must be bold for a bold heading: all but a last line in parentheses set in
    regular weight under them, the unit note of a statement's title ("(In millions, except per share
    data)"), which remarks on the title and is no part of its weight."""
    lines = b.lines
    if len(lines) > 1 and lines[-1].bold < lines[-1].n and _parenthetical(lines[-1].text):
        return lines[:-1]
    return lines


def _is_bold_heading(b: PBlock, body: float, s: PdfSettings) -> bool:
    text = b.text
    lines = _titled_lines(b)
    n = sum(ln.n for ln in lines)
    return (
        not _never_a_title(text)
        and n > 0
        and sum(ln.bold for ln in lines) / n >= s.bold_heading_min_bold_fraction
        and len(lines) <= s.bold_heading_max_lines
        and len(text if lines is b.lines else join_lines([ln.text for ln in lines])) <= s.bold_heading_max_chars
        and b.size >= s.bold_heading_min_size_ratio * body
        and any(ch.isalpha() for ch in text)
    )


def _other_kind(b: PBlock, body: float, s: PdfSettings) -> str:
    """The kind of a body paragraph that is no size heading: heading (bold), caption, list item, or
    still paragraph."""
    if _is_bold_heading(b, body, s):
        return "heading"
    text = b.text
    if CAPTION.match(text):
        return "caption"
    if list_label(text) is not None:
        return "list_item"
    return "paragraph"


def _most_set(sizes: Counter[float], default: float) -> float:
    """The size most pages set (ties: the larger), `default` where there is none."""
    return max(sizes, key=lambda sz: (sizes[sz], sz)) if sizes else default


def _bold_floors(page_bodies: Sequence[float | None], body: float, s: PdfSettings) -> list[float]:
    """The body size each page's bold headings are judged against: the document's, except on the
    pages that lead up to where its body size takes hold when those are set smaller (a filing's
    10-K at 9 pt before exhibits at 11 pt that set the document's body): theirs.

    A page's part body is the size most pages with a body of their own set within
    `part_body_window_pages` of it, so that a few pages of small print move nothing."""
    w, n = s.part_body_window_pages, len(page_bodies)

    def part(i: int) -> float:
        return _most_set(Counter(sz for sz in page_bodies[max(i - w, 0):i + w + 1] if sz is not None), body)

    lead = next((i for i in range(n) if part(i) >= body), n)
    if lead < s.part_body_min_lead_pages:
        return [body] * n
    own = _most_set(Counter(sz for sz in page_bodies[:lead] if sz is not None), body)
    return [min(own, body)] * lead + [body] * (n - lead)


def blocks_to_kinds(
    pages: list[tuple[PageInfo, list[PBlock]]], body: float, settings: PdfSettings,
    page_bodies: Sequence[float | None] | None = None,
) -> list[list[PBlock]]:
    """Each page's blocks with headings (size or bold), the title on page 1, captions and list items
    labelled: relabelled copies of the blocks that change, the others as they are.

    A size heading outsizes the document's body and its page's (`page_bodies`: None, or not given,
    for a page with too little text of its own). A bold heading is set at least about the document's
    body size, or on the pages leading up to where that takes hold, their own where smaller
    (`_bold_floors`: a filing's 10-K at 9 pt before its exhibits at 11 pt). Heading levels rank the
    distinct heading sizes of the document, largest = 1; bold headings at body size come one level
    below the smallest larger-size heading, those in mixed case one further where others are set in
    capitals (`_heading_levels`).
    """
    own = list(page_bodies) if page_bodies is not None else [None] * len(pages)
    floors = _bold_floors(own, body, settings)
    kinds: dict[int, str] = {}  # id(block) -> new kind
    size_heads: list[PBlock] = []
    for i, (_info, blocks) in enumerate(pages):
        outsize = max(body, own[i] or body)
        for b in blocks:
            if b.drop_reason is not None or b.kind != "paragraph" or b.is_form:
                continue
            if _is_size_heading(b, outsize, settings):
                kinds[id(b)] = "heading"
                size_heads.append(b)
            elif (kind := _other_kind(b, floors[i], settings)) != "paragraph":
                kinds[id(b)] = kind
    for _info, blocks in pages:
        _initials_are_no_items(blocks, kinds)
    title = _pick_title(pages, size_heads, kinds, settings)
    sizes = sorted({b.size for b in size_heads if b is not title}, reverse=True)
    rank = {sz: i + 1 for i, sz in enumerate(sizes)}
    levels = _heading_levels([b for _info, blocks in pages for b in blocks
                              if kinds.get(id(b), b.kind) == "heading" and b is not title], rank)
    out: list[list[PBlock]] = []
    for _info, blocks in pages:
        page: list[PBlock] = []
        for b in blocks:
            kind = kinds.get(id(b), b.kind)
            if b is title:
                b = b.relabel(kind="title", level=None)
            elif kind == "heading":
                b = b.relabel(kind=kind, level=min(settings.heading_max_level, levels[id(b)]))
            elif kind == "list_item" and (label := list_label(b.text)) is not None:
                b = b.relabel(kind=kind, extra=(*b.extra, ("list_label", label.text)))
            elif kind != b.kind:
                b = b.relabel(kind=kind)
            page.append(b)
        out.append(page)
    return out


def _in_capitals(text: str) -> bool:
    """Set in capitals: two words or more with letters, every letter a capital ("ITEM 7. MANAGEMENT'S
    DISCUSSION", "PART II"), a remark in parentheses aside ("CONSOLIDATED BALANCE SHEETS (In
    thousands)"). One word in capitals is as often an acronym made a heading ("COVID-19")."""
    words = [w for w in _PARENTHESES.sub(" ", text).split() if any(ch.isalpha() for ch in w)]
    return len(words) >= 2 and all(ch.isupper() for w in words for ch in w if ch.isalpha())


def _heading_levels(heads: list[PBlock], rank: dict[float, int]) -> dict[int, int]:
    """id(heading) -> level: its size's rank, largest = 1; headings at no ranked size (bold ones at
    body size) one below the smallest, and one further below where they are in mixed case while
    others at body size are in capitals: a typographic step like a size, so that "Overview" sits
    under "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS", "Note 2. Net Income" under "ITEM 8. FINANCIAL
    STATEMENTS", "Section 1.01" under "ARTICLE I"."""
    below = len(rank) + 1
    plain = [b for b in heads if b.size not in rank]
    capitals = {id(b) for b in plain if _in_capitals(b.text)}
    levels = {id(b): rank[b.size] for b in heads if b.size in rank}
    levels.update({id(b): below + 1 if capitals and id(b) not in capitals else below for b in plain})
    return levels


def _initials_are_no_items(blocks: list[PBlock], kinds: dict[int, str]) -> None:
    """A block opening with a lone letter and a full stop ("J. Coastal Rec.", "C. Darwin wrote")
    is a list item only as a list's first item or beside its sibling ("B." after "A."); else
    the letter is an initial and the block stays a paragraph (`kinds` is updated)."""
    labels = {id(b): label for b in blocks
              if kinds.get(id(b)) == "list_item" and (label := list_label(b.text)) is not None}
    for b in blocks:
        label = labels.get(id(b))
        if label is None or label.kind not in ("lower", "upper") or label.punct != "." or is_first(label):
            continue
        if not any(follows(o, label) or follows(label, o) for o in labels.values() if o is not label):
            del kinds[id(b)]


def _pick_title(
    pages: list[tuple[PageInfo, list[PBlock]]], size_heads: list[PBlock], kinds: dict[int, str],
    settings: PdfSettings,
) -> PBlock | None:
    """The largest text on page 1 near its top (a size heading there), to be labelled `title`; None
    when there is none."""
    if not pages:
        return None
    info, first = pages[0]
    heads = {id(b) for b in size_heads}
    cands = [
        b
        for b in first
        if kinds.get(id(b), b.kind) == "heading" and id(b) in heads
        and b.top <= settings.title_max_top_fraction * info.height
    ]
    if not cands:
        return None
    biggest = max(b.size for b in cands)
    if any(b.size > biggest for b in first if b.drop_reason is None):
        return None
    return min((b for b in cands if b.size == biggest), key=lambda b: b.top)
