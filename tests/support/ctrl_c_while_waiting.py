"""A sweep whose Ctrl-C comes as it takes the lock of a future it waits on (`python -m
tests.support.ctrl_c_while_waiting stops|raises`): as the app's sweep takes it (`stops`,
Ctrl-C sets the scheduler's stop), or as a KeyboardInterrupt (`raises`), which leaves the
lock held: the worker thread that settles that future then waits for it, and the sweep for
the future, for ever. Prints the sweep's stopped and interrupted counts."""

from __future__ import annotations

import signal
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

from tests.support.sweep_players import tasks
from zork_mcp.adapters.storage.fake_results import FakeResultStore
from zork_mcp.app.sweep.ctrl_c import ctrl_c_stops
from zork_mcp.domain.sweep.controls import EpisodeInterrupted
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.scheduler import Scheduler


class CtrlCAsItWaits:
    """Its episodes end only when stopped; Ctrl-C comes as the sweep first takes the lock
    of the first one's future to wait on it."""

    def __init__(self) -> None:
        self.futures: list[tuple[Future[EpisodeRecord], EpisodeTask]] = []
        self.pressed = False

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        future: Future[EpisodeRecord] = Future()
        if not self.futures:
            take = future._condition.acquire  # what `wait` calls, for each future in turn

            def acquire(*args: object) -> bool:
                taken = take(*args)
                if not self.pressed and threading.current_thread() is threading.main_thread():
                    self.pressed = True
                    signal.raise_signal(signal.SIGINT)
                return taken

            future._condition.acquire = acquire  # type: ignore[method-assign]
        self.futures.append((future, task))
        return future

    def interrupt(self) -> None:
        for future, task in self.futures:
            stopped = EpisodeInterrupted(task.spec.key)
            threading.Thread(target=future.set_exception, args=(stopped,), daemon=True).start()

    def close(self) -> None:
        pass


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal
    played, store = tasks(2, Path(".")), FakeResultStore()
    if sys.argv[1] == "stops":
        with ctrl_c_stops() as stop:
            state = Scheduler(CtrlCAsItWaits(), store, 2, {}, stop=stop).run(played)
    else:
        state = Scheduler(CtrlCAsItWaits(), store, 2, {}).run(played)
    print(state.stopped, state.interrupted)
