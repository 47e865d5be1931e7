import dataclasses
import datetime
import json
import math

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from tests.support.strategies import TEXT, json_values
from zork_mcp.domain.tools.tool_result import ToolCallResult


@dataclasses.dataclass
class Room:
    name: str
    items: list


class Item(BaseModel):
    name: str
    weight: float
    found: datetime.datetime = datetime.datetime(1980, 1, 1, 12, 30)


class Opaque:
    def __str__(self) -> str:
        return "opaque"


awkward_leaves = (
    json_values
    | st.floats()
    | st.binary(max_size=16)
    | st.builds(Room, st.text(TEXT, max_size=5), st.lists(st.integers(), max_size=3))
    | st.just(Opaque())
    | st.builds(Item, name=st.text(TEXT, max_size=5), weight=st.floats(allow_nan=False))
    | st.complex_numbers(allow_nan=False, allow_infinity=False)
)
contents = st.recursive(
    awkward_leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.frozensets(st.integers() | st.text(TEXT, max_size=4), max_size=3)
        | st.dictionaries(
            st.text(TEXT, max_size=5) | st.integers() | st.booleans(), inner, max_size=3
        )
    ),
    max_leaves=10,
)


@st.composite
def maybe_cyclic(draw):
    value = draw(contents)
    if draw(st.booleans()):
        loop: list = [value]
        loop.append(loop)
        return {"cycle": loop}
    return value


results = st.one_of(
    st.builds(ToolCallResult.success, maybe_cyclic()),
    st.builds(ToolCallResult.failure, st.text(TEXT, min_size=1), maybe_cyclic() | st.none()),
)


def strict_json(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and strict_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(strict_json(v) for v in value)
    return value is None or isinstance(value, (bool, int, str))


@given(results)
def test_p43_tool_call_result_serialization(result):
    """Property 43: ToolCallResult Serialization

    *For any* ToolCallResult, calling to_dict() should produce a valid dictionary that can be
    JSON-serialized.

    Validates: Requirements 11.3
    """
    data = result.to_dict()
    assert isinstance(data, dict) and strict_json(data)
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert json.loads(result.to_json()) == data
    assert ("error" in data) == result.is_error


@given(json_values)
def test_p43_json_content_is_kept_as_it_is(value):
    assert ToolCallResult.success(value).to_dict() == {"content": value}


@given(st.text(TEXT, max_size=5), st.floats(-1e6, 1e6), st.text(TEXT, max_size=5))
def test_p43_objects_become_their_fields(name, weight, room):
    content = {"item": Item(name=name, weight=weight), "room": Room(room, [1]), "x": Opaque()}
    assert ToolCallResult.success(content).to_dict()["content"] == {
        "item": {"name": name, "weight": weight, "found": "1980-01-01T12:30:00"},
        "room": {"name": room, "items": [1]},
        "x": "opaque",
    }
