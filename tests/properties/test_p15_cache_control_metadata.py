from hypothesis import given
from hypothesis import strategies as st

from tests.properties.scripts import play, scripts
from tests.properties.strategies import TEXT
from zork_mcp.domain.messages import initial_messages


@given(scripts)
def test_p15_cache_control_metadata(script):
    """Property 15: Cache Control Metadata

    *For any* message with system or user role, the message should include cache_control
    metadata.

    Validates: Requirements 4.7
    """
    for request in play(script).requests:
        for message in request.messages:
            if message["role"] in ("system", "user"):
                assert message["cache_control"] == {"type": "ephemeral"}
            else:
                assert "cache_control" not in message


@given(st.text(TEXT), st.text(TEXT), st.none() | st.text(TEXT))
def test_p15_every_turn_starts_with_cacheable_messages(system, state, memories):
    messages = initial_messages(system, state, memories)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert all(m["cache_control"] == {"type": "ephemeral"} for m in messages)
    assert messages[0]["content"] == system and messages[1]["content"].startswith(state)
