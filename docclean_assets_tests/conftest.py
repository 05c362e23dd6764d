"""Fixtures over the real services the tests start on 127.0.0.1 (support/ holds the services): a
SeaweedFS S3 server, PostgreSQL, a Dask cluster of separate processes, and a user's deployment for
`dg`."""
from __future__ import annotations

from pathlib import Path

import pytest

from docclean_assets_tests.support.dagster_dev import ARTICLES, PARTITION, Deployment, harbour_page, project_env
from docclean_assets_tests.support.daskcluster import DaskCluster
from docclean_assets_tests.support.pgserver import Postgres
from docclean_assets_tests.support.s3server import SeaweedS3


@pytest.fixture(scope="session")
def s3(tmp_path_factory):
    """One SeaweedFS server for the session, on private ports of 127.0.0.1; stopped at the end."""
    server = SeaweedS3(tmp_path_factory.mktemp("seaweedfs"))
    yield server
    server.stop()


@pytest.fixture
def s3_env(s3, monkeypatch):
    """The standard AWS variables pointing at the test server, for this test only."""
    for key, value in s3.env().items():
        monkeypatch.setenv(key, value)
    return s3


@pytest.fixture
def postgres():
    """A PostgreSQL server of its own (initdb, pg_ctl) for the test; stopped and removed after."""
    server = Postgres()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """A Dask scheduler and two workers, separate processes, shared by a module's tests."""
    cluster = DaskCluster(tmp_path_factory.mktemp("dask"))
    yield cluster
    cluster.stop()


@pytest.fixture
def deployment(tmp_path: Path) -> Deployment:
    """A user's project in tmp_path: the harbour site as source `web`, a data dir and a DAGSTER_HOME."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, (title, paragraphs) in ARTICLES.items():
        (docs / name).write_text(harbour_page(title, paragraphs), encoding="utf-8")
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  {PARTITION}:\n    path: docs\n    max_revisions: 0\n", encoding="utf-8")
    data_dir = tmp_path / "data"
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    env = project_env(DOCCLEAN_SOURCES=str(sources), DOCCLEAN_DATA_DIR=str(data_dir), DAGSTER_HOME=str(home))
    return Deployment(tmp_path, sources, data_dir, home, env)
