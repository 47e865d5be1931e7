import json

from hypothesis import given
from hypothesis import strategies as st

from tests.support.scripts import Batch, Call, Content, Kind, Script, play
from tests.support.strategies import good_answers, json_objects
from zork_mcp.domain.llm.messages import ToolResultMessage

recoverable = st.sampled_from([Kind.TOOL_ERROR, Kind.BAD_JSON, Kind.NOT_OBJECT, Kind.UNKNOWN])
batch_calls = st.lists(
    st.builds(Call, recoverable | st.just(Kind.OK), json_objects), min_size=2, max_size=6
).filter(lambda calls: any(c.kind is not Kind.OK for c in calls[:-1]))


@given(batch_calls, good_answers)
def test_p23_non_timeout_error_recovery(calls, answer):
    """Property 23: Non-Timeout Error Recovery

    *For any* tool call that fails with a non-timeout error within a batch, the agent should
    continue processing remaining tool calls in that batch.

    Validates: Requirements 6.4
    """
    script = Script((Batch(tuple(calls)), Content(answer)), answer, max_iterations=3)
    played = play(script)
    ok_ids = [cid for cid, call in played.model.sent.items() if call.kind is Kind.OK]
    assert played.executed_markers == [
        cid
        for cid in played.model.sent
        if played.model.sent[cid].kind in (Kind.OK, Kind.TOOL_ERROR)
    ]
    answers = {
        m.tool_call_id: json.loads(m.result.to_json())
        for m in played.outcome.messages
        if isinstance(m, ToolResultMessage)
    }
    assert all("error" not in answers[cid] for cid in ok_ids)
    assert len(played.requests) == 2 and played.requests[1].tools, "the LLM is asked again"
