"""The official MCP conformance suite against our HTTP client and our two servers (issue 38).

For each spec revision (its frozen requirement set, run at its own wire: 2025-11-25 with the
initialize handshake, 2026-07-28 stateless) the suite runs once per target, and each scenario
it runs is a test case here; the scenarios that cannot apply are listed with their reasons in
applicability.py. The suite has no stdio mode: stdio is covered by our own tests.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections.abc import Callable, Iterator, Mapping

import pytest

from tests.conformance.applicability import (
    KNOWN_FAILURES,
    NOT_APPLICABLE,
    excused_checks,
    not_applicable,
)
from tests.support.conformance import (
    ConformanceSuite,
    ConformanceUnavailable,
    ScenarioResult,
    SuiteRun,
    conformance_suite,
)
from tests.support.http_servers import http_server

# One worker runs the module: its fixture runs the suite once per (revision, target) for
# every scenario, and two workers would each run it all again.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("conformance")]

REVISIONS = ("2025-11-25", "2026-07-28")
CLIENT = "client"
SERVERS = {
    "reasoning": ["-m", "zork_mcp.servers.reasoning", "--transport", "http", "--port", "{port}"],
    "text_adventure": [
        "-m", "zork_mcp.servers.text_adventure", "--transport", "http", "--port", "{port}"
    ],
}  # fmt: skip
CLIENT_COMMAND = [sys.executable, "-m", "tests.conformance.client"]


def leg_of(target: str) -> str:
    return "client" if target == CLIENT else "server"


def installed_suite() -> ConformanceSuite:
    try:
        return conformance_suite()
    except ConformanceUnavailable as error:
        pytest.fail(f"the MCP conformance suite is unavailable: {error}", pytrace=False)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One case per scenario the pinned suite runs for a revision and target: the names
    come from the installed package's requirement sets, so the install happens here, once."""
    if "scenario" not in metafunc.fixturenames:
        return
    suite = installed_suite()
    cases = []
    for revision in REVISIONS:
        requirements = suite.requirements(revision)
        for target in (CLIENT, *SERVERS):
            leg = leg_of(target)
            known = KNOWN_FAILURES.get((leg, revision), {})
            for scenario in requirements.scenarios[leg]:
                if not_applicable(leg, scenario) is not None:
                    continue
                marks = []
                if scenario in known:
                    marks.append(pytest.mark.xfail(reason=known[scenario], strict=True))
                name = f"{revision}-{target}-{scenario}"
                cases.append(pytest.param(revision, target, scenario, marks=marks, id=name))
    metafunc.parametrize(("revision", "target", "scenario"), cases)


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory) -> Iterator[Callable[[str, str], SuiteRun]]:
    """The suite run once per (revision, target), when a test first asks for it."""
    suite = installed_suite()
    done: dict[tuple[str, str], SuiteRun] = {}

    def run(revision: str, target: str) -> SuiteRun:
        if (revision, target) not in done:
            output = tmp_path_factory.mktemp(f"conformance-{revision}-{target}")
            if target == CLIENT:
                done[revision, target] = suite.run_client(CLIENT_COMMAND, revision, output)
            else:
                env = {}
                if target == "text_adventure":
                    env["GAME"] = str(request.getfixturevalue("zork_game"))
                with http_server(SERVERS[target], env=env) as server:
                    done[revision, target] = suite.run_server(server.url, revision, output)
        return done[revision, target]

    yield run


def test_scenario(runs, revision: str, target: str, scenario: str) -> None:
    run = runs(revision, target)
    result = run.results.get(scenario)
    assert result is not None, f"the suite wrote no result for {scenario}:\n{run.output[-3000:]}"
    leg = leg_of(target)
    excused = excused_checks(leg, scenario)
    seen = {check.get("id") for check in result.checks}
    stale = [check for check in excused if check not in seen]
    assert not stale, f"applicability.py excuses checks {scenario} no longer has: {stale}"
    failures = result.failures(excused)
    if failures:
        pytest.fail(describe(result, failures), pytrace=False)


def describe(result: ScenarioResult, failures: list[Mapping]) -> str:
    lines = [f"{result.scenario}: {len(failures)} check(s) failed"]
    for check in failures:
        why = check.get("errorMessage") or json.dumps(check.get("details"))[:500]
        lines.append(f"  {check.get('id')}: {why}")
    if result.client_stderr.strip():
        lines += ["our client's stderr (last lines):", result.client_stderr[-2000:]]
    return "\n".join(lines)


def test_every_listed_exception_names_a_scenario_the_suite_runs() -> None:
    """A reason for a scenario the pinned suite does not run is a stale entry."""
    suite = installed_suite()
    runs_for = {leg: set() for leg in NOT_APPLICABLE}
    for revision in REVISIONS:
        for leg, scenarios in suite.requirements(revision).scenarios.items():
            runs_for[leg].update(scenarios)
    stale = [
        f"{leg}: {key}"
        for leg, entries in NOT_APPLICABLE.items()
        for key in entries
        if not fnmatch.filter(runs_for[leg], key.split(":", 1)[0])
    ]
    stale += [
        f"{leg} {revision}: {scenario}"
        for (leg, revision), entries in KNOWN_FAILURES.items()
        for scenario in entries
        if scenario not in suite.requirements(revision).scenarios[leg]
        or not_applicable(leg, scenario) is not None
    ]
    assert not stale, f"applicability.py names scenarios the suite does not run: {stale}"
