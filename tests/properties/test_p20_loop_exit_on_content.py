from hypothesis import given

from tests.support.scripts import play, scripts
from zork_mcp.domain.llm.messages import AssistantText
from zork_mcp.domain.loop.loop_records import ExitReason


@given(scripts)
def test_p20_loop_exit_on_content(script):
    """Property 20: Loop Exit on Content

    *For any* LLM response with content (and no tool_calls), the agent should exit the
    tool-calling loop.

    Validates: Requirements 5.6
    """
    played = play(script)
    responses = played.model.responses
    with_content = [
        i
        for i, r in enumerate(responses)
        if played.requests[i].tools and r.content and r.content.strip()
    ]
    if not with_content:
        assert played.outcome.exit_reason is not ExitReason.CONTENT
        return
    first = with_content[0]
    assert first == len(responses) - 1, "no LLM call after content"
    assert played.outcome.exit_reason is ExitReason.CONTENT
    assert played.outcome.final_content == responses[first].content
    assert played.outcome.messages[-1] == AssistantText(responses[first].content)
