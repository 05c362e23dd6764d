"""Asset checks on quality_report: the per-source retention band and the revision-count rule."""

import warnings

import dagster as dg
import pyarrow.compute as pc

from docclean_assets.extract.quality import band_for
from docclean_assets.tables import QUALITY_SCHEMA
from docclean_assets.resources import Docclean

MAX_LISTED = 50  # documents listed by path in a check's metadata


# The columns the checks read (a source's quality_report is one row per document: read only these).
CHECK_COLUMNS = ["path", "status", "retention_ratio", "deletions", "insertions", "moves", "comment_refs"]


def _ok_rows(docclean: Docclean, source: str) -> list[dict]:
    table = docclean.store.read("quality_report", source, QUALITY_SCHEMA, columns=CHECK_COLUMNS,
                                filter=pc.field("status") == "ok")
    if table is None:
        raise dg.Failure(f"quality_report has no partition {source!r} yet")
    return table.to_pylist()


def build_checks(quality_report: dg.AssetsDefinition) -> list[dg.AssetChecksDefinition]:
    """Checks bound to the quality_report asset, one result per source partition (so a failing
    source stays visible in the UI after another source's run passes)."""
    partitions = quality_report.partitions_def
    # Partitioned checks are a Dagster preview (pinned version; see pyproject): the alternative, an
    # unpartitioned check, shows only the last source's result and hides a failing one.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return _checks(partitions, quality_report)


def _checks(partitions: dg.PartitionsDefinition | None, quality_report: dg.AssetsDefinition) -> list[dg.AssetChecksDefinition]:
    """The two checks, partitioned like quality_report."""

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents whose retention ratio falls below the "
                    "source's band floor (configured, or median - k·MAD of the source's own ratios).")
    def retention_band(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src = docclean.source(context.partition_key)
        rows = _ok_rows(docclean, src.name)
        ratios = [r["retention_ratio"] for r in rows if r["retention_ratio"] is not None]
        band = band_for(src.retention_band, ratios, docclean.config.settings.quality)
        if band is None:
            return dg.AssetCheckResult(passed=True, metadata={
                "source": src.name, "documents": len(ratios),
                "note": f"band not learned: fewer than {docclean.config.settings.quality.min_docs_for_band} documents"})
        below = sorted((r for r in rows if r["retention_ratio"] is not None and r["retention_ratio"] < band.low),
                       key=lambda r: r["retention_ratio"])
        return dg.AssetCheckResult(
            passed=not below, severity=dg.AssetCheckSeverity.WARN if band.learned else dg.AssetCheckSeverity.ERROR,
            metadata={"source": src.name, "band_low": round(band.low, 4), "band_high": round(band.high, 4),
                      "band": "learned" if band.learned else "configured", "documents": len(ratios),
                      "below": len(below),
                      "below_paths": dg.MetadataValue.json({r["path"]: round(r["retention_ratio"], 4) for r in below[:MAX_LISTED]})})

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents with tracked changes or reviewer comments "
                    "above the source's max_revisions.")
    def revision_count(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src = docclean.source(context.partition_key)
        rows = _ok_rows(docclean, src.name)
        counts = {r["path"]: {k: r[k] or 0 for k in ("deletions", "insertions", "moves", "comment_refs")} for r in rows}
        totals = {p: sum(c.values()) for p, c in counts.items()}
        limit = src.max_revisions
        over = {p: counts[p] for p, t in sorted(totals.items()) if limit is not None and t > limit}
        return dg.AssetCheckResult(
            passed=not over, severity=dg.AssetCheckSeverity.ERROR,
            metadata={"source": src.name, "max_revisions": "not set" if limit is None else limit,
                      "documents_with_revisions": sum(1 for t in totals.values() if t),
                      "over": len(over), "over_paths": dg.MetadataValue.json(dict(list(over.items())[:MAX_LISTED]))})

    return [retention_band, revision_count]
