"""The one record's explicit pyarrow schema (a block's columns, a report's columns derived from DocReport),
and values fitted to it: what a worker hands over for one document. The tables of the pipeline are
built on these in the Dagster layer (docclean_assets/pipeline/schemas.py)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields

import pyarrow as pa

from docclean_assets.extract.model import BBox, Block, DocReport

META_TYPE = pa.map_(pa.string(), pa.string())

# A block's own columns, in the order of the Block's fields: the one record's one schema.
CONTENT_SCHEMA = pa.schema(
    [
        pa.field("seq", pa.int32(), nullable=False),
        pa.field("page", pa.int32()),
        pa.field("x0", pa.float64()),  # points, top-left origin
        pa.field("y0", pa.float64()),
        pa.field("x1", pa.float64()),
        pa.field("y1", pa.float64()),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("orig_text", pa.string()),
        pa.field("drop_reason", pa.string()),
        pa.field("level", pa.int32()),
        pa.field("anchor", pa.int32()),
        pa.field("meta", META_TYPE),
    ]
)
_BOX = ("x0", "y0", "x1", "y1")
# Each block column's description (the Dagster UI lists them with the tables).
CONTENT_DOCS = {
    "seq": "The block's position in the document's reading order (0-based).",
    "page": "Page (PDF) or slide (PPTX) number, 1-based; NULL for formats without pages.",
    "x0": "Left edge of the block's box, in points from the page's left (PDF only).",
    "y0": "Top edge of the block's box, in points from the page's top (PDF only).",
    "x1": "Right edge of the block's box, in points (PDF only).",
    "y1": "Bottom edge of the block's box, in points (PDF only).",
    "kind": "What the block is: title, heading, paragraph, list_item, table, caption, code, callout (body kinds), "
            "or footnote, pull_quote, margin_note, speaker_notes, comment, image_text (kept apart).",
    "text": "The block's text, normalised (a table as Markdown).",
    "orig_text": "The text as extracted, when normalisation or marker removal changed it; NULL otherwise.",
    "drop_reason": "Why the block left the body (running_head, page_number, site_template ...); NULL when kept.",
    "level": "Heading level (1 = top) or list nesting level; NULL otherwise.",
    "anchor": "The seq of the block a footnote, margin note or comment belongs to; NULL otherwise.",
    "meta": "Backend details as key-value pairs (list_label, marker, footnote_refs, ocr_confidence ...).",
}

# The report's columns, derived from DocReport's fields (its one list) in their order: int -> int32 unless
# the field's metadata names another Arrow type ("arrow": "int64"), float -> float64, str -> string,
# list[str] -> list<string>.
_ARROW_TYPES = {"int": pa.int32(), "float": pa.float64(), "str": pa.string(), "list[str]": pa.list_(pa.string())}
REPORT_DOCS = {f.name: f.metadata["doc"] for f in dataclass_fields(DocReport)}
REPORT_COLUMNS = {
    f.name: pa.field(f.name, getattr(pa, f.metadata["arrow"])() if "arrow" in f.metadata else _ARROW_TYPES[f.type])
    for f in dataclass_fields(DocReport)
}
# What a document is (format, in DOC_FIELDS, and method, pages, raw_chars, columns), placed by each table
# itself; every other report field is a count of the chances of silent loss, or its flags (quality_report
# and parsed_documents), in DocReport's order.
_REPORT_HEAD = ("format", "method", "pages", "raw_chars", "columns")
LOSS_FIELDS = [column for name, column in REPORT_COLUMNS.items() if name not in _REPORT_HEAD]

# ---- Values crossing into a table. A document's values are fitted to their column's type one row at
# a time (in the worker, under its limits), so that no value a file carries (a page count of 1e11, a
# list level of 2**31, a broken surrogate) can fail the write of a whole partition.
CLAMPED_FLAG = "value_clamped"  # a value outside its column's range was clamped or nulled
_INT_RANGES = {pa.int8(): 8, pa.int16(): 16, pa.int32(): 32, pa.int64(): 64}


def utf8(text: str) -> str:
    """Text Parquet can store: a lone surrogate (a broken font map, an undecodable byte) becomes U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in text)


def _int(value: object, bits: int) -> tuple[int | None, bool]:
    """An integer within a signed `bits`-bit range: clamped, or None when it is no number at all."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if isinstance(value, float) and not math.isfinite(value):
        return None, True
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None, True
    if number < lo or number > hi:
        return min(max(number, lo), hi), True
    return number, number != value


def fit_value(value: object, typ: pa.DataType) -> tuple[object, bool]:
    """`value` as column type `typ` accepts it, and whether it had to be changed to fit."""
    if value is None:
        return None, False
    if typ in _INT_RANGES:
        return _int(value, _INT_RANGES[typ])
    if pa.types.is_floating(typ):
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            return None, True
        return (number, number != value) if math.isfinite(number) else (None, True)
    if pa.types.is_string(typ):
        text = value if isinstance(value, str) else str(value)
        fixed = utf8(text)
        return fixed, fixed is not value
    if pa.types.is_boolean(typ):
        return bool(value), not isinstance(value, bool)
    if pa.types.is_map(typ):
        pairs = [(fit_value(k, typ.key_type), fit_value(v, typ.item_type)) for k, v in value]  # type: ignore[attr-defined]
        kept = [(k, v) for (k, _), (v, _) in pairs if k is not None]
        return kept, len(kept) != len(pairs) or any(a or b for (_, a), (_, b) in pairs)
    if pa.types.is_list(typ):
        items = [fit_value(v, typ.value_type) for v in value]  # type: ignore[attr-defined]
        return [v for v, _ in items], any(changed for _, changed in items)
    return value, False


_NOT_NULL = {pa.types.is_integer: 0, pa.types.is_floating: 0.0, pa.types.is_string: "", pa.types.is_boolean: False}
Fitter = Callable[[object], tuple[object, bool]]


def _fitter(typ: pa.DataType) -> Fitter:
    """fit_value for one column type, with the values that need no change (nearly all of them) passed
    through after a type check: every row of every table is fitted, so this is the tables' hot path."""
    if typ in _INT_RANGES:
        lo, hi = -(1 << (_INT_RANGES[typ] - 1)), (1 << (_INT_RANGES[typ] - 1)) - 1
        return lambda v: (v, False) if type(v) is int and lo <= v <= hi else fit_value(v, typ)
    if pa.types.is_floating(typ):
        return lambda v: (v, False) if type(v) is float and math.isfinite(v) else fit_value(v, typ)
    if pa.types.is_string(typ):
        return lambda v: (v, False) if type(v) is str and v.isascii() else fit_value(v, typ)
    if pa.types.is_list(typ) and pa.types.is_string(typ.value_type):
        return lambda v: (list(v), False) if type(v) is list and all(
            type(x) is str and x.isascii() for x in v) else fit_value(v, typ)
    if pa.types.is_map(typ) and pa.types.is_string(typ.key_type) and pa.types.is_string(typ.item_type):
        return lambda v: (list(v), False) if type(v) in (list, tuple) and all(
            type(p) is tuple and len(p) == 2 and type(p[0]) is str and type(p[1]) is str
            and p[0].isascii() and p[1].isascii() for p in v) else fit_value(v, typ)
    return lambda v: fit_value(v, typ)


_FITTERS_KEPT = 64  # the tables have a dozen schemas
_FITTERS: dict[int, tuple[pa.Schema, tuple[tuple[str, Fitter, bool, object], ...]]] = {}  # by id(schema)


def _row_fitters(schema: pa.Schema) -> tuple[tuple[str, Fitter, bool, object], ...]:
    """(name, fitter, nullable, the value standing in for a NULL the column refuses) per column, made
    once per schema object (kept by identity: hashing a schema on every row costs more than fitting)."""
    known = _FITTERS.get(id(schema))
    if known is None or known[0] is not schema:
        if len(_FITTERS) >= _FITTERS_KEPT:  # schemas made on the fly: never an unbounded cache
            _FITTERS.clear()
        known = _FITTERS[id(schema)] = (schema, tuple(
            (f.name, _fitter(f.type), f.nullable, next((v for test, v in _NOT_NULL.items() if test(f.type)), None))
            for f in schema))
    return known[1]


def fit_row(row: dict, schema: pa.Schema) -> tuple[dict, int]:
    """The row with every column of `schema` fitted to its type, and how many values were changed."""
    out, changed = {}, 0
    get = row.get
    for name, fit, nullable, stand_in in _row_fitters(schema):
        value = get(name)
        if value is None:
            if not nullable:
                value, changed = stand_in, changed + 1
        else:
            value, fixed = fit(value)
            if value is None and not nullable:
                value, fixed = stand_in, True
            changed += fixed
        out[name] = value
    return out, changed


def block_row(b: Block) -> dict:
    """A block's own columns, before they are fitted."""
    box = b.bbox
    return {
        "seq": b.seq, "page": b.page,
        "x0": box.x0 if box else None, "y0": box.y0 if box else None,
        "x1": box.x1 if box else None, "y1": box.y1 if box else None,
        "kind": b.kind, "text": b.text, "orig_text": b.orig_text, "drop_reason": b.drop_reason,
        "level": b.level, "anchor": b.anchor, "meta": list(b.meta),
    }


def fit_block_row(row: dict, schema: pa.Schema) -> tuple[dict, int]:
    """A block row fitted to `schema`; a box with any coordinate that is no finite number is no box."""
    row, changed = fit_row(row, schema)
    if any(row[c] is None for c in _BOX) and any(row[c] is not None for c in _BOX):
        row.update(dict.fromkeys(_BOX))
        changed += 1
    return row, changed


def blocks_to_content(blocks: Iterable[Block]) -> tuple[pa.Table, int]:
    """A CONTENT_SCHEMA table of one document's blocks, and how many values had to be changed to fit."""
    blocks = list(blocks)
    arrays = content_arrays(blocks)
    if arrays is not None:
        return pa.Table.from_arrays(arrays, schema=CONTENT_SCHEMA), 0
    rows, changed = [], 0
    for b in blocks:
        row, n = fit_block_row(block_row(b), CONTENT_SCHEMA)
        rows.append(row)
        changed += n
    return pa.Table.from_pylist(rows, schema=CONTENT_SCHEMA), changed


# What Arrow raises when a column's values do not all fit its type as they are.
UNFIT = (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeError, TypeError, ValueError)
_REQUIRED = tuple(i for i, f in enumerate(CONTENT_SCHEMA) if not f.nullable)


def _py_type(typ: pa.DataType) -> type:
    """The Python type a column of `typ` takes as it is (a map column's pairs are checked apart)."""
    return int if pa.types.is_integer(typ) else float if pa.types.is_floating(typ) else str


_PY_TYPES = [frozenset({type(None), _py_type(f.type)}) for f in CONTENT_SCHEMA]  # the last (meta) unused


def content_arrays(blocks: Sequence[Block]) -> list[pa.Array] | None:
    """The CONTENT_SCHEMA columns of blocks whose every value fits its column as it is, built column
    by column (a tenth of the row-by-row cost); None when any value needs fitting (fit_block_row
    decides it then): a number out of range, a box coordinate that is not finite, a lone surrogate,
    a value of another type, a NULL where the column takes none."""
    cols: list[list] = [[] for _ in CONTENT_SCHEMA]
    seq, page, x0, y0, x1, y1, kind, text, orig, drop, level, anchor, meta = cols
    isfinite = math.isfinite
    try:
        for b in blocks:
            box = b.bbox
            if box is None:
                x0.append(None), y0.append(None), x1.append(None), y1.append(None)
            elif isfinite(box.x0) and isfinite(box.y0) and isfinite(box.x1) and isfinite(box.y1):
                x0.append(box.x0), y0.append(box.y0), x1.append(box.x1), y1.append(box.y1)
            else:
                return None
            seq.append(b.seq), page.append(b.page), kind.append(b.kind), text.append(b.text)
            orig.append(b.orig_text), drop.append(b.drop_reason), level.append(b.level), anchor.append(b.anchor)
            meta.append(b.meta)
        # Arrow takes some values fit_value changes (2.5 truncated into an int column, bytes decoded
        # into a string one): every value must be of its column's own Python type.
        if not all(set(map(type, col)) <= _PY_TYPES[i] for i, col in enumerate(cols[:-1])):
            return None
        if not all(type(k) is str and type(v) is str for m in meta for k, v in m):
            return None
        arrays = [pa.array(col, f.type) for col, f in zip(cols, CONTENT_SCHEMA)]
    except UNFIT:
        return None
    return None if any(arrays[i].null_count for i in _REQUIRED) else arrays


@dataclass(frozen=True, slots=True)
class DocPayload:
    """One parsed document on its way from its worker into the tables: the blocks as Arrow IPC bytes
    (CONTENT_SCHEMA, every value fitted) and the report's DOCS_SCHEMA columns (`report_fields`)."""

    content: bytes
    report: dict

    def blocks(self) -> pa.Table:
        """The CONTENT_SCHEMA table."""
        return pa.ipc.open_stream(self.content).read_all()


def extraction_to_payload(blocks: list[Block], report: DocReport) -> DocPayload:
    """A backend's blocks (in seq order) and report, fitted to the tables' types; whatever had to be
    clamped or nulled flags the document `value_clamped`."""
    content, changed = blocks_to_content(sorted(blocks, key=lambda b: b.seq))
    fields = report_fields(report)
    if changed and CLAMPED_FLAG not in fields["flags"]:
        fields["flags"].append(CLAMPED_FLAG)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, CONTENT_SCHEMA) as writer:
        writer.write_table(content)
    return DocPayload(sink.getvalue().to_pybytes(), fields)


def row_to_block(row: dict) -> Block:
    """The Block a BLOCKS_SCHEMA row holds."""
    box = None
    if row.get("x0") is not None:
        box = BBox(row["x0"], row["y0"], row["x1"], row["y1"])
    return Block(
        kind=row["kind"], text=row["text"], seq=row["seq"], orig_text=row.get("orig_text"),
        page=row.get("page"), bbox=box, drop_reason=row.get("drop_reason"), level=row.get("level"),
        anchor=row.get("anchor"), meta=tuple((k, v) for k, v in (row.get("meta") or [])),
    )


# The columns a backend's report fills: all of DocReport but its format (which the document's row carries).
REPORT_FIELDS = tuple(name for name in REPORT_COLUMNS if name != "format")
_REPORT_SCHEMA = pa.schema([REPORT_COLUMNS[n] for n in REPORT_FIELDS])


def report_fields(report: DocReport) -> dict:
    """The DOCS_SCHEMA columns a backend's report fills, fitted to their types; a value that had to
    be clamped flags the document `value_clamped`."""
    raw = {name: _copied(getattr(report, name)) for name in REPORT_FIELDS}
    row, changed = fit_row(raw, _REPORT_SCHEMA)
    if changed and CLAMPED_FLAG not in row["flags"]:
        row["flags"].append(CLAMPED_FLAG)
    return row


def row_to_report(row: dict) -> DocReport:
    """The DocReport a DOCS_SCHEMA row holds; a NULL column reads as the field's default."""
    values = {name: row.get(name) for name in REPORT_COLUMNS}
    return DocReport(**{name: _copied(v) for name, v in values.items() if v is not None})


def _copied(value: object) -> object:
    """A list value as a new list (report and row never share one), anything else as it is."""
    return list(value) if isinstance(value, list) else value
