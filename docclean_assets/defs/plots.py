"""Pictures for the Dagster UI, drawn with matplotlib (its object API on the Agg canvas: no display,
no pyplot state shared with a user's code) and inlined in Markdown metadata as PNG data URIs."""
from __future__ import annotations

import base64
import io
from collections.abc import Sequence

from docclean_assets.extract.quality import Band

# 560 x 220 px: the width of the UI's metadata column, a ~15 KB PNG kept with each materialization.
FIGURE_IN = (5.6, 2.2)
DPI = 100
BINS = 20  # ratio bins of 0.05 over [0, 1]: one bin is about the band's usual half-width (min_halfwidth)
MAX_RATIO = 1.0  # a retention ratio can exceed 1 (OCR adds characters); those land in the last bin


def retention_png(ratios: Sequence[float], band: Band | None, failed: int) -> bytes:
    """A histogram of the documents' retention ratios with the band shaded and its floor drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGURE_IN, dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    clipped = [min(max(r, 0.0), MAX_RATIO) for r in ratios]
    floor = band.low if band is not None else -1.0
    below = [r for r in clipped if r < floor]
    ax.hist([r for r in clipped if r >= floor], bins=BINS, range=(0.0, MAX_RATIO), color="#4c78a8",
            label="at or above the floor")
    if below:
        ax.hist(below, bins=BINS, range=(0.0, MAX_RATIO), color="#e45756", label="below the band floor")
    if band is not None:
        ax.axvspan(band.low, band.high, color="#54a24b", alpha=0.15, label=f"{'learned' if band.learned else 'configured'} band")
        ax.axvline(band.low, color="#e45756", linestyle="--", linewidth=1.2)
    ax.set_xlim(0.0, MAX_RATIO)
    ax.set_xlabel("retention ratio (kept / extracted characters)")
    ax.set_ylabel("documents")
    ax.yaxis.get_major_locator().set_params(integer=True)
    title = f"{len(ratios)} documents" + (f", {failed} failed (no ratio)" if failed else "")
    ax.set_title(title + ("" if band is not None else ": too few to learn a band"), fontsize=9)
    if band is not None or below:
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


def png_markdown(png: bytes, alt: str) -> str:
    """Markdown showing a PNG inline (the UI renders data URIs in Markdown metadata)."""
    return f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode('ascii')})"
