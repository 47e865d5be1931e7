"""Sweep episodes that play the fake game, each with its own scripted LLM: what the sweep's
cell tests (history modes, games) run through the real scheduler, store and report."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager

from dependency_injector import providers

from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.app.container import Container


def scripted_session(commands: Sequence[str]) -> Callable[[], object]:
    """An episode's own LLM session, playing `commands` (the agent asks it once a turn)."""
    llm = ScriptedLLM([action_reply(command) for command in commands])

    @asynccontextmanager
    async def session():
        yield llm

    return session


@contextmanager
def fake_play(commands: Sequence[str]) -> Iterator[None]:
    """Every episode's container plays the fake game with a new scripted LLM."""
    with (
        Container.game.override(providers.Factory(FakeGameEnv)),
        Container.llm_session.override(providers.Factory(scripted_session, commands)),
    ):
        yield
