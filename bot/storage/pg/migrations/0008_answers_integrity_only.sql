-- 0008: The answers table keeps only the constraints that protect integrity
-- Why: issue #11: the scoring rule ("only a member's first right answer to a question
--   earns a point") lives in one place, bot/quiz/click.py; 0001 restated it as CHECKs.
-- Changes: drops CHECK (points IN (0, 1)) and CHECK (points <= first AND points <=
--   correct) from answers and adds CHECK (points >= 0); points becomes INTEGER.
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0008_answers_integrity_only.sql. SQLite
-- rebuilds the table because it cannot drop a CHECK; PostgreSQL drops the two named
-- constraints of 0001 in place, keeping the rows, ids, identity and indexes. points is
-- no longer a 0/1 flag, so it widens from SMALLINT to INTEGER like the other counts
-- (SUM of either is a BIGINT).

ALTER TABLE answers DROP CONSTRAINT answers_points_flag;
ALTER TABLE answers DROP CONSTRAINT answers_points_earned;
ALTER TABLE answers ALTER COLUMN points TYPE INTEGER;
ALTER TABLE answers ADD CONSTRAINT answers_points_nonnegative CHECK (points >= 0);
