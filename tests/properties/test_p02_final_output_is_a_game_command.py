from hypothesis import given

from tests.support.scripts import Content, Script, play, scripts
from zork_mcp.domain.loop.agent_response import FALLBACK_ACTION


def _answers_by_text(script: Script) -> dict:
    found = {step.answer.text(): step.answer for step in script.steps if isinstance(step, Content)}
    return {**found, script.final.text(): script.final}


@given(scripts)
def test_p02_final_output_is_always_a_game_command(script):
    """Property 2: Final Output is Always a Game Command

    *For any* tool-calling session, regardless of the number of tool calls or iterations, the
    final output must be a valid Zork game command string.

    Validates: Requirements 1.4
    """
    outcome = play(script).outcome
    action = outcome.answer.response.action
    assert isinstance(action, str) and action.strip() == action and action
    assert "\n" not in action and not action.startswith(">")
    assert action == " ".join(action.split())
    answer = _answers_by_text(script).get(outcome.final_content)
    if answer is not None and answer.parseable:
        assert action == " ".join(answer.action.split())
        assert outcome.answer.error is None
    else:
        assert action == FALLBACK_ACTION and outcome.answer.error
        assert outcome.answer.response.thinking == f"Parse error: {outcome.answer.error}"
