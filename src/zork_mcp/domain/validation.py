"""Turn pydantic validation failures into one readable line per field."""

from pydantic import ValidationError


def describe_validation_error(error: ValidationError) -> str:
    lines = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "(top level)"
        lines.append(f"  - {where}: {problem['msg']}")
    return "\n".join(lines)
