"""Builders of hostile and awkward PDFs for the PDF backend (rotated pages, glyphs that expand to
long strings, long tokens), written object by object so every matrix and CMap is deliberate."""
from __future__ import annotations

import zlib

from docclean_assets_tests.fixtures.build_pdf import Style, wrap
from docclean_assets_tests.fixtures.pdf_text import REPORT_SECTIONS, plain
from docclean_assets_tests.hostile.cases import pdf_stream, raw_pdf

MEDIA_W, MEDIA_H = 612.0, 792.0  # user space of every generated page (the MediaBox)
FONT, SIZE, LEADING, PARA_GAP = "Helvetica", 10.0, 13.0, 9.0
MARGIN, GUTTER = 54.0, 30.0
STAMP = "arXiv:2401.01234v2 [cs.DL] 14 Feb 2024"
STAMP_2 = "Downloaded from https://harbour.example.org by Riverside Library on 3 May 2024"

# Six paragraphs of the report sample's prose: three per column.
ROTATED_PARAGRAPHS: list[str] = [plain(p) for _, paras in REPORT_SECTIONS[1:3] for p in paras][:6]

# Text-space to user-space placement of a frame of size (w, h) turned `turn` degrees counter-
# clockwise on the MediaBox: (a, b, c, d) and the origin offset, PDF matrix convention.
_TURNS = {
    0: ((1, 0, 0, 1), (0.0, 0.0)),
    90: ((0, 1, -1, 0), (MEDIA_W, 0.0)),
    180: ((-1, 0, 0, -1), (MEDIA_W, MEDIA_H)),
    270: ((0, -1, 1, 0), (0.0, MEDIA_H)),
}


def _escape(text: str) -> bytes:
    return text.encode("cp1252").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _show(text: str, x: float, y: float, turn: int, size: float = SIZE, quarter: int = 0) -> bytes:
    """One text object drawing `text` at (x, y) of a frame turned `turn` degrees on the page, its
    baseline turned a further `quarter` x 90 degrees counter-clockwise within the frame."""
    (a, b, c, d), (ox, oy) = _TURNS[turn]
    (qa, qb, qc, qd), _ = _TURNS[90 * quarter % 360]
    m = (qa * a + qb * c, qa * b + qb * d, qc * a + qd * c, qc * b + qd * d)
    ux, uy = ox + a * x + c * y, oy + b * x + d * y
    return b"BT /F1 %g Tf %d %d %d %d %.2f %.2f Tm (%s) Tj ET\n" % (size, *m, ux, uy, _escape(text))


def two_column_lines(paragraphs: list[str], width: float, height: float) -> list[tuple[str, float, float]]:
    """(text, x, baseline y up) of each line: the first half of the paragraphs in the left column,
    the rest in the right, a blank gap between paragraphs, on a frame of `width` x `height`."""
    style = Style(font=FONT, size=SIZE, leading=LEADING, ligatures=False, justify=False)
    colw = (width - 2 * MARGIN - GUTTER) / 2
    half = (len(paragraphs) + 1) // 2
    out = []
    for col, paras in enumerate((paragraphs[:half], paragraphs[half:])):
        x, y = MARGIN + col * (colw + GUTTER), height - MARGIN
        for para in paras:
            for words in wrap(para, colw, style, hyphenate=False):
                y -= LEADING
                out.append((" ".join(words), x, y))
            y -= PARA_GAP
        if y < MARGIN:
            raise ValueError("paragraphs do not fit the column")
    return out


def _pages_pdf(contents: list[bytes], font: bytes | None = None, extra: list[bytes] | None = None, rotate: int = 0,
               image: bytes | None = None) -> bytes:
    """A PDF of one 612 x 792 page (MediaBox) per content stream, with /Rotate `rotate` and font F1,
    then the `extra` objects and the image XObject `image` as /Im1 (after them)."""
    font = font or b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>" % FONT.encode()
    n = len(contents)
    extra = list(extra or [])
    xobject = b""
    if image is not None:
        extra.append(image)
        xobject = b"/XObject << /Im1 %d 0 R >>" % (3 + 2 * n + len(extra))
    kids = b" ".join(b"%d 0 R" % (3 + 2 * k) for k in range(n))
    pages = []
    for k, content in enumerate(contents):
        pages += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Rotate %d /Contents %d 0 R "
                  b"/Resources << /Font << /F1 %d 0 R >> %s >> >>" % (MEDIA_W, MEDIA_H, rotate, 4 + 2 * k, 3 + 2 * n, xobject),
                  pdf_stream(content)]
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
                 *pages, font, *extra])


def _gray_image(img) -> bytes:  # noqa: ANN001 - a PIL image
    """An 8-bit DeviceGray image XObject of the PIL image."""
    gray = img.convert("L")
    data = zlib.compress(gray.tobytes())
    return pdf_stream(data, b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                         b"/BitsPerComponent 8 /Filter /FlateDecode" % gray.size)


def rotated_page_pdf(rotate: int, text_turn: int, paragraphs: list[str] = ROTATED_PARAGRAPHS,
                     stamp: int = 0, picture=None) -> bytes:  # noqa: ANN001 - a PIL image
    """One page with /Rotate `rotate` whose two columns of `paragraphs` are upright in a frame turned
    `text_turn` degrees counter-clockwise in user space: text_turn 0 is upright in user space (so
    shown sideways or upside down when rotate is not 0), text_turn == rotate is shown upright.
    `stamp` adds that many lines (1 or 2) of stamps along the left margin, drawn at 90 degrees to
    the text one after the other;
    `picture` (an image of text, drawn at 200 dpi upright with the text) goes at the foot of the
    left column (see `picture_box`; leave it room: four paragraphs, not six)."""
    width, height = (MEDIA_W, MEDIA_H) if text_turn in (0, 180) else (MEDIA_H, MEDIA_W)
    lines = two_column_lines(paragraphs, width, height)
    content = b"".join(_show(t, x, y, text_turn) for t, x, y in lines)
    for k, text in enumerate((STAMP, STAMP_2)[:stamp]):  # baselines up the left margin of the text's frame
        content += _show(text, MARGIN / 2 - 14 * k, height / 2 - 100 - 60 * k, text_turn, 10, quarter=1)
    image = None
    if picture is not None:
        x0, top, x1, bottom = picture_box(picture, height)
        (a, b, c, d), (ox, oy) = _TURNS[text_turn]
        w, h, x, y = x1 - x0, bottom - top, x0, height - bottom
        content += b"q %.2f %.2f %.2f %.2f %.2f %.2f cm /Im1 Do Q\n" % (
            w * a, w * b, h * c, h * d, ox + a * x + c * y, oy + b * x + d * y)
        image = _gray_image(picture)
    return _pages_pdf([content], rotate=rotate, image=image)


def picture_box(picture, height: float) -> tuple[float, float, float, float]:  # noqa: ANN001 - a PIL image
    """(x0, top, x1, bottom) of `picture` on a rotated_page_pdf page, in the frame where its text
    is upright (top-left origin): 200 dpi, at the left margin, `MARGIN` above the bottom edge."""
    w, h = picture.width * 72.0 / 200, picture.height * 72.0 / 200
    return MARGIN, height - MARGIN - h, MARGIN + w, height - MARGIN


ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def expanding_glyph_pdf(expansion: int = 250, glyphs: int = 600, per_line: int = 60, alphabet: str = ALPHABET) -> bytes:
    """One page of `glyphs` glyphs of one code whose ToUnicode CMap (a bfchar entry) maps it to
    `expansion` characters (a cycle of `alphabet`, UTF-16BE), `per_line` glyphs to a line of 7 pt
    Helvetica."""
    letters = "".join(alphabet[k % len(alphabet)] for k in range(expansion))
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Expand def "
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"1 beginbfchar <41> <%s> endbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end" % letters.encode("utf-16-be").hex().encode())
    lines = []
    y = MEDIA_H - 40
    for start in range(0, glyphs, per_line):
        n = min(per_line, glyphs - start)
        lines.append(b"BT /F1 7 Tf 30 %.1f Td (%s) Tj ET\n" % (y, b"A" * n))
        y -= 9
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>"  # the first extra object
    return _pages_pdf([b"".join(lines)], font, [pdf_stream(cmap)])


def long_token_pdf(token: str, size: float = 1.0) -> bytes:
    """One page drawing `token` as one unbroken line per 400 chars of `size` pt type: a page whose
    text is a single long word (DNA, base64, Chinese without spaces) split only by line ends."""
    lines, y = [], MEDIA_H - 10
    for start in range(0, len(token), 400):
        lines.append(b"BT /F1 %g Tf 4 %.2f Td (%s) Tj ET\n" % (size, y, _escape(token[start:start + 400])))
        y -= size * 1.2
        if y < 4:
            raise ValueError("token does not fit the page")
    return _pages_pdf([b"".join(lines)])


# Long runs of one kind of character (200,000 of them, with and without a leading marker) for the
# text stages: a token without spaces (DNA, base64, CJK), blanks, figures, dots, hyphens, markers.
RUN = 200_000
LONG_RUNS: dict[str, str] = {
    "letters": "a" * RUN,
    "cjk": "\u6f22" * RUN,
    "hebrew": "\u05d0" * RUN,
    "spaces": " " * RUN + "x",
    "tabs": "\t" * RUN + "x",
    "digits": "1" * RUN,
    "dots": "." * RUN,
    "hyphens": "-" * RUN,
    "stars": "*" * RUN,
    "numbering": "1." * (RUN // 2),
    "spaced_dots": ". " * (RUN // 2),
    "words": "ab " * (RUN // 3),
    "caption": "Figure " + "1" * RUN,
    "bullet": "\u2022" + " " * RUN,
    "marker": "1" + " " * RUN,
    "cid": "(cid:" + "1" * RUN,
    "tags": "<" * RUN + "<a" * (RUN // 2),
}
