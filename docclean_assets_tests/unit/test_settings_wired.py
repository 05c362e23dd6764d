"""Thresholds named as settings fields are the ones the code uses: changing one changes the result."""
from dataclasses import replace
from typing import NamedTuple

import pytest
from PIL import Image
from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.boilerplate import apply_repeats, blocks_to_page_repeats
from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.html.document import extract_html
from docclean_assets.extract.html.dom import segment
from docclean_assets.extract.html.jsonld import article_bodies
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.layout import boxes_to_reading_order
from docclean_assets.extract.model import BBox, Block
from docclean_assets.extract.ocr.office import _dpi
from docclean_assets.extract.ocr.settings import OcrSettings
from docclean_assets.extract.office.settings import OfficeSettings
from docclean_assets.extract.settings import BoilerplateSettings, Settings

META = (("page_height", "792.0"), ("page_width", "612.0"))


def _sized(text, y0, y1, size):
    return Block("paragraph", text, page=1, bbox=BBox(72, y0, 540, y1), meta=(*META, ("font_size", str(size))))


# A one-page document: an 8 pt head one line tall (8 pt box), 62 pt above 10 pt body text.
ONE_PAGE = [_sized("Journal of Irreproducible Results 3 (2014)", 30, 38, 8), _sized("Body text " * 40, 100, 700, 10)]


def _head_dropped(s: BoilerplateSettings) -> bool:
    return apply_repeats("d", ONE_PAGE, blocks_to_page_repeats("d", ONE_PAGE, 1, s), s)[0].drop_reason is not None


def test_boilerplate_line_height_and_single_line_fields_are_wired():
    s = BoilerplateSettings()
    assert _head_dropped(s)
    # the head's box is 1.0 em of its size: no single line when one line may be at most 0.9 em
    assert not _head_dropped(replace(s, single_line_max_height_em=0.9))
    # 1.5 lines of 5 em each (75 pt) do not fit in the 62 pt gap; 1.5 lines of 1.2 em (18 pt) did
    assert not _head_dropped(replace(s, body_line_height_em=5.0))


def test_html_colspan_cap_is_wired():
    tree = LexborHTMLParser("<table><tr><td colspan='5'>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>")
    widths = {n: max(len(r) for r in segment(tree, frozenset(), HtmlSettings(table_max_colspan=n))[0].rows)
              for n in (50, 2)}
    assert widths == {50: 6, 2: 3}


def test_jsonld_depth_is_wired():
    scripts = [{"@graph": [{"@type": "NewsArticle", "articleBody": "The body."}]}]  # the article at depth 2
    assert article_bodies(scripts, HtmlSettings().jsonld_max_depth) == [("newsarticle", "The body.")]
    assert article_bodies(scripts, 1) == []


def test_html_undecodable_fraction_is_wired():
    page = b"<html><body><p>" + b"Readable text of the page. " * 8 + b"\x00" * 40 + b"</p></body></html>"
    assert extract_html(page, Settings()).blocks  # 40 NULs of ~260 characters: under 0.3
    with pytest.raises(ExtractionError, match="not decodable"):
        extract_html(page, Settings(html=HtmlSettings(undecodable_max_fraction=0.1)))


def test_office_image_resolution_fields_are_wired():
    image = Image.new("L", (10, 10))
    image.info["dpi"] = (700, 700)
    assert _dpi(image, OcrSettings()) == 96  # beyond 600 dpi: not plausible, the default
    assert _dpi(image, OcrSettings(office_max_dpi=800)) == 700
    assert _dpi(image, OcrSettings(office_default_dpi=150)) == 150


class _Box(NamedTuple):
    x0: float
    top: float
    x1: float
    bottom: float


def test_slide_column_depth_is_wired():
    boxes = [_Box(0, 0, 100, 500), _Box(200, 0, 300, 500)]  # two columns
    o = OfficeSettings()
    args = (o.gutter_max_cover, o.gutter_min_width_pt, o.gutter_row_tolerance_pt, o.band_overlap_ratio)
    assert boxes_to_reading_order(boxes, *args, o.columns_max_depth, o.gutter_floor_slack)[1] == 2
    assert boxes_to_reading_order(boxes, *args, 0, o.gutter_floor_slack)[1] == 1
