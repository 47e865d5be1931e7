"""The composition root (app/container.py over zork_mcp.builders, the CLI) wired for real, fast.

Each test builds the real Container from a pyproject and mcp_config.json written for it, and
overrides providers (never patches modules) only where a test needs a fake.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from contextlib import asynccontextmanager
from dataclasses import replace

import pytest
from dependency_injector import providers

from tests.support.projects import write_project
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.game.jericho import find_game_file, packaged_story
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.cli import main, options_from, parser
from zork_mcp.app.container import Container
from zork_mcp.builders.settings import project_settings
from zork_mcp.domain.errors import ConfigurationError, MCPConfigError, MCPError
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.llm.messages import ToolResultMessage

SERVER = {"command": "python", "args": ["-m", "zork_mcp.servers.reasoning"]}


@pytest.fixture
def project(tmp_path):
    """Write a pyproject (and optionally an mcp_config.json); return CLI arguments for it."""

    def write(*, enabled: bool, mcp_config: str | None = None) -> list[str]:
        pyproject = write_project(tmp_path, enabled=enabled, background_spare=False)
        if mcp_config is not None:
            (tmp_path / "mcp_config.json").write_text(mcp_config)
        return ["--config", str(pyproject), "--log-dir", str(tmp_path / "logs"), "--plain"]

    return write


def container_for(arguments: list[str], **changes) -> Container:
    """The Container as the CLI makes it for these arguments."""
    options = replace(options_from(parser().parse_args(arguments)), **changes)
    return Container(options=options, project=project_settings(options.config))


def servers(*names: str) -> str:
    return json.dumps({"mcpServers": {name: SERVER for name in names}})


def test_r2_2_mcp_on_without_its_config_file_is_a_configuration_error(project, tmp_path):
    container = container_for(project(enabled=True))
    with pytest.raises(MCPConfigError, match="config file was not found") as raised:
        container.tool_server()
    assert str(tmp_path / "mcp_config.json") in str(raised.value)
    assert "enabled = false" in str(raised.value), "the message says how to fix it"


@pytest.mark.parametrize("mcp_config", [None, "{not json", '{"servers": []}'])
def test_r2_5_mcp_off_never_reads_the_config(project, mcp_config):
    container = container_for(project(enabled=False, mcp_config=mcp_config))
    assert container.tool_server() is None
    container.shutdown_resources()


def test_r2_5_no_mcp_on_the_command_line_wins_over_the_pyproject(project):
    container = container_for(project(enabled=True, mcp_config="{not json"), mcp=False)
    assert container.tool_server() is None


def test_the_agent_uses_every_configured_server(project):
    container = container_for(project(enabled=True, mcp_config=servers("first", "second")))
    try:
        assert container.tool_server().server_names == ("first", "second")
    finally:
        container.shutdown_resources()


@pytest.mark.parametrize("picked", [("second",), ("third", "first")])
def test_mcp_servers_picks_a_subset_in_config_order(project, picked):
    config = servers("first", "second", "third")
    container = container_for(project(enabled=True, mcp_config=config), mcp_servers=picked)
    try:
        names = container.tool_server().server_names
        assert names == tuple(n for n in ("first", "second", "third") if n in picked)
    finally:
        container.shutdown_resources()


def test_a_picked_server_the_config_lacks_is_a_configuration_error_naming_both(project):
    container = container_for(
        project(enabled=True, mcp_config=servers("first")), mcp_servers=("frist",)
    )
    with pytest.raises(MCPConfigError, match=r"picks the servers \['frist'\].*has \['first'\]"):
        container.tool_server()


def test_the_journal_reads_the_notes_of_the_server_that_keeps_them_wherever_it_is_listed(
    project,
):
    journal = ["--journal", "${ZORK_MCP_JOURNAL}"]
    memory = {"command": "python", "args": ["-m", "zork_mcp.servers.memory", *journal]}
    map_only = {**memory, "excludeTools": ["add_note"]}
    config = json.dumps({"mcpServers": {"map": map_only, "memory": memory}})
    container = container_for(project(enabled=True, mcp_config=config))
    notes = container.journal().notes_path
    episode = container.options().episode_dir.absolute()
    assert notes == episode / "servers" / "memory" / "notes.jsonl"


NPX = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-sequential-thinking"]}


def start_config(server_start: str, tmp_path) -> tuple[list[str], dict]:
    config = {"mcpServers": {"python": SERVER, "node": NPX}}
    pyproject = write_project(tmp_path, enabled=True, background_spare=False)
    pyproject.write_text(pyproject.read_text() + f'server_start = "{server_start}"\n')
    (tmp_path / "mcp_config.json").write_text(json.dumps(config))
    return ["--config", str(pyproject), "--log-dir", str(tmp_path / "logs")], config


def test_fork_with_a_server_that_cannot_fork_is_refused_by_the_agent_and_ghost_alike(tmp_path):
    """The agent refused this config while MCP-Ghost spawned the npx server: one assembly."""
    from zork_mcp.builders.mcp import mcp_tool_server
    from zork_mcp.domain.servers.server_config import MCPConfig
    from zork_mcp.ghost.parts import tool_settings

    arguments, config = start_config("fork", tmp_path)
    container = container_for(arguments)
    with pytest.raises(MCPConfigError, match="node cannot be forked") as agent:
        container.tool_server()
    with pytest.raises(MCPConfigError, match="node cannot be forked") as ghost:
        settings = tool_settings(
            MCPConfig.model_validate(config), startup_timeout=5, server_start="fork"
        )
        mcp_tool_server(settings, warn=print)
    assert str(agent.value) == str(ghost.value)


def test_auto_starts_no_fork_server_when_nothing_can_be_forked(tmp_path):
    from zork_mcp.adapters.mcp.stdio.fork_owner import process_fork_server
    from zork_mcp.builders.mcp import mcp_tool_server
    from zork_mcp.domain.servers.server_config import MCPConfig
    from zork_mcp.ghost.parts import tool_settings

    arguments, config = start_config("auto", tmp_path)
    config["mcpServers"].pop("python")
    (tmp_path / "mcp_config.json").write_text(json.dumps(config))
    container = container_for(arguments)
    try:
        container.tool_server()
        assert not container.start_plan().forks  # so its tool server makes no fork server
    finally:
        container.shutdown_resources()
    before = process_fork_server().started  # an earlier test's Ghost call may have made it
    settings = tool_settings(
        MCPConfig.model_validate(config), startup_timeout=5, server_start="auto"
    )
    mcp_tool_server(settings, warn=print).close()
    assert process_fork_server().started is before, "MCP-Ghost started a fork server for nothing"


def test_r9_3_a_malformed_config_fails_the_container_with_an_mcp_error(project):
    container = container_for(project(enabled=True, mcp_config='{"mcpServers": {'))
    with pytest.raises(MCPError, match=r"mcp_config\.json"):
        container.tool_server()


def test_r9_3_a_malformed_config_makes_the_cli_exit_2_saying_which_file(
    project, zork_game, monkeypatch, capsys
):
    monkeypatch.setenv("OPENROUTER_API_KEY", "test-key-0123456789")
    arguments = project(enabled=True, mcp_config='{"mcpServers": {')
    assert main([*arguments, "--game", str(zork_game), "--max-turns", "1"]) == 2
    printed = capsys.readouterr().err
    assert "error:" in printed and "mcp_config.json" in printed
    assert "test-key-0123456789" not in printed


def test_r10_3_each_turn_of_orchestrator_run_has_one_event_loop_of_its_own(project):
    loops: list[tuple[int, asyncio.AbstractEventLoop]] = []
    turn = iter(range(1, 100))

    def respond(request):
        answered = any(isinstance(m, ToolResultMessage) for m in request.messages)
        number = next(turn) if not answered else loops[-1][0]
        loops.append((number, asyncio.get_running_loop()))
        return action_reply("look") if answered else tool_calls_reply(("box.note", {"text": "x"}))

    def note(text: str) -> str:
        loops.append((loops[-1][0], asyncio.get_running_loop()))
        return text

    @asynccontextmanager
    async def llm_session():
        yield FunctionLLM(respond)

    container = container_for(project(enabled=True), max_turns=3)
    container.game.override(providers.Object(FakeGameEnv()))
    container.telemetry.override(providers.Object(FakeTelemetry()))
    container.tool_settings.override(providers.Object(None))  # no server placed on disk
    container.tool_server.override(providers.Object(FakeToolServer("box", {"note": note})))
    container.llm_session.override(providers.Object(llm_session))
    summary = container.orchestrator().run()
    assert summary.turns == 3
    by_turn = {number: {loop for n, loop in loops if n == number} for number, _ in loops}
    assert [len(turn_loops) for turn_loops in by_turn.values()] == [1, 1, 1]
    assert len({loop for _, loop in loops}) == 3, "a new loop every turn"
    assert all(loop.is_closed() for _, loop in loops), "each turn's loop is closed after it"
    assert len(loops) == 3 * 3, "per turn: a tool-calling LLM call, the tool, the answer"


def test_r14_4_with_no_game_named_zork1_comes_from_the_package_in_any_folder(tmp_path):
    """No ../shared beside it, no config, no variable: the package's own Zork I."""
    found = find_game_file(None, environ={}, base=tmp_path)
    assert found == packaged_story("zork1") and found.is_file()
    assert hashlib.sha256(found.read_bytes()).hexdigest() == ZORK1.sha256


def test_r14_4_the_cli_names_the_game_file_that_does_not_exist(
    project, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("OPENROUTER_API_KEY", "test-key-0123456789")  # a key is checked first
    missing = tmp_path / "nowhere" / "zork1.z3"
    arguments = project(enabled=False)
    logs = tmp_path / "logs"
    command = [*arguments, "--game", str(missing), "--max-turns", "1", "--log-dir", str(logs)]
    assert main(command) == 2
    printed = " ".join(capsys.readouterr().err.split())
    assert f"does not exist: {missing}" in printed and "zork1, zork2, zork3" in printed
    assert not logs.exists(), "a run refused for its game wrote nothing"


def test_r14_4_langfuse_keys_without_its_sdk_say_what_to_install(
    project, zork_game, monkeypatch, capsys
):
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-test-secret")
    monkeypatch.setenv("OPENROUTER_API_KEY", "test-key-0123456789")
    monkeypatch.setitem(sys.modules, "langfuse", None)  # as if the SDK were not installed
    arguments = project(enabled=False)
    with pytest.raises(ConfigurationError, match=r"pip install 'zork-mcp\[langfuse\]'"):
        container_for(arguments).telemetry()
    assert main([*arguments, "--game", str(zork_game), "--max-turns", "1"]) == 2
    printed = " ".join(capsys.readouterr().err.split())
    assert "Langfuse SDK is not installed" in printed and "sk-test-secret" not in printed


def test_a_sweep_worker_and_ghost_fork_from_the_process_fork_server_the_cli_from_its_own(
    tmp_path,
):
    """Whose fork server a run forks from is its start plan's to say, chosen once: a sweep
    worker's episodes and MCP-Ghost's calls share the process's (a sweep worker's waits for
    it), the CLI's run has its tool server's own. Nothing else names a fork-server owner."""
    from zork_mcp.adapters.mcp.stdio.fork_owner import ForkServerOwner, process_fork_server
    from zork_mcp.app.sweep.episode import _share_the_workers_fork_server
    from zork_mcp.domain.servers.server_config import MCPConfig
    from zork_mcp.ghost.parts import tool_settings

    arguments, config = start_config("auto", tmp_path)
    cli = container_for(arguments).start_plan()
    worker = container_for(arguments)
    _share_the_workers_fork_server(worker)
    sweep = worker.start_plan()
    ghost = tool_settings(
        MCPConfig.model_validate(config), startup_timeout=5, server_start="auto"
    ).plan
    assert (cli.shared, sweep.shared, ghost.shared) == (False, True, True)
    assert ForkServerOwner.for_plan(sweep, None) is process_fork_server()
    assert ForkServerOwner.for_plan(ghost, None) is process_fork_server()
    own = ForkServerOwner.for_plan(cli, None)
    assert own is not process_fork_server() and own.ends_with_tool_server
