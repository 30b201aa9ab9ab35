-- 0011: One open review round per member and server
-- Why: issue 31 (6): two `/tpquiz review` at once (a double tap, two devices) each found
--   no open round and each started one, and the member could answer a question once in
--   each. The README promises that a second `/tpquiz review` continues the open round;
--   a unique index makes that the database's rule, so the start of a round is one
--   insert-or-get (bot/storage/stores/test_runs.py `start_review`) that no race can double.
-- Changes: closes every open review round of a member and server but the newest (the
--   one `/tpquiz review` has been continuing): finished_at is its last answer's time (its
--   start when it has none), score its right answers. Then replaces the index
--   test_runs_open_review with the unique test_runs_one_open_review, same columns and
--   condition. A closed round's buttons take no new answer (bot/storage/sqlite/clicks.py).
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0011_one_open_review.sql, closing the same
-- rows. The table lock keeps a bot still running the previous version (a rolling
-- update) from opening a round between the closing and the index, which would make
-- the index fail; it is held until this migration commits.

LOCK TABLE test_runs IN SHARE ROW EXCLUSIVE MODE;
UPDATE test_runs AS r
SET finished_at = COALESCE(
        (SELECT MAX(a.answered_at) FROM answers AS a WHERE a.test_run_id = r.id),
        r.started_at),
    score = (SELECT COUNT(*) FROM answers AS a WHERE a.test_run_id = r.id AND a.correct = 1)
WHERE r.kind = 'review' AND r.finished_at IS NULL
  AND EXISTS (SELECT 1 FROM test_runs AS newer
              WHERE newer.guild_id = r.guild_id AND newer.user_id = r.user_id
                AND newer.kind = 'review' AND newer.finished_at IS NULL
                AND newer.id > r.id);
DROP INDEX test_runs_open_review;
CREATE UNIQUE INDEX test_runs_one_open_review ON test_runs (guild_id, user_id)
    WHERE kind = 'review' AND finished_at IS NULL;
