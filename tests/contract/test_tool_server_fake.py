import pytest

from tests.contract.tool_server_contract import ToolServerContract, ToolServerSubject
from zork_mcp.adapters.fake_tool_server import FakeToolServer, crash, hang


def echo(text: str) -> str:
    return f"echo: {text}"


def fail() -> None:
    raise RuntimeError("this tool always fails")


class TestFakeToolServer(ToolServerContract):
    @pytest.fixture
    def subject(self) -> ToolServerSubject:
        tools = {"echo": echo, "fail": fail, "hang": hang, "crash": crash}
        return ToolServerSubject(
            FakeToolServer("fake", tools),
            "fake",
            "fake.echo",
            "fake.fail",
            "fake.hang",
            "fake.crash",
            broken_server=FakeToolServer("fake", tools, connect_failures=1),
        )
