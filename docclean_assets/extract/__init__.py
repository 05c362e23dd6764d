"""docclean's extraction library: bytes in, blocks and diagnostics out. Never imports dagster."""
from docclean_assets.extract.api import extract_document
from docclean_assets.extract.model import BBox, Block, DocReport, DropReason, Extraction, Kind
from docclean_assets.extract.settings import Settings

__all__ = ["BBox", "Block", "DocReport", "DropReason", "Extraction", "Kind", "Settings", "extract_document"]
