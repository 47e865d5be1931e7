"""Canaries for the MCP SDK's private parts this project uses, all in adapters/mcp/sdk.py: an
SDK release that moves, renames or reshapes one fails here, naming the use and what to do,
instead of breaking a session at run time. And the rule that keeps them there: no other
module in src/ reaches a private SDK name (issue 48)."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections.abc import Iterator, Mapping
from importlib.metadata import version
from typing import Any, Literal

import mcp.types as types
import pytest
from mcp import ClientSession, InputRequiredRoundsExceededError
from mcp.server.mcpserver import MCPServer
from mcp.shared.dispatcher import Dispatcher
from mcp.shared.exceptions import MCPError
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

from tests.support.paths import ROOT
from zork_mcp.adapters.mcp import sdk
from zork_mcp.adapters.mcp.client_session import CLIENT_INFO, ZorkClientSession

SRC = ROOT / "src" / "zork_mcp"
SDK_PY = SRC / "adapters" / "mcp" / "sdk.py"
SDK_PACKAGES = ("mcp", "mcp_types")
OLD_HANDSHAKE = "2025-06-18"
ROOTS = types.ListRootsResult(roots=[])
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}


def broke(use: str, change: str, todo: str) -> str:
    return f"MCP SDK {version('mcp')}: {use} (adapters/mcp/sdk.py) {change}. {todo}"


def parameters(function: Any) -> list[tuple[str, str]]:
    signature = inspect.signature(function)
    return [(name, p.kind.name) for name, p in signature.parameters.items()]


class ScriptedDispatcher:
    """The SDK's Dispatcher with an answer (or an MCPError) per method, recording each send."""

    def __init__(self, answers: Mapping[str, Any] | None = None) -> None:
        self.answers = dict(answers or {})
        self.sent: list[tuple[str, Any, Any]] = []

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> dict[str, Any]:
        self.sent.append((method, params, opts))
        answer = self.answers[method]
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        self.sent.append((method, params, opts))

    def methods(self) -> list[str]:
        return [method for method, _, _ in self.sent]


def dumped(result: types.Result) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def discovered(version: str = LATEST_MODERN_VERSION) -> types.DiscoverResult:
    return types.DiscoverResult(
        supported_versions=[version],
        capabilities=types.ServerCapabilities(),
        result_type="complete",
        ttl_ms=0,
        cache_scope="public",
    )


def initialized(version: str = LATEST_HANDSHAKE_VERSION) -> types.InitializeResult:
    server = types.Implementation(name="s", version="1")
    return types.InitializeResult(
        protocol_version=version, capabilities=types.ServerCapabilities(), server_info=server
    )


class NamedParams(types.RequestParams):
    name: str


class NamedRequest(types.Request[NamedParams, Literal["x/named"]]):
    """A request that names itself in the Mcp-Name header by `name_param`, as tasks/* will."""

    method: Literal["x/named"] = "x/named"
    params: NamedParams
    name_param = "name"


ANSWERS = {
    "x/named": {},
    "tools/call": {"content": [], "resultType": "complete"},
    "tools/list": {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"},
    "initialize": dumped(initialized(OLD_HANDSHAKE)),
}


async def list_roots(_: Any) -> types.ListRootsResult:
    return ROOTS


def session(answers: Mapping[str, Any] | None = None) -> tuple[ZorkClientSession, Any]:
    dispatcher = ScriptedDispatcher(answers if answers is not None else ANSWERS)
    return ZorkClientSession(dispatcher=dispatcher, list_roots_callback=list_roots), dispatcher


# negotiate_auto (mcp.client._probe), used by era.Eras.speak


def test_negotiate_auto_takes_the_session():
    assert inspect.iscoroutinefunction(sdk.negotiate_auto) and parameters(sdk.negotiate_auto) == [
        ("session", "POSITIONAL_OR_KEYWORD")
    ], broke(
        "negotiate_auto",
        f"is no longer `async def negotiate_auto(session)`: {parameters(sdk.negotiate_auto)}",
        "Find the SDK's new connect-time probe (what Client(mode='auto') calls) and call it in "
        "Eras.speak, or write the probe there from session.send_discover/initialize/adopt.",
    )


@pytest.mark.parametrize(
    ("discover", "adopted"),
    [
        (dumped(discovered()), LATEST_MODERN_VERSION),
        (MCPError(types.METHOD_NOT_FOUND, "no such method"), LATEST_HANDSHAKE_VERSION),
    ],
    ids=["modern", "handshake"],
)
async def test_negotiate_auto_leaves_the_session_in_an_era(discover, adopted):
    """Eras.speak remembers session.discover_result, else session.initialize_result."""
    client, dispatcher = session({"server/discover": discover, "initialize": dumped(initialized())})
    await sdk.negotiate_auto(client)
    found = client.discover_result or client.initialize_result
    assert found is not None and client.protocol_version == adopted, broke(
        "negotiate_auto",
        f"left the session at {client.protocol_version!r}, not {adopted!r}, with "
        f"{type(found).__name__} (it sent {dispatcher.methods()})",
        "Eras.speak remembers one of them per server: adapt it to what the probe leaves.",
    )


# run_input_required_driver (mcp.client._input_required), used by client_requests.answered


def test_run_input_required_driver_keeps_its_keywords():
    assert inspect.iscoroutinefunction(sdk.run_input_required_driver) and parameters(
        sdk.run_input_required_driver
    ) == [
        ("first", "POSITIONAL_OR_KEYWORD"),
        ("dispatch", "KEYWORD_ONLY"),
        ("retry", "KEYWORD_ONLY"),
        ("max_rounds", "KEYWORD_ONLY"),
    ], broke(
        "run_input_required_driver",
        f"changed its parameters: {parameters(sdk.run_input_required_driver)}",
        "Update the call in client_requests.answered to the new signature.",
    )


def asking(state: str = "s") -> types.InputRequiredResult:
    return types.InputRequiredResult(
        input_requests={"r": types.ListRootsRequest()}, request_state=state
    )


async def drive(dispatch: Any, retry: Any, rounds: int = 3) -> Any:
    return await sdk.run_input_required_driver(
        asking(), dispatch=dispatch, retry=retry, max_rounds=rounds
    )


async def test_run_input_required_driver_answers_then_sends_again():
    seen: list[Any] = []

    async def dispatch(key: str, request: types.InputRequest) -> types.InputResponse:
        seen.append((key, request.method))
        return ROOTS

    async def retry(responses: Any, state: str | None) -> Any:
        seen.append((sorted(responses or {}), state))
        return {"content": []}

    final = await drive(dispatch, retry)
    assert final == {"content": []} and seen == [("r", "roots/list"), (["r"], "s")], broke(
        "run_input_required_driver",
        f"no longer dispatches each request, then retries with the responses and state: {seen}",
        "client_requests.answered relies on that order: read the SDK's new driver and adapt.",
    )


async def outcome(dispatch: Any, retry: Any, rounds: int = 3) -> Any:
    try:
        return await drive(dispatch, retry, rounds)
    except Exception as error:
        return error


class RetryFailed(Exception):
    pass


async def test_run_input_required_driver_ends_in_the_errors_answered_catches():
    async def give(key: str, request: types.InputRequest) -> types.InputResponse:
        return ROOTS

    async def refuse(key: str, request: types.InputRequest) -> types.ErrorData:
        return types.ErrorData(code=types.INVALID_REQUEST, message="not given")

    async def ask_again(responses: Any, state: str | None) -> Any:
        return asking()

    async def fail(responses: Any, state: str | None) -> Any:
        raise RetryFailed

    refused = await outcome(refuse, ask_again)
    ends = {
        "asked past max_rounds": await outcome(give, ask_again, rounds=1),
        "a request refused": refused,
        "the retry failed": await outcome(give, fail),
    }
    expected = {
        "asked past max_rounds": InputRequiredRoundsExceededError,
        "a request refused": MCPError,
        "the retry failed": RetryFailed,
    }
    wrong = {
        end: repr(ends[end]) for end, kind in expected.items() if not isinstance(ends[end], kind)
    }
    assert not wrong and refused.error.message == "not given", broke(
        "run_input_required_driver",
        f"ends otherwise than in InputRequiredRoundsExceededError, the refusal's MCPError and "
        f"retry's own error: {wrong or refused}",
        "client_requests.answered catches these three: adapt its except clauses.",
    )


# MCP_DEFAULT_TIMEOUT, MCP_DEFAULT_SSE_READ_TIMEOUT (mcp.shared._httpx_utils), used by http


def test_the_http_default_timeouts_are_seconds():
    timeouts = (sdk.MCP_DEFAULT_TIMEOUT, sdk.MCP_DEFAULT_SSE_READ_TIMEOUT)
    assert all(isinstance(t, int | float) and t > 0 for t in timeouts), broke(
        "MCP_DEFAULT_TIMEOUT, MCP_DEFAULT_SSE_READ_TIMEOUT",
        f"are no longer seconds: {timeouts}",
        "Give http.tool_server's client timeouts of its own (30 s, and 300 s to read).",
    )


# ClientSession's private members, used by SdkClientSession


@pytest.mark.parametrize(
    ("member", "expected", "use"),
    [
        ("_build_capabilities", ["self", "version"], "capabilities_at"),
        ("_absorb_tool_listing", ["self", "result", "complete"], "absorb_tools"),
        ("_output_schema_validator", ["self", "name", "output_schema"], "the validator hook"),
    ],
)
def test_client_session_keeps_the_methods_we_call(member, expected, use):
    method = getattr(ClientSession, member, None)
    found = list(inspect.signature(method).parameters) if method else None
    assert found == expected, broke(
        f"SdkClientSession.{use}",
        f"calls ClientSession.{member}{tuple(expected[1:])}, which is now {found}",
        f"Find what replaced {member} in mcp/client/session.py and call that instead.",
    )


def test_client_session_keeps_the_state_we_read():
    client, dispatcher = session()
    state = vars(client)
    stamp = state.get("_stamp")
    send = getattr(Dispatcher, "send_raw_request", None)
    shapes = {
        "_client_info": state.get("_client_info") is CLIENT_INFO,
        "_stamp": callable(stamp) and list(inspect.signature(stamp).parameters) == ["data", "opts"],
        "_dispatcher": state.get("_dispatcher") is dispatcher,
        "_tool_output_validators": isinstance(state.get("_tool_output_validators"), dict),
        "_dispatcher.send_raw_request": send is not None
        and list(inspect.signature(send).parameters) == ["self", "method", "params", "opts"],
    }
    changed = sorted(name for name, kept in shapes.items() if not kept)
    assert not changed, broke(
        f"SdkClientSession's use of {changed}",
        "no longer finds what ClientSession.__init__ set there (or its shape changed)",
        "Read ClientSession.__init__ for the new name and shape, and update sdk.py.",
    )


def test_our_names_shadow_nothing_of_the_sdks():
    client, _ = session()
    ours = {name for name in vars(sdk.SdkClientSession) if not name.startswith("__")}
    clashes = sorted(
        name
        for name in ours - {"_output_schema_validator"}  # the one override we mean
        if hasattr(ClientSession, name) or name in vars(client)
    )
    assert not clashes, broke(
        f"SdkClientSession's {clashes}",
        "now hide members of the SDK's ClientSession of the same name",
        "Use the SDK's member if it does the same (and drop ours), else rename ours.",
    )


@pytest.mark.parametrize("era", ["handshake", "modern"])
@pytest.mark.parametrize(
    ("sent", "answer"),
    [
        (
            types.CallToolRequest(params=types.CallToolRequestParams(name="t", arguments={"a": 1})),
            types.CallToolResult,
        ),
        (
            types.ListToolsRequest(params=types.PaginatedRequestParams(cursor="c")),
            types.ListToolsResult,
        ),
        (NamedRequest(params=NamedParams(name="n")), types.EmptyResult),
    ],
    ids=["tools/call", "tools/list", "named"],
)
async def test_send_unvalidated_sends_what_send_request_sends(era, sent, answer):
    """What the wire carries must not depend on which of the two sent it."""
    client, dispatcher = session()
    client.adopt(discovered() if era == "modern" else initialized())
    await client.send_request(sent, answer, 7)
    await client.send_unvalidated(sent, 7)
    sdks, ours = dispatcher.sent
    assert ours == sdks, broke(
        "SdkClientSession.send_unvalidated",
        f"no longer sends what send_request sends:\n  SDK: {sdks}\n  ours: {ours}",
        "Make send_unvalidated do what ClientSession.send_request now does before it "
        "validates the answer (its stamp, headers and options).",
    )


async def test_initialize_at_sends_what_initialize_sends_at_another_version():
    ours, theirs = session(), session()
    await ours[0].initialize_at(OLD_HANDSHAKE)
    await theirs[0].initialize()
    sent, expected = ours[1].sent, theirs[1].sent
    expected[0][1]["protocolVersion"] = OLD_HANDSHAKE
    assert sent == expected, broke(
        "SdkClientSession.client_info and capabilities_at (for ZorkClientSession.initialize_at)",
        f"no longer give what initialize sends:\n  SDK: {expected}\n  ours: {sent}",
        "Make initialize_at send what ClientSession.initialize now sends, at its version.",
    )


async def test_absorbed_tools_are_what_validation_reads():
    """validate_tool_result asks the server for tools it was not told of: absorb_tools must
    tell it, or every checked call costs a tools/list."""
    client, dispatcher = session()
    kept = client.absorb_tools([types.Tool(name="t", input_schema={}, output_schema=SCHEMA)])
    result = types.CallToolResult(content=[], structured_content={"n": -1})
    try:
        await client.validate_tool_result("t", result)
        refusal = "none"
    except Exception as error:
        refusal = str(error)
    assert [tool.name for tool in kept] == ["t"] and dispatcher.sent == [], broke(
        "SdkClientSession.absorb_tools",
        f"no longer feeds validate_tool_result (it sent {dispatcher.methods()})",
        "Find where the SDK's list_tools now records output schemas and call that.",
    )
    assert "-1 is less than the minimum of 0" in refusal, broke(
        "SdkClientSession.absorb_tools",
        f"kept a schema that validation no longer applies (refusal: {refusal})",
        "Find where the SDK's list_tools now records output schemas and call that.",
    )


async def test_the_validator_hook_keeps_validators_across_sessions():
    (first, _), (second, _) = session(), session()
    result = types.CallToolResult(content=[], structured_content={"n": 1})
    schema = {**SCHEMA, "title": "kept across sessions"}
    for client in (first, second):
        client.absorb_tools([types.Tool(name="t", input_schema={}, output_schema=schema)])
        await client.validate_tool_result("t", result)
    shared = first.session_validators.get("t")
    assert shared is not None and second.session_validators.get("t") is shared, broke(
        "SdkClientSession._output_schema_validator (the override)",
        "is no longer what validate_tool_result calls for a compiled validator",
        "Find the SDK's new validator hook and override that, or drop the cross-session cache.",
    )
    changed = {**schema, "required": ["n"]}
    first.absorb_tools([types.Tool(name="t", input_schema={}, output_schema=changed)])
    assert "t" not in first.session_validators, broke(
        "SdkClientSession.session_validators",
        "keeps a validator after a listing changed its schema",
        "ZorkClientSession.output_validator trusts the session's entry: check it against the "
        "schema there.",
    )


# Outside sdk.py: servers/ may not import adapters/ (the import contract)


def test_mcp_server_keeps_its_lowlevel_server():
    lowlevel = getattr(MCPServer("canary"), "_lowlevel_server", None)
    run = getattr(lowlevel, "run", None)
    takes = list(inspect.signature(run).parameters)[:3] if run else None
    options = getattr(lowlevel, "create_initialization_options", None)
    assert takes == ["read_stream", "write_stream", "initialization_options"] and options, (
        f"MCP SDK {version('mcp')}: servers/stdio.py serve_stdio runs "
        "MCPServer._lowlevel_server.run(read, write, create_initialization_options()), which "
        f"changed (run takes {takes}). Find how MCPServer.run_stdio_async now runs its server "
        "over streams, and do the same there."
    )


# The rule: only sdk.py reaches behind the SDK's public names

CANARIED = {
    "mcp.client._probe",
    "mcp.client._input_required",
    "mcp.shared._httpx_utils",
    "_client_info",
    "_build_capabilities",
    "_stamp",
    "_dispatcher",
    "_absorb_tool_listing",
    "_tool_output_validators",
    "_output_schema_validator",
}
# Where a private SDK name is used outside sdk.py, and why it cannot move there.
ELSEWHERE = {("servers/stdio.py", "_lowlevel_server")}  # servers/ may not import adapters/


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def sdk_module(name: str | None) -> bool:
    return name is not None and name.split(".")[0] in SDK_PACKAGES


def private_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each SDK module or name imported whose dotted path has a private part."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            paths = [alias.name for alias in node.names if sdk_module(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and sdk_module(node.module):
            paths = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for path in paths:
            if any(private(part) for part in path.split(".")):
                yield node.lineno, path


def imported_names(tree: ast.AST) -> dict[str, str]:
    """Each name a module binds by import (`from` any module, or an SDK module), to its path."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if sdk_module(alias.name):
                    local = alias.asname or alias.name.split(".")[0]
                    bound[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def root(node: ast.AST | None) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def resolved(node: ast.AST, bound: dict[str, str]) -> str | None:
    """The import path a base class expression names (`sdk.SdkClientSession[...]`)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in bound:
        return None
    return ".".join([bound[node.id], *parts])


def sdk_class(path: str | None) -> type | None:
    """The class an import path names, when it is the SDK's or derives from one."""
    parts = (path or "").split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        if isinstance(found, type) and any(sdk_module(c.__module__) for c in found.__mro__):
            return found
        return None
    return None


def sdk_private_members(cls: type) -> set[str]:
    """The private names the SDK's classes in `cls`'s ancestry define or assign on self."""
    names: set[str] = set()
    for ancestor in (c for c in cls.__mro__ if sdk_module(c.__module__)):
        names |= {name for name in vars(ancestor) if private(name)}
        tree = ast.parse(textwrap.dedent(inspect.getsource(ancestor)))
        names |= {attr for attr in self_attributes(tree) if private(attr)}
    return names


def self_attributes(tree: ast.AST) -> set[str]:
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and root(node) in ("self", "super")
    }


def reached_members(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Private members of SDK modules, classes and instances this module reaches: through a
    name it imported, a parameter typed as an SDK class, or self in a subclass of one."""
    bound = imported_names(tree)
    sdk_bound = {name for name, path in bound.items() if sdk_module(path)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and root(node) in sdk_bound:
            yield node.lineno, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from typed_parameters(node, sdk_bound)
        elif isinstance(node, ast.ClassDef):
            yield from subclass_members(node, bound)


def typed_parameters(function: ast.AST, sdk_bound: set[str]) -> Iterator[tuple[int, str]]:
    arguments = function.args  # type: ignore[attr-defined]
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    typed = {arg.arg for arg in every if root(arg.annotation) in sdk_bound}
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and private(node.attr) and root(node) in typed:
            yield node.lineno, node.attr


def subclass_members(node: ast.ClassDef, bound: dict[str, str]) -> Iterator[tuple[int, str]]:
    bases = [sdk_class(resolved(base, bound)) for base in node.bases]
    theirs = set().union(*(sdk_private_members(base) for base in bases if base is not None))
    defined = {
        (item.lineno, item.name)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in theirs
    }
    used = {
        (item.lineno, item.attr)
        for item in ast.walk(node)
        if isinstance(item, ast.Attribute) and item.attr in theirs
    }
    yield from sorted(defined | used)


def sources() -> Iterator[tuple[str, ast.AST]]:
    for path in sorted(SRC.rglob("*.py")):
        if path != SDK_PY:
            yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(), str(path))


def test_no_module_but_sdk_imports_a_private_sdk_name():
    found = [
        f"{name}:{line} imports {path}"
        for name, tree in sources()
        for line, path in private_imports(tree)
    ]
    assert not found, (
        "Only adapters/mcp/sdk.py may import the MCP SDK's private modules and names: "
        f"{found}. Import it there, with a comment saying why and what the public API lacks, "
        "add a canary to this file, and import it from sdk.py."
    )


def test_no_module_but_sdk_reaches_a_private_sdk_member():
    reached = {
        (name, member): line for name, tree in sources() for line, member in reached_members(tree)
    }
    found = [
        f"{name}:{line} uses {member}"
        for (name, member), line in reached.items()
        if (name, member) not in ELSEWHERE
    ]
    assert not found, (
        f"Only adapters/mcp/sdk.py may use the MCP SDK's private members: {found}. Give the "
        "member a name of ours in sdk.SdkClientSession (or a function there), with a comment "
        "saying why, add a canary to this file, and use that name instead."
    )
    gone = ELSEWHERE - set(reached)
    assert not gone, f"{sorted(gone)} no longer use a private SDK member: drop them from ELSEWHERE."


def test_every_private_use_in_sdk_has_a_canary():
    tree = ast.parse(SDK_PY.read_text())
    modules = {path.rsplit(".", 1)[0] for _, path in private_imports(tree)}
    members = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and private(node.attr)
    }
    members |= {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and private(node.name)
    }
    assert modules | members == CANARIED, (
        f"adapters/mcp/sdk.py uses {sorted(modules | members)}, the canaries cover "
        f"{sorted(CANARIED)}: give each new private use a canary here, and drop the ones sdk.py "
        "no longer uses."
    )


def test_the_scan_finds_what_it_guards_against():
    """The rule's scanners see each way of reaching a private SDK name."""
    module = ast.parse(
        "import mcp.client._probe\n"
        "from mcp.shared._httpx_utils import MCP_DEFAULT_TIMEOUT\n"
        "from mcp.client import _probe\n"
        "from mcp import ClientSession\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "from zork_mcp.adapters.mcp.client_session import ZorkClientSession\n"
        "from zork_mcp.adapters.mcp import sdk\n"
        "ClientSession._build_capabilities\n"
        "def serve(server: MCPServer) -> None:\n"
        "    server._lowlevel_server\n"
        "class Mine(ZorkClientSession):\n"
        "    def _output_schema_validator(self, name, schema):\n"
        "        return self._stamp, self._mine\n"
        "class Other(sdk.SdkClientSession):\n"
        "    def send(self):\n"
        "        return super()._dispatcher\n"
    )
    assert [path for _, path in private_imports(module)] == [
        "mcp.client._probe",
        "mcp.shared._httpx_utils.MCP_DEFAULT_TIMEOUT",
        "mcp.client._probe",
    ]
    assert sorted(member for _, member in reached_members(module)) == [
        "_build_capabilities",
        "_dispatcher",
        "_lowlevel_server",
        "_output_schema_validator",
        "_stamp",
    ]
