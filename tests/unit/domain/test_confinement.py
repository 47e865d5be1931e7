"""The confinement policy (issue 47): what a server may read, write and connect to, how its
entry's `"sandbox"` changes that, and what an episode's start says when it is off or when the
kernel cannot enforce all of it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from zork_mcp.adapters.mcp.stdio.start_plan import StartPlan
from zork_mcp.builders.mcp import ToolServerSettings, confinement_notices
from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.facts.confinement_notices import sandbox_notices
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.servers.confinement import (
    DEFAULT_CONNECT_PORTS,
    DEVICES_WRITE,
    FILES,
    NETWORK,
    SCOPES,
    Sandbox,
    ServerFacts,
    server_confinement,
    unenforced,
)
from zork_mcp.domain.servers.confinement_rules import emulator_confinement
from zork_mcp.domain.servers.server_config import MCPServerConfig, parse_mcp_config
from zork_mcp.domain.settings import parse_mcp_settings

FACTS = ServerFacts(
    home="/home/u",
    cwd="/home/u/project",
    python_paths=("/", "/home/u", "/home/u/project", "/home/u/project/.venv", "/usr/lib/py"),
    own_folders=("/home/u/project/tests",),
    private_folder="/tmp/zork-mcp-server-1",
    launcher_cache="/home/u/.npm",
    lists_cwd=True,
)


def test_the_default_reads_the_toolchain_and_writes_only_its_folders_and_its_launchers_cache():
    rules = server_confinement(FACTS)
    assert "/usr" in rules.read and "/home/u/project/.venv" in rules.read
    assert "/home/u/project/tests" in rules.read
    for guarded in ("/", "/home/u", "/home/u/project", "/proc"):
        assert guarded not in rules.read and guarded not in rules.write
    assert not any(p.startswith("/home/u/.ssh") or p == "/home/u/.cache" for p in rules.read)
    assert rules.write[:1] == ("/tmp/zork-mcp-server-1",)
    assert rules.write == ("/tmp/zork-mcp-server-1", *DEVICES_WRITE, "/home/u/.npm")
    uncached = server_confinement(replace(FACTS, launcher_cache=None))
    assert not any(path.startswith("/home/u") for path in uncached.write)
    assert rules.listed == ("/home/u/project",)  # names only: `python -m` imports from there
    assert rules.connect_ports == DEFAULT_CONNECT_PORTS == (443, 80)
    assert rules.scoped


def test_the_folders_its_command_line_names_are_its_own_but_never_one_holding_the_agents():
    facts = replace(
        FACTS,
        arg_folders=("/home/u/notes", "/home/u", "/home/u/project", "/", "/srv/logs", "/data"),
    )
    rules = server_confinement(facts, Sandbox(write=("/srv/logs/ep1/servers/fs",)))
    assert "/home/u/notes" in rules.write and "/data" in rules.write
    for guarded in ("/home/u", "/home/u/project", "/", "/srv/logs"):
        assert guarded not in rules.write, guarded


def test_an_entry_widens_the_folders_and_replaces_the_ports():
    sandbox = Sandbox(read=("~/data",), write=("/srv/out",), connect_ports=())
    rules = server_confinement(FACTS, sandbox)
    assert "/home/u/data" in rules.read and "/srv/out" in rules.write
    assert rules.connect_ports == ()


def test_the_emulator_reads_its_story_writes_its_folder_and_connects_nowhere():
    rules = emulator_confinement(
        ("/usr/lib/py", "/home/u"), "/g/zork1.z3", "/tmp/f", "/w", "/home/u"
    )
    assert "/g/zork1.z3" in rules.read and "/home/u" not in rules.read
    assert rules.write[0] == "/tmp/f" and rules.connect_ports == () and rules.scoped


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('"yes"', "sandbox is 'yes'"),
        ('{"read": ["relative"]}', "is relative"),
        ('{"connect_ports": [70000]}', "a TCP port is 1 to 65535"),
        ('{"reed": []}', "reed"),
    ],
)
def test_a_bad_sandbox_entry_is_refused_saying_what_to_write(value, says):
    text = '{"mcpServers": {"a": {"command": "x", "sandbox": ' + value + "}}}"
    with pytest.raises(MCPConfigError, match="sandbox") as error:
        parse_mcp_config(text, source="mcp_config.json")
    assert says in str(error.value)


def test_sandbox_true_is_the_default_and_false_turns_it_off():
    on = MCPServerConfig.model_validate({"command": "x", "sandbox": True})
    off = MCPServerConfig.model_validate({"command": "x", "sandbox": False})
    assert on.sandbox == Sandbox() == MCPServerConfig(command="x").sandbox
    assert off.sandbox is None


def test_the_global_switch_defaults_on():
    assert parse_mcp_settings("", source="p").sandbox is True
    assert parse_mcp_settings("[tool.zorkgpt.mcp]\nsandbox = false\n", source="p").sandbox is False


@pytest.mark.parametrize(
    ("abi", "missing"),
    [(0, (FILES, NETWORK, SCOPES)), (3, (NETWORK, SCOPES)), (5, (SCOPES,)), (6, ()), (7, ())],
)
def test_what_each_abi_leaves_unconfined(abi, missing):
    assert unenforced(abi) == missing


@pytest.mark.parametrize("abi", [0, 3])
def test_a_kernel_short_of_features_is_one_event_naming_what_runs_unconfined(abi):
    """The check can fail: the ABI the probe reports is injected."""
    (event,) = sandbox_notices(enabled=True, unconfined_servers=(), servers=("r", "m"), abi=abi)
    assert event.type is EventType.MCP_SANDBOX_DEGRADED
    assert event.fields["unconfined"] == list(unenforced(abi))
    assert NETWORK in event.message and "r, m" in event.message


def test_a_full_kernel_says_nothing_and_a_switched_off_sandbox_says_so():
    assert sandbox_notices(enabled=True, unconfined_servers=(), servers=("r",), abi=7) == []
    (off,) = sandbox_notices(enabled=False, unconfined_servers=(), servers=("r",), abi=7)
    assert off.type is EventType.MCP_SANDBOX_OFF and "sandbox = false" in off.message


def test_the_builder_names_servers_whose_entry_turns_it_off():
    servers = {
        "r": MCPServerConfig(command="python"),
        "n": MCPServerConfig.model_validate({"command": "npx", "sandbox": False}),
    }
    settings = ToolServerSettings(servers, StartPlan(forks=False), startup_timeout=1)
    off, degraded = confinement_notices(settings, abi=3)
    assert off.type is EventType.MCP_SANDBOX_OFF and off.fields["servers"] == ["n"]
    assert degraded.type is EventType.MCP_SANDBOX_DEGRADED and degraded.fields["servers"] == ["r"]


def test_a_path_beneath_another_of_the_same_list_is_no_rule_of_its_own():
    facts = ServerFacts(home="/home/u", cwd="/work/p", python_paths=("/usr/lib/python3",
                        "/usrx/lib", "/opt/venv", "/opt/venv/lib/site"), own_folders=(),
                        private_folder="/tmp/zork-mcp-server-1")  # fmt: skip
    read = server_confinement(facts).read
    assert "/usr/lib/python3" not in read and "/opt/venv/lib/site" not in read
    assert {"/usr", "/usrx/lib", "/opt"} <= set(read)
