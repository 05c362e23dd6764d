"""The test suite's own layout: what two tests share lives in support/ (or fixtures/, hostile/'s
case builders), never in a test module another imports; no private helper crosses modules; the
service helpers sit in support/ and the PDF tests in pdf/."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from docclean_assets_tests.support.imports import import_graph, module_names

TESTS = "docclean_assets_tests"
TESTS_ROOT = Path(__file__).resolve().parents[1]
# Modules the suite's root may hold besides test modules.
ROOT_MODULES = {TESTS, f"{TESTS}.conftest"}
SERVICES = ("s3server", "pgserver", "daskcluster", "browser", "httpserve", "faultproxy", "dagster_dev")


def _is_test_module(name: str) -> bool:
    return name.rpartition(".")[2].startswith("test_")


def imports_of_test_modules(graph: dict[str, set[str]]) -> list[str]:
    """'importer -> test module' for every import of a test module by another module of the suite."""
    return sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets if _is_test_module(t) and t != m)


def private_imports(root: Path, package: str) -> list[str]:
    """'module: name from source' for every private name (_x) imported from another module of the suite."""
    out = []
    for module, path in module_names(root, package).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith(package):
                out += [f"{module}: {a.name} from {node.module}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    return sorted(out)


def test_no_test_module_is_imported_by_another():
    assert imports_of_test_modules(import_graph(TESTS_ROOT, TESTS)) == []


def test_no_private_helper_crosses_modules():
    assert private_imports(TESTS_ROOT, TESTS) == []


def test_services_live_in_support_and_pdf_tests_in_their_folder():
    modules = set(module_names(TESTS_ROOT, TESTS))
    loose = sorted(m for m in modules if m.count(".") == 1 and not _is_test_module(m) and m not in ROOT_MODULES
                   and not (TESTS_ROOT / m.split(".")[1]).is_dir())
    assert loose == [], "helpers at the suite's root: move them to support/"
    assert {f"{TESTS}.support.{s}" for s in SERVICES} <= modules
    assert [m for m in modules if m.startswith(f"{TESTS}.test_pdf")] == []
    assert f"{TESTS}.pdf.test_pdf" in modules


@pytest.mark.parametrize("files, imported, private", [
    ({"test_a.py": "from p.test_b import helper\n", "test_b.py": "helper = 1\n"}, ["p.test_a -> p.test_b"], []),
    ({"test_a.py": "def t():\n    from p import test_b\n", "test_b.py": ""}, ["p.test_a -> p.test_b"], []),
    ({"test_a.py": "from p.support import _hidden\n", "support.py": "_hidden = 1\n"}, [],
     ["p.test_a: _hidden from p.support"]),
    ({"test_a.py": "from p.support import shown as _alias\n", "support.py": "shown = 1\n"}, [], []),
])
def test_the_checkers_find_test_module_and_private_imports(tmp_path, files, imported, private):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(text)
    assert imports_of_test_modules(import_graph(pkg, "p")) == imported
    assert private_imports(pkg, "p") == private
