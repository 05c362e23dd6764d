"""Whether a picture's pixels may hold text, decided before the engine reads it: glyph-shaped marks
set side by side on a common baseline, counted on a copy reduced to `text_gate_dpi`.

Printed text, whatever its font, size, colour or direction, is a row of separate marks of about one
height whose bottoms line up; a photo, a drawing or a gradient is not. The image is split into ink
and background at Otsu's threshold, both ways (dark on light and light on dark), the connected
marks of glyph size are found with OpenCV, and a mark counts when one of its next
`text_gate_neighbours` marks to the right (or below, for text set vertically) is of a similar
height on the same baseline (or, past a descender, the same top line) within one and a half
heights. The test costs ~5 ms a picture where reading an empty one costs ~40 ms; it is meant to let
every picture with text through and to stop most of those without (see OcrSettings for what it was
calibrated on). Where the worker's address-space ceiling leaves no room to load OpenCV, pictures
are read without the gate (`gate_ready`).
"""
from __future__ import annotations

import importlib
import re
import resource
import sys
from typing import TYPE_CHECKING

from docclean_assets.extract.ocr.settings import OcrSettings

if TYPE_CHECKING:
    import numpy as np
    from PIL.Image import Image

# Free address space OpenCV needs to load, MiB. Measured with opencv-python-headless 5.1 under
# RLIMIT_AS (the parse workers' memory ceiling): with numpy not yet loaded its import succeeds with
# 500 MiB free and crashes the process (SIGSEGV, not an exception) with 400-450; 640 leaves room for
# the picture's arrays. With less, the gate is not run and the picture is read (flag
# ocr_gate_unavailable): a smaller `memory_mb` must not turn a document with pictures into a crash.
OPENCV_ADDRESS_SPACE_MIB = 640
_VM_SIZE = re.compile(rb"VmSize:\s+(\d+) kB")


def _address_space_free_mib() -> float | None:
    """MiB of address space this process may still map under RLIMIT_AS; None when unlimited or
    unknown (no /proc)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/status", "rb") as f:
            m = _VM_SIZE.search(f.read())
    except OSError:
        return 0.0  # limited, and no way to tell how much is used: assume none is left
    return (soft - int(m.group(1)) * 1024) / (1 << 20) if m else 0.0


def gate_ready() -> bool:
    """Whether OpenCV is loaded or can be loaded safely in this process's address-space limit."""
    if "cv2" in sys.modules:
        return True
    free = _address_space_free_mib()
    if free is not None and free < OPENCV_ADDRESS_SPACE_MIB:
        return False
    try:
        importlib.import_module("cv2")  # loaded here, under the check, not at first use
    except ImportError:
        return False
    return True


def _aligned_marks(ink: np.ndarray, px_per_pt: float, s: OcrSettings) -> int:
    """How many glyph-sized marks of `ink` (0/1, uint8) have a neighbour on their baseline."""
    import cv2
    import numpy as np

    _n, _labels, stats, _centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    x, y, w, h, area = (stats[1:, k] for k in range(5))
    glyph = ((h >= max(s.glyph_min_height_px, s.glyph_min_height_pt * px_per_pt))
             & (h <= s.glyph_max_height_pt * px_per_pt) & (w <= s.glyph_max_aspect * h)
             & (area >= s.glyph_min_fill * w * h))
    x, y, w, h = x[glyph], y[glyph], w[glyph], h[glyph]
    order = np.argsort(x, kind="stable")
    x, w, h, top, bottom = x[order], w[order], h[order], y[order], (y + h)[order]
    found = np.zeros(len(x), dtype=bool)
    for d in range(1, min(s.text_gate_neighbours, len(x) - 1) + 1):
        hi, hj = h[:-d], h[d:]
        found[:-d] |= ((x[d:] - (x[:-d] + w[:-d]) <= s.glyph_max_gap_em * hi)
                       & (hj * s.glyph_max_height_ratio >= hi) & (hj <= s.glyph_max_height_ratio * hi)
                       & ((np.abs(bottom[d:] - bottom[:-d]) <= s.glyph_baseline_tolerance_em * hi)
                          | (np.abs(top[d:] - top[:-d]) <= s.glyph_baseline_tolerance_em * hi)))
    return int(found.sum())


def text_marks(image: Image, dpi: float, s: OcrSettings) -> int:
    """The most glyph-like marks on a common baseline found in `image` (read at `dpi`), over both
    polarities and both directions."""
    import cv2
    import numpy as np

    grey = np.asarray(image.convert("L"), dtype=np.uint8)
    scale = min(1.0, s.text_gate_dpi / dpi) if dpi > 0 else 1.0
    if scale < 1.0:
        size = (max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale)))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    _t, dark = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    px_per_pt = dpi * scale / 72.0
    best = 0
    for ink in (dark, 1 - dark):
        best = max(best, _aligned_marks(ink, px_per_pt, s), _aligned_marks(np.ascontiguousarray(ink.T), px_per_pt, s))
    return best


def may_hold_text(image: Image, dpi: float, s: OcrSettings) -> bool:
    """Whether `image` has at least `text_gate_min_marks` marks set like text."""
    return text_marks(image, dpi, s) >= s.text_gate_min_marks
