"""Live progress: the rate / ETA / duration arithmetic, one plain line per committed batch, the rich
display's rows, the fan-out and the choice by terminal."""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from docclean_assets.pipeline.progress import (
    UNKNOWN,
    BatchCommitted,
    LineProgress,
    NullProgress,
    TerminalProgress,
    Tee,
    docs_per_second,
    eta_seconds,
    for_stream,
    format_duration,
    format_eta,
    format_rate,
    percent,
)

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _event(batch: int, done: int, seconds: float, *, failed: int = 0, failed_so_far: int = 0,
           total: int = 4000, documents: int = 200, reused: int = 0) -> BatchCommitted:
    return BatchCommitted(source="web", batch=batch, documents=documents, parsed=documents - reused - failed,
                          reused=reused, failed=failed, done=done, total=total, failed_so_far=failed_so_far,
                          seconds=seconds)


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    """A progress that records its calls, and whether `with` entered it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.entered = self.exited = 0

    def __enter__(self) -> Recorder:
        self.entered += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.exited += 1

    def start(self, source: str, total: int, unchanged: int) -> None:
        self.calls.append(("start", source, total, unchanged))

    def document(self, source: str, ok: bool) -> None:
        self.calls.append(("document", source, ok))

    def batch(self, event: BatchCommitted) -> None:
        self.calls.append(("batch", event))

    def finish(self, source: str, seconds: float) -> None:
        self.calls.append(("finish", source, seconds))


# --- arithmetic and formatting ------------------------------------------------------------------------

@pytest.mark.parametrize("seconds, text", [
    (0, "0.0s"), (4.24, "4.2s"), (9.94, "9.9s"), (9.96, "10s"), (45.4, "45s"), (59.6, "1m00s"),
    (83, "1m23s"), (3599.4, "59m59s"), (3600, "1h00m"), (2 * 3600 + 5 * 60 + 20, "2h05m"),
    (86399, "23h59m"), (3 * 86400 + 4 * 3600, "3d04h"), (-5, "0.0s"), (float("nan"), "0.0s"),
    (None, UNKNOWN), (float("inf"), UNKNOWN),
])
def test_a_duration_is_written_in_at_most_two_units(seconds, text):
    assert format_duration(seconds) == text


def test_the_rate_is_the_average_since_the_start_and_zero_before_time_passes():
    assert docs_per_second(600, 15.0) == 40.0
    assert docs_per_second(600, 0.0) == 0.0
    assert docs_per_second(0, 12.0) == 0.0


def test_the_eta_is_unknown_at_zero_rate_and_zero_when_all_are_done():
    assert eta_seconds(0, 4000, 30.0) is None  # nothing done yet: no rate
    assert eta_seconds(10, 4000, 0.0) is None  # no time passed: no rate
    assert format_eta(0, 4000, 30.0) == UNKNOWN
    assert eta_seconds(4000, 4000, 100.0) == 0.0
    assert eta_seconds(0, 0, 0.0) == 0.0  # an empty run has nothing left
    assert eta_seconds(4100, 4000, 100.0) == 0.0  # over-counted: never a negative ETA
    assert eta_seconds(600, 4000, 15.0) == pytest.approx(85.0)  # 3400 left at 40 docs/s
    assert format_eta(600, 4000, 15.0) == "1m25s"


def test_percent_and_rate_texts():
    assert percent(600, 4000) == 15.0
    assert percent(0, 0) == 100.0
    assert format_rate(41.18) == "41.2 docs/s"
    assert format_rate(0.0) == "0.0 docs/s"
    assert format_rate(0.04) == "0.04 docs/s"  # slow (OCR) sources are not shown as 0.0
    assert format_rate(0.256) == "0.26 docs/s"


# --- LineProgress -------------------------------------------------------------------------------------

def test_line_progress_writes_exactly_one_line_per_batch_with_counts_rate_and_eta():
    lines: list[str] = []
    progress = LineProgress(lines.append)
    progress.start("web", 4000, 6000)
    assert lines == ["web: 4000 documents to parse, 6000 unchanged"]
    for _ in range(200):
        progress.document("web", True)
    assert len(lines) == 1  # documents alone write nothing
    progress.batch(_event(1, 200, 5.0))
    progress.batch(_event(2, 400, 10.0, failed=2, failed_so_far=2, reused=8))
    progress.batch(_event(3, 600, 14.56, failed_so_far=2))
    assert lines[1:] == [
        "web: batch 1 committed 200 documents (200 parsed, 0 reused, 0 failed): 200/4000 documents (5.0%),"
        " 40.0 docs/s, ETA 1m35s, 0 failed so far",
        "web: batch 2 committed 200 documents (190 parsed, 8 reused, 2 failed): 400/4000 documents (10.0%),"
        " 40.0 docs/s, ETA 1m30s, 2 failed so far",
        "web: batch 3 committed 200 documents (200 parsed, 0 reused, 0 failed): 600/4000 documents (15.0%),"
        " 41.2 docs/s, ETA 1m23s, 2 failed so far",
    ]
    progress.finish("web", 97.0)
    assert lines[4:] == ["web: finished: 600/4000 documents in 1m37s (6.2 docs/s), 2 failed"]


def test_line_progress_of_a_source_with_nothing_to_parse():
    lines: list[str] = []
    progress = LineProgress(lines.append)
    progress.start("docs", 0, 350)
    progress.finish("docs", 0.04)
    assert lines == ["docs: 0 documents to parse, 350 unchanged",
                     "docs: finished: 0/0 documents in 0.0s (0.0 docs/s), 0 failed"]


def test_line_progress_keeps_sources_apart():
    lines: list[str] = []
    progress = LineProgress(lines.append)
    progress.start("web", 4000, 0)
    progress.start("docs", 10, 0)
    progress.batch(_event(1, 200, 5.0, failed_so_far=3))
    progress.finish("docs", 2.0)
    assert lines[-1] == "docs: finished: 0/10 documents in 2.0s (0.0 docs/s), 0 failed"


# --- TerminalProgress ---------------------------------------------------------------------------------

def _terminal() -> tuple[TerminalProgress, io.StringIO, FakeClock]:
    """A display drawing on a 120-column terminal in memory, timed by a fake clock."""
    out, clock = io.StringIO(), FakeClock()
    return TerminalProgress(Console(file=out, force_terminal=True, width=120), clock=clock), out, clock


def _last_row(out: io.StringIO, source: str) -> str:
    """The last rendering of `source`'s row, without colours or cursor moves."""
    rows = [line for line in ANSI.sub("", out.getvalue()).replace("\r", "\n").splitlines()
            if line.startswith(f"{source} ")]
    assert rows, out.getvalue()
    return rows[-1]


def test_terminal_progress_shows_done_total_rate_eta_and_failures():
    progress, out, clock = _terminal()
    with progress:
        progress.start("web", 4000, 6000)
        for i in range(600):
            clock.now += 0.025
            progress.document("web", ok=i not in (17, 318))
        progress.batch(_event(3, 600, 15.0, failed_so_far=2))
        row = _last_row(out, "web")
    assert "600/4000" in row
    assert "40.0 docs/s" in row  # 600 documents in 15 s of the fake clock
    assert "ETA 1m25s" in row  # 3400 left at 40 docs/s
    assert "2 failed, 6000 unchanged" in row


def test_terminal_progress_counts_committed_batches_when_documents_go_unreported():
    progress, out, clock = _terminal()
    with progress:
        progress.start("web", 1000, 0)
        clock.now += 10.0
        progress.batch(_event(1, 250, 10.0, total=1000, failed=5, failed_so_far=5))
    row = _last_row(out, "web")
    assert "250/1000" in row and "25.0 docs/s" in row and "5 failed" in row and "ETA 30s" in row


def test_terminal_progress_finish_completes_the_row_with_the_reported_duration():
    progress, out, clock = _terminal()
    with progress:
        progress.start("web", 400, 0)
        clock.now += 3.0
        progress.document("web", ok=False)
        progress.finish("web", 20.0)
        clock.now += 50.0  # the display keeps drawing after the finish: the row must not move
    row = _last_row(out, "web")
    assert "400/400" in row and "20.0 docs/s" in row and "in 20s" in row and "1 failed" in row
    assert "ETA" not in row


def test_terminal_progress_keeps_a_row_per_source_and_prints_above_them():
    progress, out, clock = _terminal()
    with progress:
        progress.start("web", 10, 0)
        progress.start("docs", 0, 350)
        progress.finish("docs", 0.5)
        print("[2/2] docs: materializing")  # the CLI's own lines, while the display is live
        progress.document("web", ok=True)
    text = ANSI.sub("", out.getvalue())
    assert text.count("[2/2] docs: materializing") == 1
    assert "1/10" in _last_row(out, "web")
    assert "0/0" in _last_row(out, "docs") and "350 unchanged" in _last_row(out, "docs")


def test_terminal_progress_starts_a_fresh_row_when_a_source_starts_again():
    progress, out, clock = _terminal()
    with progress:
        progress.start("web", 10, 0)
        progress.document("web", ok=False)
        progress.start("web", 9, 1)
        progress.document("web", ok=True)
    assert "1/9" in _last_row(out, "web") and "0 failed, 1 unchanged" in _last_row(out, "web")
    assert len(progress._progress.tasks) == 1  # noqa: SLF001 - one row, not a stale one beside it


# --- Tee, NullProgress, for_stream --------------------------------------------------------------------

def test_tee_forwards_every_call_and_enters_those_that_need_it():
    first, second = Recorder(), Recorder()
    lines: list[str] = []
    with Tee(first, LineProgress(lines.append), second) as tee:
        assert (first.entered, second.entered, first.exited) == (1, 1, 0)
        tee.start("web", 4000, 6000)
        tee.document("web", False)
        tee.batch(event := _event(1, 200, 5.0))
        tee.finish("web", 9.0)
    assert (first.exited, second.exited) == (1, 1)
    expected = [("start", "web", 4000, 6000), ("document", "web", False), ("batch", event), ("finish", "web", 9.0)]
    assert first.calls == expected and second.calls == expected
    assert len(lines) == 3  # start, the batch, finish


def test_tee_writes_lines_through_each_line_progress():
    a: list[str] = []
    b: list[str] = []
    tee = Tee(LineProgress(a.append), NullProgress(), LineProgress(b.append))
    tee.start("web", 5, 0)
    tee.batch(_event(1, 5, 1.0, total=5, documents=5))
    assert a == b and len(a) == 2 and a[1].startswith("web: batch 1 committed 5 documents")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_for_stream_picks_the_display_by_terminal():
    assert isinstance(for_stream(_Tty()), TerminalProgress)
    plain = io.StringIO()
    progress = for_stream(plain)
    assert isinstance(progress, LineProgress)
    with progress:
        progress.start("web", 3, 1)
    assert plain.getvalue() == "web: 3 documents to parse, 1 unchanged\n"


def test_for_stream_draws_the_terminal_display_on_that_stream():
    tty = _Tty()
    progress = for_stream(tty)
    with progress:
        progress.start("web", 7, 0)
        progress.batch(_event(1, 3, 1.0, total=7, documents=3))
    assert "3/7" in ANSI.sub("", tty.getvalue())
