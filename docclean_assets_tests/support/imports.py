"""The package's import graph, built from the source with `ast`: every import statement counts,
module level or inside a function, under TYPE_CHECKING or not."""
from __future__ import annotations

import ast
from pathlib import Path


PACKAGE = "docclean_assets"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE


def module_names(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its __init__)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((package, *parts))] = path
    return out


def resolve(module: str, level: int, current: str, is_package: bool) -> str:
    """The absolute name of a (possibly relative) `from ... import` target."""
    if not level:
        return module
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module `name` imports, by any import statement in its source."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node.module or "", node.level, name, is_package)
            # `from a.b import c` imports the module a.b.c when it is one, else the name c of a.b
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a non-module attribute: its module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    modules = module_names(root, package)
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles
