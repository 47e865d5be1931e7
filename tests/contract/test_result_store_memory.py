import pytest

from tests.contract.result_store_contract import ResultStoreContract
from zork_mcp.adapters.memory_results import MemoryResultStore


class TestMemoryResultStore(ResultStoreContract):
    @pytest.fixture
    def new_store(self):
        return MemoryResultStore
