"""Each Ghost test knows which processes were alive before it, to tell its own leaks apart."""

import pytest

from tests.support.processes import remember_descendants


@pytest.fixture(autouse=True)
def _processes_before_the_test() -> None:
    remember_descendants()
