"""tools/array_api_suite_fixes.py: the suite's upstream fix applied once, only to the code it fixes,
and the fixed test accepting BufferError only for a no-copy export to another device."""
import importlib.util
import pathlib
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("fixes", ROOT / "tools" / "array_api_suite_fixes.py")
fixes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixes)

HEADER = "def test_dunder_dlpack(x, copy_kw, max_version_kw, dl_device_kw, data):\n    repro_snippet = ''\n\n"


def suite_with(tmp_path, body):
    (tmp_path / "array_api_tests").mkdir()
    (tmp_path / "array_api_tests" / "test_dlpack.py").write_text(HEADER + body)
    return tmp_path


def fixed_test(suite):
    ph = types.SimpleNamespace(add_note=lambda exc, note: None)
    scope = {"ph": ph}
    exec((suite / "array_api_tests" / "test_dlpack.py").read_text(), scope)
    return scope["test_dunder_dlpack"]


class GpuArray:
    def __init__(self, exc):
        self.exc = exc

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, **kw):
        raise self.exc


def test_fix_applies_once_and_accepts_only_the_refused_cross_device_copy(tmp_path):
    suite = suite_with(tmp_path, fixes.OLD_DLPACK + "        raise\n")
    assert "applied" in fixes.fix_dunder_dlpack(suite)
    assert "already" in fixes.fix_dunder_dlpack(suite)
    text = (suite / "array_api_tests" / "test_dlpack.py").read_text()
    assert text.count(fixes.MARKER) == 1
    test = fixed_test(suite)
    cpu = {"dl_device": (1, 0)}
    test(GpuArray(BufferError("no copy")), {"copy": False}, {}, cpu, None)  # accepted
    for copy_kw, dev, exc in [({"copy": None}, cpu, BufferError), ({}, cpu, BufferError),
                              ({"copy": True}, cpu, BufferError), ({"copy": False}, {}, BufferError),
                              ({"copy": False}, {"dl_device": (2, 0)}, BufferError),
                              ({"copy": False}, cpu, ValueError)]:
        with pytest.raises(exc):
            test(GpuArray(exc("refused")), copy_kw, {}, dev, None)


def test_fix_refuses_code_it_does_not_know(tmp_path):
    suite = suite_with(tmp_path, "    x.__dlpack__()\n")
    with pytest.raises(SystemExit):
        fixes.fix_dunder_dlpack(suite)
