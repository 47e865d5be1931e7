import asyncio
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.processes import assert_no_processes_left
from tests.support.raw_servers import raw_server
from tests.support.strategies import server_eras
from zork_mcp.adapters.mcp.stdio.sandbox import FOLDER_PREFIX, TEMP_VARIABLES
from zork_mcp.domain.servers.server_env import server_environment

names = st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True)
PLAIN = ["PATH", "HOME", "LANG", "TERM", "MODE", "TZ", "USER", "SHELL", "DEBUG_LEVEL"]
SECRETS = ["OPENAI_API_KEY", "GH_TOKEN", "DB_PASSWORD", "MY_SECRET", "AUTH", "aws_credentials"]
plain_names = st.sampled_from(PLAIN)
secret_names = st.sampled_from(SECRETS)
values = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
environments = st.dictionaries(names | secret_names, values, max_size=8)


known = st.dictionaries(plain_names | secret_names, values, max_size=8)


@given(known, known)
def test_p07_environment_variable_merging(system, configured):
    """Property 7: Environment Variable Merging

    *For any* MCP server configuration with environment variables, the spawned subprocess should
    have those variables merged with the system environment.

    Validates: Requirements 3.2
    """
    merged = server_environment(system, configured, server="s")
    for name, value in configured.items():
        assert merged[name] == value, "the server's own variables win"
    for name, value in system.items():
        if name not in configured:
            assert merged.get(name) == (None if name in SECRETS else value)
    assert set(merged) == set(configured) | (set(system) & set(PLAIN))


@given(st.dictionaries(names | secret_names, st.sampled_from(["1", "x y", "ü"]), max_size=3), names)
def test_p07_a_reference_takes_the_value_from_the_system(system, name):
    configured = {f"{name}_REF": "${" + name + "}"}
    if name in system:
        merged = server_environment(system, configured, server="s")
        assert merged[f"{name}_REF"] == system[name]


@settings(max_examples=40)
@given(environments, st.dictionaries(names, values, max_size=5), server_eras)
def test_p07_the_spawned_process_sees_the_merged_environment(system, configured, eras):
    configured = {**configured, "RAW_MCP_ERAS": eras}  # which the server speaks: its env too
    server = raw_server(env=configured, system_env=system)

    async def child_environment():
        async with server.open_session() as session:
            return json.loads((await session.call_tool("raw.environ", {}, 10)).content)

    try:
        seen = asyncio.run(child_environment())
    finally:
        assert_no_processes_left(server)
    merged = server_environment(system, configured, server="raw")
    private = {name: seen.get(name) for name in TEMP_VARIABLES if name not in configured}
    expected = {k: v for k, v in merged.items() if k not in private}
    assert {k: v for k, v in seen.items() if k in expected} == expected
    extra = set(seen) - set(expected) - set(private)
    assert extra <= {"LC_CTYPE"}, "only Python's own locale coercion"
    folders = set(private.values())  # the confined process's own temporary folder
    assert len(folders) <= 1 and all(Path(f).name.startswith(FOLDER_PREFIX) for f in folders)
