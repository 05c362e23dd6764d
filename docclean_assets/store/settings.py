"""How the tables are committed: batch size and how long replaced files are kept."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from docclean_assets.extract.validation import Range, check_section


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """`settings: store:` in sources.yaml."""

    # A batch of parsed documents is committed when it holds this many documents or has been open
    # this many seconds, whichever comes first: a kill loses at most one batch. 200 of the scale
    # bench's web pages take ~40 s on 2 cores (5 docs/s); 60 s bounds what a PDF-heavy source loses.
    batch_documents: Annotated[int, Range(1, None)] = 200
    batch_seconds: Annotated[float, Range(0.1, None)] = 60.0
    # Files a later commit replaced stay on disk this long (hours) before `vacuum` deletes them,
    # so a reader still scanning an older commit never loses a file under it.
    keep_replaced_hours: Annotated[int, Range(0, None)] = 24
    # Memory DuckDB may use for the plan, sorts and aggregations over the parts (MiB); beyond it, it
    # spills to disk. The stages read a chunk of documents at a time, so on the 10,000-document scale
    # bench source (~170 k blocks) DuckDB stays far below it (a whole-source sort, before, failed at 64 MiB).
    duckdb_memory_mb: Annotated[int, Range(64, None)] = 256
    # Whether `docclean run` deletes the tables of sources no longer in the sources file (as `docclean
    # prune` does) before it runs; off, they stay on disk, unserved, and every run names them.
    prune_removed: bool = False

    def __post_init__(self) -> None:
        check_section(self)


@dataclass(frozen=True, slots=True)
class StorageSettings:
    """`settings: storage:` in sources.yaml: how to reach object storage. Every unset field comes from
    the standard AWS environment (AWS_ENDPOINT_URL, AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID, ...);
    keys given here are held in memory only, never logged or written anywhere."""

    endpoint_url: str | None = None  # an S3-compatible server, e.g. http://127.0.0.1:8333; None: AWS
    region: str | None = None
    profile: str | None = None  # a profile of ~/.aws/config and ~/.aws/credentials
    access_key_id: str | None = field(default=None, repr=False)
    secret_access_key: str | None = field(default=None, repr=False)
    allow_http: bool | None = None  # None: allowed exactly when endpoint_url is http://
    # How long to wait for the endpoint to accept a connection (s), and attempts per request: an
    # unreachable endpoint fails the run after about attempts x timeout, not after minutes of retries.
    connect_timeout_s: Annotated[float, Range(0.1, None)] = 5.0
    request_timeout_s: Annotated[float, Range(1, None)] = 60.0
    max_attempts: Annotated[int, Range(1, 20)] = 3
    # Local copies of the part files read from object storage (MiB, in the system's temp folder): a
    # part never changes, so DuckDB reads each from disk after one download (0: read through s3fs
    # every time, ~10x slower after parsing on the object-store bench's 75 documents in 15 batches).
    part_cache_mb: Annotated[int, Range(0, None)] = 4096

    def __post_init__(self) -> None:
        check_section(self)
