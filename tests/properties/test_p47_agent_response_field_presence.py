from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, answers
from zork_mcp.domain.loop.agent_response import parse_agent_response


@given(answers.map(lambda a: a.text()) | st.text(TEXT, max_size=80) | st.none())
def test_p47_agent_response_field_presence(text):
    """Property 47: AgentResponse Field Presence

    *For any* successfully parsed AgentResponse, it should contain thinking, action, and
    optional new_objective fields.

    Validates: Requirements 15.2
    """
    response = parse_agent_response(text).response
    assert set(response.model_dump()) == {"thinking", "action", "new_objective"}
    assert isinstance(response.thinking, str)
    assert isinstance(response.action, str) and response.action.strip()
    assert response.new_objective is None or isinstance(response.new_objective, str)
