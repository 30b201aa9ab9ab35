-- 0007: Pending deletions of servers that removed the bot
-- Why: issue #14: a server that removes the bot has its data deleted
--   TPQUIZ_GUILD_RETENTION_DAYS later unless the bot is added back before; the pending
--   deletion must survive restarts and show in `tpquiz doctor`.
-- Changes: creates guild_removals (one row per server removed and not yet deleted).
--
-- removed_at and due_at are Unix milliseconds UTC. A GUILD_CREATE for the server deletes
-- its row (the deletion is cancelled); the retention loop deletes every table's rows of
-- a server whose due_at has passed, this row included (bot/storage/sqlite/members.py).

CREATE TABLE guild_removals (
    guild_id      INTEGER PRIMARY KEY,
    removed_at    INTEGER NOT NULL,
    due_at        INTEGER NOT NULL
);
CREATE INDEX guild_removals_due ON guild_removals (due_at);
