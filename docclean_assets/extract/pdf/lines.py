"""Stage 2: chars to words to lines, by geometry (vertical overlap relative to font size, x gaps)."""
from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections import Counter
from functools import partial
from operator import attrgetter

from docclean_assets.extract.bidi import visual_to_logical
from docclean_assets.extract.pdf.chars import INFERRED_SPACE, Char, is_bold_font, size_key
from docclean_assets.extract.pdf.labels import list_label
from docclean_assets.extract.pdf.model import Line, Word
from docclean_assets.extract.pdf.settings import PdfSettings

_BY_OY, _BY_X = attrgetter("oy"), attrgetter("x0", "seq")
_X0, _TOP_X0 = attrgetter("x0"), attrgetter("top", "x0")  # words in a row; lines on a page
# Word((...)) without the named constructor's Python frame (a word per ~5 chars of every page)
_new_word = partial(tuple.__new__, Word)


def _rows(chars: list[Char], settings: PdfSettings) -> list[list[Char]]:
    """Cluster chars into rows: a char joins the current row when its baseline lies within
    `line_overlap_ratio` x the row's largest font size of the row's (size-weighted) mean baseline;
    then a row whose baseline groups collide horizontally is split into one row per line.

    Baselines (glyph origins) are used rather than box centres: math and symbol fonts have boxes far
    taller than their glyphs, which would put an inline symbol on a row of its own.
    """
    ratio = settings.line_overlap_ratio
    order = sorted(chars, key=_BY_OY, reverse=True)  # top first; stable, as sorting by -oy
    rows: list[list[Char]] = []
    cur: list[Char] = []
    wsum = msum = 0.0
    big = 0.0
    for c in order:  # per char: comparisons inline, not max() (this loop sees every char of the page)
        mid, size = -c.oy, c.size
        if cur and abs(mid - msum / wsum) > ratio * (big if big > size else size):
            rows.extend(_split_collisions(cur, settings))
            cur, wsum, msum, big = [], 0.0, 0.0, 0.0
        cur.append(c)
        wsum += size
        msum += mid * size
        if size > big:
            big = size
    if cur:
        rows.extend(_split_collisions(cur, settings))
    return rows


def _baseline_groups(row: list[Char], em: float) -> list[list[Char]]:
    """The row's chars (top baseline first) in runs whose consecutive baselines differ by at most
    `em` of the larger size: the lines (and raised or lowered scripts) the row holds."""
    groups: list[list[Char]] = []
    group: list[Char] = []
    last: Char | None = None
    for c in row:  # already sorted by baseline, top first
        if last is not None and abs(last.oy - c.oy) <= em * (last.size if last.size > c.size else c.size):
            group.append(c)
        else:
            group = [c]
            groups.append(group)
        last = c
    return groups


def _split_collisions(row: list[Char], settings: PdfSettings) -> list[list[Char]]:
    """The row as one row per line: baseline groups join, largest first, the line with the nearest
    baseline among those they do not overlap horizontally (sub- and superscripts, a neighbouring
    column); a group that overlaps every line so far starts its own. Top line first.

    Nearest, not first: a row stretched over three lines by a drop cap holds a superscript pair
    that overlaps one glyph of the line below it; it belongs to the line it is raised from."""
    caps = _drop_caps(row, settings)
    if caps:  # each its own row; `_attach_drop_caps` puts it before the line it opens
        rest = [c for c in row if all(c is not cap for cap in caps)]
        out = [*_split_collisions(rest, settings), *([cap] for cap in caps)]
        return sorted(out, key=lambda chars: -sum(c.oy * c.size for c in chars) / sum(c.size for c in chars))
    groups = _baseline_groups(row, settings.baseline_group_em)
    if len(groups) == 1:
        return [row]
    # chars, sorted x-spans, baseline, [lowest, highest] glyph origin
    lines: list[tuple[list[Char], list[tuple[float, float]], float, list[float]]] = []
    for group in sorted(groups, key=len, reverse=True):
        spans = sorted((c.x0, c.x1) for c in group if not c.text.isspace())
        base = group[len(group) // 2].oy
        reach = [min(c.oy for c in group), max(c.oy for c in group)]
        free = [line for line in lines
                if not _collide(spans, line[1], settings) and not _stacked(group, reach, line, settings)]
        if not free:
            lines.append((list(group), spans, base, reach))
            continue
        home = min(free, key=lambda line: abs(line[2] - base))
        home[0].extend(group)
        home[1][:] = sorted(home[1] + spans)
        home[3][:] = [min(home[3][0], reach[0]), max(home[3][1], reach[1])]
    if len(lines) == 1:
        return [row]
    out = [sorted(chars, key=lambda c: -c.oy) for chars, _, _, _ in lines]
    return sorted(out, key=lambda chars: -sum(c.oy * c.size for c in chars) / sum(c.size for c in chars))


def _drop_caps(row: list[Char], s: PdfSettings) -> list[Char]:
    """Lone letters of the row set at least `drop_cap_min_size_ratio` times its most common size:
    initials sunk into the first lines of a paragraph (a word of such letters is display type)."""
    if len(row) < 2:
        return []
    sizes_of = [c.size for c in row]  # min and max over a list: two passes in C, not generators
    if max(sizes_of) < s.drop_cap_min_size_ratio * min(sizes_of):
        return []  # one size throughout, as in most rows: no cap (and no count of sizes)
    sizes = Counter(round(c.size, 1) for c in row if not c.text.isspace())
    if not sizes:
        return []
    text = sizes.most_common(1)[0][0]
    big = [c for c in row if not c.text.isspace() and c.size >= s.drop_cap_min_size_ratio * text]

    def alone(c: Char) -> bool:
        return all(o is c or o.x0 > c.x1 + (c.x1 - c.x0) or o.x1 < c.x0 - (c.x1 - c.x0) for o in big)

    return [c for c in big if c.text.isalpha() and alone(c)]


def _attach_drop_caps(lines: list[Line], s: PdfSettings) -> list[Line]:
    """Each drop cap (a line of one letter set `drop_cap_min_size_ratio` times the size of the lines
    beside it) joined to the front of the line it opens: of the lines beside the cap starting at
    most `drop_cap_max_gap_em` of their size to its right, the one whose top is nearest the cap's."""
    if not lines:
        return lines
    ratio = s.drop_cap_min_size_ratio
    smallest = min(ln.size for ln in lines)  # a cap is that much larger than some line, or no cap
    out = list(lines)
    for cap in [ln for ln in lines if ln.n == 1 and ln.text.isalpha() and ln.size >= ratio * smallest]:
        near = [ln for ln in out if ln is not cap and ln.size * ratio <= cap.size
                and 0 <= ln.x0 - cap.x1 <= s.drop_cap_max_gap_em * ln.size
                and ln.bottom > cap.top and ln.top < cap.bottom]
        if not near:
            continue
        host = min(near, key=lambda ln: abs(ln.top - cap.top))
        first = host.words[0]
        if first.x0 - cap.x1 <= s.word_gap_em * first.size:
            words = [_join_words(cap.words[0]._replace(size=first.size), first), *host.words[1:]]
        else:
            words = [cap.words[0], *host.words]
        out = [make_line(words) if ln is host else ln for ln in out if ln is not cap]
    return sorted(out, key=lambda ln: (ln.top, ln.x0))


def _stacked(group: list[Char], reach: list[float], line: tuple, s: PdfSettings) -> bool:
    """Whether a glyph of the group sits at the x of a glyph of the line (over more than
    `row_collision_overlap` of the narrower width) with baselines more than `stack_max_em` of the
    larger size apart: one line never holds that, so they are two lines. `reach` and the line's
    last item are their lowest and highest glyph origins: most pairs are ruled out by those alone."""
    lo, hi = line[3]
    if max(abs(reach[1] - lo), abs(hi - reach[0])) <= s.stack_max_em * min(c.size for c in group):
        return False
    for c in group:
        if c.text.isspace():
            continue
        for o in line[0]:
            narrower = min(c.x1 - c.x0, o.x1 - o.x0)
            if (narrower > 0 and min(c.x1, o.x1) - max(c.x0, o.x0) > s.row_collision_overlap * narrower
                    and abs(c.oy - o.oy) > s.stack_max_em * max(c.size, o.size) and not o.text.isspace()):
                return True
    return False


def _collide(spans: list[tuple[float, float]], other: list[tuple[float, float]], settings: PdfSettings) -> bool:
    """Whether at least `row_collision_chars` glyphs of `spans` overlap a glyph of `other` over more
    than `row_collision_overlap` of the narrower width (both lists sorted by x0)."""
    starts = [x0 for x0, _ in other]
    widest = max((x1 - x0 for x0, x1 in other), default=0.0)
    hits = 0
    for x0, x1 in spans:
        i = bisect_left(starts, x0 - widest)
        while i < len(other) and other[i][0] < x1:
            ox0, ox1 = other[i]
            narrower = min(x1 - x0, ox1 - ox0)
            if narrower > 0 and min(x1, ox1) - max(x0, ox0) > settings.row_collision_overlap * narrower:
                hits += 1
                break
            i += 1
        if hits >= settings.row_collision_chars:
            return True
    return False


# Spacing accents a PDF may draw as glyphs of their own over a letter (TeX's OT1 fonts, typewriter
# output): "Ja´n Mina´cˇ" for "Ján Mináč". Each maps to its combining mark.
_ACCENTS = {"´": "\u0301", "`": "\u0300", "ˆ": "\u0302", "^": "\u0302", "˜": "\u0303", "~": "\u0303",
            "¨": "\u0308", "ˇ": "\u030c", "˘": "\u0306", "˙": "\u0307", "˚": "\u030a", "˝": "\u030b",
            "¸": "\u0327", "˛": "\u0328", "¯": "\u0304"}
_ACCENT_GLYPHS = frozenset(_ACCENTS)


def _word_text(chars: list[Char]) -> str:
    """The chars' text, with an accent glyph drawn over a letter (its horizontal centre inside the
    letter's box) composed with that letter ("a" + "´" -> "á")."""
    text = "".join([c.text for c in chars])
    if _ACCENT_GLYPHS.isdisjoint(text) or not any(c.text in _ACCENTS for c in chars):
        return text
    out: list[str] = []
    pending = ""  # an accent drawn before the letter it sits over
    for i, c in enumerate(chars):
        mark = _ACCENTS.get(c.text)
        if mark is not None:
            mid = (c.x0 + c.x1) / 2
            prev, nxt = (chars[i - 1] if i else None), (chars[i + 1] if i + 1 < len(chars) else None)
            if prev is not None and prev.text.isalpha() and prev.x0 <= mid <= prev.x1:
                out[-1] = out[-1].replace("ı", "i") + mark  # TeX sets an accent over a dotless i
                continue
            if nxt is not None and nxt.text.isalpha() and nxt.x0 <= mid <= nxt.x1:
                pending += mark
                continue
        out.append(c.text.replace("ı", "i") + pending if pending and c.text.isalpha() else c.text)
        pending = ""
    return unicodedata.normalize("NFC", "".join(out))


def script_spans(chars: list[Char], base: tuple[float, float], s: PdfSettings) -> tuple[tuple[int, int], ...]:
    """Offsets of the runs of `chars` that are superscripts of their row: set at most
    `raised_max_size_fraction` of the row's modal size and raised at least `script_min_rise_em` of
    it above the row's baseline (`base`: that baseline and size)."""
    oy, size = base
    spans: list[tuple[int, int]] = []
    pos = 0
    for c in chars:
        end = pos + len(c.text)
        if c.size <= s.raised_max_size_fraction * size and c.oy - oy >= s.script_min_rise_em * size:
            if spans and spans[-1][1] == pos:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((pos, end))
        pos = end
    return tuple(spans)


def _word(chars: list[Char], row: int, base: tuple[float, float] | None, s: PdfSettings) -> Word:
    """The chars as one word; its size is their modal size rounded to `size_step_pt` points.
    Raised runs are only told in a row that may hold them (`base`) and where no accent was composed
    (offsets then match the chars), above the word's own baseline where it has glyphs of the row's
    size: a row may hold two columns' lines whose baselines differ by a few points."""
    first = chars[0]
    first_size, mixed = first.size, False
    x0, top, x1, bottom = first.x0, first.top, first.x1, first.bottom
    for c in chars:  # one pass for the box and sizes (separate passes cost more on short words)
        if c.x0 < x0:
            x0 = c.x0
        if c.top < top:
            top = c.top
        if c.x1 > x1:
            x1 = c.x1
        if c.bottom > bottom:
            bottom = c.bottom
        if c.size != first_size:
            mixed = True
    if mixed:
        size = Counter(size_key(c.size, s.size_step_pt) for c in chars).most_common(1)[0][0]
    else:  # most words: one size, no count needed
        size = size_key(first_size, s.size_step_pt)
    text = _word_text(chars)
    exact = base is not None and len(text) == sum(len(c.text) for c in chars)
    if exact and mixed:  # from the word's own glyphs of the row's size, when it has some
        own = sorted(c.oy for c in chars if size_key(c.size, s.size_step_pt) == base[1])  # type: ignore[index]
        if own:
            base = (own[len(own) // 2], base[1])  # type: ignore[index]
    raised = script_spans(chars, base, s) if exact else ()  # type: ignore[arg-type]
    return _new_word((text, x0, top, x1, bottom, size, len(chars),
                      sum(map(is_bold_font, [c.fontname for c in chars])), row, first.size, raised))


def _row_base(row: list[Char], s: PdfSettings) -> tuple[float, float] | None:
    """The row's baseline and size: the median origin of the chars set in its most common size;
    None when no char is small enough to be a superscript of it (most rows: nothing to measure)."""
    # the row's size below is rounded to `size_step_pt`: a step above its largest char bounds it
    sizes = [c.size for c in row]  # min and max over a list: two passes in C, not generators
    if min(sizes) > s.raised_max_size_fraction * (max(sizes) + s.size_step_pt):
        return None
    step = s.size_step_pt
    inked = [c for c in row if not c.text.isspace()]
    if not inked:
        return row[0].oy, row[0].size
    key = size_key(inked[0].size, step)
    if any(c.size != inked[0].size for c in inked) and any(size_key(c.size, step) != key for c in inked):
        key = Counter(size_key(c.size, step) for c in inked).most_common(1)[0][0]
    main = sorted(c.oy for c in row if not c.text.isspace() and size_key(c.size, step) == key)
    return main[len(main) // 2], key


def chars_to_words(chars: list[Char], settings: PdfSettings) -> list[Word]:
    """Words in row order (top to bottom), left to right within a row.

    Overprinted duplicates (fake bold: the same glyph again within `duplicate_char_em`) are dropped.
    """
    words: list[Word] = []
    split_em, dup_em, inferred_em = settings.word_gap_em, settings.duplicate_char_em, settings.inferred_space_min_em
    for r, row in enumerate(_rows(chars, settings)):
        row.sort(key=_BY_X)
        base = _row_base(row, settings)
        cur: list[Char] = []
        inferred = False  # a space PDFium inferred lies between the last char and the next
        reach = 0.0  # the right edge of the current word's chars
        for c in row:
            if c.text == INFERRED_SPACE:
                inferred = True
                continue
            if c.text.isspace():
                if cur:
                    words.append(_word(cur, r, base, settings))
                    cur = []
                continue
            if cur:
                p = cur[-1]
                size = c.size
                tol = dup_em * size
                if c.text == p.text and abs(c.x0 - p.x0) < tol and abs(c.top - p.top) < tol:
                    continue
                em = size if size < p.size else p.size
                if c.x0 - p.x1 > split_em * em or (inferred and c.x0 - reach >= inferred_em * em):
                    words.append(_word(cur, r, base, settings))
                    cur = []
            inferred = False
            reach = c.x1 if not cur or c.x1 > reach else reach  # an accent over its letter ends no later
            cur.append(c)
        if cur:
            words.append(_word(cur, r, base, settings))
    return words


def make_line(words: list[Word]) -> Line:
    size = words[0].size
    if any(w.size != size for w in words):  # most lines: one size, no count needed
        sizes: Counter[float] = Counter()
        for w in words:
            sizes[w.size] += w.n
        size = sizes.most_common(1)[0][0]
    return Line(
        visual_to_logical(" ".join(w.text for w in words)),
        min(w.x0 for w in words),
        min(w.top for w in words),
        max(w.x1 for w in words),
        max(w.bottom for w in words),
        size,
        sum(w.n for w in words),
        sum(w.bold for w in words),
        tuple(words),
    )


def words_to_lines(words: list[Word], settings: PdfSettings) -> list[Line]:
    """Lines sorted by top: each row's words split at gaps wider than `line_split_gap_em` that line
    up with empty space in the neighbouring rows (gutters, table cells), never at a stretched
    justified space that only this row has, nor after a row's list label (a bullet drawn apart from
    its text: the next items' labels line up too) short of `isolated_split_gap_em`."""
    rows: list[list[Word]] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and words[j].row == words[i].row:
            j += 1
        rows.append(sorted(words[i:j], key=_X0))
        i = j
    lines: list[Line] = []
    for r, row in enumerate(rows):
        cur: list[Word] = [row[0]]
        for w in row[1:]:
            p = cur[-1]
            size = w.size if w.size > p.size else p.size  # max(), without the call
            gap = w.x0 - p.x1
            hanging = len(cur) == 1 and list_label(f"{p.text} {w.text}") is not None  # a label's indent
            if gap > settings.line_split_gap_em * size and (
                gap > settings.isolated_split_gap_em * size
                or (not hanging and _gap_supported(rows, r, p, w, size, settings))
            ):
                lines.append(make_line(cur))
                cur = []
            cur.append(w)
        lines.append(make_line(cur))
    lines.sort(key=_TOP_X0)
    return _attach_raised(_attach_drop_caps(lines, settings), settings)


def _gap_supported(rows: list[list[Word]], r: int, p: Word, w: Word, size: float, s: PdfSettings) -> bool:
    """Whether the rows around row r repeat the gap between p and w, as at a gutter or a cell
    boundary: inside the gap's x-range they too leave a free run of at least `split_free_em` em
    (support), where justified text puts words (against). Rows with no word near the gap (the
    other column's own leading) say nothing. Support must outnumber all other informative rows."""
    lo, hi = p.x1, w.x0
    need, near = s.split_free_em * size, s.split_near_em * size
    support = against = 0
    top = rows[r][0].top
    for step in (-1, 1):
        seen, q = 0, r + step
        while 0 <= q < len(rows) and seen < s.split_context_rows and abs(rows[q][0].top - top) <= s.split_context_em * size:
            inside = sorted((max(v.x0, lo), min(v.x1, hi)) for v in rows[q] if v.x1 > lo and v.x0 < hi)
            close = inside or any(lo - near <= v.x1 <= lo or hi <= v.x0 <= hi + near for v in rows[q])
            if close:
                seen += 1
                free, edge = 0.0, lo
                for a, b in inside:
                    free, edge = max(free, a - edge), max(edge, b)
                free = max(free, hi - edge)
                if free >= need:
                    support += 1
                else:
                    against += 1
            q += step
    return support >= s.split_min_support_rows and support > against


def _join_words(a: Word, b: Word) -> Word:
    shift = len(a.text)
    raised = [*a.raised]
    for x, y in b.raised:
        if raised and raised[-1][1] == x + shift:
            raised[-1] = (raised[-1][0], y + shift)
        else:
            raised.append((x + shift, y + shift))
    return Word(
        a.text + b.text, min(a.x0, b.x0), min(a.top, b.top), max(a.x1, b.x1), max(a.bottom, b.bottom),
        a.size if a.n >= b.n else b.size, a.n + b.n, a.bold + b.bold, a.row, a.first_size, tuple(raised),
    )


def _attach_raised(lines: list[Line], s: PdfSettings) -> list[Line]:
    """Fold short lines of smaller type (superscripts, subscripts, raised footnote markers) into the
    line of larger type whose band they overlap and whose horizontal extent holds them (the
    `raised_*` settings)."""
    tops = [ln.top for ln in lines]
    absorbed: dict[int, list[Word]] = {}
    gone: set[int] = set()
    split_em, ratio = s.word_gap_em, s.raised_max_size_fraction
    for i, ln in enumerate(lines):
        if ln.n > s.raised_max_chars:
            continue
        h = max(ln.bottom - ln.top, 0.1)  # 0.1 pt: a guard for zero-height boxes, no threshold
        # Hosts start at most `raised_search_em` em above it, in em of the smallest host the ratio allows.
        lo = bisect_left(tops, ln.top - s.raised_search_em * ln.size / ratio)
        best, best_ov = None, 0.0
        for j in range(lo, len(lines)):
            cand = lines[j]
            if cand.top > ln.bottom:
                break
            if j == i or j in gone or ln.size > ratio * cand.size or cand.n <= ln.n:
                continue
            ov = min(ln.bottom, cand.bottom) - max(ln.top, cand.top)
            hgap = max(cand.x0 - ln.x1, ln.x0 - cand.x1, 0.0)
            reach = s.raised_max_lead_gap_em if ln.x1 <= cand.x0 else s.raised_max_gap_em  # a note's hung marker
            if ov >= s.raised_min_overlap_fraction * h and hgap <= reach * cand.size and ov > best_ov:
                best, best_ov = j, ov
        if best is not None and best not in absorbed.get(i, ()):  # no chains
            host = lines[best]
            up = host.bottom - ln.bottom >= s.script_min_rise_em * host.size  # a superscript, not a subscript
            absorbed.setdefault(best, []).extend(w._replace(raised=((0, len(w.text)),)) if up else w for w in ln.words)
            gone.add(i)
    if not gone:
        return lines
    out: list[Line] = []
    for i, ln in enumerate(lines):
        if i in gone:
            continue
        if i not in absorbed:
            out.append(ln)
            continue
        merged: list[Word] = []
        for w in sorted([*ln.words, *absorbed[i]], key=lambda w: w.x0):
            if merged and w.x0 - merged[-1].x1 <= split_em * max(w.size, merged[-1].size):
                merged[-1] = _join_words(merged[-1], w)
            else:
                merged.append(w)
        out.append(make_line(merged))
    return out
