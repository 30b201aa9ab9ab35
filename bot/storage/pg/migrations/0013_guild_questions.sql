-- 0013: A server's own questions and what the server draws from
-- Why: issue 27: a study group uploads its own questions (Discord attachments in the
--   bank's format, or GIFT/Aiken); they live in the database, never in files written at
--   run time, and one server's questions are never seen by another.
-- Changes: creates guild_questions (one row per server, question id and version: the
--   question in the bank's model as JSON, its topic, difficulty and languages, when it
--   was stored, when it was retired, and whether it is the question's current version)
--   and guild_bank_settings (one row per server: what it draws from, the share of its
--   own questions in daily posts).
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0013_guild_questions.sql.
-- An upload of an id the server has marks the old version `current = 0` and inserts
-- the next version: answers, cards and item statistics name a version ("id@version"),
-- so earlier answers keep pointing at theirs. A server's deletion removes both tables'
-- rows (bot/storage/member_data.py GUILD_TABLES). Times are Unix milliseconds UTC.

CREATE TABLE guild_questions (
    guild_id        BIGINT  NOT NULL,
    question_id     TEXT    NOT NULL,
    version         BIGINT  NOT NULL,
    topic           TEXT    NOT NULL,
    difficulty      BIGINT  NOT NULL,
    languages       TEXT    NOT NULL,
    body            TEXT    NOT NULL,
    created_at      BIGINT  NOT NULL,
    retired_at      BIGINT,
    current         BIGINT  NOT NULL DEFAULT 1,
    PRIMARY KEY (guild_id, question_id, version)
);

CREATE UNIQUE INDEX guild_questions_current
    ON guild_questions (guild_id, question_id) WHERE current = 1;

CREATE TABLE guild_bank_settings (
    guild_id        BIGINT  PRIMARY KEY,
    draw            TEXT    NOT NULL DEFAULT 'both',
    daily_share     BIGINT  NOT NULL DEFAULT 50
);
