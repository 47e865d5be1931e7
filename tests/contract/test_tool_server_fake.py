import pytest

from tests.contract.tool_server_contract import ToolServerContract, ToolServerSubject, echo_probe
from zork_mcp.adapters.mcp.fake import FakeToolServer, crash, hang


def echo(text: str) -> str:
    return f"echo: {text}"


def fail() -> None:
    raise RuntimeError("this tool always fails")


TOOLS = {"echo": echo, "fail": fail, "hang": hang, "crash": crash}


class TestFakeToolServer(ToolServerContract):
    @pytest.fixture
    def subject(self) -> ToolServerSubject:
        return ToolServerSubject(
            server=FakeToolServer("fake", TOOLS),
            server_name="fake",
            probe=echo_probe("fake.echo"),
            failing_tool="fake.fail",
            slow_tool="fake.hang",
            crash_tool="fake.crash",
            broken_server=FakeToolServer("fake", TOOLS, connect_failures=1),
        )
