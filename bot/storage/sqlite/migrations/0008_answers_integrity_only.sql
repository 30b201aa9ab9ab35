-- 0008: The answers table keeps only the constraints that protect integrity
-- Why: issue #11: the scoring rule ("only a member's first right answer to a question
--   earns a point") lives in one place, bot/quiz/click.py; 0001 restated it as CHECKs.
-- Changes: rebuilds answers without CHECK (points IN (0, 1)) and CHECK (points <= first
--   AND points <= correct), same columns, ids, rows and indexes.
--
-- Kept: one answer per member per post and per test question, one first (scoring)
-- answer per member per question, an answer belongs to exactly one of a post or a test
-- run, flags are 0 or 1. SQLite cannot drop a CHECK, so the table is rebuilt (a few
-- seconds at a million answers).

CREATE TABLE answers_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    question_id   TEXT    NOT NULL,
    topic         TEXT    NOT NULL,
    post_id       INTEGER REFERENCES posts (id),
    test_run_id   INTEGER REFERENCES test_runs (id),
    choice_index  INTEGER NOT NULL,
    correct       INTEGER NOT NULL CHECK (correct IN (0, 1)),
    first         INTEGER NOT NULL CHECK (first IN (0, 1)),
    points        INTEGER NOT NULL CHECK (points >= 0),
    answered_at   INTEGER NOT NULL,
    CHECK ((post_id IS NULL) <> (test_run_id IS NULL))
);
INSERT INTO answers_new (id, guild_id, user_id, question_id, topic, post_id, test_run_id,
    choice_index, correct, first, points, answered_at)
    SELECT id, guild_id, user_id, question_id, topic, post_id, test_run_id, choice_index,
        correct, first, points, answered_at FROM answers;
DROP TABLE answers;
ALTER TABLE answers_new RENAME TO answers;
CREATE UNIQUE INDEX answers_one_per_post ON answers (post_id, user_id) WHERE post_id IS NOT NULL;
CREATE UNIQUE INDEX answers_one_per_test_question ON answers (test_run_id, question_id)
    WHERE test_run_id IS NOT NULL;
CREATE UNIQUE INDEX answers_first ON answers (guild_id, user_id, question_id) WHERE first = 1;
CREATE INDEX answers_guild_time ON answers (guild_id, answered_at);
CREATE INDEX answers_member ON answers (guild_id, user_id, answered_at);
