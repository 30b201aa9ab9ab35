-- 0003: Leaderboard summaries
-- Why: issue #5: week, month and rank queries read small summaries instead of
--   aggregating every answer of a large server.
-- Changes: creates member_periods and score_counts and fills both from the existing
--   answers and members (INSERT ... SELECT), so an upgraded file ranks as before.
--
-- Leaderboards at scale (issue #5). Two summaries, both kept up to date by
-- AnswerStore.record in the click's own transaction, so that a leaderboard never
-- aggregates answers or counts a whole server:
--
-- member_periods: each member's points, answers and right answers per week and per
-- month. A week or month leaderboard reads one index range of it instead of every
-- answer of the period (60-150 ms in a server of 14,000 members at a million answers).
-- Weeks start Monday 00:00 UTC and months on the 1st 00:00 UTC, as in
-- bot/quiz/periods.py; starts_at is that instant in Unix milliseconds UTC.
--
-- score_counts: how many members of a server hold each (points, right answers) pair, all
-- time (period 'all', starts_at 0) and per week and month. The number ranked and a
-- member's rank (1 + members with more points, or as many and more right answers) are
-- then sums over a few dozen pairs instead of counts over every member.
-- docs/performance.md has the figures.

CREATE TABLE member_periods (
    guild_id      INTEGER NOT NULL,
    period        TEXT    NOT NULL CHECK (period IN ('week', 'month')),
    starts_at     INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    points        INTEGER NOT NULL DEFAULT 0,
    answered      INTEGER NOT NULL DEFAULT 0,
    correct       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, period, starts_at, user_id)
) WITHOUT ROWID;
-- The leaderboard order, so a page is an index range, not a sort.
CREATE INDEX member_periods_rank
    ON member_periods (guild_id, period, starts_at, points DESC, correct DESC, answered, user_id);

CREATE TABLE score_counts (
    guild_id      INTEGER NOT NULL,
    period        TEXT    NOT NULL CHECK (period IN ('all', 'week', 'month')),
    starts_at     INTEGER NOT NULL,
    points        INTEGER NOT NULL,
    correct       INTEGER NOT NULL,
    members       INTEGER NOT NULL CHECK (members >= 0),
    PRIMARY KEY (guild_id, period, starts_at, points, correct)
) WITHOUT ROWID;

-- Existing answers. Day 0 (1970-01-01) was a Thursday, so a day's Monday is
-- day - (day + 3) % 7. NOT INDEXED: one pass over the table and a sort is twice as fast
-- as walking an index and looking each row up (about 10 s at a million answers).
INSERT INTO member_periods (guild_id, period, starts_at, user_id, points, answered, correct)
    SELECT guild_id, 'week',
           (answered_at / 86400000 - (answered_at / 86400000 + 3) % 7) * 86400000,
           user_id, SUM(points), COUNT(*), SUM(correct)
    FROM answers NOT INDEXED
    GROUP BY 1, 2, 3, 4;
INSERT INTO member_periods (guild_id, period, starts_at, user_id, points, answered, correct)
    SELECT guild_id, 'month',
           CAST(strftime('%s', answered_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000,
           user_id, SUM(points), COUNT(*), SUM(correct)
    FROM answers NOT INDEXED
    GROUP BY 1, 2, 3, 4;
INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)
    SELECT guild_id, 'all', 0, points, correct, COUNT(*)
    FROM members
    GROUP BY 1, 2, 3, 4, 5;
INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)
    SELECT guild_id, period, starts_at, points, correct, COUNT(*)
    FROM member_periods
    GROUP BY 1, 2, 3, 4, 5;
