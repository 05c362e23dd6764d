"""The cleaned text of committed documents (issue 36): each document's kept content as Markdown, plain
text or JSONL, read from the tables the last run committed (nothing is parsed again).

    from docclean_assets.pipeline.export import document_texts, write_texts
    for doc in document_texts(source="reports", fmt="md", data_dir="data/out"):
        print(doc.path, len(doc.text))
    write_texts(document_texts(source="reports"), "out/text", "md")   # out/text/reports/<path>.md

Documents are streamed a batch at a time (`settings: store: batch_documents`), so a source of any
size is written in bounded memory.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from docclean_assets.extract.markdown import blocks_to_markdown, blocks_to_text, kept_blocks
from docclean_assets.extract.model import Block
from docclean_assets.extract.sniff import file_doc_id
from docclean_assets.ingest.sources import default_data_dir
from docclean_assets.pipeline.derive import documents_with_blocks
from docclean_assets.store.tables import Store
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, NORMALIZED_DOCS_SCHEMA, table_to_blocks

FORMATS = ("md", "txt", "jsonl")
SUFFIX = {"md": ".md", "txt": ".txt", "jsonl": ".jsonl"}
# Characters kept in a file name written for a stored path (or URL); others become "_".
_UNSAFE = re.compile(r"[^A-Za-z0-9._/-]")


@dataclass(frozen=True, slots=True)
class DocumentText:
    """One document's kept content in an output format, or why it has none (status 'failed')."""

    source: str
    path: str  # as stored: relative to the source root, or the URL
    doc_id: str
    format: str  # the document's own format: pdf | docx | pptx | html
    status: str  # ok | failed
    error: str | None
    text: str  # '' for a failed document


def document_texts(source: str | None = None, document: str | None = None, fmt: str = "md",
                   data_dir: str | Path | None = None, store: Store | None = None,
                   among: Sequence[str] | None = None) -> Iterator[DocumentText]:
    """Each committed document of `source` (every source when None, or every one of `among`: the
    configured ones) in path order, or only those `document` names (a stored path or its tail, a
    doc_id, or a local file, matched by its content), as `fmt` (md | txt | jsonl) from the tables
    under `data_dir` (default: `docclean run`'s) or `store`."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    store = store or Store(str(data_dir or default_data_dir()))
    names = [source] if source is not None else [n for n in store.sources("normalized_blocks")
                                                 if among is None or n in among]
    where, params = _matching(document)
    for name in names:
        con = store.connect_for(name, {"blocks": ("normalized_blocks", BLOCKS_SCHEMA),
                                       "docs": ("_normalized_documents", NORMALIZED_DOCS_SCHEMA)})
        try:  # a table, not a temporary one: documents_with_blocks reads it through a cursor
            con.execute("CREATE TABLE wanted AS SELECT source, doc_id, path, format, status, error FROM docs "
                        f"WHERE {where}", params)
            docs = "SELECT * FROM wanted ORDER BY path, doc_id"
            for row, table in documents_with_blocks(con, docs, store.settings.batch_documents, blocks_view="blocks"):
                blocks = [b for _, b in table_to_blocks(table)] if table is not None else []
                text = render(blocks, fmt, row) if row["status"] == "ok" else ""
                yield DocumentText(row["source"], row["path"], row["doc_id"], row["format"] or "", row["status"],
                                   row["error"], text)
        finally:
            con.close()


def _matching(document: str | None) -> tuple[str, dict]:
    """The SQL condition (and its parameters) on the documents index that selects `document`."""
    if document is None:
        return "true", {}
    ids = {document.lower()}
    if Path(document).is_file():
        ids.add(file_doc_id(document))
    tail = re.sub(r"^(?:\./)+", "", document.replace("\\", "/"))  # ./report.pdf is report.pdf
    return ("doc_id IN (SELECT unnest($ids)) OR path = $doc OR path = $tail OR ends_with(path, '/' || $tail)",
            {"ids": sorted(ids), "doc": document, "tail": tail})


def render(blocks: list[Block], fmt: str, doc: dict | None = None) -> str:
    """One document's kept blocks as `fmt`: Markdown, plain text, or one JSON record per block."""
    if fmt == "md":
        return blocks_to_markdown(blocks)
    if fmt == "txt":
        return blocks_to_text(blocks)
    head = {k: (doc or {}).get(k) for k in ("source", "path", "doc_id", "format")}
    return "".join(json.dumps(head | _record(b), ensure_ascii=False) + "\n" for b in kept_blocks(blocks))


def _record(b: Block) -> dict:
    """A kept block as a JSON object: its place, kind, text and meta."""
    box = None if b.bbox is None else [b.bbox.x0, b.bbox.y0, b.bbox.x1, b.bbox.y1]
    return {"seq": b.seq, "kind": b.kind, "page": b.page, "bbox": box, "level": b.level, "anchor": b.anchor,
            "text": b.text, "meta": dict(b.meta)}


def file_name(path: str, fmt: str) -> str:
    """A relative file name for a stored path or URL: its own name plus the format's suffix; characters
    a file system may refuse become '_' (with a digest of the path, so two paths never share a name)."""
    name = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://", "", path).strip("/") or "index"
    if path.endswith("/"):
        name += "/index"
    safe = "/".join("_" if part in ("", ".", "..") else part for part in _UNSAFE.sub("_", name).split("/"))
    if safe != name:
        safe += "-" + hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return safe + SUFFIX[fmt]


def write_texts(texts: Iterable[DocumentText], out_dir: str | Path, fmt: str) -> tuple[list[Path], list[DocumentText]]:
    """Write each document to `<out_dir>/<source>/<path>.<fmt>` (JSONL: one `<out_dir>/<source>.jsonl`);
    the files written and the documents that failed (none of them is written)."""
    out = Path(out_dir)
    written: dict[Path, None] = {}
    failed: list[DocumentText] = []
    jsonl: dict[str, TextIO] = {}
    try:
        for doc in texts:
            if doc.status != "ok":
                failed.append(doc)
                continue
            if fmt == "jsonl":
                target = out / f"{doc.source}.jsonl"
                if doc.source not in jsonl:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    jsonl[doc.source] = target.open("w", encoding="utf-8")
                jsonl[doc.source].write(doc.text)
            else:
                target = out / doc.source / file_name(doc.path, fmt)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(doc.text, encoding="utf-8")
            written[target] = None
    finally:
        for f in jsonl.values():
            f.close()
    return list(written), failed
