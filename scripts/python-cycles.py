"""Fails on an import cycle among a Python package's modules (scripts/lint.sh runs it on models/train).

  python3 scripts/python-cycles.py models/train/draftsmith_train

Every import counts, those inside functions too: an import moved into a function still makes the two
modules need each other, and only hides the cycle from the interpreter until that function runs.
Each cycle is printed as its modules and the import lines that close it.
"""

import ast
import os
import sys


def modules_of(root):
    """{dotted name below the package: file} for every .py file under root."""
    found = {}
    for folder, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, f), root)[: -len(".py")].replace(os.sep, ".")
                # A package's __init__ is the package itself ("" for the root).
                name = "" if rel == "__init__" else rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
                found[name] = os.path.join(folder, f)
    return found


def imports_of(name, path, package, known):
    """[(module imported, line)] of the package's own modules that the file imports, anywhere in it."""
    # The package a relative import starts from: the module's own, or the package an __init__ is.
    parts_of = name.split(".") if name else []
    here = parts_of if path.endswith("__init__.py") else parts_of[:-1]
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    out = []

    def add(target, line):
        # `from .a import b` may name a module b or a function of a: the module when there is one.
        while target not in known and target:
            target = target.rpartition(".")[0]
        if target in known:
            out.append((target, line))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(package + "."):
                    add(a.name[len(package) + 1 :], node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                parts = base + (node.module.split(".") if node.module else [])
            elif node.module == package or (node.module or "").startswith(package + "."):
                parts = node.module.split(".")[1:]
            else:
                continue
            for a in node.names:
                add(".".join(parts + [a.name]), node.lineno)
    return out


def cycles(graph):
    """The strongly connected components with more than one module, or a module importing itself (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
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
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    sys.setrecursionlimit(max(1000, 4 * len(graph)))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: python3 scripts/python-cycles.py PACKAGE_FOLDER", file=sys.stderr)
        return 2
    root = os.path.normpath(argv[1])
    package = os.path.basename(root)
    files = modules_of(root)
    lines = {m: imports_of(m, p, package, files) for m, p in files.items()}
    graph = {m: {t for t, _ in imps} for m, imps in lines.items()}
    found = cycles(graph)
    for component in found:
        members = set(component)
        print(f"import cycle in {package}: {' <-> '.join(m or '__init__' for m in component)}")
        for m in component:
            for target, line in sorted(set(lines[m]), key=lambda x: x[1]):
                if target in members:
                    print(f"  {os.path.relpath(files[m])}:{line} imports {target or package}")
    if found:
        print(f"{len(found)} import cycle(s): move what both modules need to the module it belongs in.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
