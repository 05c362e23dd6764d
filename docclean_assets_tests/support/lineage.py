"""The asset graph's expected lineage, shared by the in-process and the webserver tests."""

# asset -> the assets it reads (what the lineage in the UI must show)
LINEAGE = {
    "raw_files": [],
    "parsed_blocks": ["raw_files"],
    "parsed_documents": ["raw_files"],
    "boilerplate_sets": ["parsed_blocks", "parsed_documents"],
    "normalized_blocks": ["boilerplate_sets", "parsed_blocks"],
    "chunks": ["normalized_blocks"],
    "chunk_changes": ["chunks"],
    "quality_report": ["normalized_blocks", "parsed_documents", "raw_files"],
}
