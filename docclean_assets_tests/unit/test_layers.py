"""The house's rooms (README "Layout"), checked on the source with `ast`: each room imports only the
rooms below it, only `defs/` and `cli.py` import Dagster, and no module is reached by a string."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from docclean_assets_tests.support.imports import PACKAGE, ROOT, import_graph, module_names

# What each room may import besides itself, bottom to top. The store may use the library's settings
# checker (every room's settings are validated by it), nothing that extracts; ingestion reads the
# engine's settings (the sources file names the engine), not the engine.
ALLOWED = {
    "extract": set(),
    "store": {"extract.validation"},
    "engine": {"extract", "store"},
    "ingest": {"extract", "store", "engine.settings"},
    "pipeline": {"extract", "store", "engine", "ingest"},
    "defs": {"extract", "store", "engine", "ingest", "pipeline"},
    "cli": {"extract", "store", "engine", "ingest", "pipeline", "defs"},
}
# Modules of the package's root: the CLI on top, and the package itself.
ROOT_MODULES = {PACKAGE, f"{PACKAGE}.cli", f"{PACKAGE}.cli_tables"}
# Where Dagster may be imported: the Dagster layer, and the CLI that runs it.
DAGSTER_ROOMS = ("defs", "cli")
DOTTED = re.compile(r"^[A-Za-z_][\w.]*(:[A-Za-z_]\w*)?$")  # 'a.b.c' or 'a.b:function'
DAGSTER_MODULES = re.compile(r"^dagster(_[a-z0-9_]+)?$")  # dagster, dagster_k8s, dagster_postgres, ...


def room_of(module: str, package: str = PACKAGE) -> str | None:
    """The room a module lives in: its first folder below the package, 'cli' for the root's CLI."""
    parts = module.split(".")[1:]
    if not parts:
        return None
    if len(parts) == 1:
        return "cli" if parts[0] in ("cli", "cli_tables") else parts[0]
    return parts[0]


def _allows(room: str, target: str, package: str) -> bool:
    rel = target[len(package) + 1:]
    return room_of(target, package) == room or any(rel == a or rel.startswith(f"{a}.") for a in ALLOWED.get(room, ()))


def layer_violations(graph: dict[str, set[str]], package: str = PACKAGE) -> list[str]:
    """'module -> target' for every import a module's room may not make."""
    out = []
    for module, targets in sorted(graph.items()):
        room = room_of(module, package)
        if room is None:
            continue
        out += [f"{module} -> {t}" for t in sorted(targets) if t != package and not _allows(room, t, package)]
    return out


def _external_imports(path: Path) -> set[str]:
    """Top-level names of every module an import statement in the file names (module level or not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def dagster_importers(root: Path = ROOT, package: str = PACKAGE) -> list[str]:
    """Modules outside the Dagster rooms that import dagster or one of its libraries."""
    return sorted(m for m, path in module_names(root, package).items()
                  if room_of(m, package) not in DAGSTER_ROOMS
                  and any(DAGSTER_MODULES.match(n) for n in _external_imports(path)))


def string_imports(root: Path = ROOT, package: str = PACKAGE) -> list[str]:
    """'module: text' for every string constant that names one of the package's modules (or
    'module:function'): a dependency no import statement shows."""
    known = set(module_names(root, package))
    out = []
    for module, path in module_names(root, package).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value.partition(":")[0]
                if not DOTTED.match(node.value) or node.value == package:  # the bare package name is no module
                    continue
                if name in known or (name.startswith(f"{package}.") and name.rpartition(".")[0] in known):
                    out.append(f"{module}: {node.value!r}")
    return sorted(out)


def test_the_package_root_holds_only_the_cli():
    below_root = {m for m in module_names() if m.count(".") == 1} - ROOT_MODULES
    assert below_root == {f"{PACKAGE}.{room}" for room in ALLOWED if room != "cli"}, "a module outside the rooms"


def test_each_room_imports_only_the_rooms_below_it():
    assert layer_violations(import_graph()) == []


def test_only_the_dagster_layer_and_the_cli_import_dagster():
    assert dagster_importers() == []


def test_no_module_is_reached_by_a_string():
    assert string_imports() == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "p"
    for name, text in {"__init__.py": "", **files}.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
        if "/" in name:
            (pkg / name).parent.joinpath("__init__.py").touch()
    return pkg


@pytest.mark.parametrize("files, found", [
    ({"store/tables.py": "from p.extract import api\n", "extract/api.py": ""}, ["p.store.tables -> p.extract.api"]),
    ({"store/tables.py": "def f():\n    from p.engine.run import x\n", "engine/run.py": "x = 1\n"},
     ["p.store.tables -> p.engine.run"]),
    ({"store/settings.py": "from p.extract.validation import check\n", "extract/validation.py": "check = 1\n"}, []),
    ({"ingest/sources.py": "from p.engine.settings import E\nfrom p.engine import run\n",
      "engine/settings.py": "E = 1\n", "engine/run.py": ""}, ["p.ingest.sources -> p.engine.run"]),
    ({"extract/api.py": "import p.pipeline.parse\n", "pipeline/parse.py": ""}, ["p.extract.api -> p.pipeline.parse"]),
    ({"pipeline/parse.py": "from p.engine.run import x\n", "engine/run.py": "x = 1\n"}, []),
])
def test_the_layer_checker_finds_an_import_across_rooms(tmp_path, files, found):
    pkg = _package(tmp_path, files)
    assert layer_violations(import_graph(pkg, "p"), "p") == found


def test_the_dagster_and_string_checkers_find_what_they_look_for(tmp_path):
    pkg = _package(tmp_path, {
        "store/a.py": "def f():\n    import dagster_k8s\n",
        "pipeline/b.py": "from dagster import asset\n",
        "defs/c.py": "import dagster as dg\n",
        "cli.py": "import dagster\n",
        "engine/isolate.py": 'EXTRACTOR = "p.engine.blob:extract_blob"\nDOC = "p.engine.blob reads a blob"\n',
        "engine/blob.py": "PRELOAD = ['p.store.a', 'pypdfium2']\n",
    })
    assert dagster_importers(pkg, "p") == ["p.pipeline.b", "p.store.a"]
    assert string_imports(pkg, "p") == ["p.engine.blob: 'p.store.a'", "p.engine.isolate: 'p.engine.blob:extract_blob'"]
