"""OCR of pictures embedded in DOCX and PPTX packages: the image part's bytes to one image_text
block's text, box and confidence (the backends place it: slide and shape box, anchoring paragraph)."""
from __future__ import annotations

import io
import warnings
from typing import NamedTuple

from docclean_assets.extract.model import BBox
from docclean_assets.extract.ocr.engine import OcrRun, upscaled
from docclean_assets.extract.ocr.settings import OcrSettings
from docclean_assets.extract.ocr.blocks import (Frame, accept_picture_text, mean_confidence, paragraphs_box, paragraphs_text,
                                                words_to_paragraphs)

# Vector formats PIL identifies but cannot draw on Linux: not read (never a broken picture).
_VECTOR_FORMATS = frozenset({"WMF", "EMF"})


def _dpi(image, s: OcrSettings) -> float:  # noqa: ANN001 - a PIL image
    """The image's own resolution when it states a plausible one (`office_min_dpi` to
    `office_max_dpi`), else `office_default_dpi`."""
    try:
        dpi = float(image.info.get("dpi", (s.office_default_dpi,))[0])
    except (TypeError, ValueError, IndexError):
        return s.office_default_dpi
    return dpi if s.office_min_dpi <= dpi <= s.office_max_dpi else s.office_default_dpi


class PictureText(NamedTuple):
    """What OCR read in one embedded picture."""

    text: str
    bbox: BBox | None  # in points on the slide when the picture has a place there
    confidence: float

    def meta(self) -> tuple[tuple[str, str], ...]:
        return (("ocr", "tesseract"), ("ocr_source", "picture"), ("confidence", f"{self.confidence:.1f}"))


def blob_to_picture_text(blob: bytes, run: OcrRun | None, place: BBox | None = None) -> PictureText | None:
    """The text of an embedded image (PNG, JPEG, GIF, BMP, TIFF; vector EMF/WMF and what PIL does not
    know, SVG or PDF, are not read), or None when OCR is off, the picture is too small or a photo,
    nothing confident was read, or a budget is spent. `place` is the picture's box on its slide.
    Raises when the image cannot be decoded (truncated, corrupt, a decompression bomb): the caller
    counts that picture as a failed part."""
    if run is None or not run.enabled:
        return None
    s = run.settings
    force = run.mode == "force"
    if place is not None and not force and (place.width < s.picture_min_width_pt or place.height < s.picture_min_height_pt):
        return None
    from PIL import Image, UnidentifiedImageError

    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(blob))
        except UnidentifiedImageError:  # not a raster format PIL reads
            return None
        if image.format in _VECTOR_FORMATS:
            return None
        image.load()
    if min(image.size) < s.picture_min_side_px or not run.picture_allowed():
        return None
    big, factor = upscaled(image, s)
    dpi = round(_dpi(image, s) * factor)
    if not run.worth_reading(big, dpi):
        return None
    words = run.read(big, dpi)
    if words is None:
        return None
    if place is not None:
        frame = Frame(place.x0, place.y0, place.width / big.width, place.height / big.height)
    else:
        frame = Frame(0.0, 0.0, 1.0, 1.0)
    paras = words_to_paragraphs(words, frame, s)
    if not accept_picture_text(paras, run):
        return None
    return PictureText(paragraphs_text(paras), paragraphs_box(paras) if place is not None else None,
                       mean_confidence(paras))
