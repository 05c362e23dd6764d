"""Stage 2 (chars to words to lines) on inline chars: a row is built from characters on one baseline,
so two rows of small type close together never interleave, while sub- and superscripts stay on their
line and a neighbouring column at an offset baseline does not pull rows together."""
from __future__ import annotations

from docclean_assets.extract.pdf.chars import INFERRED_SPACE, Char
from docclean_assets.extract.pdf.lines import chars_to_words, words_to_lines
from docclean_assets.extract.pdf.settings import PdfSettings

PAGE_H = 800.0
ADVANCE_EM = 0.5  # each test glyph is half an em wide, so a 7 pt row advances 3.5 pt a char


def _chars(text: str, x: float, baseline: float, size: float, seq: int = 0) -> list[Char]:
    """One run of text on a baseline (y up, as PDF user space), a char every ADVANCE_EM em."""
    out, adv = [], ADVANCE_EM * size
    for i, ch in enumerate(text):
        x0 = x + i * adv
        top = PAGE_H - baseline - 0.75 * size
        out.append(Char(ch, x0, top, x0 + adv, top + size, size, "Helvetica", 0.0, x0, baseline, 0.0, seq + i, adv))
    return out


def _row_texts(chars: list[Char]) -> list[str]:
    """The words, joined by row, rows from top to bottom."""
    rows: dict[int, list[str]] = {}
    for w in chars_to_words(chars, PdfSettings()):
        rows.setdefault(w.row, []).append(w.text)
    return [" ".join(ws) for _, ws in sorted(rows.items())]


def test_two_rows_of_7_pt_type_1_pt_apart_never_interleave():
    upper = _chars("Revenue 2019", 300, 500.0, 7.0)
    lower = _chars("Expenses 2020", 300.8, 499.0, 7.0, seq=100)  # 1 pt lower, offset by less than a glyph
    assert _row_texts(upper + lower) == ["Revenue 2019", "Expenses 2020"]


def test_a_taller_column_beside_a_small_table_does_not_pull_its_rows_together():
    # a 12 pt body line whose baseline lies between two 7 pt table rows 3 pt apart: before, the
    # body's size set the row tolerance (6 pt) and both table rows joined its row, interleaved
    body = _chars("The committee met on a Tuesday", 50, 501.5, 12.0)
    row_a = _chars("Total assets 1,204", 320, 503.0, 7.0, seq=100)
    row_b = _chars("Net income 96", 320, 500.0, 7.0, seq=200)
    texts = _row_texts(body + row_a + row_b)
    assert "Total assets 1,204" in " | ".join(texts) and "Net income 96" in " | ".join(texts)
    words = {w.text for w in chars_to_words(body + row_a + row_b, PdfSettings())}
    assert {"Total", "assets", "1,204", "Net", "income", "96"} <= words  # no word made of both rows


def test_superscripts_and_subscripts_stay_on_their_line():
    line = _chars("in the second,", 50, 500.0, 10.0) + _chars("1", 120, 503.5, 6.0, seq=50) \
        + _chars(" the figure rose H", 123, 500.0, 10.0, seq=60) + _chars("2", 213, 498.0, 6.0, seq=90) \
        + _chars("O", 216, 500.0, 10.0, seq=91)
    [row] = _row_texts(line)
    assert row.startswith("in the second,1 the figure rose")


def test_an_accent_drawn_over_its_letter_is_composed_with_it():
    def glyph(ch, x0, x1, seq):
        return Char(ch, x0, 300, x1, 310, 10.0, "CMR10", 0.0, x0, 500.0, 0.0, seq, x1 - x0)

    # TeX's OT1 fonts: "J a ´ n" with the accent over the a, "M i n a ´ c ˇ", "n a ¨ ı v e"
    chars = [glyph("J", 50, 55, 0), glyph("a", 55, 60, 1), glyph("´", 56, 59, 2), glyph("n", 60, 65, 3),
             glyph("c", 80, 85, 4), glyph("ˇ", 81, 84, 5), glyph("n", 100, 105, 6), glyph("a", 105, 110, 7),
             glyph("¨", 110.5, 113.5, 8), glyph("ı", 110, 114, 9), glyph("v", 114, 119, 10)]
    words = [w.text for w in chars_to_words(chars, PdfSettings())]
    assert words == ["Ján", "č", "naïv"]
    # an accent beside a letter, not over it, stays a character of its own
    assert [w.text for w in chars_to_words([glyph("a", 50, 55, 0), glyph("^", 55.2, 60, 1)], PdfSettings())] == ["a^"]


def _lines(chars: list[Char]) -> list[str]:
    s = PdfSettings()
    return [ln.text for ln in words_to_lines(chars_to_words(chars, s), s)]


def test_a_drop_cap_opens_the_first_line_beside_it():
    # a 3-line initial "O" (31.7 pt) beside 8.5 pt lines 10 pt apart, its baseline on the third line's
    cap = [Char("O", 165.7, PAGE_H - 181.2 - 24.0, 191.8, PAGE_H - 181.2 + 6.0, 31.7, "Helvetica", 0.0,
                165.7, 181.2, 0.0, 0, 26.0)]
    one = _chars("ver the past three decades", 192.8, 201.0, 8.5, seq=10)
    two = _chars("pressure from the outside", 192.8, 191.0, 8.5, seq=100)
    three = _chars("sations and the others", 192.8, 180.8, 8.5, seq=200)
    assert _lines(cap + one + two + three) == ["Over the past three decades", "pressure from the outside",
                                              "sations and the others"]


def test_a_superscript_joins_the_line_it_is_raised_from_not_one_it_barely_touches():
    # a drop cap stretches one row over three lines (A over B over C); "2 3" rise 3.3 pt above A's
    # "century." and overlap one glyph of B and two of C: A is the line they are raised from, though
    # B, larger, is the first line they do not collide with
    cap = [Char("O", 20.0, PAGE_H - 181.2 - 24.0, 46.0, PAGE_H - 181.2 + 6.0, 31.7, "Helvetica", 0.0,
                20.0, 181.2, 0.0, 0, 26.0)]
    a = _chars("century.", 440.0, 190.9, 8.5, seq=10)
    sup = _chars("2", 474.0, 194.2, 4.26, seq=40) + _chars("3", 478.9, 194.2, 4.26, seq=41)
    b = _chars("abcdefghijklmno", 412.25, 180.8, 8.5, seq=50)
    c = _chars("pqrstuvwxyzabcdefghijklmnopqrs", 380.0, 170.7, 8.5, seq=100)
    texts = _lines(cap + a + sup + b + c)
    assert "century.2 3" in texts and "abcdefghijklmno" in texts


def test_display_type_beside_small_text_is_no_drop_cap():
    title = _chars("BIG", 50.0, 500.0, 30.0)
    small = _chars("a note in small type beside it", 200.0, 500.0, 8.0, seq=50)
    assert any(t.startswith("BIG") for t in _lines(title + small))  # not B, I and G as three initials


def _spaced(words: list[str], gap_em: float, size: float, inferred: bool) -> list[Char]:
    """Words on one baseline `gap_em` apart, no space char drawn; with `inferred`, a space PDFium
    inferred (chars.INFERRED_SPACE, an empty box where the word before ends) in each gap."""
    out, x, seq = [], 100.0, 0
    for w in words:
        if out and inferred:
            out.append(Char(INFERRED_SPACE, x - gap_em * size, PAGE_H - 500.0, x - gap_em * size, PAGE_H - 500.0,
                            size, "Helvetica", 0.0, x - gap_em * size, 500.0, 0.0, seq, 0.0))
            seq += 1
        run = _chars(w, x, 500.0, size, seq)
        out += run
        seq += len(run)
        x = run[-1].x1 + gap_em * size
    return out


def test_a_space_pdfium_inferred_splits_words_only_where_the_glyphs_leave_a_gap():
    # justified 10-K text: a word gap of 0.1 em, under word_gap_em, where PDFium inferred a space
    assert _row_texts(_spaced(["of", "operations"], 0.1, 9.0, inferred=True)) == ["of operations"]
    assert _row_texts(_spaced(["of", "operations"], 0.1, 9.0, inferred=False)) == ["ofoperations"]
    # a kerning gap under inferred_space_min_em is no word gap, inferred space or not
    assert _row_texts(_spaced(["kern", "ing"], 0.03, 9.0, inferred=True)) == ["kerning"]
    # the same word drawn twice, the first time with glyphs missing: its inferred space lies
    # under a glyph of the full drawing, which leaves no gap there
    full = _chars("initially", 100.0, 500.0, 9.0, 100)
    partial = [c for c in _chars("initially", 100.0, 500.0, 9.0) if c.text != "y"]
    hole = full[-1].x0 - 0.5
    space = Char(INFERRED_SPACE, hole, PAGE_H - 500.0, hole, PAGE_H - 500.0, 9.0, "Helvetica", 0.0, hole, 500.0,
                 0.0, 50, 0.0)
    assert _row_texts(partial + [space] + full) == ["initially"]


def test_an_accent_drawn_over_its_letter_leaves_no_gap_for_an_inferred_space():
    # "Ja´n" (math_2503_04086 of olmOCR-bench): the acute accent is drawn over the "a" and ends before
    # it, 0.1 em short of the "n" (under word_gap_em); PDFium infers a space after the accent, and the
    # "n" starts where the "a" ends
    size = 10.0
    ja = _chars("Ja", 100.0, 500.0, size)
    a = ja[-1]
    top = PAGE_H - 500.0 - 0.75 * size
    accent = Char("\u00b4", a.x0 + 1.0, top - 2.0, a.x0 + 4.0, top + 2.0, size, "Helvetica", 0.0, a.x0 + 1.0, 500.0,
                  0.0, 10, 2.0)
    space = Char(INFERRED_SPACE, accent.x1, PAGE_H - 500.0, accent.x1, PAGE_H - 500.0, size, "Helvetica", 0.0,
                 accent.x1, 500.0, 0.0, 11, 0.0)
    n = _chars("n", a.x1, 500.0, size, 12)
    assert [w.text for w in chars_to_words(ja + [accent, space] + n, PdfSettings())] == ["Ján"]
