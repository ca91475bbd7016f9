"""No module-level import cycles among python/mxnet modules, except the waived ones.

A cycle of imports that run while modules load makes the result depend on which module is
imported first, and leaves half-initialised modules visible. The graph is built statically:
every import statement executed at import time (module top level, including the bodies of
top-level if/try/with blocks and class bodies, but not function bodies), with relative
imports resolved and `from pkg import name` counted as importing pkg.name when that is a
module. A module importing one of its own parent packages is not an edge: Python runs the
parents before the module, so every submodule would otherwise be in one cycle with mxnet.
"""
import ast
import os

PACKAGE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "mxnet")

# Cycles allowed to stay: frozenset of the modules of one strongly connected component ->
# why it is not broken. A cycle that grows or shrinks no longer matches its entry, and an entry
# that matches no cycle fails too, so the list only ever shrinks. Empty: gluon's block and
# parameter modules import each other only inside functions, which is not a cycle here.
WAIVED_CYCLES = {}


def _module_name(path, package_root):
    rel = os.path.relpath(path, os.path.dirname(package_root))
    parts = rel[:-len(".py")].split(os.sep)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def discover_modules(package_root):
    """Dotted module name -> path, for every .py file under package_root."""
    modules = {}
    for dirpath, dirnames, filenames in os.walk(os.path.abspath(package_root)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for filename in sorted(filenames):
            if filename.endswith(".py"):
                path = os.path.join(dirpath, filename)
                modules[_module_name(path, os.path.abspath(package_root))] = path
    return modules


def _import_time_statements(body):
    """Statements run when the enclosing module is imported (not function bodies)."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _import_time_statements(getattr(node, field, []) or [])
        for handler in getattr(node, "handlers", []) or []:
            yield from _import_time_statements(handler.body)
        for case in getattr(node, "cases", []) or []:  # match statements
            yield from _import_time_statements(case.body)


def _resolve_from(module, is_package, node):
    if node.level == 0:
        return node.module
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _with_parents(name, modules):
    """Importing a.b.c runs a/__init__ and a/b/__init__ first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in modules]


def import_graph(modules):
    graph = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        is_package = os.path.basename(path) == "__init__.py"
        targets = set()
        for node in _import_time_statements(tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    targets.update(_with_parents(alias.name, modules))
            elif isinstance(node, ast.ImportFrom):
                source = _resolve_from(module, is_package, node)
                if not source:
                    continue
                targets.update(_with_parents(source, modules))
                for alias in node.names:
                    if source + "." + alias.name in modules:
                        targets.add(source + "." + alias.name)
        # Parents run before their submodules (see the module docstring).
        graph[module] = {t for t in targets if t != module and not module.startswith(t + ".")}
    return graph


def strongly_connected_components(graph):
    """Tarjan's algorithm, iterative; returns the components with more than one module."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(frozenset(component))
    return components


def cycles_in(package_root):
    return strongly_connected_components(import_graph(discover_modules(package_root)))


def test_no_unwaived_import_cycles():
    unwaived = [sorted(c) for c in cycles_in(PACKAGE_ROOT) if c not in WAIVED_CYCLES]
    assert not unwaived, "module-level import cycles among python/mxnet modules (break them, e.g. "\
        "by having the upper module hand the lower one what it needs):\n" + "\n".join(
            "  " + " <-> ".join(c) for c in unwaived)


def test_every_waiver_still_matches_a_cycle():
    cycles = set(cycles_in(PACKAGE_ROOT))
    stale = [sorted(w) for w in WAIVED_CYCLES if w not in cycles]
    assert not stale, "waived cycles that no longer exist (remove or update them): %s" % stale


def _write_package(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_detector_sees_import_time_cycles_and_ignores_deferred_ones(tmp_path):
    pkg = tmp_path / "pkg"
    _write_package(pkg, {
        "__init__.py": "from . import a\n",
        # a -> b inside a top-level try, b -> a inside a top-level if: a cycle at import time.
        "a.py": "try:\n    from . import b\nexcept ImportError:\n    b = None\n",
        "b.py": "import sys\nif sys:\n    from .a import b as _\n",
        # c <-> d only through an import inside a function: not a cycle at import time.
        "c.py": "from .sub import d\n",
        "sub/__init__.py": "",
        "sub/d.py": "def f():\n    from .. import c\n    return c\n",
        # e <-> f through a class body, which runs at import time.
        "e.py": "class K:\n    from . import f\n",
        "f.py": "import pkg.e\n",
    })
    assert sorted(sorted(c) for c in cycles_in(str(pkg))) == [["pkg.a", "pkg.b"], ["pkg.e", "pkg.f"]]
