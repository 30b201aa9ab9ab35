-- 0006: Problem reports on questions
-- Why: issue #13: every answer reply carries a "Report a problem" button; members'
--   reports reach the server's admins and the bank's maintainers, and two open reports
--   flag a question in the item statistics.
-- Changes: creates reports (one per member, server and question; keyed by guild_id and
--   user_id so a member's deletion removes theirs) with indexes for a member's recent
--   reports and a server's open ones.
--
-- Times are integer Unix milliseconds UTC. `language` is the language the member saw
-- the question in; `body` is the member's own words (up to 500 characters), stored as
-- typed and escaped wherever it is shown. resolved_by is the admin's user id, or NULL
-- when resolved from the command line (the note says by whom).

CREATE TABLE reports (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    question_id   TEXT    NOT NULL,
    language      TEXT    NOT NULL CHECK (language IN ('tr', 'en')),
    reason        TEXT    NOT NULL
        CHECK (reason IN ('wrong_answer', 'unclear', 'typo', 'outdated', 'other')),
    body          TEXT    NOT NULL DEFAULT '' CHECK (length(body) <= 500),
    created_at    INTEGER NOT NULL,
    resolved_at   INTEGER,
    resolved_by   INTEGER,
    note          TEXT
);
-- One report per member per question in a server, enforced here so a double submit
-- stores one.
CREATE UNIQUE INDEX reports_one_per_question ON reports (guild_id, user_id, question_id);
CREATE INDEX reports_member_time ON reports (guild_id, user_id, created_at);
CREATE INDEX reports_open ON reports (guild_id, created_at) WHERE resolved_at IS NULL;
