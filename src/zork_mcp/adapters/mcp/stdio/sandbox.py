"""How a stdio server process is confined: the facts of its surroundings gathered here (its
folder, Python's paths, the home folder), the policy decided by `domain.confinement`, and
a private folder made before it starts and removed when it ends (its TMPDIR).

Its Landlock ruleset is built here, in the agent, and handed to the process: a spawned
server runs through the `adapters/posix/confined` launcher, which enforces it and execs the
command; a forked one enforces it right after the fork server hands it its request
(`zygote.run_server`), before its module runs. So a start pays only the enforcing. Where
the kernel allows, its tree is sealed in namespaces of its own too (`Handover.writable`,
adapters/posix/namespaces.py): a forked server's spare makes them ahead of its request.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from zork_mcp.adapters.game.jericho.story import packaged_story
from zork_mcp.adapters.posix.landlock import build_ruleset
from zork_mcp.adapters.posix.namespaces import namespaces_available
from zork_mcp.domain.game.trilogy import KNOWN_GAMES
from zork_mcp.domain.servers.confinement import (
    Confinement,
    Network,
    Sandbox,
    ServerFacts,
    launcher_cache,
    server_confinement,
)
from zork_mcp.domain.servers.host_list import PROXY_PORT, HostRule, host_rules, proxy_environment

LAUNCHER = "zork_mcp.adapters.posix.confined"
FOLDER_PREFIX = "zork-mcp-server-"
TEMP_VARIABLES = ("TMPDIR", "TMP", "TEMP")


@dataclass(frozen=True)
class Handover:
    """What a confined process is handed as it starts: its Landlock ruleset's descriptor
    (None: the kernel has none), how its network is confined, its end of the unix socket
    that carries its proxy's listener back (when proxied), and the paths its sealed tree
    leaves writable (None: not sealed, the kernel lets it make no namespace)."""

    ruleset: int | None
    network: Network
    channel: int | None = None
    writable: tuple[str, ...] | None = None  # sealed: what its tree leaves writable

    @property
    def fds(self) -> tuple[int, ...]:
        """The descriptors it inherits, in this order."""
        return tuple(fd for fd in (self.ruleset, self.channel) if fd is not None)

    def launcher_argv(self, argv: Sequence[str]) -> list[str]:
        """`argv` run through the launcher, which confines itself then execs it."""
        ruleset = "-" if self.ruleset is None else str(self.ruleset)
        network = self.network.value
        if self.network is Network.PROXIED:
            network = f"{network}:{self.channel}:{PROXY_PORT}"
        tree = ["shared"] if self.writable is None else ["sealed", *self.writable]
        return [sys.executable, "-m", LAUNCHER, ruleset, network, *tree, "--", *argv]

    def fork_request(self) -> dict[str, Any]:
        """What the fork server's child is told: `confine_self`'s arguments, with the numbers
        its descriptors get there (`fds`, in order after stdin, stdout and stderr)."""
        numbers = iter(range(3, 3 + len(self.fds)))
        ruleset = next(numbers) if self.ruleset is not None else None
        channel = next(numbers) if self.channel is not None else None
        writable = None if self.writable is None else list(self.writable)
        return {
            "ruleset": ruleset,
            "network": self.network.value,
            "channel": channel,
            "proxy_port": PROXY_PORT,
            "writable": writable,
        }


@dataclass(frozen=True)
class Confined:
    """One process's confinement: its rules, its private folder to remove at its end, and
    the hosts its proxy lets it reach (when its network is proxied)."""

    rules: Confinement
    folder: str
    hosts: tuple[HostRule, ...] = ()

    @property
    def proxied(self) -> bool:
        return self.rules.network is Network.PROXIED

    def environment(
        self, env: Mapping[str, str], configured: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """`env` with its temporary folder the private one, unless the server's entry names
        its own (which its `sandbox.write` must then allow); and its proxy, when it has one."""
        own = {name: env[name] for name in TEMP_VARIABLES if name in (configured or {})}
        env = {**env, **dict.fromkeys(TEMP_VARIABLES, self.folder), **own}
        return proxy_environment(env) if self.proxied else env

    @contextlib.contextmanager
    def handover(self) -> Iterator[tuple[Handover, socket.socket | None]]:
        """What the process is handed, and our end of its proxy's socket (None: no proxy),
        which the caller keeps; the process's descriptors are closed once it has them."""
        ruleset = build_ruleset(self.rules.as_dict())
        ours, theirs = (
            socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            if self.proxied
            else (None, None)
        )
        try:
            channel = theirs.fileno() if theirs is not None else None
            writable = self.rules.write if self.rules.sealed else None
            yield Handover(ruleset, self.rules.network, channel, writable), ours
        except BaseException:
            if ours is not None:
                ours.close()
            raise
        finally:
            if ruleset is not None:
                os.close(ruleset)
            if theirs is not None:
                theirs.close()

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class ServerSandbox:
    """Confines each process of one server, or none (`"sandbox": false`, or switched off)."""

    def __init__(self, sandbox: Sandbox | None) -> None:
        self._sandbox = sandbox
        self._policies: dict[tuple[str, ...], Confinement] = {}  # by command line and env

    @property
    def enabled(self) -> bool:
        return self._sandbox is not None

    def prepare(self, command: str, args: Sequence[str], env: Mapping[str, str]) -> Confined | None:
        """A new private folder and the rules for `command args`, or None (unconfined)."""
        if self._sandbox is None:
            return None
        folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX)
        rules = self._policy_of(command, args, env).writing(folder)
        return Confined(rules, folder, host_rules(self._sandbox.hosts or ()))

    def _policy_of(self, command: str, args: Sequence[str], env: Mapping[str, str]) -> Confinement:
        """Its surroundings looked up on disk, and its policy decided, once per command line
        and environment: each start then only makes its folder (a forked start's
        confinement stays under a millisecond)."""
        key = (os.getcwd(), command, *args, "\0", *sorted(f"{k}={v}" for k, v in env.items()))
        policy = self._policies.get(key)
        if policy is None:
            facts = server_facts(
                command, args, env, given=self._sandbox.read, guarded=self._sandbox.write
            )
            cache = launcher_cache(command, facts.home)
            if cache is not None:  # before the policy, which grants only folders that exist
                with contextlib.suppress(OSError):
                    os.makedirs(cache, mode=0o700, exist_ok=True)
                facts = replace(facts, launcher_cache=cache)
            # asked once a process (a probe costs ~20 ms): namespaces seal every server
            facts = replace(facts, namespaces=namespaces_available())
            policy = self._policies[key] = server_confinement(facts, self._sandbox)
        return policy


def server_facts(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    given: Sequence[str] = (),
    guarded: Sequence[str] = (),
) -> ServerFacts:
    """`given`: files its entry grants by name (an episode's journal), which an argument
    may name as data: each is read as itself, never as code whose folder it may read.
    `guarded`: the folders its entry may write (its own folder of the episode, ...): a
    folder its arguments name that is or holds one of them, or the working or home folder,
    is left out, judged as the kernel sees folders (by device and inode, so a symbolic
    link, `..` or a bind mount on the way is the same folder to the guard)."""
    cwd = os.getcwd()
    home = env.get("HOME") or os.path.expanduser("~")
    data = {os.path.realpath(path) for path in given}
    code = [arg for arg in args if _real(cwd, arg) not in data]
    own, lists_cwd = _own_folders(command, code, cwd, home)
    held = _held(cwd, home, *(_home_expanded(path, home) for path in guarded))
    folders = tuple(
        os.path.realpath(path)
        for path in (_home_expanded(arg, home) for arg in args)
        if path.startswith("/") and _is_folder(Path(path)) and _identity(path) not in held
    )
    return ServerFacts(
        home=os.path.realpath(home),
        cwd=cwd,
        python_paths=python_paths(env),
        own_folders=(*own, *_given_files(env, cwd)),
        arg_folders=folders,
        lists_cwd=lists_cwd,
    )


def python_paths(env: Mapping[str, str]) -> tuple[str, ...]:
    """The interpreter's prefixes and import folders, and the folders of PATH."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    executable = os.path.dirname(os.path.realpath(sys.executable))
    folders = [p for p in sys.path if p and os.path.isabs(p)]
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and os.path.isabs(p)]
    return tuple(dict.fromkeys([*sorted(prefixes), executable, *folders, *path]))


def _own_folders(
    command: str, args: Sequence[str], cwd: str, home: str
) -> tuple[tuple[str, ...], bool]:
    """The folders of the server's own code: a `-m` module's top package, a script's folder,
    a package's root above its `node_modules`; and whether its names are in the working
    folder (which is then listed, never read: a script there is readable, not its sibling
    files)."""
    own: list[str] = []
    lists_cwd = False
    if len(args) > 1 and args[0] == "-m":
        top = args[1].split(".")[0]
        for candidate in (Path(cwd, top), Path(cwd, f"{top}.py")):
            if candidate.exists():
                own.append(str(candidate))
                lists_cwd = True
    for word in [command, *args]:
        path = Path(cwd, word)
        if "/" not in word or not path.is_file():
            continue
        real = Path(os.path.realpath(path))
        folder = _package_root(real)
        if _holds(folder, cwd) or _holds(folder, home):
            own.append(str(real))
            lists_cwd = lists_cwd or _holds(real.parent, cwd)
        else:
            own.append(str(folder))
    return tuple(own), lists_cwd


def _given_files(env: Mapping[str, str], cwd: str) -> tuple[str, ...]:
    """The files its environment names (the text-adventure server's GAME, say): given to it,
    so readable, each file alone (credential-like variables never reach a server's env); and
    the story files the package ships, which our text-adventure server plays by name."""
    files = [os.path.realpath(packaged_story(key)) for key in KNOWN_GAMES]
    for value in env.values():
        if "/" in value and _is_file(Path(cwd, value)):
            files.append(os.path.realpath(Path(cwd, value)))
    return tuple(files)


def _home_expanded(word: str, home: str) -> str:
    return f"{home}/{word[2:]}" if word.startswith("~/") else word


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _held(*folders: str) -> set[tuple[int, int] | None]:
    """The identities of `folders` and of every folder above each, as the kernel resolves
    them: a folder whose identity is here is, or holds, one of them."""
    held: set[tuple[int, int] | None] = set()
    for folder in folders:
        real = Path(os.path.realpath(folder))
        for above in (real, *real.parents):
            if (identity := _identity(str(above))) is not None:
                held.add(identity)
    return held - {None}


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _real(cwd: str, word: str) -> str:
    try:
        return os.path.realpath(Path(cwd, word))
    except (OSError, ValueError):
        return word


def _is_file(path: Path) -> bool:
    """Whether a variable's value names a file (a value is any text: too long, a NUL, ...)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _package_root(file: Path) -> Path:
    """The folder above the first `node_modules` (its packages and their dependencies), or
    the file's own folder."""
    parts = file.parts
    if "node_modules" in parts:
        return Path(*parts[: parts.index("node_modules")])
    return file.parent


def _holds(folder: Path, place: str) -> bool:
    """Whether `folder` is `place` or holds it: granting it would grant `place`."""
    inner = PurePosixPath(place)
    return PurePosixPath(folder) == inner or PurePosixPath(folder) in inner.parents
