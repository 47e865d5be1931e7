import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.provider_exchange import exchange
from tests.support.scripts import play, scripts
from tests.support.strategies import TEXT
from zork_mcp.adapters.llm.fake import text_reply
from zork_mcp.domain.llm.messages import (
    LLMRequest,
    SystemMessage,
    UserMessage,
    initial_messages,
    user_message,
)


@given(scripts)
def test_p15_cache_control_metadata(script):
    """Property 15: Cache Control Metadata

    *For any* message with system or user role, the message should include cache_control
    metadata.

    Validates: Requirements 4.7

    The metadata is the request's cache policy, which the adapters render on the wire: it
    marks every system and user message as a breakpoint, and no other message.
    """
    for request in play(script).requests:
        for message in request.messages:
            assert request.cache.marks(message) is isinstance(message, SystemMessage | UserMessage)


@given(st.text(TEXT), st.text(TEXT), st.none() | st.text(TEXT))
def test_p15_every_turn_starts_with_cacheable_messages(system, state, memories):
    messages = initial_messages(system, state, memories)
    assert [type(m) for m in messages] == [SystemMessage, UserMessage]
    request = LLMRequest(tuple(messages))
    assert all(request.cache.marks(m) for m in messages)
    assert messages[0].text == system and messages[1].text.startswith(state)


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
@settings(max_examples=25)
@given(st.lists(st.text(TEXT, min_size=1).filter(str.strip), max_size=8))
def test_p15_every_marked_message_fits_the_providers_breakpoint_limit(protocol, prompts):
    """Property 15 on the wire: the domain marks every system and user message, and the
    adapter sends at most the 4 breakpoints Anthropic (also through OpenRouter) accepts: on
    the system prompt and the latest messages."""
    messages = [*initial_messages("system", "state"), *map(user_message, prompts)]
    _, peer = exchange(protocol, LLMRequest(tuple(messages)), [text_reply("ok")])
    body = json.dumps(peer.requests[0])
    assert body.count("cache_control") == min(4, len(messages))
