"""The stores whose SQL is the same on SQLite and PostgreSQL, written once over `Executor`.

Why: each of these existed twice (bot/storage/sqlite/ and bot/storage/pg/), statement for
statement the same but for the driver's parameter marks, and every change had to be made
in both. Here each is one class over the port of bot/storage/sql.py, and each backend's
bundle builds it over its own executor (bot/storage/sqlite/executor.py,
bot/storage/pg/executor.py). What truly differs stays in the backends: the click (the
group commit, the PostgreSQL click function), the standings (tuned per backend), member
deletion and export, item statistics, and the databases themselves. Where one statement
of a shared store must differ, it is a `Fragment` of its `Query`, or (reports' filing
lock) a statement run on PostgreSQL only, with the reason beside it.
"""
