"""A source's health from its quality_report rows: the verdicts of the three checks (failed documents,
the retention band, the revision rule), each with why its threshold is what it is, and one line for
the whole source. The Dagster checks, the quality_report materialization and `docclean summary` all
say what these functions decide, so the UI and the CLI never disagree."""
from __future__ import annotations

from dataclasses import dataclass, field

from docclean_assets.extract.quality import band_for
from docclean_assets.extract.settings import QualitySettings
from docclean_assets.ingest.sources import Source

# The quality_report columns the verdicts read (one row per document: read only these).
HEALTH_COLUMNS = ["path", "status", "error", "retention_ratio", "deletions", "insertions", "moves", "comment_refs"]
REVISION_KEYS = ("deletions", "insertions", "moves", "comment_refs")
WARN, ERROR = "WARN", "ERROR"


@dataclass(frozen=True)
class Verdict:
    """One check's result for one source: passed, or failed at a severity, said in one sentence, with
    the documents it is about (`listed`) and its figures (`figures`)."""

    check: str
    passed: bool
    severity: str  # WARN | ERROR: how a failure shows (a passed check keeps the check's own severity)
    description: str
    figures: dict[str, object] = field(default_factory=dict)
    listed: list[dict] = field(default_factory=list)

    @property
    def word(self) -> str:
        """passed | WARN | FAILED: the verdict in one word."""
        return "passed" if self.passed else "WARN" if self.severity == WARN else "FAILED"


def failed_limit(src: Source, documents: int, default_share: float) -> int:
    """How many failed documents a source tolerates before its check fails at ERROR severity."""
    share = default_share if src.max_failed_share is None else src.max_failed_share
    by_share = int(share * documents)
    return by_share if src.max_failed_documents is None else min(by_share, src.max_failed_documents)


def failed_limit_why(src: Source, documents: int, default_share: float) -> str:
    """Why the source tolerates failed_limit() failures: the settings that decide it, with their values."""
    share = default_share if src.max_failed_share is None else src.max_failed_share
    by_share = f"max_failed_share {share:g}{' (default)' if src.max_failed_share is None else ''} of {documents} documents"
    if src.max_failed_documents is None:
        return by_share
    return f"the tighter of max_failed_documents {src.max_failed_documents} and {by_share}"


def failed_documents(src: Source, rows: list[dict], quality: QualitySettings) -> Verdict:
    """Any failed document warns; more than the source tolerates is an error."""
    failed = sorted((r for r in rows if r["status"] == "failed"), key=lambda r: r["path"])
    limit = failed_limit(src, len(rows), quality.max_failed_share)
    description = (f"{len(failed)} of {len(rows)} documents failed, {'more than' if len(failed) > limit else 'within'} "
                   f"the {limit} this source tolerates ({failed_limit_why(src, len(rows), quality.max_failed_share)})"
                   if failed else f"none of the {len(rows)} documents failed")
    return Verdict("failed_documents", not failed, WARN if 0 < len(failed) <= limit else ERROR, description,
                   {"documents": len(rows), "failed": len(failed),
                    "failed_share": round(len(failed) / len(rows), 4) if rows else 0.0, "error_above": limit},
                   [{"path": r["path"], "error": r["error"] or ""} for r in failed])


def retention_band(src: Source, rows: list[dict], quality: QualitySettings) -> Verdict:
    """Documents below the band floor: an error against a configured band, a warning against a learned
    one; undecided (a warning that says so) with neither."""
    rows = [r for r in rows if r["status"] == "ok" and r["retention_ratio"] is not None]
    band = band_for(src.retention_band, [r["retention_ratio"] for r in rows], quality)
    if band is None:  # nothing to decide with: say so at WARN, never pass silently
        why = (f"could not decide: {len(rows)} documents with a ratio, fewer than the {quality.min_docs_for_band} "
               "needed to learn a band; set retention_band: [low, high] on the source to decide with a configured band")
        return Verdict("retention_band", False, WARN, why, {"documents": len(rows), "band": "undecided"})
    below = sorted((r for r in rows if r["retention_ratio"] < band.low), key=lambda r: r["retention_ratio"])
    why = (f"learned from the source's {band.n} ratios (median - {quality.mad_k:g}·MAD), so outliers only warn"
           if band.learned else "retention_band configured on the source, so a document below it is an error")
    return Verdict("retention_band", not below, WARN if band.learned else ERROR,
                   f"{len(below)} of {len(rows)} documents below the band floor {band.low:.3f}: {why}",
                   {"band_low": round(band.low, 4), "band_high": round(band.high, 4),
                    "band": "learned" if band.learned else "configured", "documents": len(rows), "below": len(below)},
                   [{"path": r["path"], "retention_ratio": round(r["retention_ratio"], 4)} for r in below])


def revision_count(src: Source, rows: list[dict]) -> Verdict:
    """Documents whose tracked changes and comments exceed the source's max_revisions (an error)."""
    rows = [r for r in rows if r["status"] == "ok"]
    counts = {r["path"]: {k: r[k] or 0 for k in REVISION_KEYS} for r in rows}
    totals = {p: sum(c.values()) for p, c in counts.items()}
    limit = src.max_revisions
    over = [{"path": p, **counts[p]} for p, t in sorted(totals.items()) if limit is not None and t > limit]
    return Verdict("revision_count", not over, ERROR,
                   "max_revisions is not set for this source: nothing to check" if limit is None else
                   f"{len(over)} of {len(rows)} documents over max_revisions {limit}, configured on the source",
                   {"max_revisions": "not set" if limit is None else limit,
                    "documents_with_revisions": sum(1 for t in totals.values() if t), "over": len(over)}, over)


def source_verdicts(src: Source, rows: list[dict], quality: QualitySettings) -> list[Verdict]:
    """The three checks' verdicts for one source's quality_report rows (every status)."""
    return [failed_documents(src, rows, quality), retention_band(src, rows, quality), revision_count(src, rows)]


def health_line(source: str, verdicts: list[Verdict]) -> str:
    """The source in one line: 'healthy', or each check that did not pass with its one sentence."""
    bad = [v for v in verdicts if not v.passed]
    if not bad:
        return f"{source}: healthy: every check passed"
    worst = ERROR if any(v.severity == ERROR for v in bad) else WARN
    return f"{source}: {worst}: " + "; ".join(f"{v.check} {v.word}: {v.description}" for v in bad)
