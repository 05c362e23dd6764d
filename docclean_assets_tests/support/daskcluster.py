"""A real Dask cluster for the tests: `dask scheduler` and `dask worker` processes on 127.0.0.1, each
in its own process group, started and stopped by the tests."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from docclean_assets_tests.support.ports import free_port

START_TIMEOUT_S = 60.0  # scheduler and workers are up in ~1.5 s on 2 cores; head room for a loaded CI


class DaskCluster:
    """A scheduler and `workers` single-threaded workers, non-daemonic so tasks may start processes."""

    def __init__(self, workdir: Path, workers: int = 2, env: dict[str, str] | None = None):
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.address = f"tcp://127.0.0.1:{free_port()}"
        project = str(Path(__file__).resolve().parents[2])  # the tests' fault-injecting extractors import from here
        self.env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False",
                    "PYTHONPATH": os.pathsep.join(p for p in (project, os.environ.get("PYTHONPATH")) if p), **(env or {})}
        bindir = Path(sys.executable).parent
        self.scheduler = self._start([str(bindir / "dask"), "scheduler", "--host", "127.0.0.1", "--port",
                                      self.address.rsplit(":", 1)[1], "--no-dashboard"], "scheduler")
        self.workers = [self._start([str(bindir / "dask"), "worker", self.address, "--nthreads", "1",
                                     "--no-dashboard", "--host", "127.0.0.1", "--memory-limit", "2GB"], f"worker{i}")
                        for i in range(workers)]
        self.wait_for(workers)

    def _start(self, cmd: list[str], name: str) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "wb")
        return subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                cwd=Path(__file__).resolve().parents[2])

    def wait_for(self, workers: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_TIMEOUT_S, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=START_TIMEOUT_S)

    def kill_worker(self, i: int) -> None:
        """SIGKILL a worker and its nanny (its whole process group): the machine is gone."""
        os.killpg(self.workers[i].pid, signal.SIGKILL)
        self.workers[i].wait(10)

    def stop(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for proc in [*self.workers, self.scheduler]:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
