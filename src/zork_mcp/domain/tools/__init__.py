"""Tools as the domain sees them: their canonical names, schemas and provider dialects, the
judgment of each listed tool, what a request offers, a call's uniform result."""
