"""The Dagster layer, and the only place that imports dagster: the assets and the parse op, asset
checks, schedules and the sensor, the resource, materialization metadata and plots, code versions,
and the Definitions (definitions.py: `build_defs`, and the lazily built `defs` workspace.yaml loads).

May import: every room below it. Each asset body is a call into `pipeline/`; nothing here decides
what a table holds.
"""
