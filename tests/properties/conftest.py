"""Hypothesis profile for the property tests: 100 examples each unless a test says fewer."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "properties",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("properties")
