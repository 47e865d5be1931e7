"""The builders: one function per port, each given one resolved settings object.

They sit below the entry points (`app`, `ghost`, `servers`), which all build their parts here,
and are the only place that names concrete adapters.
"""
