import pytest

from tests.contract.telemetry_contract import TelemetryContract
from zork_mcp.adapters.memory_telemetry import InMemoryTelemetry


class TestInMemoryTelemetry(TelemetryContract):
    @pytest.fixture
    def telemetry(self):
        return InMemoryTelemetry()

    def test_the_span_tree_is_recorded(self, telemetry):
        self.test_spans_nest_update_and_close(telemetry)
        outer, llm, tool = telemetry.spans
        assert llm.parent is outer and tool.parent is outer and outer.parent is None
        assert llm.usage.total_tokens == 7 and outer.metadata == {"turn": 1, "iterations_used": 1}
