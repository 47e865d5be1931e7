import re

from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import server_names, tool_names
from zork_mcp.domain.tools.tool_schema import canonical_name, split_canonical_name
from zork_mcp.domain.tools.wire_names import RULES, WireNameMap

name_sets = st.lists(st.tuples(server_names, tool_names), min_size=1, max_size=8, unique=True)


@given(server_names, tool_names)
def test_p35_tool_name_parsing_for_routing(server, tool):
    """Property 35: Tool Name Parsing for Routing

    *For any* tool call execution, the MCPManager should correctly parse the tool name to
    extract the server name.

    Validates: Requirements 8.3
    """
    assert split_canonical_name(canonical_name(server, tool)) == (server, tool)


@given(name_sets, st.sampled_from(sorted(RULES)), st.randoms())
def test_p35_wire_names_route_back_to_the_same_tool(pairs, provider, random):
    names = [canonical_name(server, tool) for server, tool in pairs]
    mapping = WireNameMap(names, RULES[provider])
    wires = [mapping.to_wire(name) for name in names]
    assert len(set(wires)) == len(set(names))
    assert all(re.fullmatch(mapping.rule.pattern, wire) for wire in wires)
    assert [mapping.to_canonical(wire) for wire in wires] == names
    random.shuffle(names)
    assert WireNameMap(names, RULES[provider]).items() == mapping.items(), "order-independent"
