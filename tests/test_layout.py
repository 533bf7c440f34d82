"""The layout's promises, checked over the source tree: every module of the project imports
alone in a fresh interpreter; the modules import each other without a circle; no module
takes another module's private (``_name``) names."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "vision", "hardware", "calibration")

# Circles the reader's rewrite (the reader issue) removes; each is a strongly connected set of
# modules, exempt only while it is exactly this set. Delete an entry when its circle is gone
# (test_known_exemptions_are_still_needed says so).
KNOWN_CYCLES = (
    # calibration.calibrate takes the reader's frame check (vision.reader._check_frame) and the
    # reader names calibration's Calibration (for its type hints), through calibration/__init__.
    frozenset({"calibration", "calibration.calibrate", "vision.reader"}),
    # the scene renderer draws vision.synthetic's scenes, which call it back lazily.
    frozenset({"vision.synthetic", "vision.synthetic_render"}),
)
# (importing module, module.private name) taken across modules, in vision/ and calibration/ only.
KNOWN_PRIVATE = frozenset({
    ("calibration.calibrate", "vision.reader._check_frame"),  # the calibration <-> reader circle above
    ("vision.synthetic_render", "vision.synthetic._CUBE"),
    ("vision.train_tilt", "vision.tilt._model"),
})


# ----------------------------------------------------------------------------- the tools


def project_modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> its file, for every module of the packages (``__main__`` left out:
    importing it runs the program)."""
    out = {}
    for top in packages:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            if "__pycache__" in rel.parts or rel.name == "__main__":
                continue
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = path
    return out


def _nearest(name: str, known: set[str]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, known: set[str]) -> dict[str, ast.AST]:
    """The project modules a module imports (at the top, inside functions, under
    TYPE_CHECKING: all of them), each with the import node that names it. ``from p import m``
    names the module p.m when there is one, else p."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for t in targets:
            mod = _nearest(t, known)
            if mod is not None and mod != name:  # a module importing itself (for __main__) is no circle
                out.setdefault(mod, node)
    return out


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    mods = project_modules(root, packages)
    known = set(mods)
    return {name: set(imports_of(name, path, known)) for name, path in mods.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The import circles: every strongly connected set of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

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
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def private_uses(root: Path, packages: tuple[str, ...]) -> set[tuple[str, str]]:
    """(module, other_module._name) for every private name a module takes from another:
    ``from m import _x`` or ``m._x`` on a module it imported."""
    mods = project_modules(root, packages)
    known = set(mods)
    out = set()
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        bound: dict[str, str] = {}  # local name -> project module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and _nearest(node.module, known):
                for a in node.names:
                    sub = f"{node.module}.{a.name}"
                    if sub in known:
                        bound[a.asname or a.name] = sub
                    elif a.name.startswith("_") and not a.name.startswith("__") and node.module != name:
                        out.add((name, sub))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in known:
                        bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                chain, v = [node.attr], node.value
                while isinstance(v, ast.Attribute):
                    chain.append(v.attr)
                    v = v.value
                if isinstance(v, ast.Name) and v.id in bound:
                    dotted = ".".join([bound[v.id], *reversed(chain)])
                    owner = _nearest(dotted.rpartition(".")[0], known)
                    if owner is not None and owner != name:
                        out.add((name, dotted))
    return out


# ------------------------------------------------------------------- the project itself


IMPORT_EACH = textwrap.dedent("""
    import importlib, os, sys, traceback
    # Third-party libraries first, once (they take most of the time); every project module is
    # then imported in its own forked child, where no other project module is loaded yet.
    for dep in ("numpy", "cv2", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont"):
        try:
            importlib.import_module(dep)
        except ImportError:
            pass
    assert not [m for m in sys.modules if m.split(".")[0] in sys.argv[1].split(",")], "a project module is loaded already"
    for name in sys.argv[2:]:
        pid = os.fork()
        if pid == 0:
            try:
                importlib.import_module(name)
                code = 0
            except BaseException:
                print(f"--- import {name}", file=sys.stderr)
                traceback.print_exc()
                code = 1
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status):
            print(name)
""")


def test_every_module_imports_alone_in_a_fresh_interpreter():
    names = sorted(project_modules(ROOT, PACKAGES))
    assert {"controller.game.rules", "controller.cli.main", "vision.reader", "hardware.panel", "calibration.profile"} <= set(names)
    r = subprocess.run([sys.executable, "-c", IMPORT_EACH, ",".join(PACKAGES), *names], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [], f"these do not import alone: {r.stdout.split()}\n{r.stderr}"


def test_the_import_check_fails_on_a_module_that_does_not_import_alone(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text("import pkg.needs_good\n")
    (pkg / "needs_good.py").write_text("import sys\nX = 1\n")
    (pkg / "broken.py").write_text("from pkg.good import nothing_there\n")
    r = subprocess.run([sys.executable, "-c", IMPORT_EACH, "pkg", "pkg.good", "pkg.broken", "pkg.needs_good"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["pkg.broken"]
    assert "cannot import name 'nothing_there'" in r.stderr


def test_no_import_circles_beyond_the_known_ones():
    graph = import_graph(ROOT, PACKAGES)
    assert graph["controller.app"] >= {"controller.game.game", "hardware.camera"}  # the graph sees real imports
    found = cycles(graph)
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert new == [], f"import circles: {new}"
    assert not [c for c in found if c & {m for m in graph if m.split('.')[0] in ('controller', 'hardware')}]


def test_imports_point_one_way():
    """The game and the reader open no device; the device code knows no game."""
    graph = import_graph(ROOT, PACKAGES)

    def under(mod: str, *tops: str) -> bool:
        return any(mod == t or mod.startswith(t + ".") for t in tops)

    wrong = sorted((m, i) for m, imps in graph.items() for i in imps
                   if (under(m, "controller.game", "vision") and under(i, "hardware"))
                   or (under(m, "hardware") and under(i, "controller")))
    assert wrong == []


def test_known_exemptions_are_still_needed():
    found = cycles(import_graph(ROOT, PACKAGES))
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert gone == [], f"these circles are gone (or changed): delete them from KNOWN_CYCLES: {gone}"
    stale = sorted(KNOWN_PRIVATE - private_uses(ROOT, PACKAGES))
    assert stale == [], f"no longer taken: delete them from KNOWN_PRIVATE: {stale}"


def test_no_module_takes_another_modules_private_names():
    taken = private_uses(ROOT, PACKAGES) - KNOWN_PRIVATE
    assert sorted(taken) == []
    assert all(m.split(".")[0] in ("vision", "calibration") for m, _ in KNOWN_PRIVATE)


# ----------------------------------------------------------- the checks fail when they should


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path


def test_the_cycle_check_finds_a_circle_in_a_synthetic_package(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    from pkg import b  # a lazy import is still part of the circle\n    return b.g()\n",
        "pkg/b.py": "from pkg.a import f\n\ndef g():\n    return 1\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from . import d\n",
        "pkg/sub/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n",
        "pkg/sub/e.py": "import pkg.a\nfrom ..b import g\n",  # imports into a circle, not part of one
        "pkg/solo.py": "from pkg.solo import main  # itself, as __main__ does\n",
    })
    graph = import_graph(root, ("pkg",))
    assert graph["pkg.sub.e"] == {"pkg.a", "pkg.b"}
    assert sorted(map(sorted, cycles(graph))) == [["pkg.a", "pkg.b"], ["pkg.sub.c", "pkg.sub.d"]]


def test_the_cycle_check_passes_a_synthetic_package_without_a_circle(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "from pkg.a import f\n",
        "pkg/a.py": "from pkg import b\nf = b.g\n",
        "pkg/b.py": "import os\n\ndef g():\n    return os.sep\n",
    })
    graph = import_graph(root, ("pkg",))
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": set()}
    assert cycles(graph) == []


def test_the_private_name_check_finds_both_ways_of_taking_one(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "_hidden = 1\nshown = 2\n",
        "pkg/b.py": "from pkg.a import _hidden, shown\n",
        "pkg/c.py": "from pkg import a\nimport pkg.a as aa\nx = a._hidden + aa.shown\n",
        "pkg/d.py": "import pkg.a\n_own = 1\ny = pkg.a.shown + _own\n",
    })
    assert private_uses(root, ("pkg",)) == {("pkg.b", "pkg.a._hidden"), ("pkg.c", "pkg.a._hidden")}
