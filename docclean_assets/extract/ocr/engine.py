"""The OCR engine: Debian's tesseract-ocr run as a subprocess, image in on stdin, TSV words out.

Tesseract is called directly rather than through pytesseract: that package is itself a thin
subprocess wrapper (temporary files, its own TSV parser) and would add nothing here but a
dependency; a direct call gives the per-call timeout and a one-thread limit (OMP_THREAD_LIMIT=1,
so parallel documents do not oversubscribe the cores) in a few lines.

`OcrRun` is the per-document state: the mode (auto | off | force), the engine's presence, the
picture and time budgets, and the counts that become the DocReport's ocr_* fields.
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from docclean_assets.extract.lifecycle import tied_command
from docclean_assets.extract.model import DocReport
from docclean_assets.extract.ocr.settings import OcrSettings

if TYPE_CHECKING:
    from PIL.Image import Image

MODES = ("auto", "off", "force")


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


@lru_cache(maxsize=8)
def engine_path(cmd: str) -> str | None:
    """The tesseract executable, or None when it is not installed."""
    return shutil.which(cmd)


def tsv_to_words(tsv: str) -> list[Word]:
    """Word rows (level 5, non-empty text) of tesseract's TSV output."""
    words = []
    for line in tsv.splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        try:
            left, top, width, height = (int(c) for c in cols[6:10])
            conf = float(cols[10])
            block, par, num = int(cols[2]), int(cols[3]), int(cols[4])
        except ValueError:
            continue
        words.append(Word(cols[11].strip(), left, top, width, height, conf, block, par, num))
    return words


def image_to_words(image: Image, dpi: int, s: OcrSettings) -> list[Word]:
    """Words tesseract reads in `image` (a PIL image); raises OSError/TimeoutExpired on engine failure."""
    exe = engine_path(s.tesseract_cmd)
    if exe is None:
        raise FileNotFoundError(s.tesseract_cmd)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    proc = subprocess.run(
        tied_command([exe, "stdin", "stdout", "-l", s.language, "--psm", "3", "--dpi", str(dpi), "tsv"]),
        input=buf.getvalue(), capture_output=True, timeout=s.call_timeout_s, env=env, check=False,
    )
    if proc.returncode != 0:
        raise OSError(f"tesseract exit {proc.returncode}: {proc.stderr.decode('utf-8', 'replace')[-200:]}")
    return tsv_to_words(proc.stdout.decode("utf-8", "replace"))


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
    pictures_skipped: int = 0  # over the picture budget or the time budget
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
        if engine_path(self.settings.tesseract_cmd) is None:
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
        except (OSError, subprocess.SubprocessError, ValueError):
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
        if self.confidences:
            report.ocr_confidence = round(sum(self.confidences) / len(self.confidences), 2)
        total = text_chars + self.ocr_chars
        if self.ocr_chars and total and self.ocr_chars / total > self.settings.mostly_ocr_fraction:
            report.flag("text_mostly_ocr")
        for name in self.flags:
            report.flag(name)
