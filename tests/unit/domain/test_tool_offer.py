"""What a request offers (issue 35): the user's filters, the provider's limits, and notices
said once per episode, through the loop the agent and MCP-Ghost share."""

from __future__ import annotations

import asyncio
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import plain_names
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.facts.events import Level
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.servers.server_config import (
    MCPServerConfig,
    parse_mcp_config,
    with_tool_filters,
)
from zork_mcp.domain.settings import MCPSettings, parse_mcp_settings
from zork_mcp.domain.tools.tool_judgment import ToolRejection
from zork_mcp.domain.tools.tool_offer import (
    LeftOut,
    OfferLimits,
    ToolFilter,
    ToolNotices,
    choose_offered,
    definition_chars,
)
from zork_mcp.domain.tools.tool_schema import ToolSpec

specs = st.lists(
    st.builds(
        ToolSpec,
        server=st.sampled_from(["a", "b"]),
        name=plain_names,
        description=st.text(max_size=300),
    ),
    max_size=40,
    unique_by=lambda spec: spec.canonical_name,
)
limits = st.builds(
    OfferLimits,
    max_tools=st.none() | st.integers(0, 30),
    definition_budget_chars=st.integers(0, 20_000),
)


@given(specs, limits)
def test_an_offer_keeps_within_the_limits_in_order_and_loses_no_tool(tools, limit):
    offer = choose_offered(tools, limit)
    assert limit.max_tools is None or len(offer.offered) <= limit.max_tools
    assert sum(map(definition_chars, offer.offered)) <= limit.definition_budget_chars
    offered = [spec.canonical_name for spec in offer.offered]
    assert offered == [s.canonical_name for s in tools if s.canonical_name in offered]
    assert sorted(offered + [item.tool for item in offer.left_out]) == sorted(
        spec.canonical_name for spec in tools
    )


@given(specs, limits)
def test_a_tool_is_left_out_only_when_it_does_not_fit(tools, limit):
    """Greedy in order: each left-out tool met a full count or did not fit the budget left."""
    offer = choose_offered(tools, limit)
    left = {item.tool: item.reason for item in offer.left_out}
    count, budget = 0, limit.definition_budget_chars
    for spec in tools:
        full = limit.max_tools is not None and count >= limit.max_tools
        fits = definition_chars(spec) <= budget
        assert (spec.canonical_name in left) == (full or not fits)
        if not full and fits:
            count, budget = count + 1, budget - definition_chars(spec)


def test_the_reason_names_the_provider_and_its_limit():
    tools = [ToolSpec("s", f"t{i}") for i in range(130)]
    offer = choose_offered(tools, PROVIDERS["openai"].resolve().offer_limits())
    assert len(offer.offered) == 128
    assert offer.left_out[0] == LeftOut("s.t128", "openai takes at most 128 tools in a request")


def test_a_tool_over_the_budget_left_is_left_out_saying_its_size_and_the_budget():
    small, big = ToolSpec("s", "small"), ToolSpec("s", "big", "d" * 500)
    budget = definition_chars(small) + 100
    offer = choose_offered([small, big], OfferLimits(definition_budget_chars=budget))
    assert offer.left_out == (
        LeftOut(
            "s.big",
            f"its definition ({definition_chars(big)} characters) is over what is left of the "
            f"{budget}-character budget for tool definitions",
        ),
    )


def test_tools_that_fill_the_budget_exactly_are_all_offered():
    tools = [ToolSpec("s", "a"), ToolSpec("s", "b", "d" * 40)]
    budget = sum(map(definition_chars, tools))
    offer = choose_offered(tools, OfferLimits(definition_budget_chars=budget))
    assert offer.offered == tuple(tools) and offer.left_out == ()


@given(st.lists(st.sampled_from("abcdef"), max_size=20))
def test_notices_say_each_thing_once(keys):
    notices = ToolNotices()
    said = [n.key for n in notices.unsaid(LeftOut(key, "r") for key in keys)]
    assert said == [f"{k}\0r" for k in dict.fromkeys(keys)]
    assert notices.unsaid(LeftOut(key, "r") for key in keys) == []


@pytest.mark.parametrize(
    ("tool_filter", "allowed"),
    [
        (ToolFilter(), {"think", "think_hard", "debug_dump"}),
        (ToolFilter(include=("think*",)), {"think", "think_hard"}),
        (ToolFilter(exclude=("debug_*",)), {"think", "think_hard"}),
        (ToolFilter(include=("*",), exclude=("*hard",)), {"think", "debug_dump"}),
        (ToolFilter(include=()), set()),
    ],
)
def test_a_filter_allows_its_includes_less_its_excludes(tool_filter, allowed):
    names = {"think", "think_hard", "debug_dump"}
    assert {name for name in names if tool_filter.allows(name)} == allowed


def test_filters_come_from_the_config_file_and_the_pyproject_table():
    config = parse_mcp_config(
        '{"mcpServers": {"r": {"command": "x", "includeTools": ["a*"], "excludeTools": ["ab"]},'
        ' "h": {"type": "http", "url": "http://127.0.0.1:1/mcp", "excludeTools": ["z"]}}}',
        source="mcp_config.json",
    )
    settings = parse_mcp_settings(
        '[tool.zorkgpt.mcp.tool_filters.r]\ninclude = ["a*", "b*"]\nexclude = ["ac"]\n',
        source="pyproject.toml",
    )
    filters = {name: table.as_filter() for name, table in settings.tool_filters.items()}
    servers = with_tool_filters(config.mcpServers, filters, source="pyproject")
    assert servers["r"].tool_filter == ToolFilter(("a*", "b*"), ("ab", "ac"))
    assert servers["h"].tool_filter == ToolFilter(None, ("z",))


def test_a_filter_for_a_server_not_in_use_is_an_error_naming_it():
    with pytest.raises(MCPConfigError, match=r"filters the tools of \['nope'\]"):
        with_tool_filters({"r": MCPServerConfig(command="x")}, {"nope": ToolFilter()}, source="t")


class ListedSession:
    """A session as the MCP assembly gives one: its usable tools and the rejected ones."""

    def __init__(self, count: int) -> None:
        self.tools = [ToolSpec("s", f"t{i}") for i in range(count)]
        self.rejected = [ToolRejection("s", "", "its name is empty")]
        self.protocols = [ServerProtocol("s", "2026-07-28")]

    async def call_tool(self, name, arguments, timeout_seconds):
        raise AssertionError("not called")


class ListingServer:
    server_names = ("s",)

    def __init__(self, count: int) -> None:
        self.count = count

    def open_session(self, servers=None):
        server = self

        class Opened:
            async def __aenter__(self):
                return ListedSession(server.count)

            async def __aexit__(self, *_):
                return None

        return Opened()


def test_an_episode_says_what_it_rejected_left_out_and_spoke_once_however_many_turns():
    telemetry, notices = FakeTelemetry(), ToolNotices()
    llm = ScriptedLLM([action_reply("n"), action_reply("s"), action_reply("e")])
    settings = MCPSettings(enabled=True, force_tool_support=True)
    for turn in (1, 2, 3):
        asyncio.run(
            decide_action(
                llm=llm,
                messages=initial_messages("s", "u"),
                settings=settings,
                telemetry=telemetry,
                clock=time.monotonic,
                tool_server=ListingServer(130),
                turn=turn,
                offer=PROVIDERS["openai"].resolve().offer_limits(),
                notices=notices,
            )
        )
    assert all(len(request.tools) == 128 for request in llm.requests)
    types = [event.type.value for event in telemetry.events]
    assert types.count("mcp_tool_rejected") == 1
    assert types.count("mcp_tools_left_out") == 1
    (spoken,) = [e for e in telemetry.events if e.type.value == "mcp_server_protocol"]
    assert spoken.fields["server"] == "s" and spoken.fields["turn"] == 1
    assert (spoken.fields["version"], spoken.fields["era"]) == ("2026-07-28", "modern")
    assert spoken.message == "MCP server 's' is spoken to in MCP 2026-07-28 (modern era)"
    (left_out,) = [e for e in telemetry.events if e.type.value == "mcp_tools_left_out"]
    assert left_out.fields["tools"] == ["s.t128", "s.t129"]


def test_a_later_filter_picks_the_includes_only_when_it_names_some_and_excludes_add_up():
    config = ToolFilter(include=("look*", "take"), exclude=("look_debug",))
    run = config.merged(ToolFilter(exclude=("take",)))
    assert [t for t in ("look", "look_debug", "take", "drop") if run.allows(t)] == ["look"]
    narrowed = config.merged(ToolFilter(include=("drop",)))
    assert [t for t in ("look", "take", "drop") if narrowed.allows(t)] == ["drop"]


@pytest.mark.parametrize(("listed", "named", "more"), [(138, 10, ""), (140, 10, " ...")])
def test_what_is_rejected_and_left_out_is_said_as_a_warning_naming_server_tool_and_reason(
    listed, named, more
):
    telemetry = FakeTelemetry()
    asyncio.run(
        decide_action(
            llm=ScriptedLLM([action_reply("n")]),
            messages=initial_messages("s", "u"),
            settings=MCPSettings(enabled=True, force_tool_support=True),
            telemetry=telemetry,
            clock=time.monotonic,
            tool_server=ListingServer(listed),
            turn=1,
            offer=PROVIDERS["openai"].resolve().offer_limits(),
        )
    )
    (rejected,) = [e for e in telemetry.events if e.type.value == "mcp_tool_rejected"]
    assert rejected.message == (
        "MCP server 's' listed a tool that cannot be offered (''): its name is empty; "
        "its other tools stay usable"
    )
    assert rejected.level is Level.WARNING
    assert (rejected.fields["server"], rejected.fields["tool"]) == ("s", "")
    assert rejected.fields["reason"] == "its name is empty"
    (left_out,) = [e for e in telemetry.events if e.type.value == "mcp_tools_left_out"]
    reason = "openai takes at most 128 tools in a request"
    shown = ", ".join(f"s.t{i}" for i in range(128, 128 + named)) + more
    said = f"{listed - 128} MCP tool(s) not offered to the LLM ({reason}): {shown}"
    assert left_out.message == said
    assert left_out.level is Level.WARNING and left_out.fields["reason"] == reason
