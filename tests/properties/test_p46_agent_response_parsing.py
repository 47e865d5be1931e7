import json

from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, good_answers, json_values
from zork_mcp.domain.loop.agent_response import AgentResponse, parse_agent_response


@given(good_answers, st.dictionaries(st.text(TEXT, max_size=6), json_values, max_size=2))
def test_p46_agent_response_parsing(answer, extra):
    """Property 46: AgentResponse Parsing

    *For any* final LLM response, the agent should parse it using the existing AgentResponse
    Pydantic model.

    Validates: Requirements 15.1
    """
    text = answer.text()
    if extra:
        body = {
            **extra,
            "thinking": answer.thinking,
            "action": answer.action,
            "new_objective": answer.new_objective,
        }
        text = json.dumps(body)
    parsed = parse_agent_response(text)
    assert parsed.error is None and isinstance(parsed.response, AgentResponse)
    assert parsed.response.action == " ".join(answer.action.split())
    assert parsed.response.thinking == answer.thinking
    assert parsed.response.new_objective == answer.new_objective
