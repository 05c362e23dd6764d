"""Scale bench (issue 16, not part of `make test`): `docclean run` on generated sources of N unique
documents. Per size: first-run wall time and documents/s, peak RSS of the whole process tree, the
unchanged rerun, and the rerun after a SIGKILL at half the first run's time.

    .venv/bin/python -m bench.scale                    # 1000, 5000, 10000 documents of HTML
    .venv/bin/python -m bench.scale --quick            # 200 and 400: minutes, to try it
    .venv/bin/python -m bench.scale --sizes 1000 --mix # HTML, DOCX, PPTX and PDF

Writes bench/out/scale.json and prints a Markdown table. Scratch data lives under /tmp (--work).
"""
from __future__ import annotations

import argparse
import ctypes
import datetime as dt
import json
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.scale_docs import generate_source

REPO = Path(__file__).resolve().parent.parent
OUT_JSON = REPO / "bench" / "out" / "scale.json"
DEFAULT_SIZES = (1000, 5000, 10000)
QUICK_SIZES = (200, 400)
WORKERS = 2  # parse processes, as the issue measured ("one source, 2 workers")
SOURCE = "scale"  # the one source's name (its partition key)
SAMPLE_PERIOD_S = 0.2  # RSS sampling period, seconds
KILL_FRACTION = 0.5  # the resume test kills the run at this fraction of the first run's wall time
KIB = 1024
MIB = 1024 * 1024
LOG_TAIL_LINES = 20  # lines of a failed run's log shown in the error
PR_SET_CHILD_SUBREAPER = 36  # prctl option (linux/prctl.h): orphaned descendants become our children
REAP_WAIT_S = 10.0  # how long orphans (the fork server after its parent died) get to exit, seconds
REAP_POLL_S = 0.05
# "parsed_blocks  rows=123 parsed=10 reused=5 ..." as `docclean run` prints each materialization
_COUNT = re.compile(r"\b(parsed|reused|failed)=(\d+)")


# --- peak RSS of a process tree, from /proc ---------------------------------------------------------

def child_pids(pid: int) -> list[int]:
    """The direct children of pid (from every thread's /proc children list); [] once it is gone."""
    kids: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.extend(int(k) for k in f.read().split())
    except OSError:  # the process or the thread exited while we looked
        pass
    return kids


def tree_pids(root: int) -> list[int]:
    """root and all its descendants (the fork server and its parse workers included)."""
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(child_pids(pid))
    return pids


def memory_bytes(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of pid in bytes, from /proc/<pid>/smaps_rollup; (0, 0) once it has exited.
    PSS splits each shared page between its sharers: summed over a tree it counts the pages the
    fork server shares with its workers once; summed RSS counts them in every process."""
    sizes = {"Rss:": 0, "Pss:": 0}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                key = line.split(maxsplit=1)[0]
                if key in sizes:
                    sizes[key] = int(line.split()[1]) * KIB
    except (OSError, IndexError, ValueError):  # exited, or a zombie with an empty rollup
        pass
    return sizes["Rss:"], sizes["Pss:"]


@dataclass
class Peaks:
    """Peak memory in bytes: RSS of the root process and of the largest single descendant, and the
    sums of RSS and of PSS over the tree (each the peak of one sample)."""

    parent: int = 0
    child: int = 0
    tree: int = 0
    tree_pss: int = 0
    processes: int = 0  # the most processes seen in the tree at once

    def sample(self, root: int) -> None:
        """Fold one reading of the tree under root into the peaks."""
        pids = tree_pids(root)
        sizes = {pid: memory_bytes(pid) for pid in pids}
        self.parent = max(self.parent, sizes.get(root, (0, 0))[0])
        self.child = max(self.child, max((rss for p, (rss, _) in sizes.items() if p != root), default=0))
        self.tree = max(self.tree, sum(rss for rss, _ in sizes.values()))
        self.tree_pss = max(self.tree_pss, sum(pss for _, pss in sizes.values()))
        self.processes = max(self.processes, len(pids))

    def mib(self) -> dict[str, float]:
        """The peaks in MiB, rounded."""
        return {"parent": round(self.parent / MIB, 1), "largest_child": round(self.child / MIB, 1),
                "tree": round(self.tree / MIB, 1), "tree_pss": round(self.tree_pss / MIB, 1),
                "processes": self.processes}


# --- CPU time of a process tree, from the kernel's accounting ------------------------------------

def become_subreaper() -> bool:
    """Adopt our runs' orphans (the fork server outlives a killed or finished `docclean run`), so that
    reaping them adds their CPU time, and their reaped workers', to RUSAGE_CHILDREN; False if refused."""
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def reap_orphans() -> None:
    """Wait (up to REAP_WAIT_S) for every remaining child: the adopted orphans of the last run."""
    end = time.monotonic() + REAP_WAIT_S
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # no children left
            return
        if pid == 0:
            time.sleep(REAP_POLL_S)


def children_cpu_s() -> float:
    """User + system CPU seconds of every reaped descendant so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- one `docclean run` ---------------------------------------------------------------------------

@dataclass
class Run:
    """One `docclean run`: wall time, CPU time of its tree, peaks, exit code, and the parse counts it printed."""

    wall_s: float
    cpu_s: float | None  # None when the kernel refused to make this bench a subreaper (orphans uncounted)
    returncode: int
    killed: bool
    peaks: dict[str, float]
    counts: dict[str, int] = field(default_factory=dict)  # parsed / reused / failed, when printed


def docclean_env(home: Path) -> dict[str, str]:
    """The environment of a user's run: DAGSTER_HOME with telemetry off."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return {**os.environ, "DAGSTER_HOME": str(home)}


def docclean_bin() -> str:
    """The docclean entry point of the venv running this bench."""
    return str(Path(sys.executable).with_name("docclean"))


@dataclass(frozen=True)
class Setup:
    """How every run of this bench is started: its environment, and whether orphans are counted."""

    env: dict
    subreaper: bool


def run_docclean(setup: Setup, sources: Path, data_dir: Path, log: Path, kill_after_s: float | None = None) -> Run:
    """Run `docclean run` in its own session, sampling its tree's memory; SIGKILL the whole group at kill_after_s."""
    cmd = [docclean_bin(), "run", "--sources", str(sources), "--data-dir", str(data_dir), "--quiet"]
    peaks, killed, cpu_before = Peaks(), False, children_cpu_s()
    with open(log, "w") as out:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=setup.env,
                                start_new_session=True)
        while proc.poll() is None:
            peaks.sample(proc.pid)
            if kill_after_s is not None and time.monotonic() - start >= kill_after_s:
                killed = kill_group(proc)
                break
            time.sleep(SAMPLE_PERIOD_S)
        wall = time.monotonic() - start
    reap_orphans()
    cpu = round(children_cpu_s() - cpu_before, 1) if setup.subreaper else None
    check_exit(proc.returncode, killed, log)
    text = log.read_text(errors="replace")
    return Run(round(wall, 2), cpu, proc.returncode, killed, peaks.mib(), parse_counts(text))


def kill_group(proc: subprocess.Popen) -> bool:
    """SIGKILL the run's whole process group (workers and fork server too); False when it had already ended."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    finally:
        proc.wait()
    return True


def check_exit(returncode: int, killed: bool, log: Path) -> None:
    """RuntimeError with the log's tail when a run we did not kill failed: its figures would mean nothing."""
    if returncode != 0 and not killed:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:])
        raise RuntimeError(f"docclean run exited {returncode} (log {log}):\n{tail}")


def parse_counts(output: str) -> dict[str, int]:
    """parsed / reused / failed from the `parsed_blocks` line(s) of `docclean run`'s output, summed."""
    counts: dict[str, int] = {}
    for line in output.splitlines():
        if line.strip().startswith("parsed_blocks"):
            for key, value in _COUNT.findall(line):
                counts[key] = counts.get(key, 0) + int(value)
    return counts


def committed_documents(data_dir: Path, env: dict) -> int | None:
    """Documents a reader sees in parsed_documents (0 when the table does not exist yet; None on another error)."""
    cmd = [docclean_bin(), "sql", "--json", "--data-dir", str(data_dir), "SELECT count(*) AS n FROM parsed_documents"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode == 0 and proc.stdout.strip():
        return int(json.loads(proc.stdout.splitlines()[0])["n"])
    return 0 if "does not exist" in proc.stderr else None


def final_statuses(data_dir: Path, env: dict) -> dict[str, int]:
    """Documents per status in quality_report after a completed run (the run really did the work)."""
    cmd = [docclean_bin(), "sql", "--json", "--data-dir", str(data_dir),
           "SELECT status, count(*) AS n FROM quality_report GROUP BY status ORDER BY status"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return {r["status"]: int(r["n"]) for r in rows}


# --- one size -------------------------------------------------------------------------------------

def write_sources_yaml(folder: Path, file: Path) -> None:
    """A sources.yaml with the one folder source and WORKERS parse processes."""
    file.write_text(f"sources:\n  {SOURCE}:\n    path: {folder}\n"
                    f"settings:\n  limits:\n    workers: {WORKERS}\n")


def measure_size(n: int, work: Path, mix: bool, setup: Setup, log, resume: bool = True) -> dict:
    """First run, unchanged rerun and (unless `resume` is False) resume-after-kill on a fresh source of n
    unique documents."""
    root = work / f"n{n}"
    shutil.rmtree(root, ignore_errors=True)
    folder, sources = root / "source", root / "sources.yaml"
    formats = generate_source(folder, n, mix)
    write_sources_yaml(folder, sources)
    log(f"{n} documents generated {formats}")
    first = run_docclean(setup, sources, root / "data", root / "first.log")
    log(f"  first run {first.wall_s} s, {first.cpu_s} CPU s, rc={first.returncode}, peaks {first.peaks}, {first.counts}")
    statuses = final_statuses(root / "data", setup.env)
    if sum(statuses.values()) != n:
        raise RuntimeError(f"quality_report has {statuses} for {n} documents")
    rerun = run_docclean(setup, sources, root / "data", root / "rerun.log")
    log(f"  unchanged rerun {rerun.wall_s} s, {rerun.cpu_s} CPU s, peaks {rerun.peaks}, {rerun.counts}")
    result = {"documents": n, "formats": formats, "statuses": statuses, "first": asdict(first),
              "docs_per_s": round(n / first.wall_s, 2), "unchanged_rerun": asdict(rerun),
              "unchanged_ratio": ratio(rerun.wall_s, first.wall_s), "unchanged_cpu_ratio": ratio(rerun.cpu_s, first.cpu_s)}
    if not resume:
        return result
    kill_at = round(KILL_FRACTION * first.wall_s, 2)
    killed = run_docclean(setup, sources, root / "resume", root / "killed.log", kill_after_s=kill_at)
    committed = committed_documents(root / "resume", setup.env)
    resumed = run_docclean(setup, sources, root / "resume", root / "resumed.log")
    log(f"  killed at {kill_at} s ({committed} committed), resumed in {resumed.wall_s} s, {resumed.cpu_s} CPU s, {resumed.counts}")
    return {**result, "kill_after_s": kill_at, "killed_run": asdict(killed), "committed_at_kill": committed,
            "resumed": asdict(resumed), "resume_ratio": ratio(resumed.wall_s, first.wall_s),
            "resume_cpu_ratio": ratio(resumed.cpu_s, first.cpu_s), "load_avg_after": os.getloadavg()}


# --- report ---------------------------------------------------------------------------------------

def machine() -> dict:
    """Cores, RAM, CPU, Python, load and the commit measured, with the date."""
    mem_kib = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal:"))
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    git = ["git", "-C", str(REPO)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    return {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "cpu_count": os.cpu_count(),
            "cpu": cpu, "ram_gib": round(mem_kib / MIB, 1), "python": platform.python_version(),
            "platform": platform.platform(), "load_avg_at_start": os.getloadavg(), "commit": commit,
            "dirty": dirty, "workers": WORKERS}


def write_result(path: Path, result: dict, table: str) -> None:
    """Write a bench's JSON result and print its Markdown table with where the JSON went."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print("\n" + table + f"\n\nwrote {path}")


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b to 3 places, None when either is unknown."""
    return None if a is None or not b else round(a / b, 3)


def cost_cell(run: dict, first: dict) -> str:
    """'wall s (ratio), CPU s (ratio)' of a run against the first run."""
    cpu = "CPU ?" if run["cpu_s"] is None else f"CPU {run['cpu_s']:.0f} s ({ratio(run['cpu_s'], first['cpu_s']):.2f})"
    return f"{run['wall_s']:.0f} s ({ratio(run['wall_s'], first['wall_s']):.2f}), {cpu}"


def markdown(results: list[dict]) -> str:
    """The figures as a Markdown table; the tree's peak PSS also as a ratio to the smallest size's."""
    base = results[0]["first"]["peaks"]["tree_pss"] if results else 1.0
    lines = ["| documents | first run: wall, CPU | docs/s | peak tree PSS (vs smallest) | peak tree RSS "
             "| parent / largest worker RSS | unchanged rerun (ratio) | killed at | committed at kill "
             "| rerun after kill (ratio) | parsed / reused |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        first, p = r["first"], r["first"]["peaks"]
        counts = r["resumed"]["counts"] if "resumed" in r else {}
        cpu = "?" if first["cpu_s"] is None else f"{first['cpu_s']:.0f} s"
        lines.append(f"| {r['documents']:,} | {first['wall_s']:.0f} s, {cpu} | {r['docs_per_s']:.1f} "
                     f"| {p['tree_pss']:.0f} MiB ({p['tree_pss'] / base:.2f}x) | {p['tree']:.0f} MiB "
                     f"| {p['parent']:.0f} / {p['largest_child']:.0f} MiB | {cost_cell(r['unchanged_rerun'], first)} "
                     + (f"| {r['kill_after_s']:.0f} s | {r['committed_at_kill']} | {cost_cell(r['resumed'], first)} "
                        f"| {counts.get('parsed', '?')} / {counts.get('reused', '?')} |" if "resumed" in r
                        else "| not measured | | | |"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", help=f"documents per source (default {DEFAULT_SIZES})")
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}")
    parser.add_argument("--mix", action="store_true", help="HTML, DOCX, PPTX and PDF instead of HTML only")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new one under /tmp, removed after)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (sources, tables, logs)")
    parser.add_argument("--out", type=Path, default=OUT_JSON, help="JSON results")
    parser.add_argument("--resume-up-to", type=int, default=None,
                        help="measure the kill-and-resume only for sizes up to this many documents (default: all)")
    args = parser.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    work = args.work or Path(tempfile.mkdtemp(prefix="docclean-scale-"))
    setup = Setup(docclean_env(work / "dagster_home"), become_subreaper())
    meta = {**machine(), "sizes": list(sizes), "mix": args.mix, "cpu_counted": setup.subreaper}
    print(f"scale bench in {work}: {json.dumps(meta)}", flush=True)
    results: list[dict] = []
    try:
        for n in sizes:
            resume = args.resume_up_to is None or n <= args.resume_up_to
            results.append(measure_size(n, work, args.mix, setup, lambda s: print(s, flush=True), resume))
            args.out.parent.mkdir(parents=True, exist_ok=True)  # written after each size: a long run keeps what it measured
            args.out.write_text(json.dumps({"machine": meta, "results": results}, indent=2) + "\n")
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print("\n" + markdown(results))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
