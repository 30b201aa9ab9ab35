-- 0004: Parameters of computed-question posts
-- Why: issue #9 4: a computed question draws its numbers when it is posted; every click
--   reply, the daily reveal and a restart must show the same numbers.
-- Changes: adds posts.params (NULL for a fixed question).
--
-- PostgreSQL twin of bot/storage/sqlite/migrations/0004_post_params.sql. The parameters are
-- JSON of exact fractions ({"n": "8", "S": "25/2"}) kept as TEXT, not jsonb: the stores
-- write and read the same string on both backends.
ALTER TABLE posts ADD COLUMN params TEXT;
