"""Asset checks on quality_report, one result per source partition: failed documents, the retention
band and the revision-count rule (decided in pipeline/health.py, which `docclean summary` shares). None
passes when it could not decide: it warns and says why."""

import warnings

import dagster as dg

from docclean_assets.defs.meta import table_value
from docclean_assets.pipeline import health
from docclean_assets.defs.resources import Docclean
from docclean_assets.pipeline.schemas import QUALITY_SCHEMA

MAX_LISTED = 50  # documents listed by path in a check's metadata
ERROR_CHARS = 160  # an error message shown in a check's table is cut to this many characters


def source_rows(docclean: Docclean, source: str) -> list[dict]:
    """The source's quality_report rows, the columns the verdicts read."""
    table = docclean.store.read("quality_report", source, QUALITY_SCHEMA, columns=health.HEALTH_COLUMNS)
    if table is None:
        raise dg.Failure(f"quality_report has no partition {source!r} yet")
    return table.to_pylist()


def check_result(verdict: health.Verdict, source: str, columns: list[str]) -> dg.AssetCheckResult:
    """A verdict as the UI shows it: passed or its severity, its sentence, its figures and documents."""
    listed = [{c: (r[c][:ERROR_CHARS] if c == "error" else r[c]) for c in columns} for r in verdict.listed[:MAX_LISTED]]
    tables = {"failed_documents": "failed_documents", "retention_band": "below_band", "revision_count": "over_limit"}
    return dg.AssetCheckResult(
        passed=verdict.passed, severity=dg.AssetCheckSeverity(verdict.severity), description=verdict.description,
        metadata={"source": source, **verdict.figures,
                  **({tables[verdict.check]: table_value(listed, columns)} if verdict.figures.get("band") != "undecided" else {})})


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
        verdict = health.failed_documents(src, source_rows(docclean, src.name), docclean.config.settings.quality)
        return check_result(verdict, src.name, ["path", "error"])

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents whose retention ratio falls "
                    "below the source's band floor (configured, or median - k·MAD of the source's own ratios). With "
                    "too few documents to learn a band and none configured it cannot decide, and warns.")
    def retention_band(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src = docclean.source(context.partition_key)
        verdict = health.retention_band(src, source_rows(docclean, src.name), docclean.config.settings.quality)
        return check_result(verdict, src.name, ["path", "retention_ratio"])

    @dg.asset_check(asset=quality_report, partitions_def=partitions, description="Documents with tracked changes or "
                    "reviewer comments above the source's max_revisions.")
    def revision_count(context: dg.AssetCheckExecutionContext, docclean: Docclean) -> dg.AssetCheckResult:
        src = docclean.source(context.partition_key)
        verdict = health.revision_count(src, source_rows(docclean, src.name))
        return check_result(verdict, src.name, ["path", *health.REVISION_KEYS])

    return [failed_documents, retention_band, revision_count]
