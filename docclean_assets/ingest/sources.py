"""The sources file: where it is by default, and sources.yaml -> validated source definitions and the
settings of every room (the library's sections, fetch, store, storage, engine)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml
from croniter import croniter

from docclean_assets.engine.settings import EngineSettings
from docclean_assets.extract.html.rules import HtmlRules
from docclean_assets.extract.settings import Settings, section_from_dict
from docclean_assets.extract.validation import check_section, did_you_mean
from docclean_assets.store.location import Location, StoreError, is_url
from docclean_assets.store.settings import StorageSettings, StoreSettings

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# Environment variables that move the defaults (used by `dagster dev`, the CLI and the tests).
SOURCES_ENV = "DOCCLEAN_SOURCES"
DATA_DIR_ENV = "DOCCLEAN_DATA_DIR"

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")  # safe as a partition key and a hive path segment
SOURCE_KEYS = {"path", "urls", "html", "schedule", "retention_band", "max_revisions", "speaker_notes", "render",
               "ocr", "ocr_scanned_body", "shards",
               "max_failed_documents", "max_failed_share"}
OCR_MODES = ("auto", "off", "force")
# Shards one source's parse may be split into (`shards:`): each is a step, a process or a pod of its
# own with its own pair of tables. 1024 takes a million-document source down to ~1,000 documents (a
# few minutes of parsing) a shard; beyond that a shard's step costs more to start than to run.
MAX_SHARDS = 1024
TOP_KEYS = {"sources", "settings"}
_OWN_SECTIONS = ("fetch", "store", "storage", "engine")  # settings sections of the rooms around the library


def default_sources_file() -> Path:
    """$DOCCLEAN_SOURCES, else the bundled data/sources.yaml."""
    return Path(os.environ.get(SOURCES_ENV) or PROJECT_ROOT / "data" / "sources.yaml")


def default_data_dir() -> str | Path:
    """$DOCCLEAN_DATA_DIR as given (a URL must reach the store intact), else data/out next to the samples."""
    return os.environ.get(DATA_DIR_ENV) or PROJECT_ROOT / "data" / "out"


class SourceConfigError(ValueError):
    """sources.yaml is wrong; the message names the source and the key."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that refuses a mapping with the same key twice (PyYAML keeps the last)."""

    def construct_mapping(self, node, deep=False):  # type: ignore[no-untyped-def]
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise SourceConfigError(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}: source names and their keys must be unique")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


@dataclass(frozen=True)
class Source:
    """One known source: a folder of documents (local, or a prefix on object storage) or a list of
    URLs, with its rules."""

    name: str
    path: Path | None = None  # a local folder
    urls: tuple[str, ...] = ()
    html: HtmlRules | None = None
    schedule: str | None = None
    retention_band: tuple[float, float] | None = None
    max_revisions: int | None = None
    speaker_notes: bool = True  # emit PPTX speaker notes (as kind='speaker_notes', never body)
    render: bool = False  # URL sources: take each page's DOM from headless Chromium after its scripts ran
    ocr: str = "auto"  # PDF/DOCX/PPTX: OCR scanned pages and pictures (auto), never (off), every page (force)
    ocr_scanned_body: bool = True  # a scanned page's OCR text is body paragraphs (else image_text)
    # A folder on object storage instead (`path: s3://bucket/docs/` in sources.yaml), normalised to
    # `s3://bucket/docs`; `path` is then None. Checked for form only at load: no network.
    prefix: str | None = None
    shards: int = 1  # parse split into this many shards (pipeline/shards.py)
    # The failed_documents check fails (ERROR) above either limit; any failure below them warns.
    # Unset: no count limit, and the share of settings `quality: max_failed_share`.
    max_failed_documents: int | None = None
    max_failed_share: float | None = None


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """How URL sources are fetched."""

    timeout_s: float = 30.0  # seconds per URL attempt in all: connect, redirects and the whole body
    max_bytes: int = 50 * 1024 * 1024  # a larger response is refused and recorded as the URL's error
    # A 5xx answer or a connection failure is retried this many times; 4xx never is. Two retries
    # ride out a server restart or a load-balancer blip without hammering a dead site.
    retries: int = 2
    # Wait before retry n (1-based) is retry_base_delay_s * 2**(n-1) seconds (0.5, 1, 2 ...).
    retry_base_delay_s: float = 0.5
    # Redirects followed per URL (http and https targets only); browsers stop at ~20, real sites use 1-3.
    max_redirects: int = 5
    # For sources with `render: true`: wall-clock seconds Chromium may take per page, and the virtual
    # time (ms) its scripts get before the DOM is taken; single-page apps in the tests render in <1 s.
    render_timeout_s: float = 30.0
    render_script_budget_ms: int = 5000

    def __post_init__(self) -> None:
        check_section(self)
        if self.timeout_s <= 0 or self.max_bytes <= 0:
            raise ValueError("fetch timeout_s and max_bytes must be > 0")


@dataclass(frozen=True)
class SourcesConfig:
    """Every source of a sources.yaml, and the settings overrides it carries."""

    file: Path
    sources: dict[str, Source]
    settings: Settings = field(default_factory=Settings)  # the extraction library's sections
    fetch: FetchSettings = field(default_factory=FetchSettings)  # how URL sources are fetched
    store: StoreSettings = field(default_factory=StoreSettings)  # how the tables are committed
    storage: StorageSettings = field(default_factory=StorageSettings)  # how object storage is reached
    engine: EngineSettings = field(default_factory=EngineSettings)  # where documents are parsed


def _err(source: str, key: str, why: str) -> SourceConfigError:
    return SourceConfigError(f"source {source!r}: key {key!r}: {why}")


def _html_rules(name: str, value: Any) -> HtmlRules:
    """Validated `html: {keep, drop, comments_as_body}`."""
    if not isinstance(value, dict) or set(value) - {"keep", "drop", "comments_as_body"}:
        raise _err(name, "html", "must be a mapping with only 'keep', 'drop' and 'comments_as_body'")
    comments_as_body = value.get("comments_as_body", False)
    if not isinstance(comments_as_body, bool):
        raise _err(name, "html.comments_as_body", "must be true or false")
    keep, drop = value.get("keep"), value.get("drop", [])
    if keep is not None and (not isinstance(keep, str) or not keep.strip()):
        raise _err(name, "html.keep", "must be a non-empty CSS selector")
    if isinstance(drop, str):
        drop = [drop]
    if not isinstance(drop, list) or not all(isinstance(d, str) and d.strip() for d in drop):
        raise _err(name, "html.drop", "must be a list of CSS selectors")
    return HtmlRules(keep=keep, drop=tuple(drop), comments_as_body=comments_as_body)


def _source(name: str, raw: Any, base: Path) -> Source:
    """One validated source entry."""
    if not NAME_RE.match(str(name)):
        raise _err(str(name), "name", "use lower-case letters, digits, '_' and '-' (max 63)")
    if not isinstance(raw, dict):
        raise _err(name, "-", "must be a mapping of keys")
    unknown = sorted(set(raw) - SOURCE_KEYS)
    if unknown:
        hint = did_you_mean(unknown[0], SOURCE_KEYS) or f" (allowed: {', '.join(sorted(SOURCE_KEYS))})"
        raise _err(name, unknown[0], f"unknown key{hint}")
    if ("path" in raw) == ("urls" in raw):
        raise _err(name, "path", "give exactly one of 'path' or 'urls'")
    path = prefix = None
    urls: tuple[str, ...] = ()
    if "path" in raw and is_url(str(raw["path"])):
        prefix = _object_prefix(name, str(raw["path"]))
    elif "path" in raw:
        path = (base / str(raw["path"])).resolve()
        if not path.is_dir():
            raise _err(name, "path", f"directory {path} does not exist")
    else:
        if not isinstance(raw["urls"], list) or not raw["urls"]:
            raise _err(name, "urls", "must be a non-empty list")
        for url in raw["urls"]:
            if not isinstance(url, str) or not re.match(r"^https?://[^\s/]+", url):
                raise _err(name, "urls", f"not an http(s) URL: {url!r}")
        urls = tuple(raw["urls"])
    schedule = raw.get("schedule")
    if schedule is not None and (not isinstance(schedule, str) or not croniter.is_valid(schedule)):
        raise _err(name, "schedule", f"not a valid cron expression: {schedule!r}")
    band = raw.get("retention_band")
    if band is not None:
        ok = isinstance(band, list) and len(band) == 2 and all(isinstance(v, (int, float)) for v in band)
        if not ok or not 0.0 <= band[0] <= band[1] <= 1.0:
            raise _err(name, "retention_band", "must be [low, high] with 0 <= low <= high <= 1")
        band = (float(band[0]), float(band[1]))
    max_rev = raw.get("max_revisions")
    if max_rev is not None and (not isinstance(max_rev, int) or isinstance(max_rev, bool) or max_rev < 0):
        raise _err(name, "max_revisions", "must be a non-negative integer")
    notes, render = raw.get("speaker_notes", True), raw.get("render", False)
    for key, value in (("speaker_notes", notes), ("render", render)):
        if not isinstance(value, bool):
            raise _err(name, key, "must be true or false")
    if render and not urls:
        raise _err(name, "render", "applies to URL sources only (a saved page cannot run its scripts)")
    html = _html_rules(name, raw["html"]) if "html" in raw else None
    ocr, scanned_body = raw.get("ocr", "auto"), raw.get("ocr_scanned_body", True)
    if isinstance(ocr, bool):  # YAML 1.1 reads a bare `off` as false and `on` as true
        ocr = "auto" if ocr else "off"
    if ocr not in OCR_MODES:
        raise _err(name, "ocr", f"must be one of {', '.join(OCR_MODES)}")
    if not isinstance(scanned_body, bool):
        raise _err(name, "ocr_scanned_body", "must be true or false")
    shards = raw.get("shards", 1)
    if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= MAX_SHARDS:
        raise _err(name, "shards", f"must be an integer from 1 to {MAX_SHARDS}")
    max_failed, max_share = raw.get("max_failed_documents"), raw.get("max_failed_share")
    if max_failed is not None and (not isinstance(max_failed, int) or isinstance(max_failed, bool) or max_failed < 0):
        raise _err(name, "max_failed_documents", "must be a non-negative integer")
    if max_share is not None and (isinstance(max_share, bool) or not isinstance(max_share, (int, float))
                                  or not 0.0 <= max_share <= 1.0):
        raise _err(name, "max_failed_share", "must be a number from 0 to 1 (a share of the source's documents)")
    return Source(name, path, urls, html, schedule, band, max_rev, notes, render, ocr, scanned_body, prefix, shards,
                  max_failed, None if max_share is None else float(max_share))


def _object_prefix(name: str, url: str) -> str:
    """A folder source's `s3://bucket/prefix`, normalised; a config error for another scheme, a URL
    with credentials or a query, or no bucket (the data dir's own checks). No request is made."""
    if url.lower().startswith("file://"):
        raise _err(name, "path", f"{url!r}: give a local folder as a path, not a file:// URL")
    try:
        return Location(url).url
    except StoreError as exc:
        raise _err(name, "path", str(exc).removesuffix("; nothing was written")) from None


def load_sources(file: str | Path) -> SourcesConfig:
    """Parse and validate a sources.yaml; relative paths resolve against its folder."""
    file = Path(file).resolve()
    if not file.is_file():
        raise SourceConfigError(f"sources file {file} does not exist")
    try:
        doc = yaml.load(file.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        raise SourceConfigError(f"{file}: not valid YAML: {exc}") from exc
    unknown = sorted(set(doc) - TOP_KEYS) if isinstance(doc, dict) else []
    if unknown:  # before the missing 'sources:' that a misspelt one causes
        raise SourceConfigError(f"{file}: unknown top-level key {unknown[0]!r}{did_you_mean(unknown[0], TOP_KEYS)}")
    if not isinstance(doc, dict) or not isinstance(doc.get("sources"), dict) or not doc["sources"]:
        raise SourceConfigError(f"{file}: needs a non-empty 'sources:' mapping")
    sources = {str(name): _source(str(name), raw, file.parent) for name, raw in doc["sources"].items()}
    overrides = doc.get("settings") or {}
    try:
        if not isinstance(overrides, dict):
            raise ValueError(f"expected a mapping of sections, got {overrides!r}")
        sections = {f.name for f in fields(Settings)} | set(_OWN_SECTIONS)
        if unknown := sorted(set(overrides) - sections):
            raise ValueError(f"unknown settings section {unknown[0]!r}{did_you_mean(unknown[0], sections)}")
        settings = Settings.from_dict({k: v for k, v in overrides.items() if k not in _OWN_SECTIONS})
        fetch = section_from_dict("fetch", FetchSettings(), overrides.get("fetch") or {})
        store = section_from_dict("store", StoreSettings(), overrides.get("store") or {})
        storage = section_from_dict("storage", StorageSettings(), overrides.get("storage") or {})
        engine = section_from_dict("engine", EngineSettings(), overrides.get("engine") or {})
    except (TypeError, ValueError) as exc:
        raise SourceConfigError(f"{file}: settings: {exc}") from exc
    return SourcesConfig(file, sources, settings, fetch, store, storage, engine)
