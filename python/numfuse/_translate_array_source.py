"""Finding a Python function's AST for the array translator: its source through inspect (the
lambda among several on one line told apart by its code's positions), and questions about
statements."""
import ast
import functools
import inspect
import textwrap

from ._translate_array_values import Untranslatable


def parse(func):
    """(FunctionDef or Lambda node, filename) of a function, line numbers matching its file."""
    return _parse_code(func.__code__)


@functools.lru_cache(maxsize=256)
def _parse_code(code):
    try:
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        raise Untranslatable(f"{code.co_filename}:{code.co_firstlineno}: no source for "
                             f"{code.co_name} ({e})") from None
    text = "".join(lines)
    try:
        dedented = textwrap.dedent(text)
        tree = ast.parse(dedented)
    except SyntaxError:  # a lambda inside an expression that spans lines
        raise Untranslatable(f"{code.co_filename}:{first}: cannot parse the source of "
                             f"{code.co_name}") from None
    shift = len(lines[0]) - len(dedented.splitlines(True)[0])  # columns dedent removed
    ast.increment_lineno(tree, first - 1)
    wanted = code.co_varnames[:code.co_argcount]
    found = [node for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.Lambda)) and
             tuple(a.arg for a in node.args.args) == wanted and
             (isinstance(node, ast.Lambda) or node.name == code.co_name)]
    if len(found) > 1 and isinstance(found[0], ast.Lambda):
        # Several lambdas with these parameters on the lines: the one whose span holds the
        # function's instructions (a wrong pick would compute another function).
        spots = {(ln, col - shift) for ln, _, col, end in code.co_positions()
                 if ln is not None and col is not None and end is not None and end > col}
        found = [n for n in found if all(_within(n, ln, col) for ln, col in spots)]
    if len(found) == 1 or (found and isinstance(found[0], ast.FunctionDef)):
        return found[0], code.co_filename
    raise Untranslatable(f"{code.co_filename}:{first}: cannot find the source of "
                         f"{code.co_name} (none or several candidates)")


def _within(node, line, col):
    """Whether (line, col) of the original file lies in the node's span (parsed dedented)."""
    return (node.lineno, node.col_offset) <= (line, col) <= (node.end_lineno, node.end_col_offset)


def contains(node, kinds):
    """Whether a statement contains one of the node kinds outside nested functions and loops."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        if kinds is ast.Return or not isinstance(n, (ast.For, ast.While)):
            stack.extend(ast.iter_child_nodes(n))
    return False
