"""DOCX and PPTX: the OOXML package to blocks (revisions, comments, notes, numbering, math, charts)."""
