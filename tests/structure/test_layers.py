"""The import ladder: every import in the package points down the layers.

Each private folder of ``sk_rankmetrics`` is a layer with a rank; a module may
import modules of its own folder and of folders ranked lower, never higher, and
two folders of one rank never import each other. Imports inside functions
count as much as those at module level (they are the usual way a cycle hides).
A name with a leading underscore stays inside its folder: another folder that
needs it gets it under a public name. The table is the one docs/developers.md
shows; a test there keeps the two in step.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import sk_rankmetrics

PACKAGE = Path(sk_rankmetrics.__file__).parent

#: Rank of each layer folder: imports point to a lower rank (or the same folder).
LADDER = {
    "_utils": 0,
    "_ranking": 1,
    "_inputs": 2,
    "_metrics": 2,
    "_beyond": 3,
    "_evaluation": 4,
    "_sklearn": 5,
    "_files": 5,
    "_training": 5,
    "_catalogue": 5,
    "_stats": 6,
    "_plot": 7,
    "_dask": 8,
    "_cli": 9,
}

#: Top-level modules besides the folders (public surface, entry point, alias).
TOP_LEVEL = {"__init__.py", "__main__.py", "_scorer.py"}  # _scorer: the pickle alias


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _folder(path):
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else None


def _imports(path):
    """(line, imported module as a path of parts, names) for every import."""
    rel = path.relative_to(PACKAGE)
    package = ["sk_rankmetrics", *rel.parts[:-1]]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = base + (node.module.split(".") if node.module else [])
            else:
                module = (node.module or "").split(".")
            if module[0] != "sk_rankmetrics":
                continue
            names = [a.name for a in node.names]
            if len(module) == 1:  # from sk_rankmetrics import _x (a folder or module)
                for name in names:
                    yield node.lineno, [*module, name], []
            else:
                yield node.lineno, module, names
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "sk_rankmetrics":
                    yield node.lineno, a.name.split("."), []


def _violations():
    found = []
    for path in _modules():
        source = _folder(path)
        where = path.relative_to(PACKAGE.parent)
        for line, module, names in _imports(path):
            target = module[1] if len(module) > 1 else None
            if source is None:
                continue  # the package root and the alias module may import anything
            if target is None or target not in LADDER:
                found.append(f"{where}:{line} imports the package root or a top-level "
                             f"module ({'.'.join(module)}) from inside a layer")
                continue
            if target == source:
                continue
            if LADDER[target] >= LADDER[source]:
                found.append(f"{where}:{line} climbs: {source} (rank {LADDER[source]}) "
                             f"imports {'.'.join(module)} (rank {LADDER[target]})")
            private = [n for n in names if n.startswith("_") and not n.endswith("__")]
            if private:
                found.append(f"{where}:{line} takes private name(s) {private} from "
                             f"another folder ({'.'.join(module)})")
    return found


def test_every_module_lives_in_a_layer():
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert top <= TOP_LEVEL, f"top-level modules outside a layer: {sorted(top - TOP_LEVEL)}"
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert folders == set(LADDER), f"folders and ladder differ: {sorted(folders ^ set(LADDER))}"


def test_imports_point_down_the_ladder():
    found = _violations()
    assert not found, "\n".join(found)


def test_the_walk_sees_a_climb(tmp_path, monkeypatch):
    """The checker itself: a module of a low layer importing a higher one, and a
    private name taken across folders, are both reported."""
    fake = tmp_path / "sk_rankmetrics"
    (fake / "_utils").mkdir(parents=True)
    (fake / "_files").mkdir()
    (fake / "_utils" / "bad.py").write_text(
        "def f():\n    from .._files.lists import evaluate_ranked\n")
    (fake / "_files" / "worse.py").write_text("from .._utils.bad import _hidden\n")
    monkeypatch.setattr(sys_modules_package(), "PACKAGE", fake)
    found = _violations()
    assert any("_utils/bad.py:2 climbs" in f for f in found), found
    assert any("_files/worse.py:1 takes private name(s) ['_hidden']" in f for f in found), found


def sys_modules_package():
    import sys

    return sys.modules[__name__]


MAX_LINES = 800


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_800_lines(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(PACKAGE.parent)} has {n} lines (at most {MAX_LINES})"


#: Lines of code (docstring, blank and comment lines excluded) a function may have.
MAX_FUNCTION_LINES = 80
#: The functions still over the cap, each with its length: the list may only
#: shrink (a function split below the cap must leave it; a new one may not join).
LONG_FUNCTIONS: dict[str, int] = {}


def code_lines(path):
    """``{"file:function": lines of code}`` of every function of a module."""
    text = path.read_text()
    lines = text.splitlines()
    out = {}
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body, start = node.body, node.body[0].lineno
        if ast.get_docstring(node) is not None:
            start = body[1].lineno if len(body) > 1 else body[0].end_lineno + 1
        code = [x.strip() for x in lines[start - 1:node.end_lineno]]
        name = f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
        out[name] = max(out.get(name, 0), sum(1 for x in code if x and not x.startswith("#")))
    return out


def test_no_function_over_80_lines_of_code():
    sizes = {}
    for path in _modules():
        sizes.update(code_lines(path))
    over = {name: n for name, n in sizes.items() if n > MAX_FUNCTION_LINES}
    assert over == LONG_FUNCTIONS, (
        "functions over 80 lines of code changed; split the new ones, and take the "
        f"ones split below the cap off LONG_FUNCTIONS: {over}")


def test_the_function_cap_sees_a_long_function(tmp_path, monkeypatch):
    fake = tmp_path / "sk_rankmetrics"
    fake.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(81))
    (fake / "long.py").write_text(f'def f():\n    """Doc."""\n{body}\n')
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert code_lines(fake / "long.py") == {"long.py:f": 81}


def _module_name(path):
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = ["sk_rankmetrics", *rel.parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph():
    """Module -> the package modules it imports (module level and in functions)."""
    names = {_module_name(p) for p in _modules()}
    graph = {}
    for path in _modules():
        source = _module_name(path)
        targets = set()
        for _, module, imported in _imports(path):
            dotted = ".".join(module)
            for name in imported or [None]:
                # "from .pkg import module" names a module; otherwise the module itself
                full = f"{dotted}.{name}" if name and f"{dotted}.{name}" in names else dotted
                while full not in names and "." in full:
                    full = full.rsplit(".", 1)[0]
                if full != source and full != "sk_rankmetrics":
                    targets.add(full)
        graph[source] = targets
    return graph


def _cycles(graph):
    """One cycle per strongly connected component of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    """No two modules import each other, directly or through others, counting
    imports inside functions (a folder's ``__init__`` importing its own
    modules is the one way a package imports down into itself)."""
    graph = _graph()
    packages = [m for m in graph if (PACKAGE / Path(*m.split(".")[1:]) / "__init__.py").exists()]
    for package in packages:
        graph[package] = {t for t in graph[package] if not t.startswith(package + ".")}
    assert not _cycles(graph), _cycles(graph)


def test_the_cycle_check_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
