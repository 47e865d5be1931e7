import itertools

import pytest

from tests.contract.result_store_contract import ResultStoreContract
from zork_mcp.adapters.sqlite_results import SqliteResultStore


class TestSqliteResultStore(ResultStoreContract):
    @pytest.fixture
    def new_store(self, tmp_path):
        files = (tmp_path / f"results-{n}.sqlite" for n in itertools.count())
        return lambda: SqliteResultStore(next(files))
