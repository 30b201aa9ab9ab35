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
-- Deterministic: the same rows close on every copy of a file and on PostgreSQL (0011
-- there); no clock is read.

UPDATE test_runs
SET finished_at = COALESCE(
        (SELECT MAX(a.answered_at) FROM answers AS a WHERE a.test_run_id = test_runs.id),
        test_runs.started_at),
    score = (SELECT COUNT(*) FROM answers AS a
             WHERE a.test_run_id = test_runs.id AND a.correct = 1)
WHERE kind = 'review' AND finished_at IS NULL
  AND EXISTS (SELECT 1 FROM test_runs AS newer
              WHERE newer.guild_id = test_runs.guild_id AND newer.user_id = test_runs.user_id
                AND newer.kind = 'review' AND newer.finished_at IS NULL
                AND newer.id > test_runs.id);
DROP INDEX test_runs_open_review;
CREATE UNIQUE INDEX test_runs_one_open_review ON test_runs (guild_id, user_id)
    WHERE kind = 'review' AND finished_at IS NULL;
