-- 0009: Item statistics per server, kept by a periodic refresh
-- Why: issue #13: `/tpquiz-admin questions` must answer in under 50 ms (p99), but a big
--   server's item statistics take over a second to compute from its first answers; a
--   background loop (cogs/item_refresh.py) computes them into a summary the view reads.
-- Changes: creates item_stats (one row per server and question: the figures) and
--   item_stats_refreshes (one row per server: when, from how many first answers, for
--   which pool of questions, and whether a member's deletion made it stale).
--
-- Times are integer Unix milliseconds UTC. picks, top_picks and bottom_picks are the
-- pick counts per choice in file order, comma-separated ("12,3,0,5"). Only counts are
-- stored, never who answered. Flags are not stored: they are recomputed from these
-- figures and the server's open reports when the view is read. A member's deletion sets
-- `stale` and bumps `generation` (the view computes on demand until the next refresh,
-- and a refresh computed from answers read before it is not written); a server's
-- deletion removes both tables' rows (bot/storage/sqlite/members.py).

CREATE TABLE item_stats (
    guild_id        INTEGER NOT NULL,
    question_id     TEXT    NOT NULL,
    answers         INTEGER NOT NULL,
    correct         INTEGER NOT NULL,
    discrimination  REAL,
    ranked          INTEGER NOT NULL,
    key_index       INTEGER NOT NULL,
    picks           TEXT    NOT NULL,
    top_picks       TEXT    NOT NULL,
    bottom_picks    TEXT    NOT NULL,
    refreshed_at    INTEGER NOT NULL,
    PRIMARY KEY (guild_id, question_id)
) WITHOUT ROWID;

CREATE TABLE item_stats_refreshes (
    guild_id        INTEGER PRIMARY KEY,
    refreshed_at    INTEGER NOT NULL,
    first_answers   INTEGER NOT NULL,
    pool_key        TEXT    NOT NULL,
    stale           INTEGER NOT NULL DEFAULT 0,
    generation      INTEGER NOT NULL DEFAULT 0
);
