"""docclean's extraction library: bytes in, blocks and diagnostics out, one package per format.

May import: only itself (and third-party parsers). Never dagster, never the rooms around it; the
store's settings may use its settings checker (`validation.py`), nothing else of it reaches down.
"""
from docclean_assets.extract.api import extract_document
from docclean_assets.extract.model import BBox, Block, DocReport, DropReason, Extraction, Kind
from docclean_assets.extract.settings import Settings

__all__ = ["BBox", "Block", "DocReport", "DropReason", "Extraction", "Kind", "Settings", "extract_document"]
