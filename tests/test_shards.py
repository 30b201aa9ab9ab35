"""The shard rules (bot/infra/shards.py) and the three shard settings (bot/infra/config.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.infra.config import ConfigError, Settings
from bot.infra.shards import Ownership, format_shard_ids, parse_shard_ids, shard_of

ROOT = Path(__file__).resolve().parents[1]


def guild_on(shard: int, count: int, n: int = 1) -> int:
    """A plausible snowflake whose server Discord sends on `shard` of `count`."""
    return (((1_000_000 + n) * count + shard) << 22) | 12345


def test_shard_of_is_discords_formula() -> None:
    # A real guild id: (197038439483310086 >> 22) is 46977624770.
    assert shard_of(197038439483310086, 1000) == 770
    assert shard_of(197038439483310086, 1) == 0
    for count in (1, 2, 3, 16):
        for shard in range(count):
            assert shard_of(guild_on(shard, count), count) == shard
    with pytest.raises(ValueError):
        shard_of(1, 0)


@pytest.mark.parametrize(
    ("text", "count", "ids"),
    [("0-3", 4, (0, 1, 2, 3)), ("0,2", 4, (0, 2)), ("3, 0-1", 8, (0, 1, 3)), ("5", 6, (5,))],
)
def test_parse_shard_ids(text: str, count: int, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text, count) == ids
    assert parse_shard_ids(format_shard_ids(ids), count) == ids


@pytest.mark.parametrize(
    ("text", "count", "message"),
    [
        ("0-4", 4, "names shard 4, but TPQUIZ_SHARD_COUNT=4 numbers the shards 0 to 3"),
        ("3-1", 4, "has the range '3-1' backwards: write 1-3"),
        ("0,1,1", 4, "names shard 1 twice"),
        ("0-2,2", 4, "names shard 2 twice"),
        ("a", 4, "must be shard ids or ranges separated by commas"),
        ("0,,1", 4, "must be shard ids or ranges"),
        ("-1", 4, "must be shard ids or ranges"),
        ("²", 4, "must be shard ids or ranges"),
    ],
)
def test_parse_shard_ids_refuses(text: str, count: int, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")) as caught:
        parse_shard_ids(text, count)
    assert "\n" not in str(caught.value)


def test_ownership() -> None:
    everything = Ownership()
    assert everything.owns(guild_on(0, 2)) and everything.owns(guild_on(1, 2))
    assert everything.syncs_commands and everything.owns_all
    assert everything.describe() == "not sharded"

    both = Ownership.of(2, (0, 1))
    assert both.owns_all and both.syncs_commands and both.describe() == "all 2 shards"

    second = Ownership.of(2, (1,))
    assert not second.owns(guild_on(0, 2)) and second.owns(guild_on(1, 2))
    assert not second.syncs_commands
    assert second.describe() == "shards 1 of 2"
    rows = [(guild_on(0, 2), "a"), (guild_on(1, 2), "b"), (guild_on(1, 2, n=7), "c")]
    assert second.only_owned(rows, lambda row: row[0]) == rows[1:]

    first = Ownership.of(4, (0, 1))
    assert first.syncs_commands and first.describe() == "shards 0-1 of 4"
    assert [first.owns(guild_on(s, 4)) for s in range(4)] == [True, True, False, False]

    for bad in ((2, frozenset()), (2, frozenset({2})), (0, None), (None, frozenset({0}))):
        with pytest.raises(ValueError):
            Ownership(*bad)


def test_the_ownership_module_knows_no_discord_or_database() -> None:
    tree = ast.parse((ROOT / "bot" / "infra" / "shards.py").read_text(encoding="utf-8"))
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not {m for m in imported if m.split(".")[0] in ("discord", "aiosqlite", "asyncpg")}
    assert not {m for m in imported if m.startswith("bot.")}


def settings(**env: str) -> Settings:
    return Settings.from_env(env, env_file=None)


def test_shard_settings_default_to_one_unsharded_process() -> None:
    plain = settings()
    assert (plain.shard_count, plain.shard_ids, plain.process_count) == (None, None, 1)


def test_shard_settings_read() -> None:
    one = settings(TPQUIZ_SHARD_COUNT="4", TPQUIZ_SHARDS="2-3", TPQUIZ_PROCESS_COUNT="2")
    assert (one.shard_count, one.shard_ids, one.process_count) == (4, (2, 3), 2)
    all_here = settings(TPQUIZ_SHARD_COUNT="2")
    assert (all_here.shard_count, all_here.shard_ids) == (2, None)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TPQUIZ_SHARD_COUNT": "0"}, "TPQUIZ_SHARD_COUNT must be a number of shards from 1 to"),
        ({"TPQUIZ_SHARD_COUNT": "two"}, "TPQUIZ_SHARD_COUNT must be a number of shards"),
        ({"TPQUIZ_SHARDS": "0-1"}, "TPQUIZ_SHARDS is set but TPQUIZ_SHARD_COUNT is not"),
        (
            {"TPQUIZ_SHARD_COUNT": "2", "TPQUIZ_SHARDS": "2"},
            "TPQUIZ_SHARDS names shard 2, but TPQUIZ_SHARD_COUNT=2 numbers the shards 0 to 1",
        ),
        ({"TPQUIZ_SHARD_COUNT": "2", "TPQUIZ_SHARDS": "x"}, "TPQUIZ_SHARDS must be shard ids"),
        ({"TPQUIZ_PROCESS_COUNT": "0"}, "TPQUIZ_PROCESS_COUNT must be a number of processes"),
        ({"TPQUIZ_PROCESS_COUNT": "2"}, "TPQUIZ_PROCESS_COUNT=2 but TPQUIZ_SHARDS is not set"),
        (
            {"TPQUIZ_SHARD_COUNT": "2", "TPQUIZ_SHARDS": "0", "TPQUIZ_PROCESS_COUNT": "3"},
            "TPQUIZ_PROCESS_COUNT=3 is more than TPQUIZ_SHARD_COUNT=2",
        ),
        (
            {"TPQUIZ_SHARD_COUNT": "2", "TPQUIZ_SHARDS": "0-1", "TPQUIZ_PROCESS_COUNT": "2"},
            "TPQUIZ_PROCESS_COUNT=2 but TPQUIZ_SHARDS names all 2 shards",
        ),
    ],
)
def test_shard_settings_refused_with_one_line(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings(**env)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_shard_lock_seam() -> None:
    from bot.infra.shard_lock import ShardHeld, advisory_key, shards_to_claim

    assert shards_to_claim(Ownership()) == ((0,), 1)
    assert shards_to_claim(Ownership.of(4, None)) == ((0, 1, 2, 3), 4)
    assert shards_to_claim(Ownership.of(4, (3, 1))) == ((1, 3), 4)
    assert advisory_key(1) != advisory_key(0)
    held = ShardHeld(0, 2, "host-a pid 12")
    assert held.refusal == (
        "shard 0 of 2 is already run by host-a pid 12: stop that process, or give this one"
        " other TPQUIZ_SHARDS"
    )
