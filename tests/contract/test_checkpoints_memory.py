import pytest

from tests.contract.checkpoints_contract import CheckpointsContract
from zork_mcp.adapters.memory_checkpoints import MemoryCheckpoints


class TestMemoryCheckpoints(CheckpointsContract):
    @pytest.fixture
    def checkpoints(self):
        return MemoryCheckpoints()
