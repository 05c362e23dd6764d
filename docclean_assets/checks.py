"""Asset checks on quality_report, one result per source partition: failed documents, the retention
band and the revision-count rule. None passes when it could not decide: it warns and says why."""

import warnings

import dagster as dg
import pyarrow.compute as pc

from docclean_assets.extract.quality import band_for
from docclean_assets.meta import table_value
from docclean_assets.resources import Docclean
from docclean_assets.sources import Source
from docclean_assets.tables import QUALITY_SCHEMA

MAX_LISTED = 50  # documents listed by path in a check's metadata
ERROR_CHARS = 160  # an error message shown in a check's table is cut to this many characters

# The columns the checks read (a source's quality_report is one row per document: read only these).
CHECK_COLUMNS = ["path", "status", "error", "retention_ratio", "deletions", "insertions", "moves", "comment_refs"]


def _rows(docclean: Docclean, source: str, status: str | None = "ok") -> list[dict]:
    """The source's quality_report rows (of one status, or all)."""
    table = docclean.store.read("quality_report", source, QUALITY_SCHEMA, columns=CHECK_COLUMNS,
                                filter=None if status is None else pc.field("status") == status)
    if table is None:
        raise dg.Failure(f"quality_report has no partition {source!r} yet")
    return table.to_pylist()


def failed_limit(src: Source, documents: int, default_share: float) -> int:
    """How many failed documents a source tolerates before its check fails at ERROR severity."""
    share = default_share if src.max_failed_share is None else src.max_failed_share
    by_share = int(share * documents)
    return by_share if src.max_failed_documents is None else min(by_share, src.max_failed_documents)


def build_checks(quality_report: dg.AssetsDefinition) -> list[dg.AssetChecksDefinition]:
    """Checks bound to the quality_report asset, partitioned like it."""
    # Why a preview feature: `partitions_def` on an asset check is still marked preview in Dagster
    # 1.13 (PreviewWarning), but without it a check has one status for all sources: the UI shows the
    # last source's result, and a failing source is hidden as soon as another source's run passes
    # (issue 20). With it, each source's result is kept and shown on the check's Partitions tab. The
    # Dagster version is pinned exactly (pyproject.toml), so the preview cannot change under us; the
    # service tests read each partition's result back from the webserver.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return _checks(quality_report.partitions_def, quality_report)


def _checks(partitions: dg.PartitionsDefinition | None, quality_report: dg.AssetsDefinition) -> list[dg.AssetChecksDefinition]:
    """The three checks."""

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents that could not be read or "
                    "parsed: any fails the check with WARN severity; more than the source's max_failed_documents or "
                    "max_failed_share (default: a tenth) with ERROR severity. Paths and errors are listed.")
    def failed_documents(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src = docclean.source(context.partition_key)
        rows = _rows(docclean, src.name, status=None)
        failed = sorted((r for r in rows if r["status"] == "failed"), key=lambda r: r["path"])
        limit = failed_limit(src, len(rows), docclean.config.settings.quality.max_failed_share)
        listed = [{"path": r["path"], "error": (r["error"] or "")[:ERROR_CHARS]} for r in failed[:MAX_LISTED]]
        return dg.AssetCheckResult(
            passed=not failed,  # WARN: failures within the source's limit; ERROR: above it (and when none failed)
            severity=dg.AssetCheckSeverity.WARN if 0 < len(failed) <= limit else dg.AssetCheckSeverity.ERROR,
            description=(f"{len(failed)} of {len(rows)} documents failed; more than {limit} fails at ERROR severity"
                         if failed else f"none of the {len(rows)} documents failed"),
            metadata={"source": src.name, "documents": len(rows), "failed": len(failed),
                      "failed_share": round(len(failed) / len(rows), 4) if rows else 0.0, "error_above": limit,
                      "failed_documents": table_value(listed, ["path", "error"])})

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents whose retention ratio falls "
                    "below the source's band floor (configured, or median - k·MAD of the source's own ratios). With "
                    "too few documents to learn a band and none configured it cannot decide, and warns.")
    def retention_band(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src, quality = docclean.source(context.partition_key), docclean.config.settings.quality
        rows = [r for r in _rows(docclean, src.name) if r["retention_ratio"] is not None]
        band = band_for(src.retention_band, [r["retention_ratio"] for r in rows], quality)
        if band is None:  # nothing to decide with: say so at WARN, never pass silently
            why = (f"could not decide: {len(rows)} documents with a ratio, fewer than the {quality.min_docs_for_band} "
                   "needed to learn a band; set retention_band: [low, high] on the source to decide with a configured band")
            return dg.AssetCheckResult(passed=False, severity=dg.AssetCheckSeverity.WARN, description=why,
                                       metadata={"source": src.name, "documents": len(rows), "band": "undecided"})
        below = sorted((r for r in rows if r["retention_ratio"] < band.low), key=lambda r: r["retention_ratio"])
        listed = [{"path": r["path"], "retention_ratio": round(r["retention_ratio"], 4)} for r in below[:MAX_LISTED]]
        return dg.AssetCheckResult(
            passed=not below, severity=dg.AssetCheckSeverity.WARN if band.learned else dg.AssetCheckSeverity.ERROR,
            description=f"{len(below)} of {len(rows)} documents below the {'learned' if band.learned else 'configured'} "
                        f"band floor {band.low:.3f}",
            metadata={"source": src.name, "band_low": round(band.low, 4), "band_high": round(band.high, 4),
                      "band": "learned" if band.learned else "configured", "documents": len(rows), "below": len(below),
                      "below_band": table_value(listed, ["path", "retention_ratio"])})

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents with tracked changes or "
                    "reviewer comments above the source's max_revisions.")
    def revision_count(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src = docclean.source(context.partition_key)
        rows = _rows(docclean, src.name)
        counts = {r["path"]: {k: r[k] or 0 for k in ("deletions", "insertions", "moves", "comment_refs")} for r in rows}
        totals = {p: sum(c.values()) for p, c in counts.items()}
        limit = src.max_revisions
        over = [{"path": p, **counts[p]} for p, t in sorted(totals.items()) if limit is not None and t > limit]
        return dg.AssetCheckResult(
            passed=not over, severity=dg.AssetCheckSeverity.ERROR,
            description=("max_revisions is not set for this source: nothing to check" if limit is None else
                         f"{len(over)} of {len(rows)} documents over max_revisions {limit}"),
            metadata={"source": src.name, "max_revisions": "not set" if limit is None else limit,
                      "documents_with_revisions": sum(1 for t in totals.values() if t), "over": len(over),
                      "over_limit": table_value(over[:MAX_LISTED], ["path", "deletions", "insertions", "moves",
                                                                             "comment_refs"])})

    return [failed_documents, retention_band, revision_count]
