"""Dagster as deployed: the instance of deploy/dagster.yaml on a real PostgreSQL server (Debian's
package, a private port and data directory on 127.0.0.1), the webserver and the daemon sharing it
(`dagster dev` starts both), two source partitions launched at once through the queued run
coordinator, and both runs, their materializations and their check results recorded in PostgreSQL."""
from __future__ import annotations

import datetime as dt
import shutil

import pytest

from docclean_assets_tests.support.pgserver import pg_bin
from docclean_assets_tests.support.dagster_dev import (
    ARTICLES, CHECKS, FAILED_RUN, JOB, LAUNCH, LOCATION, PROJECT_ROOT, DagsterDev, Deployment, harbour_page, project_env,
    wait_until_loaded,
)

pytestmark = [pytest.mark.service,
              pytest.mark.skipif(pg_bin() is None, reason="PostgreSQL is not installed (.ci/run installs it)")]

SOURCES = ("harbour", "lighthouse")
RUN_TIMES = """query($id: ID!) { runOrError(runId: $id) { __typename ... on Run { status startTime endTime
  tags { key value } } ... on PythonError { message } } }"""
CHECK_RESULTS = "{" + "".join(f"""  {c}: assetCheckExecutions(assetKey: {{path: ["quality_report"]}}, checkName: "{c}",
  limit: 10) {{ runId status partition }}""" for c in CHECKS) + "}"
# Two documents per source: none fails, none is over max_revisions (unset), and two ratios are too few
# to learn a retention band, which the check says as a failure at WARN severity.
EXPECTED = {"failed_documents": "SUCCEEDED", "retention_band": "FAILED", "revision_count": "SUCCEEDED"}


@pytest.fixture
def deployed(tmp_path, postgres) -> Deployment:
    """Two folder sources, a data dir, and a DAGSTER_HOME holding deploy/dagster.yaml as it is shipped."""
    for i, name in enumerate(SOURCES):
        folder = tmp_path / name
        folder.mkdir()
        for page, (title, paragraphs) in list(ARTICLES.items())[i:i + 2]:
            (folder / page).write_text(harbour_page(title, paragraphs), encoding="utf-8")
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n" + "".join(f"  {n}:\n    path: {n}\n" for n in SOURCES), encoding="utf-8")
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(PROJECT_ROOT / "deploy" / "dagster.yaml", home / "dagster.yaml")
    env = project_env(DOCCLEAN_SOURCES=str(sources), DOCCLEAN_DATA_DIR=str(tmp_path / "data"), DAGSTER_HOME=str(home),
                      DAGSTER_MAX_CONCURRENT_RUNS="2", **postgres.env())
    return Deployment(tmp_path, sources, tmp_path / "data", home, env)


def _time(value: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(value, tz=dt.UTC)


def test_two_partitions_run_at_once_through_the_queue_on_a_postgres_instance(deployed, postgres):
    dev = DagsterDev(deployed)
    try:
        wait_until_loaded(dev)
        repository = dev.gql("{ repositoriesOrError { ... on RepositoryConnection { nodes { name } } } }"
                             )["repositoriesOrError"]["nodes"][0]["name"]
        run_ids = []
        for source in SOURCES:  # as the UI's "Materialize" does, one run per source partition
            params = {"selector": {"repositoryLocationName": LOCATION, "repositoryName": repository, "jobName": JOB},
                      "executionMetadata": {"tags": [{"key": "dagster/partition", "value": source}]}}
            launched = dev.gql(LAUNCH, {"p": params})["launchRun"]
            assert launched["__typename"] == "LaunchRunSuccess", launched
            assert launched["run"]["status"] == "QUEUED", launched  # the queued run coordinator took it
            run_ids.append(launched["run"]["runId"])

        def both(_):
            return [dev.gql(RUN_TIMES, {"id": r})["runOrError"] for r in run_ids]

        runs = dev.poll("both runs to finish", lambda: both(None),
                        lambda rs: all(r.get("status") in {"SUCCESS"} | FAILED_RUN for r in rs), timeout=240)
        assert [r["status"] for r in runs] == ["SUCCESS", "SUCCESS"], runs
        # the daemon had both running at once (max_concurrent_runs 2): each started before the other ended
        starts, ends = [_time(r["startTime"]) for r in runs], [_time(r["endTime"]) for r in runs]
        assert max(starts) < min(ends), (starts, ends)
        checks = dev.gql(CHECK_RESULTS)
        for check, status in EXPECTED.items():
            recorded = {(e["runId"], e["partition"]): e["status"] for e in checks[check] if e["runId"] in run_ids}
            assert recorded == {(r, s): status for r, s in zip(run_ids, SOURCES)}, checks[check]
    finally:
        dev.stop()
    # all of it is in PostgreSQL, not in files below DAGSTER_HOME
    rows = postgres.query("SELECT run_id, status FROM runs ORDER BY run_id")
    assert sorted(rows) == sorted((r, "SUCCESS") for r in run_ids), rows
    checked = postgres.query("SELECT count(*) FROM asset_check_executions WHERE run_id IN %s" % (tuple(run_ids),))
    assert checked[0][0] == len(run_ids) * len(CHECKS)
    assert not list(deployed.home.rglob("*.db")), list(deployed.home.rglob("*.db"))  # no SQLite storage
