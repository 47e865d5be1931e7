import pytest

from tests.contract.result_store_contract import ResultStoreContract
from zork_mcp.adapters.storage.fake_results import FakeResultStore


class TestMemoryResultStore(ResultStoreContract):
    @pytest.fixture
    def new_store(self):
        return FakeResultStore
