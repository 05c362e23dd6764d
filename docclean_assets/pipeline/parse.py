"""parsed_blocks + parsed_documents: plan what a run must do, parse in isolated workers, commit in batches.

The plan compares the inventory with the last committed parsed_documents: a path whose bytes and
parser version are unchanged is neither parsed nor rewritten; a path whose bytes are committed under
another path is copied; the rest is parsed. Results are committed as batches of documents (a count or
a time, whichever comes first), so a killed run loses at most the open batch and its rerun plans only
what no commit holds. Paths gone from the inventory lose their rows in a last commit.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from docclean_assets.engine.blob import Extractor, extract_blob
from docclean_assets.engine.isolate import Job, Outcome
from docclean_assets.engine.run import Sink, Stored, parse_jobs
from docclean_assets.engine.settings import EngineSettings
from docclean_assets.extract.api import PARSER_VERSION
from docclean_assets.extract.schema import CONTENT_SCHEMA, DocPayload
from docclean_assets.extract.settings import Settings
from docclean_assets.pipeline import schemas
from docclean_assets.pipeline.progress import BatchCommitted, NullProgress, Progress
from docclean_assets.ingest.discover import text_to_name
from docclean_assets.ingest.sources import Source
from docclean_assets.store.location import Location, is_url
from docclean_assets.store.parts import Part, PartTarget, read_part
from docclean_assets.store.settings import StoreSettings
from docclean_assets.store.tables import Store
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA, DocRef, content_to_blocks_table, report_to_row

# Errors kept in ParseStats.errors for logs and metadata; the count of failures is always exact.
ERRORS_KEPT = 100
# Rows of the plan fetched from DuckDB at a time (a plan row is a raw_files row plus three columns).
PLAN_ROWS = 2000

# The settings sections the backends read; boilerplate, normalisation and quality settings act after
# parsing, so changing them re-runs the later assets without parsing anything again.
_PARSE_SECTIONS = ("pdf", "office", "html", "limits", "ocr")
# Limits that decide how many processes parse and how long they live, never what a parse yields:
# changing them parses nothing again.
_NOT_PARSE_INPUTS = {"limits": ("workers", "worker_max_documents", "worker_max_growth_mb", "worker_idle_s")}
_OCR_FORMATS = frozenset({"pdf", "docx", "pptx"})


@dataclass
class ParseStats:
    """How a parsed_blocks run went."""

    parsed: int = 0
    reused: int = 0  # blocks taken from an earlier parse: unchanged documents and copies
    failed: int = 0
    unchanged: int = 0  # of `reused`, committed before and not touched at all
    removed: int = 0  # paths gone from the inventory whose rows were deleted
    batches: int = 0
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)  # path -> error (the first ERRORS_KEPT)

    def error(self, path: str, why: str) -> None:
        self.failed += 1
        if len(self.errors) < ERRORS_KEPT:
            self.errors[path] = why


def parse_version(source: Source, settings: Settings) -> str:
    """What a parse depends on besides the bytes: the library's code, the settings and the source's
    own extraction options. A document parsed under another version is parsed again."""
    sections = settings.to_dict()
    for section, keys in _NOT_PARSE_INPUTS.items():
        sections[section] = {k: v for k, v in sections[section].items() if k not in keys}
    options = {"settings": {k: sections[k] for k in _PARSE_SECTIONS},
               "html": None if source.html is None else asdict(source.html), "speaker_notes": source.speaker_notes,
               "ocr": source.ocr, "ocr_scanned_body": source.ocr_scanned_body}
    digest = hashlib.sha256(json.dumps(options, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return f"{PARSER_VERSION}-{digest}"


def _ref(row: dict) -> DocRef:
    return DocRef(row["source"], row["doc_id"], row["path"], row["format"])


def _options(source: Source, settings: Settings, row: dict) -> dict:
    """Extractor keyword arguments for one document."""
    opts: dict = {"settings": settings}
    if row["format"] == "pptx":
        opts["speaker_notes"] = source.speaker_notes
    if row["format"] in _OCR_FORMATS:
        opts.update(ocr=source.ocr, ocr_scanned_body=source.ocr_scanned_body)
    if row["format"] == "html":
        opts["html_rules"] = source.html
        if source.urls:
            opts["url"] = row["path"]
    return opts


def _timeout(source: Source, settings: Settings, row: dict) -> float:
    """Seconds one document's worker may take: OCR'd formats get the OCR time grant on top."""
    grant = settings.ocr.timeout_grant_s if source.ocr != "off" and row["format"] in _OCR_FORMATS else 0.0
    return settings.limits.timeout_s + grant


def refusal(row: dict, settings: Settings) -> str | None:
    """Why a raw_files row is failed without parsing (None: it can be parsed)."""
    if row["error"]:
        return row["error"]
    if row["format"] is None:
        return f"unrecognised format (extension says {row['ext_format'] or 'nothing'}; bytes are none of pdf/docx/pptx/html)"
    if row["bytes"] > settings.limits.max_bytes:
        return f"file too large: {row['bytes']} bytes > limit {settings.limits.max_bytes}"
    return None


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run does, decided from the inventory and the last commit."""

    con: duckdb.DuckDBPyConnection  # views `raw` and `docs`; `work` holds the rows to process
    to_process: int
    unchanged: int
    removed: tuple[str, ...]


def plan_run(store: Store, source: Source, raw: pa.Table, version: str, force: bool, retry_failed: bool,
             key: str | None = None) -> Plan:
    """Sort the inventory into unchanged rows and rows to process (each with the committed row at its
    path, if any, and a committed path holding the same bytes); list the paths that disappeared."""
    con = store.connect_for(key or source.name, {"docs": ("parsed_documents", DOCS_SCHEMA)})
    con.register("raw", raw)
    keep_failed = "FALSE" if retry_failed else "TRUE"
    unchanged = "FALSE" if force else (
        "d.doc_id IS NOT DISTINCT FROM r.doc_id AND d.parser_version = $v "
        "AND (r.error IS NULL OR d.error IS NOT DISTINCT FROM r.error) "  # refused for the same reason again
        f"AND (d.status = 'ok' OR (d.status = 'failed' AND {keep_failed}))")
    con.execute(f"""
        CREATE TABLE work AS
        SELECT r.*, d.path IS NOT NULL AS committed, ({unchanged}) AS unchanged, c.path AS copy_from
        FROM raw r
        LEFT JOIN docs d ON d.path = r.path
        LEFT JOIN (SELECT doc_id, min(path) AS path FROM docs WHERE status = 'ok' AND parser_version = $v
                   GROUP BY doc_id) c ON c.doc_id = r.doc_id AND NOT {str(force).upper()}
    """, {"v": version})
    counts = con.execute("SELECT count(*) FILTER (WHERE unchanged), count(*) FILTER (WHERE NOT unchanged) FROM work").fetchall()[0]
    removed = [p for (p,) in con.execute("SELECT path FROM docs WHERE path NOT IN (SELECT path FROM raw) ORDER BY path").fetchall()]
    return Plan(con, counts[1], counts[0], tuple(removed))


def _plan_rows(plan: Plan, where: str, order: str) -> Iterator[dict]:
    """Rows of the plan to process that match `where`, streamed from DuckDB in `order`."""
    cursor = plan.con.cursor()  # its own stream: queries on the connection meanwhile do not end it
    reader = cursor.sql(f"SELECT * FROM work WHERE NOT unchanged AND ({where}) ORDER BY {order}").to_arrow_reader(PLAN_ROWS)
    for batch in reader:
        yield from batch.to_pylist()


class _Batch:
    """One open batch: the rows of its documents, until it is committed."""

    def __init__(self) -> None:
        self.opened = time.monotonic()
        self.docs: list[dict] = []
        self.blocks: list[pa.Table] = []
        self.parts: dict[str, Part] = {}  # written by cluster workers, by name (a task's part serves several documents)
        self.replaced: list[str] = []
        self.parsed = self.reused = self.failed = 0

    def add(self, row: dict, doc: dict, blocks: pa.Table | None, part: Part | None = None) -> None:
        self.docs.append(doc)
        if blocks is not None and blocks.num_rows:
            self.blocks.append(blocks)
        if part is not None:
            self.parts[part.name] = part
        if row["committed"]:
            self.replaced.append(row["path"])

    def full(self, settings: StoreSettings) -> bool:
        return len(self.docs) >= settings.batch_documents or time.monotonic() - self.opened >= settings.batch_seconds


class _Run:
    """A source's parse in progress: the open batch, the counts, and how both are reported."""

    def __init__(self, store: Store, source: Source, version: str, progress: Progress, total: int, key: str):
        self.store, self.source, self.version, self.progress = store, source, version, progress
        self.key = key  # the store partition of the pair: the source, or one of its shards
        self.stats = ParseStats()
        self.batch = _Batch()
        self.started = time.monotonic()
        self.total = total
        self.done = 0

    def fail(self, row: dict, error: str, seconds: float = 0.0) -> None:
        self.stats.error(row["path"], error)
        self.batch.failed += 1
        doc = report_to_row(_ref(row), None, status="failed", error=error, parser_version=self.version,
                            parse_seconds=seconds)
        self._add(row, doc, None, ok=False)

    def ok(self, row: dict, doc: dict, blocks: pa.Table | None, parsed: bool, part: Part | None = None) -> None:
        if parsed:
            self.stats.parsed += 1
            self.batch.parsed += 1
        else:
            self.stats.reused += 1
            self.batch.reused += 1
        self._add(row, doc, blocks, ok=True, part=part)

    def _add(self, row: dict, doc: dict, blocks: pa.Table | None, ok: bool, part: Part | None = None) -> None:
        self.batch.add(row, doc, blocks, part)
        self.progress.document(self.key, ok)

    def commit_if_full(self) -> None:
        """Commit the open batch when it is full; called between documents that share no part file."""
        if self.batch.full(self.store.settings):
            self.commit()

    def commit(self, removed: tuple[str, ...] = (), last: bool = False) -> None:
        """Make the open batch (and the removal of `removed` paths) visible in one pair commit; an empty
        batch commits nothing, unless it is the run's `last` and Store.owes_empty_commit."""
        b = self.batch
        wrote = bool(self.stats.batches or self.stats.unchanged)
        if not b.docs and not removed and not (last and self.store.owes_empty_commit("parsed_blocks", self.key, wrote)):
            return
        blocks = pa.concat_tables(b.blocks) if b.blocks else BLOCKS_SCHEMA.empty_table()
        docs = pa.Table.from_pylist(b.docs, schema=DOCS_SCHEMA)
        self.store.commit_pair("parsed_blocks", self.key, [*b.replaced, *removed], blocks, docs, BLOCKS_SCHEMA,
                               parts=list(b.parts.values()))
        self.stats.batches += 1
        self.done += len(b.docs)
        if b.docs:
            self.progress.batch(BatchCommitted(
                self.key, self.stats.batches, len(b.docs), b.parsed, b.reused, b.failed, self.done,
                self.total, self.stats.failed, time.monotonic() - self.started))
        self.batch = _Batch()


def parse_source(store: Store, source: Source, raw: pa.Table, settings: Settings, extractor: Extractor = extract_blob,
                 force: bool = False, retry_failed: bool = False, progress: Progress | None = None,
                 engine: EngineSettings | None = None, key: str | None = None) -> ParseStats:
    """Parse what the last commit lacks, committing batches as documents finish; the caller holds the
    lock of `key` (the store partition of the pair: the source, or one of its shards, whose rows
    `raw` then holds). Each document's rows are made and checked in its worker: one document can
    cost only itself."""
    progress = progress or NullProgress()
    key = key or source.name
    version = parse_version(source, settings)
    plan = plan_run(store, source, raw, version, force, retry_failed, key)
    run = _Run(store, source, version, progress, plan.to_process, key)
    run.stats.unchanged = run.stats.reused = plan.unchanged
    progress.start(key, plan.to_process, plan.unchanged)
    settled = 0
    for row in _plan_rows(plan, "TRUE", "path"):  # refusals and copies: no worker needed
        if (why := refusal(row, settings)) is not None:
            run.fail(row, why)
            settled += 1
        elif row["copy_from"] is not None:
            _copy(run, plan, row)
            settled += 1
        run.commit_if_full()
    # in path order, so each batch's part file covers a narrow range of paths: readers that want a
    # range of documents skip the other parts by their path statistics
    parse_rows = _plan_rows(plan, "copy_from IS NULL", "path")
    waiting: dict[str, list[dict]] = {}
    jobs = _jobs(source, settings, (r for r in parse_rows if refusal(r, settings) is None), waiting,
                store.location)
    target = PartTarget(store.uri("parsed_blocks", key),
                        None if store.location.is_local else store.location.access())
    # on a cluster the workers turn blocks into rows (schemas' converter travels to them); the driver never does
    sink = Sink(target, lambda job: _ref(waiting[job.key][0]), schemas.content_to_blocks_table,
                plan.to_process - settled)
    for group in parse_jobs(jobs, settings.limits, extractor, engine or EngineSettings(), sink):
        for job, outcome in group:  # a group's documents share a part file: committed together
            _take(run, waiting.pop(job.key), outcome, target)
        run.commit_if_full()
    run.commit(plan.removed, last=True)
    run.stats.removed = len(plan.removed)
    run.stats.seconds = time.monotonic() - run.started
    progress.finish(key, run.stats.seconds)
    plan.con.close()
    return run.stats


def _take(run: _Run, rows: list[dict], outcome: Outcome, target: PartTarget) -> None:
    """Add one parse's outcome for every row (path) waiting on it: its failure, or its blocks (a
    DocPayload from a local worker, or a part a cluster worker wrote)."""
    for i, row in enumerate(rows):
        if outcome.error is not None:
            run.fail(row, outcome.error, outcome.seconds)
            continue
        result: DocPayload | Stored = outcome.result
        doc = report_to_row(_ref(row), result.report, status="ok", error=None, parser_version=run.version,
                            parse_seconds=outcome.seconds)
        if isinstance(result, DocPayload):
            run.ok(row, doc, content_to_blocks_table(_ref(row), result.blocks()), parsed=True)
        elif i == 0:  # the task wrote the first row's blocks
            run.ok(row, doc, None, parsed=True, part=result.part)
        else:  # the same bytes under another path: the first row's blocks from the part, relabelled
            blocks = None if result.part is None else read_part(target, result.part, rows[0]["path"])
            run.ok(row, doc, None if blocks is None else content_to_blocks_table(
                _ref(row), blocks.sort_by("seq").select(CONTENT_SCHEMA.names)), parsed=True)


def _jobs(source: Source, settings: Settings, rows: Iterator[dict], waiting: dict[str, list[dict]],
          location: Location) -> Iterator[Job]:
    """A Job per row, unless the same bytes are already being parsed: then the row waits for that
    job's outcome (`waiting[doc_id]` holds the rows of each job until its outcome is taken). A blob on
    object storage carries the run's resolved access: the worker reads it itself."""
    for row in rows:
        doc_id = row["doc_id"]
        if doc_id in waiting:
            waiting[doc_id].append(row)
            continue
        waiting[doc_id] = [row]
        blob = row["blob"] if is_url(row["blob"]) else text_to_name(row["blob"])
        remote = {"access": location.access()} if is_url(blob) else {}
        yield Job(doc_id, blob, row["format"], {**_options(source, settings, row), "sha256": doc_id, **remote},
                  _timeout(source, settings, row), rows=True)


def _copy(run: _Run, plan: Plan, row: dict) -> None:
    """A document whose bytes are committed under another path: that parse, under this path."""
    origin = row["copy_from"]
    old = plan.con.sql("SELECT * FROM docs WHERE path = $p", params={"p": origin}).to_arrow_table().to_pylist()[0]
    blocks = run.store.read("parsed_blocks", run.key, BLOCKS_SCHEMA, filter=pc.field("path") == origin)
    blocks = blocks.sort_by("seq").select(CONTENT_SCHEMA.names)
    doc = {**old, "path": row["path"], "source": row["source"], "format": row["format"]}
    run.ok(row, doc, content_to_blocks_table(_ref(row), blocks), parsed=False)

