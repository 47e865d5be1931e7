"""Hypothesis profiles: 100 examples per property (the design's minimum) unless a test says
fewer; ZORK_MCP_HYPOTHESIS_PROFILE=mutation runs 25, to keep mutation testing affordable."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "properties",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("mutation", settings.get_profile("properties"), max_examples=25)
settings.load_profile(os.environ.get("ZORK_MCP_HYPOTHESIS_PROFILE", "properties"))
