import asyncio
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from tests.support.agents import agent_for
from tests.support.scripts import ScriptedModel, box_server, scripts, settings_for


@given(st.lists(scripts, min_size=1, max_size=4))
def test_p39_single_asyncio_run_boundary(turn_scripts):
    """Property 39: Single Asyncio.run Boundary

    *For any* agent action generation with MCP enabled, asyncio.run should be called exactly
    once.

    Validates: Requirements 10.1
    """
    server = box_server()
    real_run = asyncio.run
    for script in turn_scripts:
        agent = agent_for(
            ScriptedModel(script).llm, settings=settings_for(script), tool_server=server
        )
        with mock.patch.object(asyncio, "run", side_effect=real_run) as run:
            answer = agent.get_action_with_reasoning("West of House")
        assert run.call_count == 1
        assert set(answer) == {"action", "reasoning", "new_objective"} and answer["action"]
    assert server.open_sessions == 0
