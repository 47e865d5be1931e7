"""The test suite's own layout: a helper two test modules share lives in tests/support (or,
for a contract, in its `*_contract.py` base), never in a test module another one imports:
importing a test module runs its module-level set-up again and ties two suites' helpers."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parents[1]


def test_no_module_of_the_suite_imports_a_test_module():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_"):
                    found.append(f"{path.relative_to(TESTS)}:{node.lineno} imports {name}")
    assert found == [], "move what they share into tests/support"
