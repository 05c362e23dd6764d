"""Shared, session-built hostile inputs (the 2.1 GiB zip bomb takes ~1 s to write)."""
import pytest

from docclean_assets_tests.hostile import cases as C


@pytest.fixture(scope="session")
def bomb_docx() -> bytes:
    return C.zip_bomb(C.good_docx(), C.GIB * 21 // 10)
