"""sources.yaml validation: every error names the source and the key."""
import os

import pytest

from docclean_assets.ingest.discover import discover_files
from docclean_assets.ingest.sources import SourceConfigError, load_sources


def _write(tmp_path, text):
    (tmp_path / "docs").mkdir(exist_ok=True)
    f = tmp_path / "sources.yaml"
    f.write_text(text)
    return f


def test_valid_config_resolves_relative_paths(tmp_path):
    f = _write(tmp_path, """
sources:
  alpha:
    path: docs
    schedule: "0 3 * * *"
    retention_band: [0.28, 0.44]
    max_revisions: 0
    html: {keep: "article", drop: [".ads"]}
  web:
    urls: ["https://example.org/a"]
settings:
  limits: {timeout_s: 30}
  fetch: {retries: 0, timeout_s: 5}
""")
    cfg = load_sources(f)
    assert cfg.sources["alpha"].path == (tmp_path / "docs").resolve()
    assert cfg.sources["alpha"].retention_band == (0.28, 0.44)
    assert cfg.sources["alpha"].html.drop == (".ads",)
    assert cfg.sources["web"].urls == ("https://example.org/a",)
    assert cfg.settings.limits.timeout_s == 30
    assert (cfg.fetch.retries, cfg.fetch.timeout_s) == (0, 5)  # the pipeline's own section, beside the library's


@pytest.mark.parametrize("body, needle", [
    ("  alpha:\n    path: docs\n    colour: red\n", "source 'alpha': key 'colour': unknown key (allowed: html, "),
    ("  alpha:\n    path: docs\n    retention_bnd: [0.5, 1]\n",
     "source 'alpha': key 'retention_bnd': unknown key; did you mean 'retention_band'?"),
    ("  alpha:\n    path: nowhere\n", "source 'alpha': key 'path': directory"),
    ("  alpha:\n    path: docs\n  alpha:\n    path: docs\n", "duplicate key 'alpha'"),
    ("  alpha:\n    path: docs\n    schedule: '61 * * * *'\n", "source 'alpha': key 'schedule'"),
    ("  alpha:\n    path: docs\n    retention_band: [0.5, 0.2]\n", "source 'alpha': key 'retention_band'"),
    ("  alpha:\n    path: docs\n    max_revisions: -1\n", "source 'alpha': key 'max_revisions'"),
    ("  alpha:\n    path: docs\n    max_failed_documents: -2\n", "source 'alpha': key 'max_failed_documents'"),
    ("  alpha:\n    path: docs\n    max_failed_share: 1.5\n", "source 'alpha': key 'max_failed_share'"),
    ("  alpha:\n    path: docs\n    max_failed_share: yes\n", "source 'alpha': key 'max_failed_share'"),
    ("  alpha:\n    urls: ['ftp://x']\n", "source 'alpha': key 'urls'"),
    ("  Alpha Beta:\n    path: docs\n", "source 'Alpha Beta': key 'name'"),
    ("  alpha:\n    path: docs\n    urls: ['https://x.org']\n", "exactly one of 'path' or 'urls'"),
    ("  alpha:\n    path: ftp://host/docs\n", "source 'alpha': key 'path': 'ftp://host/docs': ftp:// is not supported"),
    ("  alpha:\n    path: s3:///docs\n", "source 'alpha': key 'path': 's3:///docs': no bucket named"),
    ("  alpha:\n    path: s3://key:secret@bucket/docs\n", "source 'alpha': key 'path': s3://...: credentials in the URL"),
    ("  alpha:\n    path: s3://bucket/docs?x=1\n", "source 'alpha': key 'path': 's3://bucket/docs?x=1': a query"),
    ("  alpha:\n    path: s3://bucket/d*cs/\n", "source 'alpha': key 'path': 's3://bucket/d*cs': the prefix may not"),
    ("  alpha:\n    path: file:///srv/docs\n", "source 'alpha': key 'path': 'file:///srv/docs': give a local folder"),
])
def test_errors_name_source_and_key(tmp_path, body, needle):
    f = _write(tmp_path, "sources:\n" + body)
    with pytest.raises(SourceConfigError) as err:
        load_sources(f)
    assert needle in str(err.value)


def test_a_misspelt_top_level_key_is_named_before_the_missing_sources(tmp_path):
    f = _write(tmp_path, "sourcse:\n  alpha:\n    path: docs\n")
    with pytest.raises(SourceConfigError, match="unknown top-level key 'sourcse'; did you mean 'sources'\\?$"):
        load_sources(f)


def test_a_path_on_object_storage_is_a_normalised_prefix_checked_without_network(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens: load must not connect
    f = _write(tmp_path, "sources:\n  cloud: {path: 's3://bucket/team docs/'}\n  legacy: {path: 's3a://bucket'}\n"
                         "  disk: {path: docs}\n")
    cfg = load_sources(f)
    assert (cfg.sources["cloud"].prefix, cfg.sources["cloud"].path) == ("s3://bucket/team docs", None)
    assert cfg.sources["legacy"].prefix == "s3://bucket"  # a whole bucket
    assert cfg.sources["disk"].prefix is None and cfg.sources["disk"].path == (tmp_path / "docs").resolve()


@pytest.mark.parametrize("settings, needle", [
    ("  fetch: {timeout_s: 'soon'}\n", "settings: settings.fetch.timeout_s: expected a number, got str 'soon'"),
    ("  fetch: {timeout_s: 0}\n", "settings: settings.fetch: fetch timeout_s and max_bytes must be > 0"),
    ("  fetch: {timeout: 3}\n", "settings: unknown settings key(s) in fetch: ['timeout']; did you mean 'timeout_s'?"),
    ("  engin: {kind: local}\n", "settings: unknown settings section 'engin'; did you mean 'engine'?"),
    ("  pdf: {word_gap: 0.3}\n", "settings: unknown settings key(s) in pdf: ['word_gap']; did you mean 'word_gap_em'?"),
    ("  pdf: {word_gap_em: '0.2'}\n", "settings: settings.pdf.word_gap_em: expected a number, got str '0.2'"),
    ("  colours: {}\n", "settings: unknown settings section 'colours'"),
])
def test_settings_errors_name_section_and_key(tmp_path, settings, needle):
    f = _write(tmp_path, "sources:\n  alpha:\n    path: docs\nsettings:\n" + settings)
    with pytest.raises(SourceConfigError) as err:
        load_sources(f)
    assert str(err.value).endswith(needle), str(err.value)


def test_discovery_is_recursive_and_stays_inside_root(tmp_path):
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "x.PDF").write_bytes(b"%PDF-1.4")
    (root / "y.html").write_text("<html></html>")
    (root / "notes.txt").write_text("ignored")
    (root / "~$lock.docx").write_bytes(b"lock")
    outside = tmp_path / "secret.html"
    outside.write_text("<html>secret</html>")
    os.symlink(outside, root / "link.html")
    os.symlink(tmp_path, root / "loop")  # a directory link is never followed
    assert [rel for rel, _ in discover_files(root)] == ["a/b/x.PDF", "y.html"]


def test_speaker_notes_option(tmp_path):
    f = _write(tmp_path, "sources:\n  deck:\n    path: docs\n    speaker_notes: false\n")
    assert load_sources(f).sources["deck"].speaker_notes is False
    f = _write(tmp_path, "sources:\n  deck:\n    path: docs\n    speaker_notes: maybe\n")
    with pytest.raises(SourceConfigError, match="source 'deck': key 'speaker_notes'"):
        load_sources(f)
