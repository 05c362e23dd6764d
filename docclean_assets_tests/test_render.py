"""Client-rendered pages rendered by headless Chromium, against a page served on loopback."""
import pytest

from docclean_assets.extract.api import extract_document
from docclean_assets.ingest.render import RenderError, chromium_path, render_url
from docclean_assets_tests.support.httpserve import loopback_server, send

SHELL = b"""<!doctype html><html><head><title>App</title><script src="/app.js"></script></head>
<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>"""
APP_JS = b"""document.addEventListener('DOMContentLoaded', function () {
  document.getElementById('root').innerHTML = '<article><h1>Rendered headline</h1><p>This paragraph '
    + 'exists only after the script ran in a browser, the way single-page apps ship their articles.</p></article>';
});"""

needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="Chromium is not installed (apt-get install chromium)")


@pytest.fixture
def app_server():
    def do_get(handler):
        if handler.path == "/app.js":
            send(handler, APP_JS, "application/javascript")
        else:
            send(handler, SHELL)

    with loopback_server(do_get) as base:
        yield base


def test_the_shell_alone_is_flagged_with_an_empty_body():
    ex = extract_document(SHELL, "html")
    assert "client_rendered_shell" in ex.report.flags
    assert not [b for b in ex.blocks if b.in_body]


@needs_chromium
def test_rendered_dom_has_the_article(app_server):
    dom = render_url(app_server, timeout_s=60, script_budget_ms=3000)
    ex = extract_document(dom, "html")
    body = " ".join(b.text for b in ex.blocks if b.in_body)
    assert "exists only after the script ran" in body
    assert "client_rendered_shell" not in ex.report.flags


def test_missing_browser_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("DOCCLEAN_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(RenderError, match="needs Chromium"):
        render_url("http://127.0.0.1:9/", timeout_s=5, script_budget_ms=100)


@needs_chromium
def test_render_true_url_source_ingests_the_rendered_article(app_server, tmp_path):
    import dagster as dg

    from docclean_assets.defs.definitions import build_defs
    from docclean_assets.store.tables import Store

    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  app:\n    urls: ['{app_server}']\n    render: true\n"
                   f"  raw:\n    urls: ['{app_server}']\n")
    defs = build_defs(cfg, tmp_path / "out")
    for key in ("app", "raw"):
        assert dg.materialize([*defs.assets, *defs.asset_checks], partition_key=key, resources=defs.resources).success
    con = Store(tmp_path / "out").connect()
    assert con.execute("SELECT source, rendered FROM raw_files ORDER BY source").fetchall() == [("app", True), ("raw", False)]
    body = dict(con.execute("SELECT source, string_agg(text, ' ') FROM normalized_blocks "
                            "WHERE drop_reason IS NULL GROUP BY source").fetchall())
    assert "exists only after the script ran" in body["app"] and "raw" not in body
    flags = dict(con.execute("SELECT source, flags FROM quality_report").fetchall())
    assert "client_rendered_shell" in flags["raw"] and "client_rendered_shell" not in flags["app"]


def test_render_failure_is_that_pages_error_not_a_silent_shell(app_server, tmp_path, monkeypatch):
    import dagster as dg

    from docclean_assets.defs.definitions import build_defs
    from docclean_assets.store.tables import Store

    monkeypatch.setenv("DOCCLEAN_CHROMIUM", "/nonexistent/chromium")
    cfg = tmp_path / "sources.yaml"
    cfg.write_text(f"sources:\n  app:\n    urls: ['{app_server}']\n    render: true\n")
    defs = build_defs(cfg, tmp_path / "out")
    assert dg.materialize([*defs.assets, *defs.asset_checks], partition_key="app", resources=defs.resources).success
    [(status, error)] = Store(tmp_path / "out").connect().execute(
        "SELECT status, error FROM quality_report").fetchall()
    assert status == "failed" and error.startswith("render failed: rendering needs Chromium")
