"""The package's import graph, built from the source with `ast`: every import statement counts,
module level or inside a function, under TYPE_CHECKING or not. No cycle anywhere, and the library's
dispatcher has only its entry points above it. (Which room may import which: test_layers.py.)"""
from __future__ import annotations

import ast

import pytest

from docclean_assets_tests.support.imports import PACKAGE, ROOT, find_cycles, import_graph


def test_the_package_has_no_import_cycle():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


# Library modules that run documents through the dispatcher: the clean chain (the engine's extractors,
# outside the library, call the dispatcher as any user does).
ENTRY_POINTS = {f"{PACKAGE}.extract.clean"}


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for t in graph.get(todo.pop(), ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_no_library_module_imports_the_dispatcher_that_calls_it():
    graph = import_graph()
    callers = sorted(m for m, targets in graph.items() if f"{PACKAGE}.extract.api" in targets)
    below = [m for m in callers if m.startswith(f"{PACKAGE}.extract.") and m not in ENTRY_POINTS]
    assert below == [], ("only the clean chain (which runs documents through the "
                         "dispatcher) may import api")
    # and they stay above it: nothing the dispatcher reaches reaches them
    assert not ENTRY_POINTS & _reached(graph, f"{PACKAGE}.extract.api")


@pytest.mark.parametrize("source, cycle", [
    ({"a.py": "import p.b\n", "b.py": "def f():\n    from p import a\n"}, ["p.a", "p.b"]),
    ({"a.py": "from . import b\n", "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X\n"},
     ["p.a", "p.b"]),
    ({"__init__.py": "from p.a import x\n", "a.py": "from p import b\n", "b.py": "import p\n"}, ["p", "p.a", "p.b"]),
    ({"a.py": "import p.b\n", "b.py": "import os\n"}, None),
])
def test_the_checker_finds_cycles_through_any_import_statement(tmp_path, source, cycle):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in source.items():
        (pkg / name).write_text(text)
    cycles = find_cycles(import_graph(pkg, "p"))
    assert cycles == ([cycle] if cycle else [])


# The PDF backend's shared types: defined once, in pdf/model.py, which no stage owns.
PDF_TYPES = {"Box", "Word", "Line", "PBlock"}


def test_the_pdf_types_are_defined_once_in_pdf_model():
    defined: dict[str, list[str]] = {}
    for path in sorted((ROOT / "extract" / "pdf").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = ([node.name] if isinstance(node, ast.ClassDef) else
                     [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign) else [])
            for name in set(names) & PDF_TYPES:
                defined.setdefault(name, []).append(path.name)
    assert defined == {name: ["model.py"] for name in PDF_TYPES}
