-- 0003: Leaderboard summaries
-- Why: issue #5: week, month and rank queries read small summaries instead of
--   aggregating every answer of a large server.
-- Changes: creates member_periods and score_counts and fills both from the existing
--   answers and members (INSERT ... SELECT), so an upgraded database ranks as before.
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0003_leaderboard_summaries.sql, which says
-- what the two summaries are for. SQLite's WITHOUT ROWID has no equivalent to write:
-- a PostgreSQL table is a heap with its primary key as an index. Weeks start Monday
-- 00:00 UTC and months on the 1st 00:00 UTC, as in bot/quiz/periods.py; starts_at is
-- that instant in Unix milliseconds UTC.

CREATE TABLE member_periods (
    guild_id      BIGINT  NOT NULL,
    period        TEXT    NOT NULL CHECK (period IN ('week', 'month')),
    starts_at     BIGINT  NOT NULL,
    user_id       BIGINT  NOT NULL,
    points        INTEGER NOT NULL DEFAULT 0,
    answered      INTEGER NOT NULL DEFAULT 0,
    correct       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, period, starts_at, user_id)
);
-- The leaderboard order, so a page is an index range, not a sort.
CREATE INDEX member_periods_rank
    ON member_periods (guild_id, period, starts_at, points DESC, correct DESC, answered, user_id);

CREATE TABLE score_counts (
    guild_id      BIGINT  NOT NULL,
    period        TEXT    NOT NULL CHECK (period IN ('all', 'week', 'month')),
    starts_at     BIGINT  NOT NULL,
    points        INTEGER NOT NULL,
    correct       INTEGER NOT NULL,
    members       INTEGER NOT NULL CHECK (members >= 0),
    PRIMARY KEY (guild_id, period, starts_at, points, correct)
);

-- Existing answers, with the same arithmetic as the SQLite migration (BIGINT division
-- truncates as SQLite's integer division does). Day 0 (1970-01-01) was a Thursday, so a
-- day's Monday is day - (day + 3) % 7. A month starts at date_trunc of the UTC time.
INSERT INTO member_periods (guild_id, period, starts_at, user_id, points, answered, correct)
    SELECT guild_id, 'week'::text,
           (answered_at / 86400000 - (answered_at / 86400000 + 3) % 7) * 86400000,
           user_id, SUM(points), COUNT(*), SUM(correct)
    FROM answers
    GROUP BY 1, 2, 3, 4;
INSERT INTO member_periods (guild_id, period, starts_at, user_id, points, answered, correct)
    SELECT guild_id, 'month'::text,
           EXTRACT(EPOCH FROM date_trunc('month', to_timestamp(answered_at / 1000)
                                                  AT TIME ZONE 'UTC'))::bigint * 1000,
           user_id, SUM(points), COUNT(*), SUM(correct)
    FROM answers
    GROUP BY 1, 2, 3, 4;
INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)
    SELECT guild_id, 'all'::text, 0, points, correct, COUNT(*)
    FROM members
    GROUP BY 1, 2, 3, 4, 5;
INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)
    SELECT guild_id, period, starts_at, points, correct, COUNT(*)
    FROM member_periods
    GROUP BY 1, 2, 3, 4, 5;
