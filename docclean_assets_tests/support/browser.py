"""Headless Chromium for UI tests: Debian's `chromium` driven by Playwright (the browser the
rendering tests use; Playwright downloads none of its own)."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from docclean_assets.ingest.render import chromium_path

if TYPE_CHECKING:
    from playwright.sync_api import Page

needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="Chromium is not installed (apt-get install chromium)")
VIEWPORT = {"width": 1400, "height": 1000}  # a laptop screen: the UI lays out its side panels
TIMEOUT_MS = 30_000  # the longest any page element may take to appear (the UI polls GraphQL)


@contextlib.contextmanager
def browser_page() -> Iterator[Page]:
    """A fresh page in headless Chromium, closed (with the browser) on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(TIMEOUT_MS)
            yield page
        finally:
            browser.close()
