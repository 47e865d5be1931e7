"""The sweep scheduler: at most N episodes at once and at most K per provider; each finished
episode is stored at once, finished ones are skipped on a re-run (or carried on, when the
re-run's turn limit is higher), Ctrl-C stops cleanly: as its `stop` (the app's Ctrl-C sets
it, so that no KeyboardInterrupt lands between two steps of storing an episode or of waiting
on one), or as a KeyboardInterrupt in its thread.

With a budget, it starts no episode that what is left (the budget, less what the sweep's
stored episodes spent and what its running ones may spend) cannot cover at its estimate, and
gives each it starts an allowance: at least its estimate, else an even share of what is left
among the episodes that could run beside it. An episode its allowance stops is carried on
when money is left; what it cannot afford stays unplayed, and a re-run with a higher budget
plays it on from its checkpoint."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget, Spend
from zork_mcp.domain.sweep.controls import EpisodeInterrupted
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord

if TYPE_CHECKING:  # a port is a Protocol: the domain names it, never needs it at run time
    from zork_mcp.ports.result_store import ResultStore
    from zork_mcp.ports.sweep_backend import SweepBackend

POLL_SECONDS = 0.5


class SweepObserver(Protocol):
    def started(self, task: EpisodeTask, state: SweepState) -> None:
        """The episode was handed to a worker (which may still be starting)."""

    def began(self, task: EpisodeTask, state: SweepState) -> None:
        """Its worker has begun playing it."""

    def finished(self, record: EpisodeRecord, state: SweepState) -> None: ...


@dataclass
class SweepState:
    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    interrupted: int = 0
    running: Counter[str] = field(default_factory=Counter)  # per provider, `starting` too
    starting: int = 0  # of those, the episodes whose worker has not begun them: it starts
    records: list[EpisodeRecord] = field(default_factory=list)
    stopped: bool = False
    unplayed: int = 0  # episodes the budget left unplayed or stopped, to play on later
    kept_failed: int = 0  # stored as failed before, and not played again (no redo_failed)
    spent: Spend = field(default_factory=Spend)  # by the sweep's stored episodes
    needed: Spend = field(default_factory=Spend)  # the unplayed ones' estimates, summed
    least: Spend | None = None  # the least of them: more than the budget had left

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.done - self.failed


@dataclass
class Scheduler:
    backend: SweepBackend
    store: ResultStore
    parallel: int
    provider_limits: Mapping[str, int]
    observer: SweepObserver | None = None
    redo_failed: bool = False
    budget: Budget = field(default_factory=Budget)
    # what playing a task on from the turns it has played would take
    estimate: Callable[[EpisodeTask, int], Spend] | None = None
    stop: threading.Event = field(default_factory=threading.Event)  # set: stop as on Ctrl-C

    def __post_init__(self) -> None:
        if self.budget.limits and self.estimate is None:
            raise ValueError("a sweep with a budget needs an estimate of each episode")
        self._spent: dict[str, Spend] = {}  # by stored episode
        self._played: dict[str, int] = {}  # turns, by stored episode
        self._allowed: dict[str, Spend] = {}  # by running episode
        self._ended: dict[str, EndReason | str] = {}  # by stored episode
        self._begun: set[Future[EpisodeRecord]] = set()  # running ones their worker began

    def run(self, tasks: Sequence[EpisodeTask]) -> SweepState:
        sweep = tasks[0].spec.sweep if tasks else ""
        stored = {record.key: record for record in self.store.episodes(sweep)} if sweep else {}
        for record in stored.values():
            self._stored(record)
        pending = still_to_play(tasks, stored, redo_failed=self.redo_failed)
        state = SweepState(total=len(tasks), skipped=len(tasks) - len(pending))
        if not self.redo_failed:
            state.kept_failed = sum(
                1 for task in tasks if (r := stored.get(task.spec.key)) is not None and r.failed
            )
        running: dict[Future[EpisodeRecord], EpisodeTask] = {}
        try:
            try:
                self._play(pending, running, state)
            except KeyboardInterrupt:
                self.stop.set()
            if self.stop.is_set():
                state.stopped = True
                self._drain(running, state)
        finally:
            if _close(self.backend):  # Ctrl-C as the workers ended: now they have
                self.stop.set()
        state.stopped = self.stop.is_set()
        self._left_unplayed(state, tasks, pending)
        state.spent = self._total_spent()
        return state

    def _left_unplayed(
        self, state: SweepState, tasks: Sequence[EpisodeTask], pending: list[EpisodeTask]
    ) -> None:
        """How many episodes the budget left to play on, and what their estimates say it
        would take."""
        stopped = {key for key, reason in self._ended.items() if reason == EndReason.BUDGET}
        left = {task.spec.key: task for task in tasks if task.spec.key in stopped}
        left |= {task.spec.key: task for task in pending}
        state.unplayed = len(left)
        if self.estimate is None or not left:
            return
        needs = [
            self.estimate(task, self._played.get(key, 0) if task.resume or key in stopped else 0)
            for key, task in left.items()
        ]
        state.needed = sum(needs, Spend())
        in_dollars = self.budget.usd is not None
        state.least = min(needs, key=lambda need: (need.usd or 0.0) if in_dollars else need.tokens)

    def _play(
        self,
        pending: list[EpisodeTask],
        running: dict[Future[EpisodeRecord], EpisodeTask],
        state: SweepState,
    ) -> None:
        while (pending or running) and not self.stop.is_set():
            self._fill(pending, running, state)
            if not running:  # the budget affords none of what is left
                return
            done, _ = wait(running, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future, task in list(running.items()):
                if future.running() or future.done():
                    self._begin(future, task, state)
            for future in done:
                self._finish(future, running, state, pending)

    def _stored(self, record: EpisodeRecord) -> None:
        self._spent[record.key] = Spend(
            record.prompt_tokens + record.completion_tokens, record.cost_usd
        )
        self._played[record.key] = record.turns
        self._ended[record.key] = record.end_reason

    def _total_spent(self) -> Spend:
        return sum(self._spent.values(), Spend())

    def _allowance(self, task: EpisodeTask, slots: int) -> Budget | None:
        """What the task may spend in this run, from what is left; None: it cannot be
        afforded now. Without a budget: no limit."""
        if not self.budget.limits:
            return Budget()
        assert self.estimate is not None
        played = self._played.get(task.spec.key, 0) if task.resume else 0
        need = self.estimate(task, played)
        committed = self._total_spent() + sum(self._allowed.values(), Spend())
        if not self.budget.covers(committed, need):
            return None
        left = self.budget.left(committed)
        tokens = min(left.tokens, max(need.tokens, left.tokens // slots))
        usd = None
        if self.budget.usd is not None and left.usd is not None:
            usd = min(left.usd, max(need.usd or 0.0, left.usd / slots))
        allowed = Budget(usd, tokens if self.budget.tokens is not None else None)
        self._allowed[task.spec.key] = Spend(allowed.tokens or 0, allowed.usd)
        return allowed

    def _fill(
        self,
        pending: list[EpisodeTask],
        running: dict[Future[EpisodeRecord], EpisodeTask],
        state: SweepState,
    ) -> None:
        for task in list(pending):
            if len(running) >= self.parallel:
                return
            provider = task.spec.cell.model.provider
            if state.running[provider] >= self.provider_limits.get(provider, self.parallel):
                continue
            allowance = self._allowance(task, min(self.parallel - len(running), len(pending)))
            if allowance is None:
                continue
            if allowance.limits:  # on top of what the episode's earlier runs spent
                spent = self._spent.get(task.spec.key, Spend()) if task.resume else Spend()
                task = replace(task, budget=allowance.plus(spent))
            pending.remove(_same(pending, task))
            state.running[provider] += 1
            state.starting += 1
            running[self.backend.submit(task)] = task
            if self.observer:
                self.observer.started(task, state)

    def _finish(
        self,
        future: Future[EpisodeRecord],
        running: dict[Future[EpisodeRecord], EpisodeTask],
        state: SweepState,
        pending: list[EpisodeTask] | None = None,
    ) -> None:
        """Store a finished episode, then let it go from `running`.

        A Ctrl-C in this process is never taken for an episode's own interruption: it
        propagates, and an episode not yet stored stays in `running` for the drain. Once
        the sweep stops, an episode that ends with no record (its worker lost as it
        stopped: the terminal's Ctrl-C reaches workers too) is interrupted, not failed.
        """
        task = running[future]
        self._begin(future, task, state)
        error = future.exception()
        interrupted = isinstance(error, (EpisodeInterrupted, KeyboardInterrupt)) or bool(
            error and state.stopped
        )
        # a worker that failed is recorded with its error, and the sweep goes on
        record = None if interrupted else crashed(task, error) if error else future.result()
        if record:
            self.store.record(record)  # idempotent: a replayed episode replaces itself
        del running[future]
        self._begun.discard(future)
        self._allowed.pop(task.spec.key, None)
        state.running[task.spec.cell.model.provider] -= 1
        played_before = self._played.get(task.spec.key, 0) if task.resume else 0
        if record is not None:
            self._stored(record)
            if (
                pending is not None
                and record.end_reason == EndReason.BUDGET
                and record.turns > played_before
            ):
                pending.append(replace(task, resume=True, budget=None))  # on, if money is left
                return
        if record is None:
            state.interrupted += 1
            return
        state.records.append(record)
        if record.failed:
            state.failed += 1
        else:
            state.done += 1
        if self.observer:
            self.observer.finished(record, state)

    def _begin(self, future: Future[EpisodeRecord], task: EpisodeTask, state: SweepState) -> None:
        """The episode's worker has begun it (or it ended first): say so, once."""
        if future in self._begun:
            return
        self._begun.add(future)
        state.starting -= 1
        if self.observer:
            self.observer.began(task, state)

    def _drain(self, running: dict[Future[EpisodeRecord], EpisodeTask], state: SweepState) -> None:
        """Stop the running episodes and keep the ones that finished meanwhile. Ctrl-C again
        stops nothing more: an episode it cut short as it was stored is stored again, whole
        (a stored episode replaces itself)."""
        asked = False
        while running or not asked:
            try:
                if not asked:
                    self.backend.interrupt()
                    asked = True
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    self._finish(future, running, state)
            except KeyboardInterrupt:
                continue


def _close(backend: SweepBackend) -> bool:
    """Close the back-end whole, whatever Ctrl-C says meanwhile (its workers are closing
    what they started; cut short, one never told to close would wait for this process as
    this process, exiting, waited for it); and whether Ctrl-C came."""
    pressed = False
    while True:
        try:
            backend.close()
            return pressed
        except KeyboardInterrupt:
            pressed = True


def _same(pending: list[EpisodeTask], task: EpisodeTask) -> EpisodeTask:
    """The pending task `task` was made from (it may have been given a budget since)."""
    return next(t for t in pending if t.spec.key == task.spec.key)


def still_to_play(
    tasks: Sequence[EpisodeTask], stored: Mapping[str, EpisodeRecord], *, redo_failed: bool
) -> list[EpisodeTask]:
    """The tasks a run plays: new episodes, failed ones with `redo_failed`, and finished ones
    that stopped at a lower turn limit than this run's, carried on from their checkpoint.
    A finished episode played to a higher limit is a ConfigurationError: the run would cut
    the sweep's episodes short."""
    pending = []
    for task in tasks:
        record = stored.get(task.spec.key)
        if record is None or (record.failed and redo_failed):
            pending.append(task)
        elif not record.failed and record.end_reason == EndReason.BUDGET:
            pending.append(replace(task, resume=True))  # stopped by a budget: on from there
        elif not record.failed and record.max_turns is not None:
            if record.max_turns > task.spec.max_turns:
                raise _cut_short(task, record.max_turns)
            if record.max_turns < task.spec.max_turns and record.end_reason == EndReason.TURN_LIMIT:
                pending.append(replace(task, resume=True, extends=record.max_turns))
    return pending


def _cut_short(task: EpisodeTask, played: int) -> ConfigurationError:
    return ConfigurationError(
        f"Sweep '{task.spec.sweep}' has episodes played to {played} turns, and --max-turns "
        f"{task.spec.max_turns} would end them sooner. Run it with --max-turns {played} or "
        "more (a higher limit carries its episodes on), or give a new sweep its own --name."
    )


def crashed(task: EpisodeTask, error: BaseException) -> EpisodeRecord:
    return task.spec.record(
        status="failed",
        end_reason=EndReason.ERROR,
        error=f"worker failed: {type(error).__name__}: {error}",
    )
