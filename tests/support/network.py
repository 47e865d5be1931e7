"""What the tests may reach: this machine only, and no provider's key."""

from __future__ import annotations

PROVIDER_KEYS = (
    "OPENROUTER_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "LANGFUSE_PUBLIC_KEY",
    "LANGFUSE_SECRET_KEY",
)


LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


class RealProviderBlocked(RuntimeError):
    """A test tried to reach a host that is not this machine."""
