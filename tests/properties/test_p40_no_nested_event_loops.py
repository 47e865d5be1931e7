import asyncio
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.agents import agent_for
from tests.support.scripts import ScriptedModel, box_server, scripts, settings_for
from zork_mcp.domain.errors import NestedEventLoopError


def running_loop():
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@given(st.lists(scripts, min_size=1, max_size=3))
def test_p40_no_nested_event_loops(turn_scripts):
    """Property 40: No Nested Event Loops

    *For any* async operation completion, control should return to synchronous code without
    creating nested event loops.

    Validates: Requirements 10.5
    """
    real_run, entered = asyncio.run, []

    def guarded_run(coro):
        entered.append(running_loop())
        return real_run(coro)

    server = box_server()
    for script in turn_scripts:
        agent = agent_for(
            ScriptedModel(script).llm, settings=settings_for(script), tool_server=server
        )
        with mock.patch.object(asyncio, "run", side_effect=guarded_run):
            agent.get_action_with_reasoning("West of House")
        assert running_loop() is None, "control is back in plain synchronous code"
    assert entered == [None] * len(turn_scripts), "no loop was started inside another"


@given(scripts)
def test_p40_the_sync_api_refuses_to_nest(script):
    agent = agent_for(ScriptedModel(script).llm, settings=settings_for(script))

    async def inside_a_loop():
        with pytest.raises(NestedEventLoopError):
            agent.get_action_with_reasoning("West of House")
        return (await agent.decide("West of House")).answer.response.action

    assert asyncio.run(inside_a_loop())
    assert agent.turn == 0
