"""The Python package's layers (docs/architecture.md, "The Python package"): every module imports
the package's modules it needs at its top, the imports form no circle, and the ndarray methods
written in Python are attached in one place (_methods.py). A function-level import of a sibling
module is how a circle hides, so none is allowed."""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "python" / "numfuse"
MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def module_name(path):
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(parts) or "__init__"


def relative_imports(path):
    """(module-level imports, function-level imports) of package modules, by name."""
    tree = ast.parse(path.read_text(), str(path))
    top, nested = [], []
    base = module_name(path).split(".")[:-1] if path.name != "__init__.py" else \
        module_name(path).split(".") if module_name(path) != "__init__" else []

    def target(node, alias=None):
        pkg = base[:len(base) - (node.level - 1)] if node.level > 1 else base
        if node.module:
            return ".".join(pkg + node.module.split("."))
        return ".".join(pkg + [alias]) if alias else ".".join(pkg)

    def visit(node, depth):
        for child in ast.iter_child_nodes(node):
            inner = depth + isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and child.level > 0:
                names = [target(child)] if child.module else [target(child, a.name) for a in child.names]
                (nested if depth else top).extend((n, child.lineno) for n in names)
            visit(child, inner)
    visit(tree, 0)
    return top, nested


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_no_function_level_import_of_a_sibling(path):
    _, nested = relative_imports(path)
    assert not nested, f"{path.name}: imports inside functions (lines {[l for _, l in nested]}): " \
                       "import at the top, from a lower layer"


# The protocols (__array_ufunc__, __array_function__) look NumPy's names up in the finished
# namespace at call time: the one module allowed to reach the package's top.
TOP_LOOKUP_ALLOWED = {"_interop.py"}


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_no_import_of_the_package_itself(path):
    if path.name in TOP_LOOKUP_ALLOWED:
        return
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numfuse" for a in node.names):
            found.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "numfuse":
            found.append(node.lineno)
    assert not found, f"{path.name}: imports numfuse itself (lines {found}), a circle in disguise: " \
                      "import the module that defines the name"


def test_the_imports_form_no_circle():
    known = {module_name(p) for p in MODULES}
    graph = {module_name(p): {n for n, _ in relative_imports(p)[0] if n in known and n != module_name(p)}
             for p in MODULES}
    # A module imported by a package's __init__ is below it, not a circle: __init__ files are
    # the entry points and are left out of the edges into them.
    for deps in graph.values():
        deps.discard("__init__")
        deps.discard("cuda")
    state = {}

    def walk(m, stack):
        if state.get(m) == "done":
            return
        assert state.get(m) != "open", "import circle: " + " -> ".join(stack + [m])
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            walk(d, stack + [m])
        state[m] = "done"
    for m in sorted(graph):
        walk(m, [])


def test_methods_are_attached_in_one_place():
    offenders = []
    for path in MODULES:
        if path.name == "_methods.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and \
                    node.args and getattr(node.args[0], "id", None) == "ndarray":
                offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, f"ndarray methods attached outside _methods.py: {offenders}"


def test_every_table_method_is_on_ndarray():
    import numfuse
    from numfuse import _methods
    for name, fn in _methods.TABLE.items():
        # A C++ method is installed as an instancemethod, which the class hands back unwrapped.
        expected = getattr(fn, "__func__", fn) if type(fn).__name__ == "instancemethod" else fn
        assert getattr(numfuse.ndarray, name) is expected or isinstance(fn, property), name
