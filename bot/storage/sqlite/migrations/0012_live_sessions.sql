-- 0012: Quiz night sessions (/tpquiz live)
-- Why: issue 26: a timed session the channel plays together must survive a restart: its
--   settings, its questions (one draw of a computed question per session question, so
--   the whole room solves the same numbers), the current question and its deadline, and
--   each player's locked-in choice, which was acknowledged and must never be lost.
-- Changes: creates live_sessions (one open session per channel: a unique index),
--   live_questions (one posts row each, kind 'live', which the session's real answers
--   reference), live_players and live_choices (a player's last choice per question).
--
-- Times are integer Unix milliseconds UTC.

CREATE TABLE live_sessions (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,
    host_id        INTEGER NOT NULL,
    language       TEXT    NOT NULL,
    topic          TEXT    NOT NULL,
    question_count INTEGER NOT NULL,
    seconds        INTEGER,
    scoring        TEXT    NOT NULL CHECK (scoring IN ('accuracy', 'speed')),
    status         TEXT    NOT NULL DEFAULT 'lobby'
                   CHECK (status IN ('lobby', 'running', 'paused', 'ended')),
    lobby_message_id INTEGER,
    created_at     INTEGER NOT NULL,
    position       INTEGER NOT NULL,
    deadline_at    INTEGER,
    remaining_ms   INTEGER,
    ended_at       INTEGER,
    end_reason     TEXT
);
CREATE UNIQUE INDEX live_one_per_channel ON live_sessions (channel_id) WHERE status <> 'ended';
CREATE INDEX live_sessions_guild ON live_sessions (guild_id);

CREATE TABLE live_questions (
    session_id   INTEGER NOT NULL REFERENCES live_sessions (id),
    position     INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    post_id      INTEGER NOT NULL REFERENCES posts (id),
    seconds      INTEGER NOT NULL,
    opened_at    INTEGER,
    revealed_at  INTEGER,
    recorded_at  INTEGER,
    skipped      INTEGER NOT NULL DEFAULT 0 CHECK (skipped IN (0, 1)),
    PRIMARY KEY (session_id, position)
);
CREATE INDEX live_questions_guild ON live_questions (guild_id);

CREATE TABLE live_players (
    session_id   INTEGER NOT NULL REFERENCES live_sessions (id),
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    name         TEXT    NOT NULL,
    joined_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, user_id)
);
CREATE INDEX live_players_member ON live_players (guild_id, user_id);

CREATE TABLE live_choices (
    session_id   INTEGER NOT NULL REFERENCES live_sessions (id),
    position     INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    choice_index INTEGER NOT NULL,
    locked_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, position, user_id)
);
CREATE INDEX live_choices_member ON live_choices (guild_id, user_id);
