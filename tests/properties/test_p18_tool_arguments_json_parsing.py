import asyncio
import json
import time

from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import json_objects, json_values
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.llm.messages import ToolResultMessage, initial_messages
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.tool_loop import ToolLoop

layouts = st.fixed_dictionaries(
    {
        "indent": st.none() | st.integers(0, 4),
        "ascii": st.booleans(),
        "pad": st.sampled_from(["", " ", "\n", "\t "]),
    }
)


def run(argument_texts: list[str]) -> tuple[list[dict], list[dict]]:
    received = []

    def record(**arguments):
        received.append(arguments)
        return "ok"

    server = FakeToolServer("box", {"record": record}, schemas={"record": {"type": "object"}})
    llm = ScriptedLLM(
        [tool_calls_reply(*[("box.record", text) for text in argument_texts]), action_reply("look")]
    )

    async def turn():
        async with server.open_session() as session:
            loop = ToolLoop(llm, session, LoopLimits(5, 5), FakeTelemetry(), time.monotonic)
            return await loop.run(initial_messages("s", "u"))

    outcome = asyncio.run(turn())
    answers = {
        m.tool_call_id: json.loads(m.result.to_json())
        for m in outcome.messages
        if isinstance(m, ToolResultMessage)
    }
    return received, [answers[r.call_id] for r in outcome.tool_chain]


@given(st.lists(st.tuples(json_objects, layouts), min_size=1, max_size=4))
def test_p18_tool_arguments_json_parsing(calls):
    """Property 18: Tool Arguments JSON Parsing

    *For any* tool call with arguments, the agent should parse the JSON string arguments before
    execution.

    Validates: Requirements 5.3
    """
    texts = [
        layout["pad"]
        + json.dumps(args, indent=layout["indent"], ensure_ascii=layout["ascii"])
        + layout["pad"]
        for args, layout in calls
    ]
    received, _ = run(texts)
    assert received == [args for args, _ in calls]


@given(st.lists(json_values.filter(lambda v: not isinstance(v, dict)), min_size=1, max_size=3))
def test_p18_arguments_that_are_not_an_object_never_reach_the_tool(values):
    texts = [json.dumps(value) for value in values] + ['{"unclosed": ']
    received, answers = run(texts)
    assert received == []
    assert all("invalid JSON arguments" in answer["error"] for answer in answers)
