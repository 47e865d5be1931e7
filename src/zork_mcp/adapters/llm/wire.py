"""What every HTTP LLM adapter does with one request: give the tools its wire's names, POST
the body it renders, and read the answer back in domain terms. Each adapter says only how
its provider's body is written (`request_body`) and read (`parse`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import httpx

from zork_mcp.adapters.llm.endpoint import JsonEndpoint, RetryPolicy
from zork_mcp.adapters.llm.messages import canonical_names
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse
from zork_mcp.domain.tools.wire_names import WireNameMap, WireNameRule


class WireLLM(ABC):
    def __init__(
        self,
        client: httpx.AsyncClient,
        model: str,
        endpoint: JsonEndpoint,
        retry: RetryPolicy | None,
        wire_names: WireNameRule,
    ) -> None:
        self._client, self._model, self._endpoint = client, model, endpoint
        self._retry = retry or RetryPolicy()
        self._wire_names = wire_names

    @property
    def model(self) -> str:
        return self._model

    async def complete(self, request: LLMRequest) -> LLMResponse:
        names = WireNameMap(canonical_names(request), self._wire_names)
        body = self.request_body(request, names)
        return self.parse(
            await self._endpoint.post(self._client, body, self._retry), names, request
        )

    @abstractmethod
    def request_body(self, request: LLMRequest, names: WireNameMap) -> dict[str, Any]: ...

    @abstractmethod
    def parse(
        self, data: Mapping[str, Any], names: WireNameMap, request: LLMRequest
    ) -> LLMResponse: ...
