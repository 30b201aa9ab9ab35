"""Reading a modal's submission: what each of its inputs holds, by custom_id.

Why its own module: the report modal (cogs/reports.py) and the suggestion modals
(bot/ui/suggestion_flow.py) are handled by listeners that read the raw submission, not
by the `Modal` object discord.py keeps in memory (a modal left open across a restart
still works), so both read the payload the same way here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["submitted_values"]


def submitted_values(data: Any) -> dict[str, list[str]]:
    """custom_id -> values of a modal submission, for labels (type 18, `component`) and
    action rows (type 1, `components`) alike; a text input gives its value as one item."""
    found: dict[str, list[str]] = {}
    rows = data.get("components", []) if isinstance(data, dict) else []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        inner = [row["component"]] if isinstance(row.get("component"), dict) else []
        inner += [c for c in row.get("components", []) or [] if isinstance(c, dict)]
        for component in inner:
            custom_id = component.get("custom_id")
            if not isinstance(custom_id, str):
                continue
            if isinstance(component.get("values"), list):
                found[custom_id] = [str(v) for v in component["values"]]
            elif isinstance(component.get("value"), str):
                found[custom_id] = [component["value"]]
    return found
