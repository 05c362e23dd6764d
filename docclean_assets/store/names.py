"""The names of the tables docclean writes, below every module that reads or writes them."""
from __future__ import annotations

# Every table docclean writes, in pipeline order; each becomes a DuckDB view of the same name.
TABLES = ("raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "chunks",
          "chunk_changes", "quality_report")
# Data table -> its per-document index, whose commits pin the data table's version.
PAIRS = {"parsed_blocks": "parsed_documents", "normalized_blocks": "_normalized_documents",
         "chunks": "_chunked_documents"}
INDEX_OF = {index: data for data, index in PAIRS.items()}
INTERNAL = ("_normalized_documents", "_chunked_documents")  # bookkeeping tables: no DuckDB view
