"""A snapshot of the asset graph: every table docclean writes is an asset, with its true lineage."""
import dagster as dg

from docclean_assets.defs.definitions import build_defs
from docclean_assets_tests.support.lineage import LINEAGE

CHECKS = {("quality_report", c) for c in ("failed_documents", "retention_band", "revision_count")}


def _graph(tmp_path):
    (tmp_path / "a").mkdir(exist_ok=True)
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  a:\n    path: a\n  b:\n    urls: [http://127.0.0.1:9/x]\n")
    return build_defs(cfg, tmp_path / "out").resolve_asset_graph()


def test_every_table_is_an_asset_with_its_lineage(tmp_path):
    graph = _graph(tmp_path)
    lineage = {key.to_user_string(): sorted(p.to_user_string() for p in graph.get(key).parent_keys)
               for key in graph.get_all_asset_keys()}
    assert lineage == LINEAGE


def test_every_asset_and_check_is_partitioned_by_source(tmp_path):
    graph = _graph(tmp_path)
    for key in graph.get_all_asset_keys():
        assert graph.get(key).partitions_def.get_partition_keys() == ["a", "b"], key
    assert {(c.asset_key.to_user_string(), c.name) for c in graph.asset_check_keys} == CHECKS


def test_the_parse_writes_both_tables_in_one_step(tmp_path):
    graph = _graph(tmp_path)
    blocks, docs = graph.get(dg.AssetKey("parsed_blocks")), graph.get(dg.AssetKey("parsed_documents"))
    assert blocks.assets_def is docs.assets_def  # one multi-asset: never one table without the other
    assert not blocks.assets_def.can_subset


def test_every_asset_is_in_the_docclean_group(tmp_path):
    # one box in the UI's lineage: the parse pair (a graph-backed multi-asset) sat alone in `default`
    graph = _graph(tmp_path)
    assert {key.to_user_string(): graph.get(key).group_name for key in graph.get_all_asset_keys()} == \
        {key: "docclean" for key in LINEAGE}
