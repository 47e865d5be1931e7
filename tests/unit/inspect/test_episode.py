"""An Inspect sample's run under the same guards as every other (issue 68): Inspect's model is
the source of the container's LLM, which prices each answer and holds the calls to the run's
budget, and the model is named as the registry's provider knows it, so a price list can."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.model import ModelOutput, ModelUsage, get_model

from zork_mcp.builders.inspect_llm import resolved_model
from zork_mcp.builders.llm import spend_guard
from zork_mcp.domain.llm.budget import BudgetSpent
from zork_mcp.domain.llm.messages import LLMRequest, initial_messages
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.inspect.episode import EpisodeParameters, episode_container

REQUEST = LLMRequest(tuple(initial_messages("You play Zork.", "West of House")))


def sample_options(model, tmp_path: Path):
    return EpisodeParameters(mcp_config="off").run_options(
        model, game=None, seed=12, log_dir=tmp_path, episode_id="e"
    )


async def test_inspects_model_is_priced_and_stopped_by_the_pyprojects_budget(tmp_path):
    answered = []

    def respond(input, tools, tool_choice, config):
        answered.append(input)
        body = {"thinking": "", "action": "north", "new_objective": None}
        output = ModelOutput.from_content("gpt-4.1-mini", json.dumps(body))  # OpenAI's name
        output.usage = ModelUsage(input_tokens=1_000, output_tokens=100, total_tokens=1_100)
        return output

    model = get_model("mockllm/model", custom_outputs=respond)
    project = ProjectSettings(budget_tokens=1_200)
    container = episode_container(
        sample_options(model, tmp_path), project, model, None, asyncio.get_running_loop()
    )  # no record: nothing here reports progress
    async with container.llm_session()() as llm:
        first = await llm.complete(REQUEST)
        with pytest.raises(BudgetSpent):
            await llm.complete(REQUEST)
    assert len(answered) == 1, "the call the budget cannot cover never reaches Inspect"
    assert first.usage is not None and first.usage.cost_usd is not None, "priced as OpenAI's"


def test_a_known_api_names_its_model_as_the_registry_does_so_a_dollar_budget_prices_it(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused")
    openai = get_model("openai/gpt-4o")
    assert (resolved_model(openai).provider, resolved_model(openai).name) == ("openai", "gpt-4o")
    options = sample_options(openai, tmp_path)
    assert spend_guard(options, ProjectSettings(budget_usd=1.0)) is not None
    mock = get_model("mockllm/model")
    resolved = resolved_model(mock)
    assert (resolved.provider, resolved.name) == ("openai", "mockllm/model"), "no list knows it"
