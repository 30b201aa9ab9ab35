-- 0009: Item statistics per server, kept by a periodic refresh
-- Why: issue #13: `/tpquiz-admin questions` must answer in under 50 ms (p99), but a big
--   server's item statistics take over a second to compute from its first answers; a
--   background loop (cogs/item_refresh.py) computes them into a summary the view reads.
-- Changes: creates item_stats (one row per server and question: the figures) and
--   item_stats_refreshes (one row per server: when, from how many first answers, for
--   which pool of questions, and whether a member's deletion made it stale).
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0009_item_stats.sql. Times are Unix
-- milliseconds UTC; picks, top_picks and bottom_picks are comma-separated counts per
-- choice in file order.

CREATE TABLE item_stats (
    guild_id        BIGINT  NOT NULL,
    question_id     TEXT    NOT NULL,
    answers         BIGINT  NOT NULL,
    correct         BIGINT  NOT NULL,
    discrimination  DOUBLE PRECISION,
    ranked          BIGINT  NOT NULL,
    key_index       BIGINT  NOT NULL,
    picks           TEXT    NOT NULL,
    top_picks       TEXT    NOT NULL,
    bottom_picks    TEXT    NOT NULL,
    refreshed_at    BIGINT  NOT NULL,
    PRIMARY KEY (guild_id, question_id)
);

CREATE TABLE item_stats_refreshes (
    guild_id        BIGINT  PRIMARY KEY,
    refreshed_at    BIGINT  NOT NULL,
    first_answers   BIGINT  NOT NULL,
    pool_key        TEXT    NOT NULL,
    stale           BIGINT  NOT NULL DEFAULT 0,
    generation      BIGINT  NOT NULL DEFAULT 0
);
