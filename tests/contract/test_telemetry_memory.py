import pytest

from tests.contract.telemetry_contract import DECIDED, OPENED, TelemetryContract
from zork_mcp.adapters.telemetry.fake import FakeTelemetry


class TestInMemoryTelemetry(TelemetryContract):
    @pytest.fixture
    def telemetry(self):
        return FakeTelemetry()

    def test_the_span_tree_is_recorded(self, telemetry):
        self.test_spans_nest_update_and_close(telemetry)
        outer, llm, tool = telemetry.spans
        assert llm.parent is outer and tool.parent is outer and outer.parent is None
        assert llm.usage.total_tokens == 7 and outer.facts == [OPENED, DECIDED]
        assert outer.metadata == {
            "mcp_enabled": True,
            "max_iterations": 5,
            "turn": 1,
            "iterations_used": 1,
            "tools_called": 1,
            "final_action": "look",
            "tools_offered": True,
        }
        assert (str(outer.kind), str(llm.kind), str(tool.kind)) == ("span", "generation", "span")
