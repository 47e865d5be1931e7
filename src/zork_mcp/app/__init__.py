"""The composition root: the only place that names concrete adapters."""
