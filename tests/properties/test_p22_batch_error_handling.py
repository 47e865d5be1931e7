from hypothesis import given

from tests.support.scripts import Kind, play, scripts, tool_results

BATCH_ENDERS = {Kind.TIMEOUT, Kind.CRASH}


@given(scripts)
def test_p22_batch_error_handling(script):
    """Property 22: Batch Error Handling

    *For any* LLM response with multiple tool_calls, the agent should treat them as a batch for
    error handling purposes.

    Validates: Requirements 6.3
    """
    played = play(script)
    results = tool_results(played)
    for assistant, answers in played.batches():
        ids = [call.id for call in assistant.calls]
        assert [m.tool_call_id for m in answers] == ids, "every call answered once, in order"
        kinds = [played.model.sent[i].kind for i in ids]
        end = next((n for n, kind in enumerate(kinds) if kind in BATCH_ENDERS), len(kinds))
        skipped = [str(results[i].get("error", "")).startswith("skipped") for i in ids]
        assert skipped == [n > end for n in range(len(ids))]
