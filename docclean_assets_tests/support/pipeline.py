"""The pipeline as the tests drive it: a folder source of generated article pages, one run of the
`ingest` job in-process, and the committed tables read back through DuckDB."""
from __future__ import annotations

from pathlib import Path

import dagster as dg

from docclean_assets.defs.definitions import build_defs
from docclean_assets.store.tables import Store

ARTICLE = """<html><head><title>{title}</title></head><body>
<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></nav>
<div class="cookie">We use cookies to improve your experience. Accept all cookies</div>
<main><article><h1>{title}</h1>
<p>{body} {first}</p>
<p>{second}</p>
</article></main>
<footer>Copyright 2026 Example Org. All rights reserved. Privacy policy</footer></body></html>"""

SENTENCES = [
    "The committee met on a Tuesday and reviewed the figures in detail before voting.",
    "Members noted that the earlier estimate had been revised twice since the spring survey.",
    "Residents along the river asked for the footpath to stay open during the works.",
    "The contractor expects the second phase to begin once the ground has dried out.",
    "An independent engineer will inspect the foundations before the deck is poured.",
    "Funding for the scheme comes partly from a regional grant awarded last winter.",
    "Local businesses reported fewer deliveries while the main road was narrowed.",
    "The archive holds photographs of the original crossing from the nineteenth century.",
    "Volunteers counted cyclists at the junction for two weeks to estimate demand.",
    "A public meeting is planned so that people can put questions to the engineers.",
]


def template_page(title: str, body: str) -> str:
    """An article page in a shared template; its prose differs from every other page's."""
    k = sum(map(ord, title + body))
    first, second = SENTENCES[k % len(SENTENCES)], SENTENCES[(k // len(SENTENCES) + 3) % len(SENTENCES)]
    return ARTICLE.format(title=title, body=body, first=first, second=second if second != first else "")


def write_source(tmp_path: Path, files: dict[str, bytes | str], extra: str = "") -> Path:
    """tmp_path/docs holding `files`, and a sources.yaml naming it as source `web` (plus `extra` lines)."""
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, content in files.items():
        target = docs / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  web:\n    path: docs\n    max_revisions: 0\n{extra}")
    return cfg


def run_ingest(cfg: Path, data_dir: Path, partition: str, instance: dg.DagsterInstance | None = None,
               **parse_config) -> dg.ExecuteInProcessResult:
    """One run of the `ingest` job (every asset and check) for a partition, as the UI launches it."""
    job = build_defs(cfg, data_dir).resolve_job_def("ingest")
    return job.execute_in_process(
        run_config={"ops": {"parsed_blocks": {"ops": {"parse_shard": {"config": parse_config}}}}} if parse_config else None,
        partition_key=partition, instance=instance, raise_on_error=False)


def asset_meta(result: dg.ExecuteInProcessResult, asset: str) -> dict:
    """The metadata of the asset's materialization in the run, as plain values."""
    [mat] = [m for m in result.asset_materializations_for_node(asset) if m.asset_key == dg.AssetKey(asset)]
    return {k: v.value for k, v in mat.metadata.items()}


def sql_rows(data_dir: Path, sql: str) -> list[tuple]:
    """The rows of a DuckDB query over the tables committed under data_dir."""
    return Store(data_dir).connect().execute(sql).fetchall()
