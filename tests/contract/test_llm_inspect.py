"""InspectModelLLM passes the LLM contract over Inspect's mock model, its outputs the
domain's replies with tool names as the adapter puts them on the wire."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolCall as InspectToolCall

from tests.contract.llm_contract import LLMContract
from zork_mcp.adapters.llm.inspect_model import INSPECT_WIRE_NAMES, InspectModelLLM
from zork_mcp.domain.tools.wire_names import WireNameMap


def inspect_output(reply) -> ModelOutput:
    """A domain reply as Inspect's model would give it."""
    usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    if not reply.tool_calls:
        output = ModelOutput.from_content("mockllm/model", reply.content or "")
    else:
        names = WireNameMap([call.function.name for call in reply.tool_calls], INSPECT_WIRE_NAMES)
        output = ModelOutput.from_content("mockllm/model", "", stop_reason="tool_calls")
        output.choices[0].message.tool_calls = [
            InspectToolCall(
                id=call.id,
                function=names.to_wire(call.function.name),
                arguments=json.loads(call.function.arguments),
            )
            for call in reply.tool_calls
        ]
    output.usage = usage
    return output


class TestInspectModelLLM(LLMContract):
    @pytest.fixture
    def make_llm(self):
        def make(replies):
            outputs = [inspect_output(reply) for reply in replies]
            model = get_model("mockllm/model", custom_outputs=outputs)
            return InspectModelLLM(model, asyncio.get_running_loop())

        return make
