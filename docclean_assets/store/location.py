"""Where data lives, a local folder or an object-store prefix, and how to reach it.

A `Location` is a normalised root: a local absolute path, or `s3://bucket/prefix`. Object storage is
reached through `s3fs` (fsspec): the same client lists source objects with their ETags, reads and
writes blobs, serves Parquet parts to pyarrow and is registered with DuckDB as a filesystem (no DuckDB
extension is downloaded). The Delta tables get the same endpoint and credentials as `storage_options`
for delta-rs. Credentials come from `settings: storage:` or the standard AWS environment (variables,
profile); they are held in memory only: never logged, never written to a table or to metadata.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docclean_assets.store.settings import StorageSettings

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
OBJECT_SCHEMES = ("s3", "s3a")  # what delta-rs, s3fs and DuckDB's registered filesystem all read
# Characters delta-rs 1.6 mishandles in a table path: '[' and ']' make it panic ("Invalid object store
# url"), '%' sequences are decoded as if the path were a URL (a folder 'a%20b' is read as 'a b'). In an
# object-store prefix '*' and '?' are refused too: DuckDB and fsspec would glob them.
_UNSAFE_LOCAL = re.compile(r"[\[\]%]")
_UNSAFE_REMOTE = re.compile(r"[\[\]%*?]")


class StoreError(ValueError):
    """A data directory the table format cannot hold (a usage error: nothing was written)."""


class StorageUnavailable(StoreError):
    """Object storage that cannot be used right now: unreachable endpoint, missing bucket, refused
    credentials. One line that says which, never the credentials."""


def is_url(text: str | Path) -> bool:
    """Whether a configured location is a URL (`scheme://...`) rather than a local path."""
    return isinstance(text, str) and bool(_URL.match(text))


@dataclass(frozen=True)
class Credentials:
    """The endpoint and credentials in effect: settings first, then the standard AWS environment."""

    endpoint_url: str | None
    region: str | None
    profile: str | None
    key: str | None
    secret: str | None
    token: str | None
    allow_http: bool

    def __repr__(self) -> str:  # never the secrets, even in a traceback
        return f"Credentials(endpoint_url={self.endpoint_url!r}, region={self.region!r}, profile={self.profile!r})"


def credentials(settings: StorageSettings, env: Mapping[str, str] = os.environ) -> Credentials:
    """What reaches object storage, from `settings: storage:` or else AWS's own variables."""
    endpoint = settings.endpoint_url or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    key = settings.access_key_id or env.get("AWS_ACCESS_KEY_ID")
    secret = settings.secret_access_key or env.get("AWS_SECRET_ACCESS_KEY")
    allow_http = settings.allow_http if settings.allow_http is not None else bool(endpoint and endpoint.startswith("http://"))
    region = settings.region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    profile = settings.profile or env.get("AWS_PROFILE")
    token = None if settings.access_key_id else env.get("AWS_SESSION_TOKEN")
    if profile and not key:  # delta-rs does not read profiles: botocore resolves them (files, SSO, roles)
        key, secret, token, region = _from_profile(profile, region)
    return Credentials(endpoint, region, profile, key, secret, token, allow_http)


def _from_profile(profile: str, region: str | None) -> tuple[str | None, str | None, str | None, str | None]:
    """(key, secret, token, region) of an AWS profile, as botocore resolves it; StorageUnavailable
    when the profile does not exist or holds no credentials."""
    import botocore.exceptions
    import botocore.session

    try:
        session = botocore.session.Session(profile=profile)
        found = session.get_credentials()
        region = region or session.get_config_variable("region")
    except botocore.exceptions.BotoCoreError as exc:
        raise StorageUnavailable(f"AWS profile {profile!r}: {one_line(exc)}") from None
    if found is None:
        raise StorageUnavailable(f"AWS profile {profile!r} holds no credentials")
    frozen = found.get_frozen_credentials()
    return frozen.access_key, frozen.secret_key, frozen.token, region


Access = tuple[Credentials, StorageSettings]  # what a worker needs to read an object, resolved by the run


class Location:
    """A root folder, local or on object storage, and the clients that reach it."""

    def __init__(self, root: str | Path, storage: StorageSettings | None = None):
        self.storage = storage or StorageSettings()
        text = str(root)
        if is_url(text) and text.lower().startswith("file://"):
            text = urlsplit(text).path
        if is_url(text):
            self.url = _object_url(text)
            self.local = None
        else:
            self.local = Path(text).resolve()
            if bad := sorted(set(_UNSAFE_LOCAL.findall(str(self.local)))):
                raise StoreError(f"data dir {str(self.local)!r}: Delta Lake (delta-rs) cannot open a path containing "
                                 f"{' '.join(repr(c) for c in bad)}; choose a folder without them")
            self.url = str(self.local)

    def __repr__(self) -> str:
        return f"Location({self.url!r})"

    @property
    def is_local(self) -> bool:
        return self.local is not None

    @property
    def bucket(self) -> str:
        return urlsplit(self.url).netloc

    def join(self, *parts: str) -> str:
        """The location of a path below this root (a local path or a URL, like the root)."""
        return "/".join([self.url.rstrip("/"), *parts]) if parts else self.url

    # -- clients -----------------------------------------------------------------------------
    @cached_property
    def creds(self) -> Credentials:
        return credentials(self.storage)

    @cached_property
    def fs(self) -> Any:
        """The fsspec filesystem of this location (listings are never cached: a rerun must see changes)."""
        if self.is_local:
            from fsspec.implementations.local import LocalFileSystem

            return LocalFileSystem()
        return s3_filesystem(self.creds, self.storage)

    @cached_property
    def arrow_fs(self) -> Any:
        """The same filesystem for pyarrow datasets (None locally: pyarrow's own)."""
        if self.is_local:
            return None
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        return PyFileSystem(FSSpecHandler(self.fs))

    def arrow_path(self, uri: str) -> str:
        """A file's path as the arrow filesystem names it (no scheme)."""
        return uri if self.is_local else uri.split("://", 1)[1]

    def access(self) -> Access:
        """The resolved credentials and settings, for worker processes (held in memory, sent over a pipe)."""
        return self.creds, self.storage

    def delta_options(self) -> dict[str, str] | None:
        """`storage_options` for delta-rs (None locally)."""
        if self.is_local:
            return None
        c = self.creds
        opts = {"AWS_ENDPOINT_URL": c.endpoint_url, "AWS_REGION": c.region, "AWS_PROFILE": c.profile,
                "AWS_ACCESS_KEY_ID": c.key, "AWS_SECRET_ACCESS_KEY": c.secret, "AWS_SESSION_TOKEN": c.token,
                "AWS_ALLOW_HTTP": "true" if c.allow_http else None,
                "timeout": f"{self.storage.request_timeout_s:g}s", "connect_timeout": f"{self.storage.connect_timeout_s:g}s",
                # attempts per request, as for s3fs (delta-rs's own default is 10 retries over up to 3 minutes)
                "max_retries": str(self.storage.max_attempts - 1)}
        return {k: v for k, v in opts.items() if v is not None}

    # -- checks ------------------------------------------------------------------------------
    def check(self, what: str | None = None) -> None:
        """Fail in one line (StorageUnavailable, naming `what`), before any work, when the bucket cannot
        be reached, does not exist or refuses the credentials (locally: nothing to check)."""
        if self.is_local:
            return
        _check_bucket(self.fs, self.bucket, self.creds, what or f"data dir {self.url}")

    # -- bytes -------------------------------------------------------------------------------
    def exists(self, uri: str) -> bool:
        return self.fs.exists(uri)

    def write_bytes(self, uri: str, data: bytes) -> None:
        """Write a whole object (a single PUT on object storage: readers see all of it or nothing)."""
        if self.is_local:
            path = Path(uri)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{os.urandom(4).hex()}.tmp")  # concurrent runs never share it
            tmp.write_bytes(data)
            tmp.replace(path)
        else:
            self.fs.pipe_file(uri, data)

    def listdir(self, uri: str) -> list[str]:
        """Names directly below a folder ([] when it does not exist)."""
        try:
            return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(uri, detail=False))
        except FileNotFoundError:
            return []


def _object_url(text: str) -> str:
    """`s3://bucket/prefix` normalised, or a StoreError saying what is wrong with the URL."""
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in OBJECT_SCHEMES:
        raise StoreError(f"{text!r}: {scheme}:// is not supported (s3:// is: AWS S3 and S3-compatible servers); "
                         "nothing was written")
    if "@" in parts.netloc:
        raise StoreError(f"{scheme}://...: credentials in the URL are refused; set AWS_ACCESS_KEY_ID / "
                         "AWS_SECRET_ACCESS_KEY, AWS_PROFILE or settings: storage:; nothing was written")
    if not parts.netloc:
        raise StoreError(f"{text!r}: no bucket named (expected s3://bucket/prefix); nothing was written")
    if parts.query or parts.fragment:
        raise StoreError(f"{text!r}: a query or fragment is not part of an object-store prefix; nothing was written")
    url = f"s3://{parts.netloc}/{parts.path.strip('/')}".rstrip("/")
    if bad := sorted(set(_UNSAFE_REMOTE.findall(url))):
        raise StoreError(f"{url!r}: the prefix may not contain {' '.join(repr(c) for c in bad)} (delta-rs and "
                         "DuckDB read them as escapes or globs); nothing was written")
    return url


def s3_filesystem(creds: Credentials, storage: StorageSettings) -> Any:
    """An s3fs filesystem for these credentials, with bounded timeouts and retries."""
    import s3fs

    kwargs: dict[str, Any] = {
        "endpoint_url": creds.endpoint_url, "key": creds.key, "secret": creds.secret, "token": creds.token,
        "use_listings_cache": False, "skip_instance_cache": True,
        "config_kwargs": {"connect_timeout": storage.connect_timeout_s, "read_timeout": storage.request_timeout_s,
                          "retries": {"max_attempts": storage.max_attempts, "mode": "standard"}},
    }
    if creds.region:
        kwargs["client_kwargs"] = {"region_name": creds.region}
    if creds.profile and not creds.key:
        kwargs["profile"] = creds.profile
    fs = s3fs.S3FileSystem(**kwargs)
    fs.retries = storage.max_attempts  # s3fs's own retry loop on top of botocore's (default 5)
    return fs


def _check_bucket(fs: Any, bucket: str, creds: Credentials, what: str) -> None:
    """HEAD the bucket: StorageUnavailable (one line, no secret) unless it exists and answers."""
    where = creds.endpoint_url or "AWS S3"
    try:
        fs.call_s3("head_bucket", Bucket=bucket)
    except FileNotFoundError:
        raise StorageUnavailable(f"{what}: bucket {bucket!r} does not exist at {where}") from None
    except PermissionError:
        raise StorageUnavailable(f"{what}: {where} refused the credentials for bucket {bucket!r} "
                                 f"({_credential_origin(creds)})") from None
    except Exception as exc:  # noqa: BLE001 - any other failure (connection, DNS, TLS) is one line too
        raise StorageUnavailable(f"{what}: cannot reach {where}: {one_line(exc)}") from None


def _credential_origin(creds: Credentials) -> str:
    """Where the credentials came from, without them."""
    if creds.key:
        return f"access key id ending {creds.key[-4:]!r}" if len(creds.key) > 8 else "access key given"
    return f"profile {creds.profile!r}" if creds.profile else "no access key found: set AWS_ACCESS_KEY_ID or AWS_PROFILE"


def one_line(exc: BaseException) -> str:
    """An error's message on one line, at most 300 characters (for one-line failures and error rows)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]


@lru_cache(maxsize=4)
def worker_fs(access: Access) -> Any:
    """One client per worker process and access (a new one per document would cost a session each)."""
    return s3_filesystem(*access)


@lru_cache(maxsize=4)
def worker_arrow_fs(access: Access) -> Any:
    """The worker's client for pyarrow (writing part files), one per process and access."""
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    return PyFileSystem(FSSpecHandler(worker_fs(access)))
