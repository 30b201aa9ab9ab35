"""The shape of a schema, read the same way from SQLite and from PostgreSQL.

Why: the two backends must hold the same tables with the same columns, keys and
indexes (issue 15), or `tpquiz db copy` and the shared storage suite break in ways a
review does not see. `sqlite_shape` and `pg_shape` reduce each catalogue to the same
plain structure; tests/storage/test_pg_schema.py compares them and lists every
difference. Types are compared through `TYPE_FAMILIES` (SQLite has five storage
classes, PostgreSQL many types), defaults and index predicates after `normalise`.

SQLite lets a PRIMARY KEY column other than INTEGER PRIMARY KEY hold NULL (a legacy
quirk); PostgreSQL never does. The stores never write NULL keys, so a primary key column
counts as NOT NULL on both sides.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

import asyncpg

#: SQLite's declared type -> the PostgreSQL types that may stand for it.
TYPE_FAMILIES = {
    "INTEGER": {"bigint", "integer", "smallint"},
    "TEXT": {"text"},
    "REAL": {"double precision"},
}
#: Tables only one backend has, by design.
PG_ONLY = {"tpquiz_schema"}  # SQLite keeps the version in PRAGMA user_version


@dataclass(frozen=True)
class Column:
    type: str  # SQLite's declared type, or the PostgreSQL type
    nullable: bool
    default: str | None
    #: SQLite INTEGER PRIMARY KEY AUTOINCREMENT, PostgreSQL identity.
    generated: bool


@dataclass(frozen=True)
class Index:
    unique: bool
    columns: tuple[str, ...]  # "points DESC" for a descending key
    where: str | None


@dataclass
class Table:
    columns: dict[str, Column] = field(default_factory=dict)
    primary_key: tuple[str, ...] = ()
    indexes: dict[str, Index] = field(default_factory=dict)
    foreign_keys: set[tuple[tuple[str, ...], str, tuple[str, ...]]] = field(default_factory=set)


def normalise(expression: str | None) -> str | None:
    """An SQL expression without casts, parentheses, quotes on numbers and case."""
    if expression is None:
        return None
    text = re.sub(r"::[a-z ]+", "", expression.lower())
    text = text.replace("(", "").replace(")", "")
    return " ".join(text.split())


def sqlite_shape(conn: sqlite3.Connection) -> dict[str, Table]:
    tables: dict[str, Table] = {}
    listed = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
        " AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).fetchall()
    for name, sql in listed:
        table = tables[name] = Table()
        info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
        keys = sorted((pk, col) for _, col, _, _, _, pk in info if pk)
        table.primary_key = tuple(col for _, col in keys)
        for _, col, type_, notnull, default, pk in info:
            generated = bool(
                re.search(rf"\b{col}\s+INTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b", sql, re.I)
            )
            table.columns[col] = Column(
                type_.upper(), not (notnull or pk), normalise(default), generated
            )
        for _, index, unique, origin, partial in conn.execute(f'PRAGMA index_list("{name}")'):
            if origin == "pk":
                continue
            keys_ = [
                (seq, col, desc)
                for seq, _, col, desc, _, key in conn.execute(f'PRAGMA index_xinfo("{index}")')
                if key
            ]
            columns = tuple(col + (" DESC" if desc else "") for _, col, desc in sorted(keys_))
            where = None
            if partial:
                (text,) = conn.execute(
                    "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (index,)
                ).fetchone()
                where = re.split(r"\bWHERE\b", text, maxsplit=1, flags=re.I)[1]
            table.indexes[index] = Index(bool(unique), columns, normalise(where))
        fks: dict[int, list[tuple[int, str, str, str]]] = {}
        for fk_id, seq, ref, src, dst, *_ in conn.execute(f'PRAGMA foreign_key_list("{name}")'):
            fks.setdefault(fk_id, []).append((seq, ref, src, dst))
        for parts in fks.values():
            parts.sort()
            table.foreign_keys.add(
                (tuple(p[2] for p in parts), parts[0][1], tuple(p[3] for p in parts))
            )
    return tables


async def pg_shape(conn: asyncpg.Connection) -> dict[str, Table]:
    tables: dict[str, Table] = {}
    for row in await conn.fetch(
        "SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity"
        " FROM information_schema.columns WHERE table_schema = current_schema()"
        " ORDER BY table_name, ordinal_position"
    ):
        if row["table_name"] in PG_ONLY:
            continue
        table = tables.setdefault(row["table_name"], Table())
        table.columns[row["column_name"]] = Column(
            row["data_type"],
            row["is_nullable"] == "YES",
            normalise(row["column_default"]),
            row["is_identity"] == "YES",
        )
    for row in await conn.fetch(
        "SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique,"
        " x.indisprimary, pg_get_expr(x.indpred, x.indrelid) AS predicate,"
        " ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)"
        "       JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum"
        "       ORDER BY k.n) AS columns,"
        " x.indoption::int2[] AS options"
        " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
        " JOIN pg_class t ON t.oid = x.indrelid"
        " JOIN pg_namespace s ON s.oid = t.relnamespace AND s.nspname = current_schema()"
    ):
        if row["table_name"] not in tables:
            continue
        table = tables[row["table_name"]]
        if row["indisprimary"]:
            table.primary_key = tuple(row["columns"])
            continue
        columns = tuple(
            col + (" DESC" if option & 1 else "")
            for col, option in zip(row["columns"], row["options"], strict=True)
        )
        table.indexes[row["index_name"]] = Index(
            row["indisunique"], columns, normalise(row["predicate"])
        )
    for row in await conn.fetch(
        "SELECT t.relname AS table_name, r.relname AS ref,"
        " ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)"
        "       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum"
        "       ORDER BY k.n) AS src,"
        " ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, n)"
        "       JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum"
        "       ORDER BY k.n) AS dst"
        " FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid"
        " JOIN pg_class r ON r.oid = c.confrelid"
        " JOIN pg_namespace s ON s.oid = t.relnamespace AND s.nspname = current_schema()"
        " WHERE c.contype = 'f'"
    ):
        if row["table_name"] in tables:
            tables[row["table_name"]].foreign_keys.add(
                (tuple(row["src"]), row["ref"], tuple(row["dst"]))
            )
    return tables


def differences(sqlite: dict[str, Table], pg: dict[str, Table]) -> list[str]:
    """Every way `pg` differs from `sqlite`, one line each, table by table."""
    found = []
    for name in sorted(set(sqlite) - set(pg)):
        found.append(f"table {name}: in SQLite, missing in PostgreSQL")
    for name in sorted(set(pg) - set(sqlite)):
        found.append(f"table {name}: in PostgreSQL, missing in SQLite")
    for name in sorted(set(sqlite) & set(pg)):
        lite, post = sqlite[name], pg[name]
        for col in sorted(set(lite.columns) | set(post.columns)):
            a, b = lite.columns.get(col), post.columns.get(col)
            if a is None or b is None:
                where = "SQLite" if b is None else "PostgreSQL"
                found.append(f"{name}.{col}: only in {where}")
                continue
            if b.type not in TYPE_FAMILIES.get(a.type, set()):
                found.append(f"{name}.{col}: SQLite {a.type} is PostgreSQL {b.type}")
            if a.nullable != b.nullable:
                how = {True: "nullable", False: "NOT NULL"}
                found.append(
                    f"{name}.{col}: {how[a.nullable]} in SQLite, {how[b.nullable]} in PostgreSQL"
                )
            if a.generated != b.generated:
                found.append(
                    f"{name}.{col}: AUTOINCREMENT {a.generated} in SQLite, identity "
                    f"{b.generated} in PostgreSQL"
                )
            elif a.default != b.default:
                found.append(f"{name}.{col}: default {a.default} in SQLite, {b.default} in PG")
        if lite.primary_key != post.primary_key:
            found.append(f"{name}: primary key {lite.primary_key} in SQLite, {post.primary_key}")
        for index in sorted(set(lite.indexes) | set(post.indexes)):
            a_, b_ = lite.indexes.get(index), post.indexes.get(index)
            if a_ != b_:
                found.append(f"{name}: index {index} is {a_} in SQLite, {b_} in PostgreSQL")
        if lite.foreign_keys != post.foreign_keys:
            found.append(
                f"{name}: foreign keys {sorted(lite.foreign_keys)} in SQLite, "
                f"{sorted(post.foreign_keys)} in PostgreSQL"
            )
    return found
