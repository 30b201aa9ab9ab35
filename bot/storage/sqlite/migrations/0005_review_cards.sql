-- 0005: Review cards
-- Why: issue #12: each member's misses come back on a spaced-repetition schedule (FSRS),
--   so every member needs a card per question they answered, and a review round is a
--   personal run of questions like the test.
-- Changes: creates cards (one per server, member and question, with FSRS's state) and
--   its due index; adds test_runs.kind ('test' or 'review') and test_runs.params, with
--   an index of open review rounds; creates review_reminders (members' opt-in DM
--   reminders, with the day last claimed). After the SQL, a Python step
--   (bot/storage/sqlite/cards.py, seed_from_answers) replays every member's existing answers in
--   time order through the scheduler, so members who already played have cards.
--
-- Times are integer Unix milliseconds UTC. state and step are fsrs's (State.Learning=1,
-- Review=2, Relearning=3; step is NULL in Review). reps counts answers, lapses the wrong
-- answers to a card already in review.

CREATE TABLE cards (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    question_id   TEXT    NOT NULL,
    state         INTEGER NOT NULL CHECK (state IN (1, 2, 3)),
    step          INTEGER,
    stability     REAL    NOT NULL,
    difficulty    REAL    NOT NULL,
    due           INTEGER NOT NULL,
    last_review   INTEGER NOT NULL,
    reps          INTEGER NOT NULL CHECK (reps >= 1),
    lapses        INTEGER NOT NULL DEFAULT 0 CHECK (lapses >= 0),
    PRIMARY KEY (guild_id, user_id, question_id)
) WITHOUT ROWID;
-- A member's cards by due time: the round's picking and the due counts read one range.
CREATE INDEX cards_member_due ON cards (guild_id, user_id, due);

-- A review round is a run like the test ('review'); its computed questions keep the
-- numbers drawn when it started (JSON list, one entry per position, null for fixed).
ALTER TABLE test_runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'test' CHECK (kind IN ('test', 'review'));
ALTER TABLE test_runs ADD COLUMN params TEXT;
CREATE INDEX test_runs_open_review ON test_runs (guild_id, user_id)
    WHERE kind = 'review' AND finished_at IS NULL;

-- Opt-in review reminders by DM. A reminder is claimed for a local date (last_date set
-- in a transaction) before the DM is sent, as daily posts claim their slot, so a member
-- never gets two on one day. refused_at: Discord refused the DM (50007); the reminder
-- was turned off and the member is told the next time they use /tpquiz (then cleared).
CREATE TABLE review_reminders (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    enabled       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    remind_time   TEXT,                        -- 'HH:MM' server time, NULL: daily post time
    language      TEXT    NOT NULL DEFAULT 'en' CHECK (language IN ('tr', 'en')),
    set_at        INTEGER NOT NULL,
    last_date     TEXT,
    refused_at    INTEGER,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;
CREATE INDEX review_reminders_enabled ON review_reminders (guild_id, user_id) WHERE enabled = 1;
