"""What the tests share: the real services they start on 127.0.0.1 (s3server: SeaweedFS; pgserver:
PostgreSQL; daskcluster: a Dask scheduler and workers; dagster_dev: `dg dev`; httpserve and
faultproxy: loopback web servers; browser: headless Chromium), the extractors they inject (faults),
documents built in code (pdf, docx, office, html), and the pipeline and the CLI run as users run
them (pipeline, resume, runs, stages). Fixtures over them are in conftest.py. No test module is
imported by another: what two tests share lives here.
"""
