"""A generated site of a dozen pages sharing one template, served on loopback with ETags, ingested
as a URL source and as a folder source: each page's body, zero template leakage, the flags, and a
second ingestion that transfers and parses nothing."""
import hashlib

import dagster as dg
import pytest

from docclean_assets.defs.definitions import build_defs
from docclean_assets.store.tables import Store
from docclean_assets_tests.support.httpserve import loopback_server, send

TEMPLATE_TEXT = ["Home", "Services", "Contact us", "We use cookies to make this site work. Accept cookies",
                 "You are here: Home / Guides", "Was this page helpful? Yes No",
                 "Copyright 2026 Harbour City Council. Privacy and accessibility statement"]
TOPICS = ["ferries", "bridges", "tides", "markets", "libraries", "parks", "buses", "recycling", "housing", "permits"]


def _prose(topic: str, k: int) -> list[str]:
    """Three sentences of their own for each page (nothing shared between pages)."""
    return [f"The council reviewed the {topic} service for the {k + 1}th time since the harbour reopened.",
            f"Residents asked for clearer {topic} notices in each district and for longer opening hours.",
            f"A report on {topic} spending, number {100 + k}, goes to the committee before the summer recess."]


def _page(title: str, body_html: str, head: str = "", charset: str = "utf-8") -> str:
    return f"""<!doctype html><html><head><meta charset="{charset}"><title>{title} | Harbour City</title>{head}</head>
<body><header><nav><a href="/">Home</a> <a href="/services">Services</a> <a href="/contact">Contact us</a></nav></header>
<div class="cookie-banner">We use cookies to make this site work. <button>Accept cookies</button></div>
<ol class="breadcrumb"><li>You are here: Home / Guides</li></ol>
<main><article><h1>{title}</h1>{body_html}</article>
<div class="feedback">Was this page helpful? <button>Yes</button> <button>No</button></div></main>
<footer><p>Copyright 2026 Harbour City Council. Privacy and accessibility statement</p></footer></body></html>"""


def site() -> tuple[dict[str, bytes], dict[str, list[str]]]:
    """(path -> bytes, path -> sentences its body must hold)."""
    pages, expect = {}, {}
    for k, topic in enumerate(TOPICS):
        sentences = _prose(topic, k)
        body = "".join(f"<p>{s}</p>" for s in sentences)
        head = ""
        if k % 3 == 0:  # JSON-LD on some pages
            head = ('<script type="application/ld+json">{"@type": "Article", "articleBody": "'
                    + " ".join(sentences) + '"}</script>')
        if k == 1:  # a reference table
            body += ("<table><tr><th>Bridge</th><th>Span (m)</th><th>Opened</th></tr>"
                     "<tr><td>North</td><td>120</td><td>1931</td></tr><tr><td>Mill</td><td>64</td><td>1899</td></tr>"
                     "<tr><td>Quay</td><td>88</td><td>1975</td></tr></table>")
            sentences = [*sentences, "| North | 120 | 1931 |"]
        if k == 2:  # tabs: the second panel is hidden until clicked
            body += ('<div class="tabs"><div role="tabpanel"><p>Spring tides peak at 6.1 metres in March.</p></div>'
                     '<div role="tabpanel" hidden><p>Neap tides stay under 4.2 metres through June.</p></div></div>')
            sentences = [*sentences, "Neap tides stay under 4.2 metres through June."]
        charset = "windows-1252" if k == 4 else "utf-8"
        if k == 4:  # windows-1252, declared
            body += "<p>The caf\u00e9 in the library serves cr\u00e8me br\u00fbl\u00e9e for \u20ac3.</p>"
            sentences = [*sentences, "The caf\u00e9 in the library serves cr\u00e8me br\u00fbl\u00e9e for \u20ac3."]
        pages[f"{topic}.html"] = _page(topic.title(), body, head, charset).encode(charset)
        expect[f"{topic}.html"] = sentences
    pages["account.html"] = (b'<!doctype html><html><head><title>Account</title><script src="/app.js"></script></head>'
                             b'<body><div id="root"></div><noscript>Please enable JavaScript.</noscript></body></html>')
    pages["contact.html"] = _page("Contact", "<p>Write to the Town Hall, Quay Street, or call the switchboard on weekdays.</p>").encode()
    expect["contact.html"] = ["Write to the Town Hall, Quay Street, or call the switchboard on weekdays."]
    return pages, expect


@pytest.fixture
def served():
    pages, _ = site()
    log = {"full": 0, "not_modified": 0}

    def do_get(handler):
        body = pages.get(handler.path.lstrip("/"))
        if body is None:
            handler.send_error(404)
            return
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if handler.headers.get("If-None-Match") == etag:
            log["not_modified"] += 1
            handler.send_response(304)
            handler.send_header("ETag", etag)
            handler.end_headers()
            return
        log["full"] += 1
        send(handler, body, headers={"ETag": etag})

    with loopback_server(do_get) as base:
        yield base, sorted(pages), log


def _run(cfg, data, key):
    defs = build_defs(cfg, data)
    result = dg.materialize([*defs.assets, *defs.asset_checks], partition_key=key, resources=defs.resources)
    assert result.success
    [mat] = [m for m in result.asset_materializations_for_node("parsed_blocks")
             if m.asset_key == dg.AssetKey("parsed_blocks")]
    return {k: v.value for k, v in mat.metadata.items()}


def _check_site(data, key, name_of):
    con = Store(data).connect()
    _, expect = site()
    bodies = {}
    for path, text in con.execute("SELECT path, string_agg(text, ' ' ORDER BY seq) FROM normalized_blocks "
                                  "WHERE drop_reason IS NULL AND source = ? GROUP BY path", [key]).fetchall():
        bodies[name_of(path)] = text
    for page, sentences in expect.items():
        for sentence in sentences:
            assert sentence in bodies.get(page, ""), (page, sentence)
    leaked = [(p, t) for p, body in bodies.items() for t in TEMPLATE_TEXT if t in body]
    assert leaked == []
    flags = {name_of(p): f for p, f in con.execute("SELECT path, flags FROM quality_report WHERE source = ?", [key]).fetchall()}
    assert "client_rendered_shell" in flags["account.html"]
    assert "account.html" not in bodies
    methods = dict(con.execute("SELECT path, method FROM quality_report WHERE source = ?", [key]).fetchall())
    jsonld = {f"{t}.html" for k, t in enumerate(TOPICS) if k % 3 == 0}
    assert {name_of(p) for p, m in methods.items() if m == "jsonld"} == jsonld


def test_site_as_url_source_then_unchanged_reingestion_transfers_and_parses_nothing(served, tmp_path):
    base, names, log = served
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  city:\n    urls:\n" + "".join(f"      - {base}{n}\n" for n in names))
    first = _run(cfg, tmp_path / "out", "city")
    assert (first["parsed"], first["failed"]) == (len(names), 0) and log["full"] == len(names)
    _check_site(tmp_path / "out", "city", lambda p: p.rsplit("/", 1)[-1])
    second = _run(cfg, tmp_path / "out", "city")
    assert (second["parsed"], second["reused"]) == (0, len(names))
    assert log == {"full": len(names), "not_modified": len(names)}
    statuses = Store(tmp_path / "out").connect().execute("SELECT DISTINCT http_status FROM raw_files").fetchall()
    assert statuses == [(304,)]


def test_site_as_folder_source(tmp_path):
    pages, _ = site()
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, data in pages.items():
        (docs / name).write_bytes(data)
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  city:\n    path: docs\n")
    assert _run(cfg, tmp_path / "out", "city")["failed"] == 0
    _check_site(tmp_path / "out", "city", lambda p: p)
