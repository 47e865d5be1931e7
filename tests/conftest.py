"""Shared fixtures: paths, the npm reference server, and the process-leak check."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import httpx
import pytest

from tests.support import global_tracing
from tests.support.cache_lock import installing
from tests.support.network import LOOPBACK, PROVIDER_KEYS, RealProviderBlocked
from tests.support.paths import ROOT

NPM_PACKAGE = "@modelcontextprotocol/server-sequential-thinking@2026.8.31"
NPM_PREFIX = ROOT / ".cache" / "npm"
NPM_ENTRY = (
    NPM_PREFIX
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-sequential-thinking"
    / "dist"
    / "index.js"
)


@pytest.fixture(scope="session")
def sequential_thinking_js() -> Path:
    """The npm reference server, installed once into .cache/npm (by one worker of a
    parallel run, the others waiting) and run with node."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are needed for the npm sequential-thinking server")
    with installing(NPM_PREFIX):
        if not NPM_ENTRY.exists():
            NPM_PREFIX.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [
                    "npm",
                    "install",
                    "--prefix",
                    str(NPM_PREFIX),
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    NPM_PACKAGE,
                ],
                check=True,
                timeout=600,
                capture_output=True,
            )
    return NPM_ENTRY


@pytest.fixture(scope="session")
def lantern_game(tmp_path_factory) -> Path:
    """Lantern Hill, a version 3 story file of the tests' own that no profile knows."""
    from tests.support.lantern import compile_lantern

    return compile_lantern(tmp_path_factory.mktemp("lantern"))


@pytest.fixture(scope="session")
def zork_game() -> Path:
    """Zork I's story file, as a run finds it by default (the package's, or $ZORK_MCP_GAME)."""
    from zork_mcp.adapters.game.jericho import find_game_file

    return find_game_file(base=ROOT)


@pytest.fixture(autouse=True)
def no_real_providers(monkeypatch):
    """Tests never reach a real provider: no keys in the environment, loopback-only HTTP."""
    for name in PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)
    original = httpx.AsyncHTTPTransport.handle_async_request

    async def loopback_only(self, request):
        if request.url.host not in LOOPBACK:
            raise RealProviderBlocked(f"tests may not reach {request.url.host}")
        return await original(self, request)

    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", loopback_only)


@pytest.fixture(autouse=True)
def no_tracer_outlives_its_test():
    """A global tracer provider a test installed (a Langfuse client does) ends with the test:
    no later test's spans go to a receiver that test closed (tests/support/global_tracing.py)."""
    from opentelemetry import trace

    before = trace.get_tracer_provider()
    yield
    if global_tracing.taken_since(before):
        global_tracing.give_back()


GAME_FOLDERS = "zork_mcp_game_*"
SESSION_TEMP = pytest.StashKey[Path]()
OUTER_TEMP = pytest.StashKey[tuple[str | None, str | None]]()
WORKERS_LEFT = pytest.StashKey[list[str]]()
UNGROUPED = pytest.StashKey[set[str]]()
GAME_FOLDERS_LEFT = "game_folders_left"  # a worker's report to the main process


@pytest.hookimpl(tryfirst=True)  # before the tmp_path plugin reads --basetemp
def pytest_configure(config: pytest.Config) -> None:
    """Each test session has a temp folder of its own, given to every process it starts
    (TMPDIR): what is left there is this session's, so a sweep or a second test session on
    the same machine never fails this one's leftover checks, nor this one theirs. Its name is
    short: sockets made under it must fit in AF_UNIX's 108 bytes. So is tmp_path's root in
    it (`t/`, not `pytest-of-root/pytest-0/`): a parallel worker's adds `popen-gw1/`."""
    folder = tempfile.mkdtemp(prefix="zt")
    config.stash[SESSION_TEMP] = Path(folder)
    config.stash[OUTER_TEMP] = (os.environ.get("TMPDIR"), tempfile.tempdir)
    os.environ["TMPDIR"] = tempfile.tempdir = folder
    if config.option.basetemp is None:  # a worker is given its main process's, plus its name
        config.option.basetemp = str(Path(folder) / "t")


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled them
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, each class still in random order: a parallel run hands out
    its tests in this order (after its groups), so a long one drawn last would leave the
    other worker idle while it ends."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """A parallel worker with `--dist loadgroup` notes the grouped tests whose node id lacks
    its group: pytest-xdist then hands them to any worker, so tests that share a port, Ray
    or a module's fixture would run side by side (pytest-xdist#1386). Each then fails."""
    if not session.config.getoption("loadgroup", False):
        return
    session.config.stash[UNGROUPED] = {
        item.nodeid
        for item in session.items
        if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid
    }


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.nodeid in item.config.stash.get(UNGROUPED, set()):
        pytest.fail(
            "pytest-xdist lost this test's xdist_group, so --dist loadgroup would run it "
            "beside tests it must not share with: this pytest and pytest-xdist do not work "
            "together (pytest-xdist#1386); install the versions pyproject.toml's dev extra pins",
            pytrace=False,
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Every game process removes its private folder, whatever ended it: a folder left in
    this session's temp folder fails the run (issue 25: nothing left behind). The session's
    folder goes with the session. A parallel worker's folder is its own (made inside the
    main process's, as its TMPDIR): the worker hands what it found to the main process,
    which alone can fail the run."""
    folder = session.config.stash.get(SESSION_TEMP, None)
    if folder is None:
        return
    left = [path.name for path in sorted(folder.glob(GAME_FOLDERS))]
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:
        worker_output[GAME_FOLDERS_LEFT] = left
        return
    left += session.config.stash.get(WORKERS_LEFT, [])
    if left:
        print(f"\nFAILED: game folders outlived the tests that made them: {', '.join(left)}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node) -> None:
    """A parallel worker ended (pytest-xdist): the game folders it found left are the run's."""
    output = getattr(node, "workeroutput", None) or {}
    node.config.stash.setdefault(WORKERS_LEFT, []).extend(output.get(GAME_FOLDERS_LEFT, []))


def pytest_unconfigure(config: pytest.Config) -> None:
    """The session's folder goes, and the process's temp folder is what it was: a runner
    that starts sessions one after another in one process (mutmut) gets a live one."""
    folder = config.stash.get(SESSION_TEMP, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        environ_tmpdir, tempfile.tempdir = config.stash[OUTER_TEMP]
        if environ_tmpdir is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = environ_tmpdir
