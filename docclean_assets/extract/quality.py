"""Per-document quality figures, and the retention band learned from a source's own documents."""
from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from docclean_assets.extract.model import Block, DocReport, DropReason, count_chars
from docclean_assets.extract.settings import QualitySettings

# Reasons that count as boilerplate removed (template and chrome, not revisions or watermarks).
BOILERPLATE_REASONS = frozenset({
    DropReason.RUNNING_HEAD, DropReason.RUNNING_FOOT, DropReason.PAGE_NUMBER, DropReason.SITE_TEMPLATE,
    DropReason.SOURCE_FURNITURE, DropReason.BOILERPLATE, DropReason.HEADER_FOOTER, DropReason.SELECTOR_DROP,
    DropReason.HIDDEN, DropReason.TOC, DropReason.CODE_TOOLBAR, DropReason.TEASER,
})
# Scale from the median absolute deviation to a normal distribution's standard deviation.
MAD_TO_SIGMA = 1.4826


@dataclass(frozen=True, slots=True)
class Band:
    """The accepted retention ratios of a source; `learned` says whether it came from its data."""

    low: float
    high: float
    learned: bool
    n: int  # documents it was learned from (0 when configured)


def kept_chars(blocks: list[Block]) -> int:
    """Non-whitespace characters of the body as the backend read them (before ligatures expand)."""
    return sum(count_chars(b.orig_text if b.orig_text is not None else b.text) for b in blocks if b.in_body)


def drop_counts(blocks: list[Block]) -> dict[str, int]:
    """Blocks per drop reason."""
    return dict(Counter(b.drop_reason for b in blocks if b.drop_reason is not None))


def retention_ratio(kept: int, raw: int) -> float | None:
    """Body characters over text-layer characters; None when the file had no text at all."""
    return kept / raw if raw > 0 else None


def document_figures(blocks: list[Block], report: DocReport) -> dict:
    """The quality_report figures of one parsed document."""
    kept = kept_chars(blocks)
    counts = drop_counts(blocks)
    return {
        "kept_chars": kept,
        "retention_ratio": retention_ratio(kept, report.raw_chars),
        "boilerplate_removed": sum(n for reason, n in counts.items() if reason in BOILERPLATE_REASONS),
        # the backends count notes (a PDF note continued in a second block is one; a DOCX note is one
        # w:footnote), so the count is the report's, not the footnote blocks'
        "footnotes": report.footnotes,
        # Asides of every format (PDF panels and sidebars, DOCX text boxes, HTML call-outs) as kept.
        "callouts": max(report.callouts, sum(1 for b in blocks if b.kind == "callout")),
        "pull_quotes": max(report.pull_quotes, sum(1 for b in blocks if b.kind == "pull_quote")),
        "margin_notes": max(report.margin_notes, sum(1 for b in blocks if b.kind == "margin_note")),
        "tables": max(report.tables, sum(1 for b in blocks if b.kind == "table")),
        "tables_fallback": report.tables_fallback,
        "drop_counts": counts,
    }


def learn_band(ratios: list[float], s: QualitySettings) -> Band | None:
    """median ± k·MAD of the source's ratios; None with too few documents to learn from."""
    if len(ratios) < s.min_docs_for_band:
        return None
    med = statistics.median(ratios)
    half = max(s.mad_k * MAD_TO_SIGMA * statistics.median(abs(r - med) for r in ratios), s.min_halfwidth)
    return Band(max(0.0, med - half), min(1.0, med + half), True, len(ratios))


def band_for(configured: tuple[float, float] | None, ratios: list[float], s: QualitySettings) -> Band | None:
    """The configured band when there is one, else the learned one."""
    if configured is not None:
        return Band(configured[0], configured[1], False, 0)
    return learn_band(ratios, s)
