"""Every HTTP LLM adapter, over httpx.MockTransport and over a real local server."""

from tests.contract.http_llm_contract import HttpLLMContract


class TestOpenRouterMock(HttpLLMContract):
    protocol, transport = "openai", "mock"


class TestOpenRouterServer(HttpLLMContract):
    protocol, transport = "openai", "server"


class TestAnthropicMock(HttpLLMContract):
    protocol, transport = "anthropic", "mock"


class TestAnthropicServer(HttpLLMContract):
    protocol, transport = "anthropic", "server"


class TestGeminiMock(HttpLLMContract):
    protocol, transport = "gemini", "mock"


class TestGeminiServer(HttpLLMContract):
    protocol, transport = "gemini", "server"


class TestOpenAIResponsesMock(HttpLLMContract):
    protocol, transport = "openai-responses", "mock"


class TestOpenAIResponsesServer(HttpLLMContract):
    protocol, transport = "openai-responses", "server"
