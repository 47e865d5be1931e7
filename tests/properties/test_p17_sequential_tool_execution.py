import asyncio
import itertools
import time

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.tool_loop import ToolLoop


class Probe:
    """A tool that yields to the event loop and notes how many calls were running at once."""

    def __init__(self) -> None:
        self.running = self.most = 0
        self.order: list[int] = []

    async def __call__(self, n: int, yields: int) -> int:
        self.running += 1
        self.most = max(self.most, self.running)
        for _ in range(yields):
            await asyncio.sleep(0)
        self.order.append(n)
        self.running -= 1
        return n


batches = st.lists(st.lists(st.integers(0, 3), min_size=2, max_size=6), min_size=1, max_size=3)


@given(batches)
def test_p17_sequential_tool_execution(yields_per_batch):
    """Property 17: Sequential Tool Execution

    *For any* LLM response with multiple tool_calls, the agent should execute them sequentially
    (not in parallel).

    Validates: Requirements 5.2
    """
    probe = Probe()
    server = FakeToolServer("box", {"probe": probe}, schemas={"probe": {"type": "object"}})
    numbered, replies = 0, []
    for yields in yields_per_batch:
        calls = [("box.probe", {"n": numbered + i, "yields": y}) for i, y in enumerate(yields)]
        numbered += len(calls)
        replies.append(tool_calls_reply(*calls))
    llm = ScriptedLLM([*replies, action_reply("look")])

    async def turn():
        async with server.open_session() as session:
            loop = ToolLoop(llm, session, LoopLimits(10, 5), FakeTelemetry(), time.monotonic)
            return await loop.run(initial_messages("s", "u"))

    asyncio.run(turn())
    assert probe.most == 1
    assert probe.order == list(range(numbered))
    spans = [(c.started, c.finished) for c in server.calls]
    assert all(done <= start for (_, done), (start, _) in itertools.pairwise(spans))
