-- 0014: Members suggest questions, moderators review them
-- Why: issue 27: a member writes a question in a modal (`/tpquiz suggest`); it waits in
--   the server's queue (and its review channel) until a moderator accepts it (it becomes
--   one of the server's own questions, credited to its author), asks for changes or
--   rejects it; the author is told the decision once.
-- Changes: creates suggestions (one row per suggestion: the modal's five texts as typed,
--   its state, the decision and the review post) and suggestion_settings (one row per
--   server: the review channel and the reviewer role); adds credit_user_id and
--   credit_name to guild_questions (who suggested an accepted question: kept out of its
--   immutable body, so forgetting the member only clears these two columns).
--
-- state: draft (had problems; kept so nothing typed is lost), open, changes (asked for
-- changes), accepted, rejected. A decision is a conditional UPDATE ... WHERE state =
-- 'open', so it happens once. notified_at is when the author was told at their next
-- /tpquiz command. A member's deletion removes their suggestions and the credit name; a
-- server's deletion both tables (bot/storage/member_data.py). Times are Unix ms UTC.

CREATE TABLE suggestions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id        INTEGER NOT NULL,
    user_id         INTEGER NOT NULL,
    author_name     TEXT    NOT NULL,
    language        TEXT    NOT NULL CHECK (language IN ('tr', 'en')),
    text            TEXT    NOT NULL,
    right_answer    TEXT    NOT NULL,
    wrong_answers   TEXT    NOT NULL,
    explanation     TEXT    NOT NULL,
    source          TEXT    NOT NULL,
    state           TEXT    NOT NULL
        CHECK (state IN ('draft', 'open', 'changes', 'accepted', 'rejected')),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    decided_at      INTEGER,
    reviewer_id     INTEGER,
    reason          TEXT,
    question_id     TEXT,
    notified_at     INTEGER,
    post_channel_id INTEGER,
    post_message_id INTEGER
);

CREATE INDEX suggestions_member ON suggestions (guild_id, user_id, state);
CREATE INDEX suggestions_queue ON suggestions (guild_id, state, id);

CREATE TABLE suggestion_settings (
    guild_id        INTEGER PRIMARY KEY,
    channel_id      INTEGER,
    reviewer_role_id INTEGER
);

ALTER TABLE guild_questions ADD COLUMN credit_user_id INTEGER;
ALTER TABLE guild_questions ADD COLUMN credit_name TEXT;
