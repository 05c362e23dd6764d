"""Only configured sources are served (issue 37, point 1): a sources.yaml edited between runs (a source
removed, one renamed) gives the same answers as a clean run of the new file; the old sources' tables
stay on disk, named by every run and summary, until `docclean prune` or `store: prune_removed` deletes
them."""
from __future__ import annotations

import json
from pathlib import Path

from docclean_assets.cli import main as cli_main
from docclean_assets.store.tables import Store
from docclean_assets_tests.support.pipeline import template_page

QUERIES = ["SELECT source, path, status FROM quality_report ORDER BY ALL",
           "SELECT source, count(*) AS n FROM raw_files GROUP BY ALL ORDER BY ALL",
           "SELECT source, path, count(*) AS n FROM normalized_blocks GROUP BY ALL ORDER BY ALL",
           "SELECT source, count(*) AS n FROM chunks GROUP BY ALL ORDER BY ALL"]


def _folders(root: Path) -> None:
    for name in ("harbour", "ferries", "roads"):
        (root / name).mkdir(parents=True)
        for i in range(2):
            (root / name / f"{name}{i}.html").write_text(
                template_page(f"{name.title()} notice {i}", f"The {name} notice number {i} says what changes this month."))


def _config(path: Path, sources: dict[str, str], extra: str = "") -> Path:
    path.write_text("sources:\n" + "".join(f"  {n}:\n    path: {folder}\n" for n, folder in sources.items()) + extra)
    return path


def _answers(cfg: Path, data: Path, capsys) -> list[list[dict]]:
    out = []
    for sql in QUERIES:
        assert cli_main(["sql", sql, "--json", "--sources", str(cfg), "--data-dir", str(data)]) == 0
        out.append([json.loads(line) for line in capsys.readouterr().out.splitlines()])
    return out


def test_an_edited_sources_file_serves_what_a_clean_run_of_it_serves(tmp_path, capsys):
    _folders(tmp_path)
    first = _config(tmp_path / "first.yaml", {"harbour": "harbour", "ferries": "ferries", "roads": "roads"})
    # roads removed, ferries renamed boats (the same folder under a new name)
    second = _config(tmp_path / "second.yaml", {"harbour": "harbour", "boats": "ferries"})
    data, clean = tmp_path / "out", tmp_path / "clean"
    assert cli_main(["run", "--sources", str(first), "--data-dir", str(data), "--quiet"]) == 0
    capsys.readouterr()
    assert cli_main(["run", "--sources", str(second), "--data-dir", str(data)]) == 0
    io = capsys.readouterr()
    note = "note: stored but not in the sources file, so not served: ferries, roads (`docclean prune` deletes their tables)"
    assert note in io.err.splitlines()  # said when the run starts, and again by its summary
    assert cli_main(["run", "--sources", str(second), "--data-dir", str(clean), "--quiet"]) == 0
    capsys.readouterr()
    edited = _answers(second, data, capsys)
    assert edited == _answers(second, clean, capsys)
    assert {r["source"] for r in edited[0]} == {"harbour", "boats"} and len(edited[0]) == 4
    # the summary's health rows are the configured sources only, and it names the others
    assert cli_main(["summary", "--sources", str(second), "--data-dir", str(data)]) == 0
    io = capsys.readouterr()
    assert note in io.err and "roads" not in io.out and "ferries" not in io.out
    assert cli_main(["text", "--source", "roads", "--sources", str(second), "--data-dir", str(data)]) == 1
    assert "source 'roads' is not one of the configured sources" in capsys.readouterr().err
    # kept on disk until pruned: the old file still sees them
    assert {r["source"] for r in _answers(first, data, capsys)[0]} == {"harbour", "ferries", "roads"}
    capsys.readouterr()
    assert cli_main(["prune", "--dry-run", "--sources", str(second), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.splitlines() == ["would remove source 'ferries' (1 partition(s))",
                                                    "would remove source 'roads' (1 partition(s))"]
    assert set(Store(data).stored_keys()) == {"harbour", "boats", "ferries", "roads"}
    assert cli_main(["prune", "--sources", str(second), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("removed source 'ferries': 10 table(s)")
    assert set(Store(data).stored_keys()) == {"harbour", "boats"}
    assert cli_main(["prune", "--data-dir", str(clean)]) == 0  # unnamed: what the last run was given
    assert capsys.readouterr().out.strip() == "nothing to prune: every stored source is configured"
    assert cli_main(["prune", "--data-dir", str(tmp_path / "never-run")]) == 2  # nothing to go by: refused
    assert "prune keeps the sources of a sources file: name it" in capsys.readouterr().err
    # with no sources file named, readers serve the sources the last run on the data dir was given
    assert Store(data).recorded_sources() == ["boats", "harbour"]
    assert cli_main(["sql", QUERIES[0], "--json", "--data-dir", str(data)]) == 0
    assert [json.loads(line)["source"] for line in capsys.readouterr().out.splitlines()] == ["boats", "boats", "harbour", "harbour"]
    assert _answers(second, data, capsys) == _answers(second, clean, capsys)
    # gone for every sources file: the first one now finds only harbour (boats is not one of its sources)
    assert {r["source"] for r in _answers(first, data, capsys)[0]} == {"harbour"}


def test_prune_removed_setting_deletes_them_when_the_run_starts(tmp_path, capsys):
    _folders(tmp_path)
    first = _config(tmp_path / "first.yaml", {"harbour": "harbour", "roads": "roads"})
    second = _config(tmp_path / "second.yaml", {"harbour": "harbour"}, "settings:\n  store: {prune_removed: true}\n")
    data = tmp_path / "out"
    assert cli_main(["run", "--sources", str(first), "--data-dir", str(data), "--quiet"]) == 0
    assert cli_main(["run", "--sources", str(second), "--data-dir", str(data), "--quiet"]) == 0
    assert "removed source 'roads': 10 table(s)" in capsys.readouterr().out
    assert Store(data).stored_keys() == ["harbour"]
