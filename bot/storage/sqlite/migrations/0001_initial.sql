-- 0001: Core schema
-- Why: the first release: a server's posts and every member's answers, with the member
--   summaries a leaderboard reads, personal test runs and per-server settings.
-- Changes: creates guild_settings, posts, test_runs, answers (one answer per member per
--   post, only the first answer to a question scores), members and meta, with their
--   indexes.
--
-- Times are integer Unix milliseconds UTC.

CREATE TABLE guild_settings (
    guild_id     INTEGER PRIMARY KEY,
    language     TEXT CHECK (language IN ('tr', 'en'))
);

CREATE TABLE posts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    message_id    INTEGER,
    question_id   TEXT    NOT NULL,
    choice_order  TEXT    NOT NULL,            -- e.g. "2,0,3,1": position -> choice index
    language      TEXT    NOT NULL,
    kind          TEXT    NOT NULL DEFAULT 'question',
    created_at    INTEGER NOT NULL,
    closes_at     INTEGER,
    closed_at     INTEGER,
    answer_count  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX posts_guild_created ON posts (guild_id, created_at DESC);

CREATE TABLE test_runs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    question_ids  TEXT    NOT NULL,            -- JSON list
    orders        TEXT    NOT NULL,            -- JSON list of lists
    started_at    INTEGER NOT NULL,
    finished_at   INTEGER,
    score         INTEGER
);
CREATE INDEX test_runs_member ON test_runs (guild_id, user_id);

CREATE TABLE answers (
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
    points        INTEGER NOT NULL CHECK (points IN (0, 1)),
    answered_at   INTEGER NOT NULL,
    CHECK ((post_id IS NULL) <> (test_run_id IS NULL)),
    CHECK (points <= first AND points <= correct)
);
-- One answer per member per post, and per question of a test run: enforced here, not
-- only in code, so twenty concurrent clicks record one answer.
CREATE UNIQUE INDEX answers_one_per_post ON answers (post_id, user_id) WHERE post_id IS NOT NULL;
CREATE UNIQUE INDEX answers_one_per_test_question ON answers (test_run_id, question_id)
    WHERE test_run_id IS NOT NULL;
-- Only a member's first answer to a question in a server can score.
CREATE UNIQUE INDEX answers_first ON answers (guild_id, user_id, question_id) WHERE first = 1;
CREATE INDEX answers_guild_time ON answers (guild_id, answered_at);
CREATE INDEX answers_member ON answers (guild_id, user_id, answered_at);

CREATE TABLE members (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    points        INTEGER NOT NULL DEFAULT 0,
    answered      INTEGER NOT NULL DEFAULT 0,
    correct       INTEGER NOT NULL DEFAULT 0,
    streak        INTEGER NOT NULL DEFAULT 0,
    best_streak   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX members_rank ON members (guild_id, points DESC, correct DESC, answered, user_id);

CREATE TABLE meta (
    key           TEXT PRIMARY KEY,
    value         TEXT NOT NULL
);
