"""PDF list items on inline lines: a labelled line opens a new item (the next enumerator, the same
bullet again, or a list's first label after the line introducing it), wrapped lines stay with their
item, and stage 6 labels each item `list_item` with its label in meta."""
from __future__ import annotations

from docclean_assets.extract.pdf.blocks import lines_to_blocks
from docclean_assets.extract.pdf.model import PBlock, Word
from docclean_assets.extract.pdf.chars import PageInfo
from docclean_assets.extract.pdf.kinds import blocks_to_kinds
from docclean_assets.extract.pdf.labels import follows, is_first, list_label
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.settings import PdfSettings

S = PdfSettings()
BODY = 10.0
CHAR_W = 5.0


def _line(text: str, top: float, x0: float = 72.0):
    words, x = [], x0
    for w in text.split():
        words.append(Word(w, x, top, x + CHAR_W * len(w), top + BODY, BODY, len(w), 0, 0, BODY))
        x += CHAR_W * (len(w) + 1)
    return make_line(words)


def _blocks(texts: list[str]) -> list[str]:
    lines = [_line(t, 100 + 12 * i, 72 if not t.startswith("  ") else 82) for i, t in enumerate(texts)]
    return [b.text for b in lines_to_blocks(lines, 1, S)]


def test_labels_and_their_order():
    assert [list_label(t).text for t in ("1. Review", "2) Flag", "(a) first", "iv. four", "• dot")] == \
        ["1.", "2)", "(a)", "iv.", "•"]
    assert all(list_label(t) is None for t in ("1.5 metres long", "12:30 pm", "e.g. this", "Mr. Smith", "3.14"))
    assert follows(list_label("1. a"), list_label("2. b")) and follows(list_label("i. a"), list_label("ii. b"))
    assert not follows(list_label("1. a"), list_label("3. c")) and not follows(list_label("1. a"), list_label("2) b"))
    assert is_first(list_label("1. a")) and is_first(list_label("• a")) and not is_first(list_label("2. b"))


def test_numbered_items_after_an_introducing_line_are_one_block_each():
    texts = ["Before the meeting, do the following:", "1. Review the plan and note what changed since",
             "the spring survey.", "2. Flag any risk to the board in writing.", "3. Send the minutes."]
    assert _blocks(texts) == ["Before the meeting, do the following:",
                              "1. Review the plan and note what changed since the spring survey.",
                              "2. Flag any risk to the board in writing.", "3. Send the minutes."]


def test_bullets_are_one_block_each_and_prose_that_wraps_onto_a_number_is_not_split():
    assert _blocks(["• one item of the list", "• another item of it"]) == ["• one item of the list", "• another item of it"]
    prose = ["The committee compared the figures for the years up to", "2. Its second report followed."]
    assert _blocks(prose) == [" ".join(prose)]


def test_stage_6_labels_each_item_with_its_label():
    lines = [_line("1. Review the plan.", 100), _line("2. Flag any risk.", 112)]
    first = lines_to_blocks(lines[:1], 1, S)[0]
    second = PBlock([lines[1]], 1)
    [out] = blocks_to_kinds([(PageInfo(1, 612.0, 792.0), [first, second])], BODY, S)
    assert [(b.kind, dict(b.extra).get("list_label")) for b in out] == [("list_item", "1."), ("list_item", "2.")]


def test_a_generated_page_of_numbered_and_bulleted_items():
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    from docclean_assets.extract.api import extract_document
    from docclean_assets.extract.settings import Settings

    rows = ["Before the meeting, do the following:", "1. Review the plan and note what changed since",
            "the spring survey of the harbour walls.", "2. Flag any risk to the board in writing.",
            "3. Send the minutes to every member.", "", "Bring these:", "\u2022 the tide tables",
            "\u2022 the survey drawings"]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont("Helvetica", 10)
    for i, row in enumerate(rows):
        x = 84 if row.startswith("the spring") else 72  # a wrapped line hangs under the item's text
        c.drawString(x, 700 - 14 * i, row)
    c.save()
    blocks = extract_document(buf.getvalue(), "pdf", Settings()).blocks
    items = [(b.text, b.get_meta("list_label")) for b in blocks if b.kind == "list_item"]
    assert items == [("1. Review the plan and note what changed since the spring survey of the harbour walls.", "1."),
                     ("2. Flag any risk to the board in writing.", "2."), ("3. Send the minutes to every member.", "3."),
                     ("\u2022 the tide tables", "\u2022"), ("\u2022 the survey drawings", "\u2022")]


def test_labels_drawn_apart_from_their_text_stay_with_their_item():
    """Word and LaTeX draw a bullet or number as its own text object at the list's indent and the
    text a tab further: the labels of the next items line up like a table column, yet each label
    stays with its item and the items stay apart (before: the bullets alone, the items merged)."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    from docclean_assets.extract.api import extract_document
    from docclean_assets.extract.settings import Settings

    items = [["Review the draft with the whole team before", "the meeting starts and note every question."],
             ["Flag the sections that need legal review."], ["Send the final version to the board."]]
    for label, tab in (("\u2022", 18.0), ("\u2013", 24.0), ("#.", 18.0)):
        buf = io.BytesIO()
        c = canvas.Canvas(buf, pagesize=A4)
        c.setFont("Helvetica", 11)
        c.drawString(72, 720, "Before the meeting, please do the following:")
        y = 700.0
        for k, lines in enumerate(items, 1):
            c.drawString(90, y, label.replace("#", str(k)))
            for text in lines:
                c.drawString(90 + tab, y, text)
                y -= 14
        c.drawString(72, y - 10, "Thank you for your help.")
        c.save()
        blocks = extract_document(buf.getvalue(), "pdf", Settings()).blocks
        got = [(b.kind, b.text) for b in blocks]
        want = [("list_item", f"{label.replace('#', str(k))} {' '.join(lines)}") for k, lines in enumerate(items, 1)]
        assert got == [("paragraph", "Before the meeting, please do the following:"), *want,
                       ("paragraph", "Thank you for your help.")], label


def test_a_lone_initial_is_no_list_label():
    """"J. Coastal Rec." (a journal's short title) and "T. Darwin wrote ..." open with a letter and a
    full stop but no list: paragraphs. "A." then "B." are items; so is a list's first letter alone."""
    texts = ["J. Coastal Rec.", "T. Darwin wrote the first account of the harbour's reefs.",
             "A. The tide tables", "B. The survey drawings", "a. one item lists start somewhere"]
    blocks = [PBlock([_line(t, 100 + 40 * i)], 1) for i, t in enumerate(texts)]
    [page] = blocks_to_kinds([(PageInfo(1, 595.0, 842.0), blocks)], BODY, S)
    assert [b.kind for b in page] == ["paragraph", "paragraph", "list_item", "list_item", "list_item"]
