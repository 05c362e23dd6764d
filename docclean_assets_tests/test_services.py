"""Service-level tests: Dagster 1.13's `dg` CLI (`dg launch`, `dg dev`: webserver + daemon) over a
tiny source, and the UI itself in headless Chromium.

Each test builds its own deployment in tmp_path (three HTML pages sharing a <nav> and a <footer>,
a sources.yaml with one source `web`, a data directory and a DAGSTER_HOME) and drives docclean
only through subprocesses and their public interfaces: exit codes, Parquet read through DuckDB,
the instance's run storage, the webserver's GraphQL endpoint and the pages it renders.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docclean_assets.store.tables import Store
from docclean_assets.ingest.render import chromium_path
from docclean_assets_tests.support.browser import browser_page
from docclean_assets_tests.support.dagster_dev import (
    ARTICLES, CHECKS, DG, DagsterDev, Deployment, FAILED_RUN, FOOTER, JOB, LAUNCH, LOCATION, NAV, PARTITION, PROJECT_ROOT, log_tail, wait_until_loaded,
)
from docclean_assets_tests.support.lineage import LINEAGE

pytestmark = pytest.mark.service

ASSETS = ["raw_files", "parsed_blocks", "parsed_documents", "boilerplate_sets", "normalized_blocks", "chunks",
          "chunk_changes", "quality_report"]
# The run's steps: parsed_blocks and parsed_documents are one graph-backed multi-asset whose steps
# plan the source's shards, parse each (one here: the source is not sharded) and record both tables.
PARSE_STEPS = ["parsed_blocks.plan_shards", "parsed_blocks.parse_shard[shard_000]", "parsed_blocks.record_parse"]
# chunks and chunk_changes are one multi-asset too: one step, `chunks`.
STEPS = [s for a in ASSETS if a not in ("parsed_documents", "chunk_changes")
         for s in (PARSE_STEPS if a == "parsed_blocks" else [a])]

SENTENCE = "Small craft should keep to the green side of the channel and listen on channel twelve."


# --------------------------------------------------------------------------- 1. the CLI


def test_dg_check_defs_loads_the_project_and_names_a_bad_config(deployment: Deployment):
    ok = subprocess.run([str(DG), "check", "defs"], cwd=PROJECT_ROOT, env=deployment.env,
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "All definitions loaded successfully" in ok.stdout + ok.stderr, ok.stderr[-2000:]
    deployment.sources.write_text(f"sources:\n  {PARTITION}:\n    path: docs\n    max_failed_share: 2\n")
    bad = subprocess.run([str(DG), "check", "defs"], cwd=PROJECT_ROOT, env=deployment.env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "max_failed_share" in bad.stdout + bad.stderr, bad.stdout[-2000:]
    # one line names the file and the key; no frame of docclean's loader below it (Dagster's are hidden)
    shown = bad.stdout + bad.stderr
    assert (f"SourceConfigError: {deployment.sources}: source '{PARTITION}': key 'max_failed_share': must be a number "
            "from 0 to 1") in shown, shown[-2000:]
    assert "sources.py" not in shown and "graph.py" not in shown, shown[-2000:]
    deployment.sources.write_text(f"sources:\n  {PARTITION}:\n    path: docs\n    retention_bnd: [0.5, 1]\n")
    typo = subprocess.run([str(DG), "check", "defs"], cwd=PROJECT_ROOT, env=deployment.env,
                          capture_output=True, text=True, timeout=120)
    assert "key 'retention_bnd': unknown key; did you mean 'retention_band'?" in typo.stdout + typo.stderr


def test_dg_launch_writes_parquet_and_records_the_run(deployment: Deployment):
    log = deployment.root / "launch.log"
    with open(log, "wb") as out:
        proc = subprocess.run([str(DG), "launch", "--job", JOB, "--partition", PARTITION],
                              cwd=PROJECT_ROOT, env=deployment.env, stdout=out, stderr=subprocess.STDOUT, timeout=120)
    assert proc.returncode == 0, f"dg launch failed:\n{log_tail(log)}"
    assert "superseded" not in log.read_text(errors="replace")

    store = Store(deployment.data_dir)
    for table in ASSETS:
        assert store.snapshot(table, PARTITION) is not None, f"{table} has no commit"

    con = store.connect()
    report = con.execute("SELECT path, status, error FROM quality_report ORDER BY path").fetchall()
    assert [r[0] for r in report] == sorted(ARTICLES), report
    assert all(r[1] == "ok" and r[2] is None for r in report), report

    body = con.execute("SELECT path, text FROM normalized_blocks WHERE drop_reason IS NULL").fetchall()
    assert {p for p, _ in body} == set(ARTICLES), "every page keeps a body"
    assert any(SENTENCE in text for _, text in body), "an article sentence is missing from the body"
    for title, _ in ARTICLES.values():
        assert any(text == title for _, text in body), f"title {title!r} not in the body"
    template = NAV + [FOOTER]
    leaked = [(p, t) for p, t in body if t in template]
    assert not leaked, f"template text kept as body: {leaked}"
    dropped = con.execute(
        "SELECT text, count(DISTINCT path) FROM normalized_blocks WHERE drop_reason IS NOT NULL GROUP BY text").fetchall()
    dropped = dict(dropped)
    for text in template:
        assert dropped.get(text) == len(ARTICLES), f"{text!r} not dropped on every page: {dropped}"

    # DAGSTER_HOME was set, so the run, its materializations and its check evaluations are in the instance.
    import dagster as dg  # imported here: only this check needs it in the test process

    with dg.DagsterInstance.from_config(str(deployment.home)) as instance:
        runs = instance.get_runs()
        assert len(runs) == 1, runs
        run = runs[0]
        assert run.status == dg.DagsterRunStatus.SUCCESS and run.job_name == JOB
        assert run.tags.get("dagster/partition") == PARTITION
        for name in ASSETS:
            event = instance.get_latest_materialization_event(dg.AssetKey(name))
            assert event is not None and event.run_id == run.run_id, name
            assert event.dagster_event.partition == PARTITION, name
        evaluations = [e.dagster_event.event_specific_data
                       for e in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)]
        assert sorted(ev.check_name for ev in evaluations) == CHECKS
        verdicts = {ev.check_name: (ev.passed, ev.severity) for ev in evaluations}
        # three documents are too few to learn a retention band and none is configured: it says so at WARN
        assert verdicts == {"failed_documents": (True, dg.AssetCheckSeverity.ERROR),
                            "revision_count": (True, dg.AssetCheckSeverity.ERROR),
                            "retention_band": (False, dg.AssetCheckSeverity.WARN)}, verdicts


# --------------------------------------------------------------------------- 2. dg dev


ASSETS_QUERY = """{ assetNodes { assetKey { path } dependencyKeys { path } partitionKeys isPartitioned
  repository { name location { name } }
  assetChecksOrError { __typename ... on AssetChecks { checks { name } } } } }"""
DAEMONS_QUERY = "{ instance { daemonHealth { allDaemonStatuses { daemonType healthy required } } } }"
JOB_RUNS = """query($s: PipelineSelector!) { pipelineOrError(params: $s) { __typename
  ... on Pipeline { runs { runId } } ... on PythonError { message } } }"""
RUN_QUERY = """query($id: ID!) { runOrError(runId: $id) { __typename ... on Run { status tags { key value }
  stepStats { stepKey status } } ... on PythonError { message } } }"""
AFTER_RUN_QUERY = """query($keys: [AssetKeyInput!]) {
  assetNodes(assetKeys: $keys) { assetKey { path } assetMaterializations(partitions: ["web"]) { runId partition } }
""" + "".join(f"""  {c}: assetCheckExecutions(assetKey: {{path: ["quality_report"]}}, checkName: "{c}", limit: 5) {{
    runId status partition evaluation {{ success severity }} }}
""" for c in CHECKS) + "}"


BROKEN = "scan.pdf"  # a truncated PDF in the dev test's source: one failed document of four


def test_dg_dev_runs_a_partition_and_the_ui_shows_checks_and_pictures(deployment: Deployment):
    (deployment.root / "docs" / BROKEN).write_bytes(b"%PDF-1.7\n1 0 obj <<truncated")
    dev = DagsterDev(deployment)
    try:
        wait_until_loaded(dev)

        # The eight assets with their lineage, each partitioned by the one source, and the three checks
        # on quality_report.
        nodes = {tuple(n["assetKey"]["path"]): n for n in dev.gql(ASSETS_QUERY)["assetNodes"]}
        assert sorted(nodes) == sorted((a,) for a in ASSETS), sorted(nodes)
        lineage = {k[0]: sorted(d["path"][0] for d in n["dependencyKeys"]) for k, n in nodes.items()}
        assert lineage == LINEAGE, lineage
        for name in ASSETS:
            node = nodes[(name,)]
            assert node["isPartitioned"] and node["partitionKeys"] == [PARTITION], node
            assert node["repository"]["location"]["name"] == LOCATION
        repository = nodes[("quality_report",)]["repository"]["name"]
        checks = nodes[("quality_report",)]["assetChecksOrError"]
        assert checks["__typename"] == "AssetChecks", checks
        assert sorted(c["name"] for c in checks["checks"]) == CHECKS

        # The daemon runs and its required daemons (scheduler, sensors, run queue, ...) heartbeat.
        def required_healthy(statuses):
            required = [s for s in statuses if s["required"]]
            return bool(required) and all(s["healthy"] for s in required)

        statuses = dev.poll("required daemons to be healthy",
                            lambda: dev.gql(DAEMONS_QUERY)["instance"]["daemonHealth"]["allDaemonStatuses"],
                            required_healthy, timeout=60)
        by_type = {s["daemonType"]: s for s in statuses}
        for daemon in ("SCHEDULER", "SENSOR", "QUEUED_RUN_COORDINATOR"):
            assert daemon in by_type and by_type[daemon]["healthy"], by_type

        # Launch the `ingest` job for partition 'web' as the UI's Jobs page does; the run is queued,
        # so reaching SUCCESS proves the daemon's run coordinator dequeued and launched it.
        params = {"selector": {"repositoryLocationName": LOCATION, "repositoryName": repository, "jobName": JOB},
                  "executionMetadata": {"tags": [{"key": "dagster/partition", "value": PARTITION}]}}
        launched = dev.gql(LAUNCH, {"p": params})["launchRun"]
        assert launched["__typename"] == "LaunchRunSuccess", launched
        run_id = launched["run"]["runId"]
        assert launched["run"]["status"] == "QUEUED", launched

        run = dev.poll("the run to finish", lambda: dev.gql(RUN_QUERY, {"id": run_id})["runOrError"],
                       lambda r: r.get("status") in {"SUCCESS"} | FAILED_RUN, timeout=120)
        assert run["status"] == "SUCCESS", run  # a broken file is a failed row, never a failed run
        assert {"key": "dagster/partition", "value": PARTITION} in run["tags"]
        steps = {s["stepKey"]: s["status"] for s in run["stepStats"]}
        expected_steps = STEPS + [f"quality_report_{c}" for c in CHECKS]
        assert steps == {k: "SUCCESS" for k in expected_steps}, steps

        # The run wrote the partition's Parquet (in the deployment's data dir, not the bundled one).
        store = Store(deployment.data_dir)
        rows = store.connect().execute("SELECT path, status FROM quality_report ORDER BY path").fetchall()
        assert rows == sorted([(name, "ok") for name in ARTICLES] + [(BROKEN, "failed")]), rows

        # The instance recorded one materialization per asset for 'web' and each check's verdict for
        # 'web': 1 failed document of 4 is above a tenth (ERROR), 3 ratios are too few for a band (WARN).
        after = dev.gql(AFTER_RUN_QUERY, {"keys": [{"path": [a]} for a in ASSETS]})
        for node in after["assetNodes"]:
            assert [(m["runId"], m["partition"]) for m in node["assetMaterializations"]] == [(run_id, PARTITION)], node
        verdicts = {}
        for check in CHECKS:
            [execution] = [e for e in after[check] if e["runId"] == run_id]
            assert execution["partition"] == PARTITION, execution  # per-source check status in the UI
            verdicts[check] = (execution["status"], execution["evaluation"]["severity"])
        assert verdicts == {"failed_documents": ("FAILED", "ERROR"), "retention_band": ("FAILED", "WARN"),
                            "revision_count": ("SUCCEEDED", "ERROR")}, verdicts

        # A run of `docclean run` on the same instance is listed on the job's page beside the UI's own
        # (the query behind Jobs -> ingest: the job's runs of this code location).
        cli = subprocess.run([str(Path(sys.executable).parent / "docclean"), "run", "--quiet"], cwd=deployment.root,
                             env=deployment.env, capture_output=True, text=True, timeout=180)
        assert cli.returncode == 0, cli.stderr[-2000:]
        selector = {"repositoryLocationName": LOCATION, "repositoryName": repository, "pipelineName": JOB}
        listed = dev.gql(JOB_RUNS, {"s": selector})["pipelineOrError"]
        assert listed["__typename"] == "Pipeline", listed
        assert len(listed["runs"]) == 2 and run_id in [r["runId"] for r in listed["runs"]], listed

        if chromium_path() is None:  # everything above was checked; only the browser's view is not
            pytest.skip("Chromium is not installed (apt-get install chromium): the UI's pages were not loaded")
        dev.gql("mutation { setNuxSeen }")  # the first-visit community dialog would cover the page
        _ui_shows_checks_and_pictures(dev.base, deployment.root)
    finally:
        dev.stop()
    assert dev.proc.returncode is not None, "dg dev outlived the test"


def _ui_shows_checks_and_pictures(base: str, shots: Path) -> None:
    """What a user sees in Chromium: the failed check marked failed, with the broken file listed; the
    retention histogram drawn as an image; the kinds table and the body preview."""
    with browser_page() as page:
        page.goto(f"{base}/assets/quality_report?view=checks")
        rows = page.locator('[class*="AssetChecks_checkRow"]')
        failed = rows.filter(has=page.locator('[title="failed_documents"]'))
        failed.get_by_text("Failed", exact=True).wait_for()
        assert failed.locator('[role="img"][aria-label="cancel"]').count() == 1  # the red cross
        failed.click()
        page.get_by_text(BROKEN, exact=True).wait_for()  # listed in the latest execution's metadata
        assert page.get_by_text("1 of 4 documents failed", exact=False).count() >= 1
        page.screenshot(path=str(shots / "checks.png"))

        page.goto(f"{base}/assets/quality_report?view=events&partition={PARTITION}")
        # the source's health, from the asset's own page: the failed check and why, in one line
        health = page.locator("tr", has_text="health")
        health.get_by_text(f"{PARTITION}: ERROR: failed_documents FAILED: 1 of 4 documents failed", exact=False).wait_for()
        histogram = page.locator("tr", has_text="retention_histogram")
        # Dagster shows Markdown longer than 1000 characters behind this link, in a dialog
        histogram.get_by_text("[Show Markdown]").click()
        image = page.locator('img[src^="data:image/png;base64,"]')
        image.wait_for()
        size = image.evaluate("i => i.complete ? [i.naturalWidth, i.naturalHeight] : null")
        assert size == [560, 220], size  # decoded and drawn, not a broken-image icon
        page.screenshot(path=str(shots / "histogram.png"))
        page.keyboard.press("Escape")
        kinds = page.locator("tr", has_text="blocks_per_kind")
        assert kinds.get_by_text("paragraph", exact=True).count() == 1
        first_article = ARTICLES[sorted(ARTICLES)[0]][1][0]  # the first document's first paragraph
        page.get_by_text(" ".join(first_article.split()[:6]), exact=False).first.wait_for()
