"""The index: every design property has its test, and every test quotes its property."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

HERE = Path(__file__).parent
PROPERTY_COUNT = 48
SPEC_PROPERTY = re.compile(
    r"### Property (\d+): (.+?)\n\n(.+?)\n\n\*\*Validates: (.+?)\*\*", re.DOTALL
)
INDEX_ROW = re.compile(r"^\| P(\d+) \| .+? \| .+? \| `(test_p\d\d_\w+\.py)::(test_p\d\d_\w+)` \|$")


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def _property_tests() -> dict[int, tuple[str, str, str]]:
    """Property number -> (file name, test function, its docstring)."""
    found: dict[int, tuple[str, str, str]] = {}
    for path in sorted(HERE.glob("test_p[0-9][0-9]_*.py")):
        number = int(path.name[6:8])
        assert number not in found, f"two files for property {number}: {path.name}"
        tree = ast.parse(path.read_text())
        (function,) = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith(f"test_p{number:02d}_")
        ][:1] or [None]
        assert function is not None, f"{path.name} has no test_p{number:02d}_* function"
        found[number] = (path.name, function.name, ast.get_docstring(function) or "")
    return found


def test_every_property_has_exactly_one_test():
    tests = _property_tests()
    missing = sorted(set(range(1, PROPERTY_COUNT + 1)) - set(tests))
    assert not missing, f"properties without a test: {missing}"
    assert set(tests) == set(range(1, PROPERTY_COUNT + 1))


def test_the_readme_index_lists_each_test():
    rows = {}
    for line in (HERE / "README.md").read_text().splitlines():
        match = INDEX_ROW.match(line)
        if match:
            rows[int(match.group(1))] = (match.group(2), match.group(3))
    tests = _property_tests()
    assert rows == {number: (file, name) for number, (file, name, _) in tests.items()}


def test_each_docstring_quotes_its_property_from_the_design():
    specs = sorted((ROOT.parent / "shared" / "spec").glob("001_*"))
    if not specs:
        pytest.skip("../shared/spec is not beside the repository")
    quoted = {
        int(m.group(1)): (m.group(2).strip(), m.group(3), m.group(4))
        for m in SPEC_PROPERTY.finditer(specs[0].read_text())
    }
    assert len(quoted) == PROPERTY_COUNT
    for number, (file, name, docstring) in _property_tests().items():
        title, statement, validates = quoted[number]
        text = _words(docstring)
        assert text.startswith(f"Property {number}: {title}"), f"{file}::{name}"
        assert _words(statement) in text, f"{file}::{name} does not quote property {number}"
        assert f"Validates: {validates}" in text, f"{file}::{name} lacks its requirements"
