"""A real PostgreSQL server for the tests: Debian's `postgresql` package, a private data directory and
port on 127.0.0.1, started and stopped by the tests (as the `postgres` user when they run as root,
since PostgreSQL refuses to run as root)."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from docclean_assets_tests.support.ports import free_port

USER = "docclean"  # the database superuser initdb creates (trust authentication on 127.0.0.1 only)
DATABASE = "dagster"


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian keeps them in /usr/lib/postgresql/N/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    which = shutil.which("pg_ctl")
    return Path(which).resolve().parent if which else None


class Postgres:
    """initdb + pg_ctl start on a free port; `stop()` shuts it down immediately and removes its folder."""

    def __init__(self) -> None:
        bindir = pg_bin()
        if bindir is None:
            raise RuntimeError("PostgreSQL not found: apt-get install postgresql (.ci/run does)")
        self.bin = bindir
        self.port = free_port()
        # not under pytest's tmp_path: the postgres user must be able to reach it
        self.root = Path(tempfile.mkdtemp(prefix="docclean-pg-"))
        self.data, self.log = self.root / "data", self.root / "server.log"
        self._as = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start", "-o",
                  f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root}")
        subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", "postgres", "-q", "-c",
                        f"CREATE DATABASE {DATABASE}"], check=True, capture_output=True)

    def _run(self, tool: str, *args: str) -> None:
        proc = subprocess.run([*self._as, str(self.bin / tool), *args], capture_output=True, text=True,
                              cwd=self.root)
        if proc.returncode != 0:
            raise RuntimeError(f"{tool} failed ({proc.returncode}): {proc.stderr[-2000:]}")

    def env(self) -> dict[str, str]:
        """The variables deploy/dagster.yaml reads."""
        return {"DAGSTER_PG_USERNAME": USER, "DAGSTER_PG_PASSWORD": "unused-with-trust", "DAGSTER_PG_HOST": "127.0.0.1",
                "DAGSTER_PG_DB": DATABASE, "DAGSTER_PG_PORT": str(self.port)}

    def query(self, sql: str) -> list[tuple]:
        """Rows of one query against the Dagster database (through psycopg2, dagster-postgres's driver)."""
        import psycopg2

        with psycopg2.connect(host="127.0.0.1", port=self.port, user=USER, dbname=DATABASE) as con, con.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
