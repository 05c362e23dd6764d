"""The progress resource in Dagster: the definitions default to NullProgress, an asset that asks for
`progress` gets the very object `docclean run` passes (not entered, not copied), and a LineProgress
writing to the step's log puts one line per batch in the run's event log (what the UI shows)."""
import dagster as dg

from docclean_assets.defs.definitions import build_defs
from docclean_assets.pipeline.progress import BatchCommitted, LineProgress, NullProgress, Progress, Tee

PARTITIONS = dg.StaticPartitionsDefinition(["web"])


class Recorder:
    """Records the calls it gets and whether anything entered it as a context manager."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.entered = 0

    def __enter__(self) -> "Recorder":
        self.entered += 1
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def start(self, source: str, total: int, unchanged: int) -> None:
        self.calls.append(f"start {source} {total} {unchanged}")

    def document(self, source: str, ok: bool) -> None:
        self.calls.append(f"document {source} {ok}")

    def batch(self, event: BatchCommitted) -> None:
        self.calls.append(f"batch {event.source} {event.batch}")

    def finish(self, source: str, seconds: float) -> None:
        self.calls.append(f"finish {source}")


@dg.asset(partitions_def=PARTITIONS)
def parsed(context: dg.AssetExecutionContext, progress: dg.ResourceParam[Progress]) -> None:
    """Reports as the batched parse does: to the run's display and, one line per batch, to the step log."""
    report = Tee(progress, LineProgress(context.log.info))
    report.start(context.partition_key, 2, 5)
    for batch in (1, 2):
        report.document(context.partition_key, True)
        report.batch(BatchCommitted(context.partition_key, batch, 1, 1, 0, 0, batch, 2, 0, float(batch)))
    report.finish(context.partition_key, 2.0)


def test_the_definitions_default_to_a_null_progress(tmp_path):
    (tmp_path / "a").mkdir()
    cfg = tmp_path / "sources.yaml"
    cfg.write_text("sources:\n  a:\n    path: a\n")
    assert isinstance(build_defs(cfg, tmp_path / "out").resources["progress"], NullProgress)


def test_an_asset_gets_the_runs_progress_object_and_logs_each_batch():
    recorder = Recorder()
    with dg.instance_for_test() as instance:
        result = dg.materialize([parsed], partition_key="web", resources={"progress": recorder}, instance=instance)
        assert result.success
        logged = [e.user_message for e in instance.all_logs(result.run_id) if e.user_message.startswith("web: ")]
    assert recorder.calls == ["start web 2 5", "document web True", "batch web 1", "document web True",
                              "batch web 2", "finish web"]
    assert recorder.entered == 0  # Dagster hands the object over as it is; `docclean run` owns its display
    assert logged == [
        "web: 2 documents to parse, 5 unchanged",
        "web: batch 1 committed 1 documents (1 parsed, 0 reused, 0 failed): 1/2 documents (50.0%), 1.0 docs/s,"
        " ETA 1.0s, 0 failed so far",
        "web: batch 2 committed 1 documents (1 parsed, 0 reused, 0 failed): 2/2 documents (100.0%), 1.0 docs/s,"
        " ETA 0.0s, 0 failed so far",
        "web: finished: 2/2 documents in 2.0s (1.0 docs/s), 0 failed",
    ]
