"""A kernel's Python source: its lines (decorators included), file and first line, and its AST."""
import ast
import inspect
import linecache
import textwrap

from ._types import TranslationError


def source_lines(pyfunc):
    """(lines of pyfunc's definition, decorators included, its file, its first line).

    inspect.getsourcelines tokenizes the file (~10 ms cold): the definition is instead the lines
    from co_firstlineno while they are blank or indented deeper than its first line."""
    code = pyfunc.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, pyfunc.__globals__)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        lines, first = inspect.getsourcelines(pyfunc)  # raises OSError when there is no source
        return lines, inspect.getsourcefile(pyfunc) or filename, first
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    end = first - 1
    while end < len(lines) and not lines[end].lstrip().startswith(("def ", "async def ")):
        end += 1  # decorators
    end += 1
    while end < len(lines):
        text = lines[end]
        stripped = text.strip()
        if stripped and not stripped.startswith(("#", ")")) and len(text) - len(text.lstrip()) <= indent:
            break
        end += 1
    return lines[first - 1:end], filename, first


def parse_function(pyfunc):
    """(FunctionDef, filename, first line) of a Python function."""
    try:
        lines, filename, first = source_lines(pyfunc)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError) as e:
        raise TranslationError(f"cannot read the source of {pyfunc!r} to translate it: {e}") from None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise TranslationError(f"{filename}:{first}: only `def` functions can be translated "
                               "(not lambdas or async functions)")
    return fn, filename, first


def assigned_names(fn):
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names
