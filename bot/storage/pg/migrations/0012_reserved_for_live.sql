-- 0012: Reserved for the live sessions' migration (a placeholder)
-- Why: issue 27's branch and the live sessions' branch were written side by side; the
--   live sessions take 0012 and a server's own questions 0013. This placeholder keeps
--   the numbers without a gap on the branch alone; it is replaced by the live sessions'
--   0012 at merge (or 0013 is renumbered 0012 if this branch is merged alone).
-- Changes: none.

SELECT 1;
