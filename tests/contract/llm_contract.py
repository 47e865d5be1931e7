"""The LLM contract: the same scripted replies give the same domain-level responses.

Subclass LLMContract and provide `make_llm(replies)`, which returns an LLM whose provider
(or stand-in) answers the given domain replies in order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest

from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse, ToolChoice, initial_messages
from zork_mcp.domain.loop.agent_response import final_answer_format
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions
from zork_mcp.ports.llm import LLM

MakeLLM = Callable[[Sequence[LLMResponse]], LLM]
TOOLS = tool_definitions([ToolSpec("box", "think"), ToolSpec("other", "do.it")])


def tool_request() -> LLMRequest:
    return LLMRequest(tuple(initial_messages("sys", "West of House")), TOOLS, ToolChoice.AUTO)


class LLMContract:
    @pytest.fixture
    def make_llm(self) -> MakeLLM:
        raise NotImplementedError

    async def test_content_comes_back_as_content(self, make_llm):
        llm = make_llm([action_reply("open mailbox", "a mailbox")])
        request = LLMRequest(
            tuple(initial_messages("sys", "state")), response_format=final_answer_format()
        )
        response = await llm.complete(request)
        assert response.tool_calls is None
        assert json.loads(response.content)["action"] == "open mailbox"

    async def test_tool_calls_come_back_with_canonical_names_and_no_content(self, make_llm):
        scripted = tool_calls_reply(("box.think", {"thought": "hm"}), ("other.do.it", {}))
        llm = make_llm([scripted])
        response = await llm.complete(tool_request())
        assert response.content is None
        names = [call.function.name for call in response.tool_calls]
        assert names == ["box.think", "other.do.it"]
        assert json.loads(response.tool_calls[0].function.arguments) == {"thought": "hm"}
        assert len({call.id for call in response.tool_calls}) == 2

    async def test_usage_is_reported(self, make_llm):
        llm = make_llm([action_reply("look")])
        response = await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        assert response.usage is not None and response.usage.total_tokens > 0

    async def test_the_model_name_is_known(self, make_llm):
        assert make_llm([]).model
