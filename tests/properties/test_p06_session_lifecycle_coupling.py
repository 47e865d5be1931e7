import asyncio
import time

from hypothesis import given
from hypothesis import strategies as st

from tests.support.scripts import ScriptedModel, box_server, scripts, settings_for
from zork_mcp.adapters.llm.fake import FunctionLLM
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.servers.connection import ConnectionTracker, ServerConnections


@given(st.lists(st.tuples(scripts, st.none() | st.integers(0, 3)), min_size=1, max_size=4))
def test_p06_session_lifecycle_coupling(turns):
    """Property 6: Session Lifecycle Coupling

    *For any* turn with MCP enabled, the MCP session should be connected at turn start and
    disconnected at turn end.

    Validates: Requirements 3.1, 3.5
    """
    server, tracker = box_server(), ConnectionTracker()
    for number, (script, fail_at) in enumerate(turns, start=1):
        model = ScriptedModel(script)
        open_during_calls = []

        def respond(request, model=model, fail_at=fail_at, seen=open_during_calls):
            seen.append(server.open_sessions)
            if fail_at is not None and len(seen) > fail_at:
                raise LLMError("the provider went away", provider="fake", status=503)
            return model.respond(request)

        opened = server.sessions_opened
        turn = decide_action(
            llm=FunctionLLM(respond),
            messages=initial_messages("s", "u"),
            settings=settings_for(script),
            telemetry=FakeTelemetry(),
            clock=time.monotonic,
            tool_server=server,
            connection=ServerConnections({server.name: tracker}),
            turn=number,
        )
        try:
            asyncio.run(turn)
        except LLMError:
            assert fail_at is not None, "only the scripted provider failure escapes"
        assert server.sessions_opened == opened + 1, "connected at turn start"
        assert open_during_calls and set(open_during_calls) == {1}
        assert server.open_sessions == 0, "disconnected at turn end, whatever happened"
