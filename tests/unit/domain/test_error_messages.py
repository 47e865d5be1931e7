"""Every error and warning the domain raises says what was wrong, where, and how to fix it."""

from __future__ import annotations

import asyncio
import time

import pytest
from pydantic import BaseModel, ValidationError

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import (
    MCPConfigError,
    MCPError,
    MCPServerStartupError,
    MCPToolTimeoutError,
)
from zork_mcp.domain.facts.events import EventType, Level
from zork_mcp.domain.game.status_line import strip_status_line
from zork_mcp.domain.loop.agent_turn import connect_tools
from zork_mcp.domain.servers.connection import ConnectionState, ConnectionTracker, ServerConnections
from zork_mcp.domain.servers.server_config import parse_mcp_config
from zork_mcp.domain.servers.server_env import server_environment
from zork_mcp.domain.settings import (
    ConfigurationError,
    parse_mcp_settings,
    parse_settings,
)
from zork_mcp.domain.tools.wire_names import OPENAI_RULE, readable_wire_name
from zork_mcp.domain.validation import describe_validation_error


class BrokenServer:
    """A tool server whose every connect fails with a plain MCPError."""

    def __init__(self) -> None:
        self.attempts = 0

    server_names = ("box",)

    def open_session(self, servers=None):
        self.attempts += 1
        raise MCPError("pipe closed")


def connect(tracker: ConnectionTracker, telemetry: FakeTelemetry, turn: int):
    async def run():
        from contextlib import AsyncExitStack

        async with AsyncExitStack() as stack:
            connections = ServerConnections({"box": tracker})
            return await connect_tools(BrokenServer(), connections, stack, telemetry, turn)

    return asyncio.run(run())


def test_a_first_turn_failure_becomes_a_startup_error_that_says_so():
    with pytest.raises(MCPServerStartupError) as caught:
        connect(ConnectionTracker(), FakeTelemetry(), 1)
    assert str(caught.value) == "MCP server failed to start on the first turn: pipe closed"


def test_retry_and_disable_warnings_carry_the_turn_and_the_error():
    telemetry = FakeTelemetry()
    assert connect(ConnectionTracker(ConnectionState.HEALTHY), telemetry, 7) is None
    retry, disabled = telemetry.events
    assert (retry.type, disabled.type) == (
        EventType.MCP_CONNECT_RETRY,
        EventType.MCP_DISABLED_FALLBACK,
    )
    for event in (retry, disabled):
        assert event.level is Level.WARNING
        assert event.fields == {"turn": 7, "error": "pipe closed", "server": "box"}
    assert retry.message == "MCP connect failed, retrying server 'box': pipe closed"
    assert disabled.message == "MCP retry failed, disabling MCP server 'box': pipe closed"


def test_a_forced_final_answer_is_announced_as_a_warning():
    from zork_mcp.adapters.llm.fake import tool_calls_reply
    from zork_mcp.adapters.mcp.fake import FakeToolServer
    from zork_mcp.domain.llm.messages import initial_messages
    from zork_mcp.domain.loop.loop_policy import LoopLimits
    from zork_mcp.domain.loop.tool_loop import ToolLoop

    server = FakeToolServer("box", {"echo": lambda: "x"})
    llm = ScriptedLLM([tool_calls_reply(("box.echo", {})), action_reply("look")])
    telemetry = FakeTelemetry()

    async def turn():
        async with server.open_session() as session:
            loop = ToolLoop(llm, session, LoopLimits(1, 1), telemetry, time.monotonic)
            return await loop.run(initial_messages("s", "u"))

    asyncio.run(turn())
    (event,) = telemetry.of_type(EventType.MCP_NO_CONTENT)
    assert event.level is Level.WARNING and event.fields["reason"] == "max_iterations"
    assert event.message == (
        "Agent exited tool loop without content after 1 iterations (max_iterations); "
        "asking for the final answer without tools"
    )


def test_a_timeout_error_names_the_tool_and_the_limit():
    error = MCPToolTimeoutError("box.slow", 2.5)
    assert (error.tool_name, error.timeout_seconds) == ("box.slow", 2.5)
    assert str(error) == "Tool call 'box.slow' timed out after 2.5s"


def test_an_unset_reference_names_the_server_the_variable_and_the_fix():
    with pytest.raises(MCPConfigError) as caught:
        server_environment({}, {"TOKEN": "${GH_TOKEN}"}, server="github")
    assert str(caught.value) == (
        "mcpServers.github.env.TOKEN is '${GH_TOKEN}', but GH_TOKEN is not set in the "
        "environment. Set GH_TOKEN, or write the value itself in the config."
    )


def test_settings_errors_name_the_file_the_table_and_the_valid_keys():
    with pytest.raises(ConfigurationError) as caught:
        parse_mcp_settings("[tool]\nzorkgpt = 3\n", source="my.toml")
    assert str(caught.value) == (
        "my.toml: [tool.zorkgpt] must be a table, not 3; the settings go in [tool.zorkgpt] and "
        "the MCP settings in [tool.zorkgpt.mcp]."
    )
    with pytest.raises(ConfigurationError, match=r"^my\.toml: \[tool\.zorkgpt\.mcp\] must be"):
        parse_mcp_settings("[tool.zorkgpt]\nmcp = [1]\n", source="my.toml")
    with pytest.raises(ConfigurationError) as caught:
        parse_mcp_settings("[project]\n\n[tool.zorkgpt.mcp]\nenable = true\n", source="my.toml")
    message = str(caught.value)
    assert message.startswith("my.toml has settings that cannot be used:\n")
    assert "  my.toml:4: [tool.zorkgpt.mcp] enable: Extra inputs are not permitted" in message
    assert "[tool.zorkgpt.mcp] takes: enabled, config_file, max_tool_iterations," in message


def test_every_table_is_read_at_once_and_each_error_says_its_file_line_and_key():
    text = (
        "[tool.zorkgpt]\nbudjet_usd = 3\nhistory_turns = 0\n\n"
        "[tool.zorkgpt.mcp]\nmax_tool_iterations = 0\n\n"
        "[tool.zorkgpt.mcp.tool_filters.memory]\ninclude = 3\n"
    )
    with pytest.raises(ConfigurationError) as caught:
        parse_settings(text, source="p.toml")
    message = str(caught.value)
    assert "  p.toml:2: [tool.zorkgpt] budjet_usd: not a key; did you mean budget_usd?" in message
    assert "  p.toml:3: [tool.zorkgpt] history_turns: " in message
    assert "  p.toml:6: [tool.zorkgpt.mcp] max_tool_iterations: " in message
    assert "  p.toml:9: [tool.zorkgpt.mcp.tool_filters.memory] include: " in message
    assert "history_turns is at least 1." in message
    assert (
        parse_settings("[tool.zorkgpt]\nepisodes = 3\n", source="p").budget_usd is None
    )  # ZorkGPT's
    with pytest.raises(ConfigurationError, match=r"at line 2, column"):
        parse_settings("[tool.zorkgpt]\ngame = \n", source="p.toml")


def game(text: str) -> str | None:
    return parse_settings(text, source="p.toml").game


def test_the_game_setting_is_read_from_the_zorkgpt_table():
    assert game('[tool.zorkgpt]\ngame = "games/zork1.z3"\n') == "games/zork1.z3"
    unset = ["", "[tool.zorkgpt]\n", '[tool.other]\ngame = "x"\n']
    assert [game(text) for text in unset] == [None] * len(unset)
    for wrong in ('[tool.zorkgpt]\ngame = ""\n', "[tool.zorkgpt]\ngame = 3\n"):
        with pytest.raises(ConfigurationError, match=r"p\.toml:2: \[tool\.zorkgpt\] game: "):
            game(wrong)


def test_the_first_death_rule_is_read_from_the_zorkgpt_table_and_checked():
    read = [
        parse_settings(text, source="p.toml").end_at_first_death
        for text in ("", "[tool.zorkgpt]\n", "[tool.zorkgpt]\nend_at_first_death = true\n")
    ]
    assert read == [False, False, True]
    with pytest.raises(ConfigurationError) as caught:
        parse_settings('[tool.zorkgpt]\nend_at_first_death = "yes"\n', source="p.toml")
    assert "  p.toml:2: [tool.zorkgpt] end_at_first_death: " in str(caught.value)
    assert "end_at_first_death is true or false." in str(caught.value)


def test_a_config_of_the_wrong_shape_shows_the_expected_shape():
    with pytest.raises(MCPConfigError) as caught:
        parse_mcp_config('{"servers": {}}', source="mcp.json")
    assert str(caught.value).endswith(
        'Expected: {"mcpServers": {"<name>": {"command": "...", "args": [...], "env": {...}}}}'
        ' or, for a remote server, {"<name>": {"type": "http", "url": "http://...", '
        '"headers": {"Authorization": "Bearer ${TOKEN}"}}}'
    )


def test_validation_errors_are_one_indented_line_per_field():
    class Shape(BaseModel):
        a: int
        b: str

    with pytest.raises(ValidationError) as caught:
        Shape.model_validate({"a": "x"})
    lines = describe_validation_error(caught.value).split("\n")
    assert lines[0].startswith("  - a: ") and lines[1] == "  - b: Field required"
    with pytest.raises(ValidationError) as top:
        Shape.model_validate(3)
    assert describe_validation_error(top.value).startswith("  - (top level): ")


def test_only_the_server_separator_becomes_a_double_underscore():
    assert readable_wire_name("srv.tool.v2", OPENAI_RULE) == "srv__tool_v2"


def test_the_status_line_and_surrounding_blank_lines_go():
    text = ">  West of House     Score: 0     Moves: 1  \n\n  Welcome!  \n\n"
    assert strip_status_line(text) == "Welcome!"
