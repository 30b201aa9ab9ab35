-- 0005: Review cards
-- Why: issue #12: each member's misses come back on a spaced-repetition schedule (FSRS),
--   so every member needs a card per question they answered, and a review round is a
--   personal run of questions like the test.
-- Changes: creates cards (one per server, member and question, with FSRS's state) and
--   its due index; adds test_runs.kind ('test' or 'review') and test_runs.params, with
--   an index of open review rounds; creates review_reminders (members' opt-in DM
--   reminders, with the day last claimed). Seeds no cards: see below.
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0005_review_cards.sql. The SQLite migration
-- ends with a Python step (bot/storage/sqlite/migrate.py) that replays existing answers through
-- the FSRS scheduler into cards; that cannot be written in SQL. It is not needed here:
-- a PostgreSQL database is created by this code from empty (there is no PostgreSQL
-- database older than this migration), and `tpquiz db copy` brings the cards over with
-- the answers. The DO block at the end refuses, rather than silently skipping the
-- seeding, a database that somehow holds answers at this point.
--
-- Times are integer Unix milliseconds UTC. state and step are fsrs's (State.Learning=1,
-- Review=2, Relearning=3; step is NULL in Review). stability and difficulty are
-- DOUBLE PRECISION, the 8-byte float SQLite's REAL is.

CREATE TABLE cards (
    guild_id      BIGINT           NOT NULL,
    user_id       BIGINT           NOT NULL,
    question_id   TEXT             NOT NULL,
    state         SMALLINT         NOT NULL CHECK (state IN (1, 2, 3)),
    step          INTEGER,
    stability     DOUBLE PRECISION NOT NULL,
    difficulty    DOUBLE PRECISION NOT NULL,
    due           BIGINT           NOT NULL,
    last_review   BIGINT           NOT NULL,
    reps          INTEGER          NOT NULL CHECK (reps >= 1),
    lapses        INTEGER          NOT NULL DEFAULT 0 CHECK (lapses >= 0),
    PRIMARY KEY (guild_id, user_id, question_id)
);
-- A member's cards by due time: the round's picking and the due counts read one range.
CREATE INDEX cards_member_due ON cards (guild_id, user_id, due);

-- A review round is a run like the test ('review'); its computed questions keep the
-- numbers drawn when it started (JSON list, one entry per position, null for fixed).
ALTER TABLE test_runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'test' CHECK (kind IN ('test', 'review'));
ALTER TABLE test_runs ADD COLUMN params TEXT;
CREATE INDEX test_runs_open_review ON test_runs (guild_id, user_id)
    WHERE kind = 'review' AND finished_at IS NULL;

-- Opt-in review reminders by DM, claimed for a local date before the DM is sent (see
-- the SQLite migration).
CREATE TABLE review_reminders (
    guild_id      BIGINT   NOT NULL,
    user_id       BIGINT   NOT NULL,
    enabled       SMALLINT NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    remind_time   TEXT,                        -- 'HH:MM' server time, NULL: daily post time
    language      TEXT     NOT NULL DEFAULT 'en' CHECK (language IN ('tr', 'en')),
    set_at        BIGINT   NOT NULL,
    last_date     TEXT,
    refused_at    BIGINT,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX review_reminders_enabled ON review_reminders (guild_id, user_id) WHERE enabled = 1;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM answers) THEN
        RAISE EXCEPTION 'answers exist before the review cards migration; their cards '
            'cannot be seeded in SQL: copy the database with tpquiz db copy instead';
    END IF;
END
$$;
