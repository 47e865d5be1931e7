"""The LLM port: answer one chat request, with or without tools."""

from typing import Protocol

from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse


class LLM(Protocol):
    @property
    def model(self) -> str:
        """The model name, as the provider knows it (used for the tool-support check)."""
        ...

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer the request; raise LLMError once the provider has failed for good."""
        ...
