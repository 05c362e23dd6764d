"""first_cause: the one line a failed run ends with, from the chains delta-rs, s3fs and Dagster build."""
from __future__ import annotations

from dataclasses import dataclass

from docclean_assets.pipeline.failure import RESUME, first_cause
from docclean_assets.store.tables import StoreConflict

DELTA_ENOSPC = ("Generic LocalFileSystem error\n  \x1b[31m↳\x1b[0m Unable to copy data to file\n"
                "    \x1b[31m↳\x1b[0m No space left on device (os error 28)")
OBJECT_STORE_500 = ("Generic S3 error\n  \x1b[31m↳\x1b[0m Error performing PUT http://127.0.0.1:8333/b/p/normalized_blocks/"
                    "_delta_log/00000000000000000000.json in 261ms, after 2 retries, max_retries\n   ↳ 2, retry_timeout\n"
                    "    ↳ 180s  - Server returned non-2xx status code\n     ↳ 500 Internal Server Error\n      ↳ <?xml "
                    "version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError</Code></Error>")  # as delta-rs says it


@dataclass
class Info:
    """The shape of Dagster's SerializableErrorInfo (message, cls_name, cause, context)."""

    message: str
    cls_name: str
    cause: "Info | None" = None
    context: "Info | None" = None


def _wrapped(inner: Info) -> Info:
    return Info('Error occurred while executing op "normalized_blocks":', "DagsterExecutionStepExecutionError", inner)


def test_a_full_disk_under_dagster_and_delta_rs_wrappers_is_named_with_the_data_dir():
    line = first_cause(_wrapped(Info(DELTA_ENOSPC, "OSError", context=Info("Already shut down", "PanicException"))),
                       "/data/out")
    assert line == f"no space left on the device of /data/out: free space (or move the data dir), then run again; {RESUME}"
    remote = first_cause(_wrapped(Info(DELTA_ENOSPC, "OSError")), "s3://b/p")  # not the bucket: a local disk
    assert remote.startswith("no space left on a local device (the temp folder ") and "s3://" not in remote


def test_an_object_store_status_is_named_with_its_retries():
    line = first_cause(_wrapped(Info(OBJECT_STORE_500, "OSError")), "s3://b/p")
    assert line.startswith("the object store of s3://b/p answered HTTP 500 Internal Server Error (after 2 retries): ")
    assert line.endswith(RESUME)


def test_docclean_s_own_one_line_errors_are_kept_as_they_are():
    conflict = StoreConflict("another writer committed to s3://b/p at the same time; run again to resume")
    try:
        try:
            raise conflict
        except StoreConflict as exc:
            raise RuntimeError("wrapper") from exc
    except RuntimeError as outer:
        assert first_cause(outer) == str(conflict)


def test_anything_else_is_its_innermost_error_on_one_line():
    line = first_cause(_wrapped(Info("Generic LocalFileSystem error\n  ↳ Permission denied (os error 13)", "OSError")))
    assert line == f"OSError: Generic LocalFileSystem error: Permission denied (os error 13); {RESUME}"
    assert first_cause(ValueError("bad\nsecond line")) == f"ValueError: bad; {RESUME}"


def test_an_own_error_named_with_its_module_as_dagster_names_it_is_kept_as_it_is():
    message = ("s3://b/p/parsed_blocks/source=web holds a commit no index names (version 2, pinned 1): another "
               "writer is between its two commits; what was committed before stays; run again to resume")
    line = first_cause(_wrapped(Info(message, "docclean_assets.store.tables.StoreConflict")))
    assert line == message
