-- 0004: Parameters of computed-question posts
-- Why: issue #9 4: a computed question draws its numbers when it is posted; every click
--   reply, the daily reveal and a restart must show the same numbers.
-- Changes: adds posts.params (NULL for a fixed question).
--
-- Computed questions (issue #9 4): the parameters drawn for a post of a template, as
-- JSON of exact fractions ({"n": "8", "S": "25/2"}), so the message, every click reply,
-- the daily reveal and a restart show the same numbers. NULL for a fixed question.
ALTER TABLE posts ADD COLUMN params TEXT;
