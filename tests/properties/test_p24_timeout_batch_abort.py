from hypothesis import given
from hypothesis import strategies as st

from tests.support.scripts import Batch, Call, Content, Kind, Script, play, tool_results
from tests.support.strategies import good_answers, json_objects
from zork_mcp.domain.loop.batch_policy import SKIPPED_AFTER_TIMEOUT

any_call = st.builds(
    Call, st.sampled_from([Kind.OK, Kind.TOOL_ERROR, Kind.UNKNOWN, Kind.TIMEOUT]), json_objects
)


@given(st.lists(any_call, max_size=3), st.lists(any_call, max_size=3), good_answers)
def test_p24_timeout_batch_abort(before, after, answer):
    """Property 24: Timeout Batch Abort

    *For any* tool call that exceeds the timeout within a batch, the agent should abort the tool
    call and skip all remaining tool calls in that batch.

    Validates: Requirements 6.5
    """
    before = [c for c in before if c.kind is not Kind.TIMEOUT]
    calls = (*before, Call(Kind.TIMEOUT, {}), *after)
    played = play(Script((Batch(calls), Content(answer)), answer, max_iterations=3))
    results = tool_results(played)
    ids = list(played.model.sent)
    cut = len(before)
    assert results[ids[cut]]["error"].startswith("Tool call box.hang timed out")
    assert all(results[i]["error"] == SKIPPED_AFTER_TIMEOUT for i in ids[cut + 1 :])
    assert not set(played.executed_markers) & set(ids[cut + 1 :]), "skipped calls never run"
    assert played.requests[1].tools, "the loop goes on with tools after the skipped batch"
