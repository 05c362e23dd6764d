"""One document cleaned: extracted, its repeats dropped (each with its reason), then normalised.

This is the one clean chain. `clean_document` runs it on a file's bytes (the CLI's `extract` and
`inspect`, the golden tests, the bench). The pipeline runs the same chain across a source: the
`boilerplate_sets` asset finds the page repeats and the site's template, and each document goes
through `blocks_to_kept` (pipeline/derive.py).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.boilerplate import Repeat, apply_repeats, blocks_to_page_repeats
from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.model import Block, Extraction
from docclean_assets.extract.normalize import normalize_blocks
from docclean_assets.extract.settings import Settings
from docclean_assets.extract.sniff import sniff_format


class Cleaned(NamedTuple):
    """A document's format, its extraction, and the blocks kept after repeats and normalisation."""

    fmt: str
    extraction: Extraction
    blocks: list[Block]


def blocks_to_kept(doc_id: str, blocks: list[Block], repeats: Iterable[Repeat], fmt: str,
                   settings: Settings) -> list[Block]:
    """One document's blocks with the given repeats dropped (text and reason kept), normalised."""
    return normalize_blocks(apply_repeats(doc_id, blocks, repeats, settings.boilerplate), settings.normalize, fmt)


def extraction_to_kept(ex: Extraction, settings: Settings, template: Iterable[Repeat] = ()) -> list[Block]:
    """The blocks kept of one extraction on its own: its page repeats (running heads, folios) and a
    source's `template` repeats dropped, then normalised."""
    repeats = [*blocks_to_page_repeats("-", ex.blocks, ex.report.pages, settings.boilerplate), *template]
    return blocks_to_kept("-", ex.blocks, repeats, ex.report.format, settings)


def clean_document(data: bytes, settings: Settings | None = None, fmt: str | None = None,
                   **extract_options: object) -> Cleaned:
    """A document's bytes cleaned: its format (sniffed unless given; ExtractionError when not
    recognised), its extraction (`extract_options` go to `extract_document`), and its kept blocks."""
    settings = settings or Settings()
    fmt = fmt or sniff_format(data)
    if fmt is None:
        raise ExtractionError("unrecognised format")
    ex = extract_document(data, fmt, settings, **extract_options)  # type: ignore[arg-type]
    return Cleaned(fmt, ex, extraction_to_kept(ex, settings))
