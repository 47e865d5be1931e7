import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, json_values
from zork_mcp.domain.errors import ConfigurationError, MCPConfigError
from zork_mcp.domain.servers.server_config import parse_mcp_config

VALID = json.dumps(
    {"mcpServers": {"think": {"command": "npx", "args": ["-y", "server"], "env": {"A": "b"}}}},
    indent=2,
)


def is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


broken = st.one_of(
    st.integers(1, len(VALID) - 1).map(lambda n: VALID[:n]),
    st.integers(0, len(VALID)).map(lambda n: VALID[:n] + "," + VALID[n:]),
    st.text(TEXT, max_size=40),
    st.just(VALID.replace('"args"', "args")),
)


@given(broken)
def test_p05_invalid_json_configuration_rejection(text):
    """Property 5: Invalid JSON Configuration Rejection

    *For any* mcp_config.json file containing invalid JSON, the system should raise a
    configuration error.

    Validates: Requirements 2.3
    """
    assume(not is_json(text))
    with pytest.raises(MCPConfigError) as caught:
        parse_mcp_config(text, source="mcp_config.json")
    assert isinstance(caught.value, ConfigurationError)
    message = str(caught.value)
    assert "mcp_config.json is not valid JSON" in message
    assert "line" in message and "column" in message


@given(json_values)
def test_p05_json_of_the_wrong_shape_is_rejected_too(value):
    assume(not (isinstance(value, dict) and isinstance(value.get("mcpServers"), dict)))
    with pytest.raises(MCPConfigError, match=r"mcp_config\.json"):
        parse_mcp_config(json.dumps(value), source="mcp_config.json")
