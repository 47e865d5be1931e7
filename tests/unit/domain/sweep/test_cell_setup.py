"""A cell's set-up in words: the history policy, the MCP config file, its servers and the
tools their filters offer (as zork-bench's map modes: none, self-built, given)."""

from __future__ import annotations

import pytest

from zork_mcp.domain.episode.history import HistoryMode, HistoryPolicy
from zork_mcp.domain.servers.server_config import ToolChoice
from zork_mcp.domain.sweep.cell_setup import mcp_words, server_words, setup_words

MAP = ("get_map", "find_path")


@pytest.mark.parametrize(
    ("choice", "words"),
    [
        (ToolChoice(), "memory"),
        (ToolChoice(includeTools=("add_note", "read_notes")), "memory (add_note, read_notes)"),
        (ToolChoice(excludeTools=MAP), "memory (all tools but get_map, find_path)"),
        (ToolChoice(includeTools=("*_note*",), excludeTools=("add_note",)),
         "memory (*_note* but add_note)"),
        (ToolChoice(includeTools=()), "memory (no tools)"),
    ],
)  # fmt: skip
def test_a_server_is_named_with_the_tools_its_filter_offers(choice, words):
    assert server_words("memory", choice) == words


def test_a_set_up_is_its_history_policy_then_its_mcp_offer():
    servers = {"memory": ToolChoice(excludeTools=MAP), "zork": ToolChoice()}
    assert setup_words(HistoryPolicy(HistoryMode.WINDOW, 20, 4000), "map-less.json", servers) == (
        "history window: 20 turns within 4000 tokens; "
        "MCP map-less.json: memory (all tools but get_map, find_path) + zork"
    )
    assert setup_words(HistoryPolicy(HistoryMode.STATE), None, {}) == "history state; no MCP"
    assert mcp_words("empty.json", {}) == "MCP empty.json: no server"
