"""A golden, human-readable: the conversation step by step, the tool chain, the metrics."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

PREVIEW = 160


def inspect_golden(golden: Mapping[str, Any], console: Console) -> None:
    output = golden["golden_output"]
    console.print(f"[bold]{golden['test_name']}[/] ({golden['input']['provider']})")
    console.print(f"{golden.get('description', '')}")
    console.print(f"source: {golden.get('source', '?')}, recorded {golden.get('recorded_at', '?')}")
    console.rule("conversation")
    for number, message in enumerate(output["conversation_history"], 1):
        console.print(f"{number:>3} {message['role']:<9} {_describe(message)}", highlight=False)
    console.rule("tool chain")
    console.print(_chain_table(output["tool_chain"]))
    if output["errors"]:
        console.rule("errors")
        for error in output["errors"]:
            console.print(
                f"  iteration {error['iteration']} {error['tool_name'] or '(run)'}: "
                f"{_short(error['error'])}\n      -> {error['recovery_action']}",
                highlight=False,
            )
    console.rule("metrics")
    metadata = output["execution_metadata"]
    usage = metadata["token_usage"]
    console.print(
        f"success={output['success']} iterations={metadata['total_iterations']} "
        f"tools_discovered={metadata['tools_discovered']} "
        f"servers={metadata['servers_connected']} backtracks={metadata['backtrack_count']} "
        f"success_rate={metadata['success_rate']}%\n"
        f"tokens: prompt={usage['prompt_tokens']} completion={usage['completion_tokens']} "
        f"total={usage['total_tokens']}  provider requests={len(golden['provider_responses'])}",
        highlight=False,
    )
    console.print(f"summary: {output['summary']}", highlight=False)


def _describe(message: Mapping[str, Any]) -> str:
    if message.get("tool_calls"):
        calls = ", ".join(
            f"{c['function']['name']}({_short(c['function']['arguments'], 60)})"
            for c in message["tool_calls"]
        )
        return f"calls {calls}"
    prefix = f"[{message['tool_call_id']}] " if message.get("tool_call_id") else ""
    return prefix + _short(message.get("content") or "")


def _chain_table(chain: list[Mapping[str, Any]]) -> Table:
    table = Table("it", "tool", "arguments", "ok", "retry", "result / error")
    for entry in chain:
        outcome = entry["error"] if entry["error"] else json.dumps(entry["result"])
        table.add_row(
            str(entry["iteration"]),
            entry["tool_name"],
            _short(json.dumps(entry["arguments"], ensure_ascii=False), 40),
            "yes" if entry["success"] else "[red]no[/]",
            str(entry["retry_attempt"]),
            _short(outcome, 70),
        )
    return table


def _short(text: str, limit: int = PREVIEW) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
