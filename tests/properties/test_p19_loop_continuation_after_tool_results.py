from hypothesis import given

from tests.support.scripts import play, scripts
from zork_mcp.domain.llm.messages import ToolResultMessage


@given(scripts)
def test_p19_loop_continuation_after_tool_results(script):
    """Property 19: Loop Continuation After Tool Results

    *For any* tool result added to history, the agent should call the LLM again with the updated
    context.

    Validates: Requirements 5.5
    """
    played = play(script)
    for index, response in enumerate(played.model.responses):
        if not response.tool_calls:
            continue
        assert index + 1 < len(played.requests), "tool results are always followed by a call"
        following = played.requests[index + 1].messages
        before = played.requests[index].messages
        assert following[: len(before)] == before, "the history only grows"
        answered = [
            m.tool_call_id for m in following[len(before) + 1 :] if isinstance(m, ToolResultMessage)
        ]
        assert answered == [call.id for call in response.tool_calls]
