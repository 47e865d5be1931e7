"""The sweep scheduler, on a thread-pool backend that plays instantly-scored fake episodes."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.sweep.sweep import Sweep
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget, Spend
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.controls import EpisodeInterrupted, begun
from zork_mcp.domain.sweep.episodes import EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.scheduler import Scheduler, still_to_play

MODELS = (ModelSpec(parse_model("openrouter:a")), ModelSpec(parse_model("local:b")))


class ThreadBackend:
    """Runs each task on a thread; records how many ran at once per provider."""

    def __init__(self, fail_seeds: frozenset[int] = frozenset(), pause: float = 0.01) -> None:
        self._pool = ThreadPoolExecutor(8)
        self.pause = pause
        self._lock = threading.Lock()
        self.running: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self.peak_total = 0
        self.interrupted = threading.Event()
        self.fail_seeds = fail_seeds
        self.played: list[str] = []

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        return self._pool.submit(self._play, task)

    def _play(self, task: EpisodeTask) -> EpisodeRecord:
        provider = task.spec.cell.model.provider
        with self._lock:
            self.running[provider] += 1
            self.peak[provider] = max(self.peak[provider], self.running[provider])
            self.peak_total = max(self.peak_total, sum(self.running.values()))
            self.played.append(task.spec.key)
        try:
            time.sleep(self.pause_for(task))
            if self.interrupted.is_set():
                raise EpisodeInterrupted(task.spec.key)
            if task.spec.seed in self.fail_seeds:
                raise RuntimeError("worker died")
            return record_of(task)
        finally:
            with self._lock:
                self.running[provider] -= 1

    def pause_for(self, task: EpisodeTask) -> float:
        return self.pause

    def interrupt(self) -> None:
        self.interrupted.set()

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def record_of(task: EpisodeTask) -> EpisodeRecord:
    spec = task.spec
    return EpisodeRecord(
        spec.sweep, spec.key, spec.cell.label, spec.cell.model.label, spec.cell.mcp,
        spec.seed, spec.index, "done", score=spec.seed, turns=1,
        trajectory=(TurnFacts(1, spec.seed, 1, 0),),
    )  # fmt: skip


def tasks(episodes: int = 6, models=MODELS, name: str = "s") -> list[EpisodeTask]:
    sweep = Sweep(name, models, ("on", "off"), (), episodes, 5)
    return [
        EpisodeTask(e, Path("logs"), Path("pyproject.toml"), ProjectSettings())
        for e in sweep.episodes_to_play()
    ]


def test_at_most_n_episodes_and_k_per_provider_run_at_once_and_all_are_stored(tmp_path):
    store, backend = SqliteResultStore(tmp_path / "r.sqlite"), ThreadBackend()
    state = Scheduler(backend, store, 3, {"openrouter": 1}).run(tasks())
    assert (state.done, state.failed, state.stopped) == (24, 0, False)
    assert backend.peak["openrouter"] == 1 and backend.peak_total <= 3
    assert len(store.episodes("s")) == 24


def test_a_rerun_skips_stored_episodes_and_plays_only_new_ones(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    Scheduler(ThreadBackend(), store, 2, {}).run(tasks(2))
    again = ThreadBackend()
    state = Scheduler(again, store, 2, {}).run(tasks(3))
    assert (state.skipped, state.done, len(again.played)) == (8, 4, 4)
    assert len(store.episodes("s")) == 12


def test_a_failing_worker_is_recorded_with_its_error_and_the_sweep_goes_on(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    state = Scheduler(ThreadBackend(fail_seeds=frozenset({13})), store, 2, {}).run(tasks(3))
    failed = [r for r in store.episodes("s") if r.failed]
    assert (state.done, state.failed) == (8, 4) and len(failed) == 4
    assert all(r.error == "worker failed: RuntimeError: worker died" for r in failed)
    assert all(r.end_reason == EndReason.ERROR for r in failed)


class StopAfter:
    """Ctrl-C arriving, once, while the `count`-th finished episode is reported."""

    def __init__(self, count: int) -> None:
        self.count, self.pressed = count, False

    def started(self, task, state) -> None:
        pass

    def began(self, task, state) -> None:
        pass

    def finished(self, record, state) -> None:
        if state.done == self.count and not self.pressed:
            self.pressed = True
            raise KeyboardInterrupt


def test_ctrl_c_keeps_finished_episodes_stops_running_ones_and_a_rerun_completes(tmp_path):
    store, backend = SqliteResultStore(tmp_path / "r.sqlite"), ThreadBackend()
    state = Scheduler(backend, store, 2, {}, StopAfter(3)).run(tasks())
    stored = store.episodes("s")
    assert state.stopped and backend.interrupted.is_set()
    assert 3 <= len(stored) < 24 and state.done == len(stored)
    rerun = Scheduler(ThreadBackend(), store, 2, {}).run(tasks())
    assert rerun.skipped == len(stored) and len(store.episodes("s")) == 24


class CtrlCWhileReading(Future):
    """A finished episode whose result is being read when Ctrl-C reaches the sweep."""

    def __init__(self, record: EpisodeRecord) -> None:
        super().__init__()
        self.set_result(record)
        self.signalled = False

    def result(self, timeout=None):
        if not self.signalled:
            self.signalled = True
            raise KeyboardInterrupt
        return super().result(timeout)


class CtrlCOnThird(ThreadBackend):
    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        if len(self.played) == 2:
            self.played.append(task.spec.key)
            return CtrlCWhileReading(record_of(task))
        return super().submit(task)


def test_ctrl_c_while_a_result_is_read_stops_the_sweep_and_loses_no_episode(tmp_path):
    store, backend = SqliteResultStore(tmp_path / "r.sqlite"), CtrlCOnThird()
    state = Scheduler(backend, store, 1, {}).run(tasks())
    assert state.stopped, "the sweep's own Ctrl-C was taken for an episode's"
    assert backend.interrupted.is_set()
    assert {r.key for r in store.episodes("s")} == set(backend.played[:3])


def test_failed_episodes_are_kept_on_a_rerun_and_played_again_when_asked(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    Scheduler(ThreadBackend(fail_seeds=frozenset({12})), store, 2, {}).run(tasks(2))
    kept = Scheduler(ThreadBackend(), store, 2, {}).run(tasks(2))
    assert (kept.skipped, kept.done) == (8, 0)
    redone = Scheduler(ThreadBackend(), store, 2, {}, redo_failed=True).run(tasks(2))
    assert (redone.skipped, redone.done) == (4, 4)
    assert not any(r.failed for r in store.episodes("s"))


def stored_as(task: EpisodeTask, max_turns: int | None, end_reason: str, status: str = "done"):
    return replace(record_of(task), max_turns=max_turns, end_reason=end_reason, status=status)


def test_a_run_plays_what_is_new_failed_on_request_or_stopped_short_of_its_limit():
    new, failed, short, ended, same, old = tasks(2)[:6]
    stored = {
        failed.spec.key: stored_as(failed, 5, "error", status="failed"),
        short.spec.key: stored_as(short, 3, "turn_limit"),
        ended.spec.key: stored_as(ended, 3, "game_over"),  # the game ended: nothing to carry on
        same.spec.key: stored_as(same, 5, "turn_limit"),
        old.spec.key: stored_as(old, None, "turn_limit"),  # stored before limits were kept
    }
    tasks_ = [new, failed, short, ended, same, old]
    assert still_to_play(tasks_, stored, redo_failed=False) == [
        new,
        replace(short, resume=True, extends=3),
    ]
    assert still_to_play(tasks_, stored, redo_failed=True)[:2] == [new, failed]


def test_a_run_with_a_lower_limit_than_its_stored_episodes_is_refused_saying_why():
    [task] = tasks(1)[:1]
    with pytest.raises(ConfigurationError) as caught:
        still_to_play([task], {task.spec.key: stored_as(task, 9, "turn_limit")}, redo_failed=False)
    assert str(caught.value) == (
        "Sweep 's' has episodes played to 9 turns, and --max-turns 5 would end them sooner. "
        "Run it with --max-turns 9 or more (a higher limit carries its episodes on), "
        "or give a new sweep its own --name."
    )


def test_an_episode_keeps_its_key_whatever_the_turn_limit():
    short = Sweep("s", MODELS, ("on",), (), 2, 10).episodes_to_play()
    long = Sweep("s", MODELS, ("on",), (), 2, 20).episodes_to_play()
    assert [e.key for e in short] == [e.key for e in long]
    assert len({e.key for e in long}) == len(long)


class Recording:
    """An observer that keeps what it was told: each start and each finished record."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, int]] = []
        self.begins: list[tuple[str, int]] = []
        self.ends: list[tuple[str, int]] = []

    def started(self, task, state) -> None:
        self.starts.append((task.spec.key, sum(state.running.values())))

    def began(self, task, state) -> None:
        self.begins.append((task.spec.key, state.starting))

    def finished(self, record, state) -> None:
        self.ends.append((record.key, state.done + state.failed))


def test_the_observer_hears_of_every_start_and_every_finished_record_as_it_happens(tmp_path):
    store, seen, tasks_ = SqliteResultStore(tmp_path / "r.sqlite"), Recording(), tasks(2)
    state = Scheduler(ThreadBackend(), store, 1, {}, seen).run(tasks_)
    keys = [t.spec.key for t in tasks_]
    assert seen.starts == [(key, 1) for key in keys]
    assert seen.begins == [(key, 0) for key in keys]
    assert seen.ends == [(key, n) for n, key in enumerate(keys, start=1)]
    assert [r.key for r in state.records] == keys
    assert (state.total, state.remaining) == (8, 0)


def test_the_state_counts_every_task_and_what_is_left_after_a_rerun(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    Scheduler(ThreadBackend(), store, 2, {}).run(tasks(2))
    state = Scheduler(ThreadBackend(), store, 2, {}).run(tasks(3))
    assert (state.total, state.skipped, state.done, state.remaining) == (12, 8, 4, 0)


def test_no_tasks_is_an_empty_sweep_and_one_task_is_played(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    backend = ThreadBackend()
    assert Scheduler(backend, store, 2, {}).run([]).total == 0
    [task] = tasks(1)[:1]
    assert Scheduler(ThreadBackend(), store, 2, {}).run([task]).done == 1
    assert [r.key for r in store.episodes("s")] == [task.spec.key]


def test_another_sweep_in_the_same_store_plays_all_its_own_episodes(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    Scheduler(ThreadBackend(), store, 2, {}).run(tasks(2))
    state = Scheduler(ThreadBackend(), store, 2, {}).run(tasks(2, name="t"))
    assert (state.skipped, state.done) == (0, 8)
    assert len(store.episodes("t")) == 8


class WaitsForLocal(ThreadBackend):
    """An openrouter episode that ends only once a local one has started beside it."""

    def __init__(self) -> None:
        super().__init__()
        self.local_started = threading.Event()

    def _play(self, task: EpisodeTask) -> EpisodeRecord:
        if task.spec.cell.model.provider == "local":
            self.local_started.set()
        elif not self.local_started.wait(timeout=2):
            raise RuntimeError("no local episode ran beside me")
        return super()._play(task)


def test_a_provider_at_its_limit_leaves_the_free_slots_to_the_other_providers(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    state = Scheduler(WaitsForLocal(), store, 3, {"openrouter": 1}).run(tasks(1))
    assert (state.done, state.failed) == (4, 0)


def test_a_provider_limit_above_one_holds(tmp_path):
    store, backend = SqliteResultStore(tmp_path / "r.sqlite"), ThreadBackend(pause=0.05)
    only_local = (ModelSpec(parse_model("local:b")),)
    state = Scheduler(backend, store, 4, {"local": 2}).run(tasks(3, models=only_local))
    assert state.done == 6 and backend.peak["local"] <= 2


class FirstWaitsForTheRest(ThreadBackend):
    """The first episode ends only once every other one has been played beside it."""

    def __init__(self, tasks_: list[EpisodeTask]) -> None:
        super().__init__()
        self.first, self.total = tasks_[0].spec.key, len(tasks_)
        self.all_played = threading.Event()

    def _play(self, task: EpisodeTask) -> EpisodeRecord:
        record = super()._play(task)
        if len(self.played) == self.total:
            self.all_played.set()
        if task.spec.key == self.first and not self.all_played.wait(timeout=2):
            raise RuntimeError("the other slot was not refilled in time")
        return record


def test_a_slot_is_refilled_as_soon_as_its_episode_ends_not_when_all_running_end(tmp_path):
    store, tasks_ = SqliteResultStore(tmp_path / "r.sqlite"), tasks(3)
    state = Scheduler(FirstWaitsForTheRest(tasks_), store, 2, {}).run(tasks_)
    assert (state.done, state.failed) == (12, 0)


class InterruptedSeeds(ThreadBackend):
    """Episodes of the given seeds are interrupted on their own (no Ctrl-C in the sweep)."""

    def __init__(self, seeds: frozenset[int]) -> None:
        super().__init__()
        self.seeds = seeds

    def _play(self, task: EpisodeTask) -> EpisodeRecord:
        if task.spec.seed in self.seeds:
            raise EpisodeInterrupted(task.spec.key)
        return super()._play(task)


def test_an_interrupted_episode_is_counted_and_not_stored_so_a_rerun_plays_it(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    state = Scheduler(InterruptedSeeds(frozenset({13})), store, 2, {}).run(tasks(2))
    assert (state.done, state.failed, state.interrupted) == (4, 0, 4)
    assert len(store.episodes("s")) == 4 and len(state.records) == 4


class SecondCtrlC(ThreadBackend):
    """After the first episode, the others take a while; a second Ctrl-C comes while the
    sweep waits for them to stop, and they end with their record anyway."""

    first = tasks()[0].spec.key

    def pause_for(self, task: EpisodeTask) -> float:
        return 0.01 if task.spec.key == self.first else 0.5

    def interrupt(self) -> None:
        threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()


def test_a_second_ctrl_c_while_stopping_still_stores_the_episodes_that_end(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        state = Scheduler(SecondCtrlC(), store, 2, {}, StopAfter(1)).run(tasks())
    finally:
        signal.signal(signal.SIGINT, previous)
    assert state.stopped and (state.done, len(store.episodes("s"))) == (2, 2)


class Spending(ThreadBackend):
    """Each episode spends 100 tokens, as its estimate says."""

    def _play(self, task: EpisodeTask) -> EpisodeRecord:
        return replace(super()._play(task), prompt_tokens=90, completion_tokens=10)


def test_what_the_budget_left_unplayed_is_counted_with_what_it_would_take(tmp_path):
    """Issue 67: the sweep said `4 episode(s) left unplayed` without the estimate that
    stopped them; its state now holds their estimates."""
    store = SqliteResultStore(tmp_path / "r.sqlite")
    played = tasks(2)[:6]
    estimate = {task.spec.key: Spend(100 + 10 * i) for i, task in enumerate(played)}
    scheduler = Scheduler(Spending(), store, 1, {}, budget=Budget(tokens=250),
                          estimate=lambda task, turns: estimate[task.spec.key])  # fmt: skip
    state = scheduler.run(played)
    assert (state.done, state.unplayed, state.spent) == (2, 4, Spend(200))
    assert state.needed == Spend(sum(estimate[t.spec.key].tokens for t in played[2:]))
    assert state.least == Spend(120)  # the third, the first the 50 tokens left could not cover


class LostAsItStops(ThreadBackend):
    """Its workers are lost as the sweep stops (the terminal's Ctrl-C reached them too, or
    they were ended on the way): the episodes then running fail with no record."""

    first = tasks()[0].spec.key

    def pause_for(self, task: EpisodeTask) -> float:
        return 0.01 if task.spec.key == self.first else 0.5

    def _play(self, task: EpisodeTask) -> EpisodeRecord:
        try:
            return super()._play(task)
        except EpisodeInterrupted:
            raise RuntimeError("the worker process died (exit -2)") from None


def test_an_episode_whose_worker_is_lost_as_the_sweep_stops_is_interrupted_not_failed(tmp_path):
    """Issue 67: four episodes stored as `worker failed: WorkerLostError` after a Ctrl-C,
    which a plain re-run then skipped as done."""
    store = SqliteResultStore(tmp_path / "r.sqlite")
    state = Scheduler(LostAsItStops(), store, 2, {}, StopAfter(1)).run(tasks())
    assert state.stopped and state.interrupted >= 1 and state.failed == 0
    stored = store.episodes("s")
    assert [r.error for r in stored if r.failed] == []
    rerun = Scheduler(ThreadBackend(), store, 2, {}).run(tasks())
    assert (rerun.skipped, rerun.done) == (len(stored), 24 - len(stored))


class CtrlCWhileWriting(SqliteResultStore):
    """A store that the user's Ctrl-C interrupts while it writes its `at`-th episode."""

    def __init__(self, path: Path, at: int) -> None:
        super().__init__(path)
        self.writes, self.at = 0, at

    def record(self, episode: EpisodeRecord) -> None:
        self.writes += 1
        if self.writes == self.at:
            raise KeyboardInterrupt
        super().record(episode)


class FinishAnyway(ThreadBackend):
    """Its episodes end with their record even once stopped (their last turn was done)."""

    def __init__(self) -> None:
        super().__init__(pause=0.05)
        self.asked = threading.Event()

    def interrupt(self) -> None:
        self.asked.set()


def test_a_second_ctrl_c_while_a_result_is_written_loses_no_episode_and_ends_the_stop(tmp_path):
    store, backend = CtrlCWhileWriting(tmp_path / "r.sqlite", at=2), FinishAnyway()
    state = Scheduler(backend, store, 2, {}, StopAfter(1)).run(tasks())
    assert state.stopped and backend.asked.is_set()
    assert len(store.episodes("s")) == state.done == 2, "the one being written is written"


class SlowToStart:
    """Workers that take `seconds` to start: each episode's future is pending until then,
    running while it plays, then done."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.timers: list[threading.Timer] = []

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        future: Future[EpisodeRecord] = Future()
        up = threading.Timer(self.seconds, begun, (future,))
        ends = threading.Timer(self.seconds * 2, future.set_result, (record_of(task),))
        self.timers += [up, ends]
        up.start()
        ends.start()
        return future

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        for timer in self.timers:
            timer.join()


class Starting(Recording):
    """What the state says of each episode as it is handed out, begun and finished."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, int, int]] = []

    def started(self, task, state) -> None:
        self.seen.append(("started", state.starting, sum(state.running.values())))

    def began(self, task, state) -> None:
        self.seen.append(("began", state.starting, sum(state.running.values())))

    def finished(self, record, state) -> None:
        self.seen.append(("finished", state.starting, sum(state.running.values())))


def test_an_episode_counts_as_starting_until_its_worker_has_begun_it(tmp_path):
    """Issue 67: the live line said `running 4` while the workers still imported."""
    store, seen = SqliteResultStore(tmp_path / "r.sqlite"), Starting()
    state = Scheduler(SlowToStart(0.7), store, 2, {}, seen).run(tasks(1)[:2])
    assert seen.seen == [("started", 1, 1), ("started", 2, 2), ("began", 1, 2),
                         ("began", 0, 2), ("finished", 0, 1), ("finished", 0, 0)]  # fmt: skip
    assert (state.done, state.starting) == (2, 0)


class CtrlCAsItCloses(ThreadBackend):
    """Ctrl-C comes while the back-end waits for its workers to end, once."""

    def __init__(self) -> None:
        super().__init__()
        self.closes = 0

    def close(self) -> None:
        self.closes += 1
        if self.closes == 1:
            raise KeyboardInterrupt
        super().close()


def test_a_ctrl_c_while_the_workers_end_lets_them_end_then_stops_the_run(tmp_path):
    """Cut short, the wait left a worker that was never told to close waiting for its
    parent, which waited for it at exit: the sweep hung after saying it was interrupted."""
    store, backend = SqliteResultStore(tmp_path / "r.sqlite"), CtrlCAsItCloses()
    state = Scheduler(backend, store, 2, {}).run(tasks(1))
    assert state.stopped and backend.closes == 2 and len(store.episodes("s")) == 4
    backend = CtrlCAsItCloses()
    state = Scheduler(backend, store, 2, {}, StopAfter(1)).run(tasks(2))
    assert state.stopped and backend.closes == 2, "Ctrl-C again stops nothing more"


def test_a_rerun_counts_the_failed_episodes_it_keeps_unless_asked_to_play_them(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    Scheduler(ThreadBackend(fail_seeds=frozenset({12})), store, 2, {}).run(tasks(2))
    assert Scheduler(ThreadBackend(), store, 2, {}).run(tasks(2)).kept_failed == 4
    assert Scheduler(ThreadBackend(), store, 2, {}, redo_failed=True).run(tasks(2)).kept_failed == 0
