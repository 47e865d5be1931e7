"""Each server's places in an episode (issue 52): a folder of its own, which no other server's
name can share and whose name is one plain path component; its placeholders filled wherever
they stand; the one folder of the episode it may write, the journal readable only when its
entry names it; roots only where it asks; and the agent's notes read from the folder of the
server that keeps them, wherever it is listed."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.server_config import (
    MCPHttpServerConfig,
    MCPServerConfig,
    parse_mcp_config,
)
from zork_mcp.domain.servers.server_places import (
    EpisodePlaces,
    folder_name,
    notes_keeper,
    placed,
    roots_of,
    uses_journal,
)

PLACES = EpisodePlaces(PurePosixPath("/w/logs/ep 1"), PurePosixPath("/home/u"))
NAMES = st.text(min_size=1, max_size=80).filter(lambda name: "." not in name)
WORDS = st.text(alphabet=st.characters(blacklist_characters="$"), max_size=12)
PLACEHOLDERS = st.sampled_from(["${ZORK_MCP_SERVER_DIR}", "${ZORK_MCP_JOURNAL}"])


@st.composite
def words_with_placeholders(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(WORDS, PLACEHOLDERS), max_size=5))
    return "".join(parts)


@given(NAMES)
def test_a_folder_name_is_one_plain_component_of_the_servers_folder(name):
    folder = folder_name(name)
    assert folder not in ("", ".", "..") and "/" not in folder and "\0" not in folder
    assert len(folder) <= 64 and folder.isascii()
    assert PLACES.server_folder(name).parent == PLACES.episode / "servers"


@given(NAMES, NAMES)
def test_two_servers_never_share_a_folder(first, second):
    assume(first != second)
    assert folder_name(first) != folder_name(second)


@given(NAMES)
def test_no_name_takes_the_folder_another_names_hash_gave(name):
    """A name spelt as another's hashed folder (issue 66: `a/b` beside `a_b-c14cddc033f6`,
    the old form) still gets a folder of its own."""
    folder = folder_name(name)
    assume(folder != name)  # a plain name is its own folder
    assert folder_name(folder) != folder
    assert folder_name(folder.replace("+", "-")) != folder
    assert folder_name("a/b") != folder_name("a_b-c14cddc033f6") != folder_name("a_b")


@given(st.lists(words_with_placeholders(), max_size=4), words_with_placeholders())
def test_placeholders_are_filled_wherever_they_stand_and_nothing_else_changes(args, value):
    entry = MCPServerConfig(command="srv", args=tuple(args), env={"STATE": value})
    done = placed("s", entry, PLACES)
    folder, journal = str(PLACES.episode / "servers" / "s"), str(PLACES.journal)

    def filled(word: str) -> str:
        return word.replace("${ZORK_MCP_SERVER_DIR}", folder).replace(
            "${ZORK_MCP_JOURNAL}", journal
        )

    assert done.args == tuple(filled(arg) for arg in args)
    assert done.env == {"ZORK_MCP_SERVER_DIR": folder, "STATE": filled(value)}
    assert not any("${ZORK_MCP_" in word for word in (*done.args, *done.env.values()))


@given(st.lists(words_with_placeholders(), max_size=4))
def test_it_writes_its_folder_alone_of_the_episode_and_reads_the_journal_only_if_named(args):
    entry = MCPServerConfig(command="srv", args=tuple(args))
    sandbox = placed("s", entry, PLACES).sandbox
    assert sandbox is not None
    assert sandbox.write == (str(PLACES.episode / "servers" / "s"),)
    named = any("${ZORK_MCP_JOURNAL}" in arg for arg in args)
    assert uses_journal(entry) is named
    assert sandbox.read == ((str(PLACES.journal),) if named else ())


def test_an_unconfined_entry_gets_its_folder_and_no_sandbox():
    entry = MCPServerConfig.model_validate({"command": "srv", "sandbox": False})
    done = placed("s", entry, PLACES)
    assert done.sandbox is None and done.env == {"ZORK_MCP_SERVER_DIR": "/w/logs/ep 1/servers/s"}


def test_roots_are_named_only_where_an_entry_asks():
    config = parse_mcp_config(
        """{"mcpServers": {
            "plain": {"command": "srv"},
            "own": {"command": "srv", "roots": true, "sandbox": {"write": ["/srv/out"]}},
            "listed": {"command": "srv", "roots": ["~/notes", "/data"]},
            "remote": {"type": "http", "url": "http://127.0.0.1:1/mcp", "roots": ["/data"]}}}""",
        source="test",
    )
    done = {name: placed(name, entry, PLACES) for name, entry in config.mcpServers.items()}
    assert roots_of(done["plain"]) == ()
    (own,) = roots_of(done["own"])
    assert own.folder == PLACES.episode / "servers" / "own" and own.uri.startswith("file:///w/")
    assert [str(r.folder) for r in roots_of(done["listed"])] == ["/home/u/notes", "/data"]
    assert done["listed"].sandbox.write[-2:] == ("/home/u/notes", "/data")
    assert done["own"].sandbox.write == ("/srv/out", "/w/logs/ep 1/servers/own")
    assert isinstance(done["remote"], MCPHttpServerConfig)
    assert [str(r.folder) for r in roots_of(done["remote"])] == ["/data"]


def test_a_relative_root_is_a_config_error_that_says_how_to_write_it():
    with pytest.raises(MCPConfigError, match="roots has 'notes': write each folder absolute"):
        parse_mcp_config('{"mcpServers": {"s": {"command": "x", "roots": ["notes"]}}}', source="t")


MEMORY = {
    "command": "python",
    "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"],
}
MAP_ONLY = {**MEMORY, "excludeTools": ["add_note"]}


def entries(**servers: dict) -> dict:
    return parse_mcp_config(json.dumps({"mcpServers": servers}), source="test").mcpServers


def test_the_notes_are_kept_by_the_journal_reader_that_offers_add_note_wherever_it_is_listed():
    assert notes_keeper(entries(map=MAP_ONLY, memory=MEMORY)) == "memory"
    assert notes_keeper(entries(memory=MEMORY, map=MAP_ONLY)) == "memory"
    assert notes_keeper(entries(think={"command": "python"}, memory=MEMORY)) == "memory"


def test_no_server_keeps_notes_when_none_reads_the_journal_or_offers_add_note():
    assert notes_keeper({}) is None
    assert notes_keeper(entries(think={"command": "python"})) is None
    assert notes_keeper(entries(map=MAP_ONLY)) is None
    only = {**MEMORY, "includeTools": ["get_map", "find_path"]}
    assert notes_keeper(entries(map=only)) is None


def test_two_servers_that_would_keep_notes_are_refused_naming_both():
    with pytest.raises(MCPConfigError) as refused:
        notes_keeper(entries(memory=MEMORY, notes=MEMORY))
    said = str(refused.value)
    assert "The servers memory and notes each read the episode's journal and offer add_note" in said
    assert '"excludeTools": ["add_note"]' in said
