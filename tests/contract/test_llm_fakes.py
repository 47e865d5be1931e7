import pytest

from tests.contract.llm_contract import LLMContract
from zork_mcp.adapters.llm.fake import FunctionLLM, ScriptedLLM


class TestScriptedLLM(LLMContract):
    @pytest.fixture
    def make_llm(self):
        return ScriptedLLM


class TestFunctionLLM(LLMContract):
    @pytest.fixture
    def make_llm(self):
        def make(replies):
            queue = list(replies)
            return FunctionLLM(lambda request: queue.pop(0))

        return make
