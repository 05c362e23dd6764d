"""Fixtures shared by the whole suite: a real S3-compatible server (SeaweedFS) for the object-storage tests."""
from __future__ import annotations

import pytest

from docclean_assets_tests.s3server import SeaweedS3


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
