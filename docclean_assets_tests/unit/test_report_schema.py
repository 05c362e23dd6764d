"""DocReport's fields are the report's one list: every table column and the record follow from them."""
from dataclasses import fields

import pyarrow as pa

from docclean_assets.extract.model import DocReport
from docclean_assets.extract.schema import LOSS_FIELDS, REPORT_COLUMNS, report_fields, row_to_report
from docclean_assets.pipeline.schemas import DOCS_SCHEMA, DOC_FIELDS, DocRef, QUALITY_SCHEMA, report_to_row

# The columns a table adds around the report: the document's, the parse's, and the quality figures.
_DOCS_OWN = {"source", "doc_id", "path", "status", "error", "parser_version", "parse_seconds"}
_QUALITY_OWN = {"source", "doc_id", "path", "status", "error", "kept_chars", "retention_ratio",
                "boilerplate_removed", "drop_counts", "parse_seconds"}


def test_every_report_field_is_a_column_of_both_tables_and_nothing_else_is():
    names = {f.name for f in fields(DocReport)}
    assert set(DOCS_SCHEMA.names) - _DOCS_OWN == names
    assert set(QUALITY_SCHEMA.names) - _QUALITY_OWN == names
    for schema in (DOCS_SCHEMA, QUALITY_SCHEMA):
        assert all(schema.field(n).type == REPORT_COLUMNS[n].type for n in names)
    assert {f.name for f in DOC_FIELDS} & names == {"format"}
    assert [f.name for f in LOSS_FIELDS] == [n for n in REPORT_COLUMNS if n not in
                                             {"format", "method", "pages", "raw_chars", "columns"}]


def test_column_types_follow_the_field_types():
    assert REPORT_COLUMNS["raw_chars"].type == pa.int64()  # the one override, from the field's metadata
    assert REPORT_COLUMNS["pages"].type == pa.int32()
    assert REPORT_COLUMNS["ocr_confidence"].type == pa.float64()
    assert REPORT_COLUMNS["method"].type == pa.string()
    assert REPORT_COLUMNS["flags"].type == pa.list_(pa.string())


def _every_field_set() -> DocReport:
    """A report whose every field differs from its default."""
    values = {}
    for i, f in enumerate(fields(DocReport), start=1):
        values[f.name] = {"int": i, "float": i + 0.5, "str": f"v{i}", "list[str]": [f"a{i}", f"b{i}"]}[f.type]
    return DocReport(**values)


def test_report_row_report_keeps_every_field():
    report = _every_field_set()
    assert all(getattr(report, f.name) != getattr(DocReport(), f.name) for f in fields(DocReport))
    row = report_to_row(DocRef("s", "d", "p", report.format), report, status="ok", error=None,
                        parser_version="1", parse_seconds=0.0)
    assert set(row) == set(DOCS_SCHEMA.names)
    assert row_to_report(row) == report
    assert row_to_report(pa.Table.from_pylist([row], schema=DOCS_SCHEMA).to_pylist()[0]) == report
    assert set(report_fields(report)) == {f.name for f in fields(DocReport)} - {"format"}


def test_a_row_without_report_reads_as_the_defaults():
    row = report_to_row(DocRef("s", "d", "p", None), None, status="failed", error="x", parser_version="1",
                        parse_seconds=0.0)
    assert row_to_report(row) == DocReport()
