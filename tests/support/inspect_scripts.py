"""Inspect's mock model scripted to play a list of commands, and the project an Inspect
task is run in. Every output carries its usage: without it the mock model counts tokens with
a tokenizer it would download."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.support.walkthrough import project, thought

USAGE_TOKENS = (10, 5)  # input and output tokens of every scripted call


def usage(tokens: tuple[int, int] = USAGE_TOKENS):
    from inspect_ai.model import ModelUsage

    prompt, completion = tokens
    return ModelUsage(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def command_script(
    commands: Sequence[str], *, think_every: int = 1, tokens: tuple[int, int] = USAGE_TOKENS
) -> Callable[..., object]:
    """The mock model's `custom_outputs`: turn n calls the first offered tool (every
    `think_every` turns, when tools are offered), then, given its result, plays commands[n];
    every call bills `tokens` (input, output)."""
    from inspect_ai.model import ChatMessageTool, ModelOutput

    turns = iter(enumerate(commands))

    def respond(input, tools, tool_choice, config):
        answered = bool(input) and isinstance(input[-1], ChatMessageTool)
        if not answered:
            number, command = next(turns)
            respond.pending = command
            if tools and number % think_every == 0:
                output = ModelOutput.for_tool_call(
                    "mockllm/model", tools[0].name, thought(1), content=""
                )
                output.usage = usage(tokens)
                return output
        body = {"thinking": "the walkthrough", "action": respond.pending, "new_objective": None}
        output = ModelOutput.from_content("mockllm/model", json.dumps(body))
        output.usage = usage(tokens)
        return output

    return respond


def inspect_project(tmp_path: Path, **zorkgpt: int) -> tuple[Path, Path]:
    """A pyproject and an mcp_config.json with our reasoning server: (pyproject, config);
    `zorkgpt`: keys of its [tool.zorkgpt] table (e.g. budget_tokens)."""
    pyproject = project(tmp_path, "inspect", background_spare=False)
    top = "".join(f"{key} = {value}\n" for key, value in zorkgpt.items())
    if top:
        pyproject.write_text(f"[tool.zorkgpt]\n{top}\n{pyproject.read_text()}")
    return pyproject, tmp_path / "mcp_config.json"


def stalling_script(commands: Sequence[str]) -> Callable[..., object]:
    """Plays `commands` (no tools), then the model answers no more: each call waits a minute."""
    play = command_script(commands)
    left = iter(commands)

    async def respond(input, tools, tool_choice, config):
        import anyio

        if next(left, None) is None:
            await anyio.sleep(60)
        return play(input, tools, tool_choice, config)

    return respond
