-- 0007: Pending deletions of servers that removed the bot
-- Why: issue #14: a server that removes the bot has its data deleted
--   TPQUIZ_GUILD_RETENTION_DAYS later unless the bot is added back before; the pending
--   deletion must survive restarts and show in `tpquiz doctor`.
-- Changes: creates guild_removals (one row per server removed and not yet deleted).
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0007_guild_removals.sql. removed_at and
-- due_at are Unix milliseconds UTC.

CREATE TABLE guild_removals (
    guild_id      BIGINT PRIMARY KEY,
    removed_at    BIGINT NOT NULL,
    due_at        BIGINT NOT NULL
);
CREATE INDEX guild_removals_due ON guild_removals (due_at);
