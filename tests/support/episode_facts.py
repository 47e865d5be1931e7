"""Generators of an episode's own events (domain/facts/episode_facts), every field drawn: what the
orchestrator may write, for the property tests of the events log."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.support.strategies import TEXT
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.episode.turn_facts import ToolUse, TurnFacts
from zork_mcp.domain.facts.episode_facts import EpisodeEnded, EpisodeStarted, TurnCompleted

_counts = st.integers(0, 10**6)
_tool_uses = st.lists(
    st.builds(
        ToolUse, st.text(TEXT, min_size=1, max_size=20), st.integers(1, 9), st.integers(0, 9)
    ),
    max_size=3,
    unique_by=lambda use: use.tool,
).map(tuple)
turn_facts = st.builds(
    TurnFacts,
    turn=st.integers(1, 10**4),
    score=st.integers(-10, 350),
    moves=_counts,
    tool_calls=_counts,
    room=st.text(TEXT, max_size=30),
    valid=st.booleans(),
    died=st.booleans(),
    prompt_tokens=_counts,
    completion_tokens=_counts,
    llm_seconds=st.floats(0, 600),
    tool_errors=_counts,
    tools=_tool_uses,
)
episode_starts = st.builds(EpisodeStarted, mcp_enabled=st.booleans(), max_turns=_counts)
turn_completions = st.builds(
    TurnCompleted,
    facts=turn_facts,
    action=st.text(TEXT, max_size=40),
    reasoning=st.text(TEXT, max_size=80),
    observation=st.text(TEXT, max_size=80),
    iterations=_counts,
)
episode_ends = st.builds(
    EpisodeEnded,
    turns=_counts,
    score=st.integers(-10, 350),
    moves=_counts,
    room=st.none() | st.text(TEXT, max_size=30),
    tool_calls=_counts,
    prompt_tokens=_counts,
    completion_tokens=_counts,
    cached_tokens=_counts,
    cost_usd=st.none() | st.floats(0, 100),
    end_reason=st.sampled_from(EndReason),
    error=st.none() | st.text(TEXT, max_size=40),
    seconds=st.floats(0, 10**5),
)
episode_facts = episode_starts | turn_completions | episode_ends
