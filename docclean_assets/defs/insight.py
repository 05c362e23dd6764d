"""What quality_report shows in the UI per source: the retention histogram with its band, blocks per
kind and drop reasons as tables, and the start of a few documents' body text."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import dagster as dg

from docclean_assets.extract.model import BODY_KINDS
from docclean_assets.extract.quality import Band
from docclean_assets.defs.meta import counts_value
from docclean_assets.defs.plots import png_markdown, retention_png
from docclean_assets.store.tables import Store, sql_string
from docclean_assets.defs.versions import changed_since

PREVIEW_DOCUMENTS = 3  # documents whose body text quality_report previews (the first by path)
# Dagster's UI shows Markdown metadata of fewer characters than this inline, longer behind a
# "[Show Markdown]" link (dagster-ui MetadataEntry, 1.13): the preview is cut to stay inline.
INLINE_MD_CHARS = 1000
KEPT = "kept (no drop reason)"  # how a kept block's missing drop reason is named in the tables
# quality_report's metadata drawn from the tables (a histogram, a preview, two tables): reused from
# the last materialization when the report's data version is unchanged (its inputs were too).
PICTURES = ("retention_histogram", "body_preview", "blocks_per_kind", "drop_reasons")


@dataclass(frozen=True, slots=True)
class BlockStats:
    """Counts over a committed blocks table, from one query."""

    rows: int
    kinds: dict[str | None, int]
    drop_reasons: dict[str | None, int]
    text_changed: int  # blocks whose text differs from the extracted text (orig_text keeps that)
    footnote_markers_removed: int  # of those, paragraphs whose footnote markers the PDF backend took out


def block_stats(store: Store, table: str, source: str) -> BlockStats:
    """Blocks per kind and drop reason, and blocks with changed text, of a partition's last commit."""
    kinds: Counter = Counter()
    reasons: Counter = Counter()
    changed = markers = 0
    for kind, reason, n, with_orig, with_refs in store.query(table, source, """
            SELECT kind, drop_reason, count(*), count(orig_text),
                   count(*) FILTER (WHERE map_contains(meta, 'footnote_refs')) FROM t GROUP BY ALL"""):
        kinds[kind] += n
        reasons[reason] += n
        changed += with_orig
        markers += with_refs
    return BlockStats(sum(kinds.values()), dict(kinds), dict(reasons), changed, markers)


def blocks_meta(stats: BlockStats) -> dict[str, dg.MetadataValue]:
    """Blocks per kind and per drop reason as tables."""
    return {"blocks_per_kind": counts_value(stats.kinds, "kind", "(no kind)"),
            "drop_reasons": counts_value(stats.drop_reasons, "drop_reason", KEPT)}


def quality_pictures(store: Store, source: str, ratios: list[float], band: Band | None, failed: int,
                     band_words: str) -> dict[str, dg.MetadataValue]:
    """quality_report's histogram, body preview and block tables, drawn from the tables."""
    return {"retention_histogram": dg.MetadataValue.md(histogram_md(ratios, band, failed, band_words)),
            "body_preview": dg.MetadataValue.md(body_preview_md(store, source)),
            **blocks_meta(block_stats(store, "normalized_blocks", source))}


def reused_pictures(previous: dg.AssetMaterialization | None, version: dg.DataVersion) -> dict | None:
    """The pictures of the last materialization when it recorded the same data version, else None."""
    if changed_since(previous, version):
        return None
    meta = previous.metadata
    return {k: meta[k] for k in PICTURES} if all(k in meta for k in PICTURES) else None


def band_text(band: Band | None, documents: int, min_docs: int) -> str:
    """The band in words: configured or learned with its bounds, or why there is none."""
    if band is None:
        return f"undecided: {documents} documents with a ratio, {min_docs} needed to learn one, none configured"
    return f"{'learned' if band.learned else 'configured'}: {band.low:.3f} to {band.high:.3f}"


def histogram_md(ratios: list[float], band: Band | None, failed: int, band_words: str) -> str:
    """The retention histogram as Markdown: the picture, then what it shows in one line."""
    png = retention_png(ratios, band, failed)
    below = sum(1 for r in ratios if band is not None and r < band.low)
    return (png_markdown(png, "retention ratio histogram") +
            f"\n\nRetention ratio per document; band {band_words}; {below} below the floor.")


def body_preview_md(store: Store, source: str) -> str:
    """The first characters of the body of the source's first documents, as Markdown."""
    kinds = ", ".join(sql_string(str(k)) for k in sorted(BODY_KINDS))
    rows = store.query("normalized_blocks", source, f"""
        WITH firsts AS (SELECT DISTINCT path FROM t ORDER BY path LIMIT {PREVIEW_DOCUMENTS})
        SELECT path, string_agg(text, ' · ' ORDER BY seq) FILTER (WHERE drop_reason IS NULL AND kind IN ({kinds}))
        FROM t WHERE path IN (SELECT path FROM firsts) GROUP BY path ORDER BY path""")
    if not rows:
        return "No documents."
    budget = INLINE_MD_CHARS // len(rows)  # characters of body text per document, shrunk until it fits
    while True:
        md = "\n\n".join(_preview_part(path, body, budget) for path, body in rows)
        if len(md) < INLINE_MD_CHARS or budget < 20:
            return md
        budget = budget * 4 // 5


def _preview_part(path: str, body: str | None, chars: int) -> str:
    """One document's preview: its path in bold, then its body's first `chars` characters quoted."""
    text = " ".join((body or "").split())
    shown = text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + " …"
    return f"**{_md_escape(path)}**\n\n> {_md_escape(shown) if shown else '(no body text)'}"


def _md_escape(text: str) -> str:
    """Text shown literally in Markdown (no emphasis, links or HTML from the document)."""
    return "".join("\\" + c if c in "\\`*_{}[]()<>#+-!|~" else c for c in text)
