-- 0002: Daily questions
-- Why: issue #3: each server can have one question posted every day at its own local
--   time, with members' daily streaks.
-- Changes: creates daily_settings, daily_slots (one slot per server and local day) and
--   daily_streaks; adds posts.daily_date and an index of open daily posts.
--
-- Daily question posts (issue #3): each server's schedule, one slot per server and local
-- day, and members' daily streaks. Dates are local to the server: 'YYYY-MM-DD' text,
-- which sorts like the dates. Times are integer Unix milliseconds UTC.

CREATE TABLE daily_settings (
    guild_id        INTEGER PRIMARY KEY,
    channel_id      INTEGER,
    enabled         INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
    post_time       TEXT    NOT NULL DEFAULT '09:00',
    timezone        TEXT    NOT NULL DEFAULT 'UTC',
    role_id         INTEGER,
    -- When channel/time/zone were last set: a post time that had passed then does not
    -- fire that day.
    schedule_set_at INTEGER NOT NULL DEFAULT 0,
    -- The latest local date whose slot was claimed (posted, or tried and failed).
    last_date       TEXT,
    error_code      INTEGER,
    error_status    INTEGER,
    error_text      TEXT,
    error_channel   INTEGER,
    error_at        INTEGER
);
CREATE INDEX daily_settings_enabled ON daily_settings (guild_id) WHERE enabled = 1;

-- One row per server and local date, inserted before the message is sent: the primary
-- key makes a second post for the same day impossible, even from two overlapping ticks.
-- A failed send keeps its row (status 'failed'): the day is not retried, the next is.
CREATE TABLE daily_slots (
    guild_id      INTEGER NOT NULL,
    local_date    TEXT    NOT NULL,
    post_id       INTEGER,
    question_id   TEXT    NOT NULL,
    round         INTEGER NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('claimed', 'sent', 'failed')),
    claimed_at    INTEGER NOT NULL,
    PRIMARY KEY (guild_id, local_date)
);
CREATE UNIQUE INDEX daily_slots_post ON daily_slots (post_id) WHERE post_id IS NOT NULL;

CREATE TABLE daily_streaks (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    last_date     TEXT    NOT NULL,
    streak        INTEGER NOT NULL,
    best          INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

-- The local date a daily post is for, so every rendering of it shows the same title.
ALTER TABLE posts ADD COLUMN daily_date TEXT;
CREATE INDEX posts_daily_open ON posts (closes_at) WHERE kind = 'daily' AND closed_at IS NULL;
