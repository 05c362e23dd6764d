"""The OCR engine: tesseract's C++ API through tesserocr, one engine per worker thread, with
Debian's trained models (tesseract-ocr-eng's tessdata).

An engine is started once and reads every picture and page the thread is given, so a document of
forty screenshots pays the model load (~0.06 s) once, not forty times as the `tesseract` command
did (0.075 s a call; the corpus's 150 pictures took 36 s through the command, 22 s here). Each
read has a deadline (`call_timeout_s`); tesseract runs on one thread (OMP_THREAD_LIMIT=1, set
before the library loads unless the environment says otherwise), so parallel documents do not
oversubscribe the cores.

`OcrRun` is the per-document state: the mode (auto | off | force), the engine's presence, the
picture and time budgets, and the counts that become the DocReport's ocr_* fields.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from docclean_assets.extract.model import DocReport
from docclean_assets.extract.ocr.settings import OcrSettings

if TYPE_CHECKING:
    from PIL.Image import Image

MODES = ("auto", "off", "force")
# tesseract reads its thread count when the library loads: one thread, so parallel documents do
# not oversubscribe the cores (set here, on import, before any worker or fork server loads it).
os.environ.setdefault("OMP_THREAD_LIMIT", "1")
# Where Debian (tesseract-ocr-eng), other distributions and Homebrew put the trained models.
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata", "/opt/homebrew/share/tessdata")


class Word(NamedTuple):
    """One recognised word: pixel box in the image it was read from, tesseract's grouping, confidence."""

    text: str
    left: int
    top: int
    width: int
    height: int
    conf: float  # 0-100
    block: int  # tesseract's block / paragraph / line numbers within the image
    par: int
    line: int


def tessdata_dir(s: OcrSettings) -> str | None:
    """The folder holding every model `s.language` names: the setting, $TESSDATA_PREFIX, or the
    first of TESSDATA_DIRS that has them; None when there is none."""
    wanted = [f"{lang}.traineddata" for lang in s.language.split("+")]
    for d in ([s.tessdata_dir] if s.tessdata_dir else [os.environ.get("TESSDATA_PREFIX", ""), *TESSDATA_DIRS]):
        if d and all((Path(d) / name).is_file() for name in wanted):
            return d
    return None


@cache
def _library_loaded() -> bool:
    """Whether tesserocr (and the libtesseract it bundles) imports."""
    try:
        importlib.import_module("tesserocr")
    except ImportError:
        return False
    return True


def engine_available(s: OcrSettings) -> bool:
    """Whether this process can run OCR with `s`: the library imports and the models are there."""
    return _library_loaded() and tessdata_dir(s) is not None


_local = threading.local()


def _engine(s: OcrSettings):  # noqa: ANN202 - a tesserocr.PyTessBaseAPI
    """This thread's engine for `s`'s models and language, started on first use."""
    import tesserocr

    key = (tessdata_dir(s), s.language)
    engines = _local.__dict__.setdefault("engines", {})
    if key not in engines:
        if key[0] is None:
            raise FileNotFoundError(f"no tessdata folder with {s.language} models")
        engines[key] = tesserocr.PyTessBaseAPI(path=key[0], lang=s.language, psm=tesserocr.PSM.AUTO)
    return engines[key]


def image_to_words(image: Image, dpi: int, s: OcrSettings) -> list[Word]:
    """Words tesseract reads in `image` (a PIL image); raises TimeoutError past `call_timeout_s`,
    RuntimeError when the engine fails."""
    api = _engine(s)
    try:
        api.SetImage(image)
        api.SetSourceResolution(dpi)
        started = time.monotonic()
        if not api.Recognize(timeout=int(s.call_timeout_s * 1000)):
            if time.monotonic() - started >= s.call_timeout_s:
                raise TimeoutError(f"tesseract took more than {s.call_timeout_s:g} s")
            raise RuntimeError("tesseract could not recognise the image")
        return _words(api.GetIterator())
    finally:
        api.Clear()  # the engine never keeps a document's image past its read


def _words(it) -> list[Word]:  # noqa: ANN001 - a tesserocr result iterator (None: nothing found)
    """The iterator's words, numbered by block, paragraph and line as tesseract's TSV output numbers them."""
    import tesserocr

    words: list[Word] = []
    block = par = line = 0
    for w in tesserocr.iterate_level(it, tesserocr.RIL.WORD) if it is not None else ():
        if w.IsAtBeginningOf(tesserocr.RIL.BLOCK):
            block, par, line = block + 1, 0, 0
        if w.IsAtBeginningOf(tesserocr.RIL.PARA):
            par, line = par + 1, 0
        if w.IsAtBeginningOf(tesserocr.RIL.TEXTLINE):
            line += 1
        try:
            text = w.GetUTF8Text(tesserocr.RIL.WORD).strip()
        except RuntimeError:  # a word box without text
            continue
        box = w.BoundingBox(tesserocr.RIL.WORD)
        if text and box is not None:
            x0, y0, x1, y1 = box
            words.append(Word(text, x0, y0, x1 - x0, y1 - y0, w.Confidence(tesserocr.RIL.WORD), block, par, line))
    return words


def is_photo(image: Image, s: OcrSettings) -> bool:
    """True when too little of the picture is plain background to hold printed text (a photo)."""
    from PIL import Image as PILImage

    # a sample of pixels, not an average: averaging greys out a photo
    step = max(1, max(image.size) // s.background_sample_px)
    thumb = image.convert("L").resize((max(1, image.width // step), max(1, image.height // step)),
                                      PILImage.Resampling.NEAREST)
    hist = thumb.histogram()
    total = sum(hist) or 1
    mode = max(range(256), key=hist.__getitem__)
    lo, hi = max(0, mode - s.background_tolerance), min(255, mode + s.background_tolerance)
    return sum(hist[lo:hi + 1]) / total < s.picture_min_background_fraction


def upscaled(image: Image, s: OcrSettings) -> tuple[Image, float]:
    """The image enlarged so its shorter side reaches `upscale_below_px` (capped), and the factor."""
    short = min(image.size)
    if short <= 0 or short >= s.upscale_below_px:
        return image, 1.0
    area = image.width * image.height
    factor = min(s.upscale_below_px / short, s.upscale_max_factor, (s.upscale_max_pixels / area) ** 0.5)
    if factor <= 1.0:
        return image, 1.0
    from PIL import Image as PILImage

    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    return image.resize(size, PILImage.Resampling.LANCZOS), factor


def flattened(image: Image) -> Image:
    """An RGB or greyscale copy with transparency composited on white (tesseract reads alpha as black)."""
    from PIL import Image as PILImage

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        base = PILImage.new("RGB", rgba.size, (255, 255, 255))
        base.paste(rgba, mask=rgba.getchannel("A"))
        return base
    if image.mode not in ("RGB", "L"):
        return image.convert("RGB")
    return image


@dataclass
class OcrRun:
    """One document's OCR: what may run, and what ran."""

    settings: OcrSettings
    mode: str = "auto"
    scanned_body: bool = True  # scanned pages' text becomes body paragraphs
    spent_s: float = 0.0  # seconds spent in the engine so far (the budgets' clock)
    pages: int = 0
    pictures: int = 0
    pictures_empty: int = 0
    pictures_skipped: int = 0  # not read: a photo, no text-like marks, or over a budget
    confidences: list[float] = field(default_factory=list)  # per-word confidences of emitted text
    ocr_chars: int = 0
    flags: list[str] = field(default_factory=list)
    _seen: dict[tuple, list[Word]] = field(default_factory=dict, repr=False)  # image digest -> its words

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"ocr mode must be one of {MODES}, got {self.mode!r}")

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def flag(self, name: str) -> None:
        if name not in self.flags:
            self.flags.append(name)

    def may_run(self, picture: bool) -> bool:
        """True when the engine is installed and the document's time budget (its picture budget, for
        a picture) is not spent; flags why not."""
        if not engine_available(self.settings):
            self.flag("ocr_unavailable")
            return False
        spent = self.spent_s
        if spent > self.settings.doc_budget_s or (picture and spent > self.settings.picture_budget_s):
            self.flag("ocr_time_budget")
            return False
        return True

    def picture_allowed(self) -> bool:
        """True while the document's picture budget lasts (counts the skipped ones)."""
        if self.pictures + self.pictures_empty >= self.settings.max_pictures_per_doc:
            self.pictures_skipped += 1
            self.flag("ocr_picture_budget")
            return False
        return True

    def worth_reading(self, image: Image, dpi: float) -> bool:
        """Whether a picture goes to the engine: not a photo and with marks set like text (unless
        forced); a picture turned away is counted as skipped."""
        from docclean_assets.extract.ocr.gate import gate_ready, may_hold_text

        if self.mode == "force":
            return True
        if not is_photo(image, self.settings):
            if not gate_ready():  # no room for OpenCV under the worker's memory ceiling: read it
                self.flag("ocr_gate_unavailable")
                return True
            if may_hold_text(image, dpi, self.settings):
                return True
        self.pictures_skipped += 1
        return False

    def read(self, image: Image, dpi: int, picture: bool = True) -> list[Word] | None:
        """Words of one image, or None when the engine is missing, out of time or failed (flagged).
        An image read before in the document (a logo or screenshot repeated on every slide) is not
        read again."""
        key = (image.size, image.mode, dpi, hashlib.blake2b(image.tobytes(), digest_size=16).digest())
        if key in self._seen:
            return self._seen[key]
        if not self.may_run(picture):
            if picture:
                self.pictures_skipped += 1
            return None
        started = time.monotonic()
        try:
            words = image_to_words(flattened(image), dpi, self.settings)
        except (OSError, RuntimeError, ValueError):  # TimeoutError is an OSError
            self.flag("ocr_failed")
            return None
        finally:
            self.spent_s += time.monotonic() - started
        self._seen[key] = words
        return words

    def to_report(self, report: DocReport, text_chars: int) -> None:
        """Copy the counts into the document's report; `text_chars` are its non-OCR characters."""
        report.ocr_pages += self.pages
        report.ocr_pictures += self.pictures
        report.ocr_pictures_empty += self.pictures_empty
        report.ocr_pictures_skipped += self.pictures_skipped
        if self.confidences:
            report.ocr_confidence = round(sum(self.confidences) / len(self.confidences), 2)
        total = text_chars + self.ocr_chars
        if self.ocr_chars and total and self.ocr_chars / total > self.settings.mostly_ocr_fraction:
            report.flag("text_mostly_ocr")
        for name in self.flags:
            report.flag(name)
