import pytest

from tests.contract.checkpoints_contract import CheckpointsContract
from zork_mcp.adapters.storage.fake_checkpoints import FakeCheckpoints


class TestMemoryCheckpoints(CheckpointsContract):
    @pytest.fixture
    def checkpoints(self):
        return FakeCheckpoints()
