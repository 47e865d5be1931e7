"""Issue 53: a run never spends past its budget by more than one call's estimate.

For any budget (dollars, tokens or both), any run of turns whose LLM calls take tools or
answer, and any usage a provider reports (below, at or above the guard's estimate): no call
starts that what is left cannot cover at its estimate; so the run ends past its budget by
at most its last call's excess over its estimate, and by nothing when every call took no
more than its estimate (within one estimate whenever a call takes at most twice its
estimate). The episode ends at a turn boundary: what it has played is what its checkpoint
holds, and every call it made is counted, the cut turn's too.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from tests.support.agents import agent_for
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.budgeted import BudgetedLLM
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.storage.fake_checkpoints import FakeCheckpoints
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.llm.budget import Budget, Spend, SpendGuard, request_tokens
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse, Usage

INPUT_USD, OUTPUT_USD = 3e-6, 15e-6  # a token, as a list price might be


def price(input_tokens: int, output_tokens: int) -> float:
    return input_tokens * INPUT_USD + output_tokens * OUTPUT_USD


calls = st.tuples(
    st.booleans(),  # a tool call (when tools are offered), else the turn's command
    st.floats(0.3, 2.0),  # prompt tokens as a share of the guard's estimate
    st.integers(0, 600),  # completion tokens
)
budgets = st.one_of(
    st.builds(Budget, usd=st.floats(0.003, 0.06)),
    st.builds(Budget, tokens=st.integers(200, 12_000)),
    st.builds(Budget, usd=st.floats(0.003, 0.06), tokens=st.integers(200, 12_000)),
)


class Provider:
    """Answers as the plan says, billing what the plan says; records what each call was
    estimated at and what had been spent when it started."""

    def __init__(self, plan: list[tuple[bool, float, int]], guard: SpendGuard) -> None:
        self.plan, self.guard = plan, guard
        self.started: list[tuple[Spend, Spend, Usage]] = []  # spent before, estimate, usage

    def __call__(self, request: LLMRequest) -> LLMResponse:
        estimate = self.guard.estimate(request)
        tool, share, completion = self.plan[len(self.started) % len(self.plan)]
        prompt = max(1, round(request_tokens(request) * share))
        usage = Usage(prompt, completion, cost_usd=price(prompt, completion))
        self.started.append((Spend.of(self.guard.spent), estimate, usage))
        if tool and request.tools:
            reply = tool_calls_reply(("notes.think", {"thought": "x" * completion}))
        else:
            reply = action_reply("north")
        return LLMResponse(reply.content, "fake", usage, reply.tool_calls)


def overspend(budget: Budget, spent: Spend) -> tuple[int, float]:
    tokens = spent.tokens - budget.tokens if budget.tokens is not None else 0
    usd = (spent.usd or 0.0) - budget.usd if budget.usd is not None else 0.0
    return tokens, usd


@given(budget=budgets, plan=st.lists(calls, min_size=1, max_size=12), turns=st.integers(1, 8))
def test_no_call_starts_that_the_budget_cannot_cover(budget, plan, turns):
    guard = SpendGuard(budget, price)
    provider = Provider(plan, guard)
    llm = BudgetedLLM(FunctionLLM(provider), guard)
    tools = FakeToolServer("notes", {"think": lambda thought: len(thought)})
    telemetry = FakeTelemetry()
    checkpoints = FakeCheckpoints()
    summary = Orchestrator(profile=ZORK1,
        game=FakeGameEnv(), agent=agent_for(llm, tool_server=tools, telemetry=telemetry),
        telemetry=telemetry, episode_id="e", max_turns=turns, checkpoints=checkpoints,
        guard=guard,
    ).run()  # fmt: skip

    for spent_before, estimate, _ in provider.started:
        assert budget.covers(spent_before, estimate)
    spent = Spend.of(summary.usage)
    billed = sum((usage for *_, usage in provider.started), Usage())
    # every call counted, the cut turn's too (dollars summed in another order)
    assert summary.usage.total_tokens == billed.total_tokens
    assert (summary.usage.cost_usd or 0.0) == pytest.approx(billed.cost_usd or 0.0, abs=1e-12)
    # how far each call went past its estimate
    beyond = [(Spend.of(u).tokens - e.tokens, (u.cost_usd or 0.0) - (e.usd or 0.0))
              for _, e, u in provider.started]  # fmt: skip
    worst_tokens = max((t for t, _ in beyond), default=0)
    worst_usd = max((d for _, d in beyond), default=0.0)
    over_tokens, over_usd = overspend(budget, spent)
    assert over_tokens <= max(0, worst_tokens)
    assert over_usd <= max(0.0, worst_usd) + 1e-12
    if provider.started:  # within one call's estimate, when no call took twice its estimate
        last = provider.started[-1][1]
        if worst_tokens <= last.tokens and worst_usd <= (last.usd or 0.0):
            assert over_tokens <= last.tokens and over_usd <= (last.usd or 0.0) + 1e-12

    event(f"ended: {summary.end_reason}, calls: {min(len(provider.started), 5)}+")
    assert summary.end_reason in (EndReason.BUDGET, EndReason.TURN_LIMIT, EndReason.GAME_OVER)
    if summary.end_reason is EndReason.BUDGET:
        saved = checkpoints.load()
        assert saved.turn == summary.turns  # stopped at a turn boundary
        assert saved.episode.summary.usage == summary.usage
        # the call it did not start would not have fit
        assert not budget.covers(Spend.of(summary.usage), refused_call(telemetry))


def refused_call(telemetry: FakeTelemetry) -> Spend:
    """The estimate of the call the budget refused, as its budget_reached event says."""
    (event,) = [e for e in telemetry.events if e.type == "budget_reached"]
    return Spend(event.fields["next_call_tokens"], event.fields["next_call_usd"])
