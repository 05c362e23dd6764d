# docclean: the pipeline, the Dagster webserver/daemon/run entry points and a Dask worker, in one image.
# Not built in CI (no container runtime there): the same pins and system packages as `.ci/run`.
#
#   docker build -t docclean:latest .
#   docker run --rm docclean:latest docclean --help
#
# One image serves every role of the deployment (README "Deployment"):
#   dagster-webserver -w workspace.yaml -h 0.0.0.0 -p 3000      the UI
#   dagster-daemon run -w workspace.yaml                        schedules, sensors, run queue
#   dagster code-server start -h 0.0.0.0 -p 4000 -m docclean_assets.defs.definitions   the user code
#   dask worker tcp://scheduler:8786 --nthreads 2               a parse worker (DASK_DISTRIBUTED__WORKER__DAEMON=False is set)
FROM python:3.11-slim-bookworm

# tesseract-ocr-eng: the English model tesserocr's engine reads scanned pages and pictures with; chromium: `render: true` URL
# sources; libpq5: dagster-postgres' psycopg2 at run time; tini: PID 1 that reaps the parse workers.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      tesseract-ocr-eng chromium fonts-dejavu-core libpq5 tini \
 && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DAGSTER_HOME=/opt/dagster/home \
    DOCCLEAN_SOURCES=/opt/docclean/data/sources.yaml \
    DASK_DISTRIBUTED__WORKER__DAEMON=False

WORKDIR /opt/docclean
COPY pyproject.toml setup.py constraints.txt README.md setup.cfg workspace.yaml ./
COPY docclean_assets docclean_assets
COPY data/sources.yaml data/sources.yaml
COPY deploy/dagster.yaml /opt/dagster/home/dagster.yaml
# the pinned dependencies (constraints.txt, as CI installs them), the Dask engine and dagster-k8s; gcc
# builds pdf/_charscan.c (PDFium's chars per page in one call) and is removed again. Editable, as
# `make install` does: the extension lands beside its sources, so the code server (which puts this
# directory first on sys.path) imports the package with it.
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev \
 && pip install --no-cache-dir -c constraints.txt -e '.[dask,k8s]' \
 && python -c "from docclean_assets.extract.pdf import charscan; assert charscan.native()" \
 && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 docclean \
 && chown -R docclean /opt/dagster/home
USER docclean

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["dagster-webserver", "-w", "workspace.yaml", "-h", "0.0.0.0", "-p", "3000"]
