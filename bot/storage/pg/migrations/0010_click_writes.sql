-- 0010: A click's writes as one PostgreSQL server function
-- Why: issue 15: a recorded click wrote the answer, the card, the member's totals, two
--   period rows, up to six score-count rows, the post's count and the daily streak, then
--   read the rank: up to 14 statements, each a round trip, and most of the bot's CPU per
--   click on PostgreSQL (bench.answer_path --backends sqlite postgresql). The function
--   runs the same statements in the same order on the server: one trip. It decides
--   nothing: every value comes from the decision made in Python (bot/quiz/click.py); NULL
--   means "none" (no post, no test run, no earlier score in a period, no daily streak).
--   The order matters for locks: score_counts rows are touched all -> week -> month, each
--   period's old pair before its new one (the old pair is never above the new one), as
--   before, so clicks of different members cannot deadlock.
-- Changes: creates the function tpquiz_record_click (bot/storage/pg/clicks.py `apply`).
CREATE OR REPLACE FUNCTION tpquiz_record_click(
    p_guild BIGINT, p_user BIGINT, p_question TEXT, p_topic TEXT,
    p_post BIGINT, p_run BIGINT, p_choice INTEGER, p_correct INTEGER, p_first INTEGER,
    p_points INTEGER, p_now BIGINT,
    c_state SMALLINT, c_step INTEGER, c_stability DOUBLE PRECISION,
    c_difficulty DOUBLE PRECISION, c_due BIGINT, c_last_review BIGINT, c_reps INTEGER,
    c_lapses INTEGER,
    m_name TEXT, m_points INTEGER, m_answered INTEGER, m_correct INTEGER, m_streak INTEGER,
    m_best INTEGER, old_points INTEGER, old_correct INTEGER,
    w_starts BIGINT, w_points INTEGER, w_answered INTEGER, w_correct INTEGER,
    w_old_points INTEGER, w_old_correct INTEGER,
    mo_starts BIGINT, mo_points INTEGER, mo_answered INTEGER, mo_correct INTEGER,
    mo_old_points INTEGER, mo_old_correct INTEGER,
    d_last_date TEXT, d_streak INTEGER, d_best INTEGER
) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    kinds TEXT[] := ARRAY['all', 'week', 'month'];
    starts BIGINT[] := ARRAY[0, w_starts, mo_starts];
    olds_p INTEGER[] := ARRAY[old_points, w_old_points, mo_old_points];
    olds_c INTEGER[] := ARRAY[old_correct, w_old_correct, mo_old_correct];
    news_p INTEGER[] := ARRAY[m_points, w_points, mo_points];
    news_c INTEGER[] := ARRAY[m_correct, w_correct, mo_correct];
    i INTEGER;
    ahead INTEGER;
BEGIN
    INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, test_run_id,
                         choice_index, correct, first, points, answered_at)
    VALUES (p_guild, p_user, p_question, p_topic, p_post, p_run, p_choice, p_correct,
            p_first, p_points, p_now);
    INSERT INTO cards (guild_id, user_id, question_id, state, step, stability, difficulty,
                       due, last_review, reps, lapses)
    VALUES (p_guild, p_user, p_question, c_state, c_step, c_stability, c_difficulty, c_due,
            c_last_review, c_reps, c_lapses)
    ON CONFLICT (guild_id, user_id, question_id) DO UPDATE SET state = excluded.state,
        step = excluded.step, stability = excluded.stability,
        difficulty = excluded.difficulty, due = excluded.due,
        last_review = excluded.last_review, reps = excluded.reps, lapses = excluded.lapses;
    INSERT INTO members (guild_id, user_id, name, points, answered, correct, streak,
                         best_streak)
    VALUES (p_guild, p_user, m_name, m_points, m_answered, m_correct, m_streak, m_best)
    ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name,
        points = excluded.points, answered = excluded.answered, correct = excluded.correct,
        streak = excluded.streak, best_streak = excluded.best_streak;
    INSERT INTO member_periods (guild_id, period, starts_at, user_id, points, answered, correct)
    VALUES (p_guild, 'week', w_starts, p_user, w_points, w_answered, w_correct),
           (p_guild, 'month', mo_starts, p_user, mo_points, mo_answered, mo_correct)
    ON CONFLICT (guild_id, period, starts_at, user_id) DO UPDATE SET
        points = excluded.points, answered = excluded.answered, correct = excluded.correct;
    FOR i IN 1..3 LOOP
        IF olds_p[i] IS NOT DISTINCT FROM news_p[i] AND olds_c[i] IS NOT DISTINCT FROM news_c[i] THEN
            CONTINUE;
        END IF;
        IF olds_p[i] IS NOT NULL THEN
            UPDATE score_counts SET members = members - 1
            WHERE guild_id = p_guild AND period = kinds[i] AND starts_at = starts[i]
              AND points = olds_p[i] AND correct = olds_c[i];
        END IF;
        INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)
        VALUES (p_guild, kinds[i], starts[i], news_p[i], news_c[i], 1)
        ON CONFLICT (guild_id, period, starts_at, points, correct)
        DO UPDATE SET members = score_counts.members + 1;
    END LOOP;
    IF p_post IS NOT NULL THEN
        UPDATE posts SET answer_count = answer_count + 1 WHERE id = p_post;
    END IF;
    IF d_last_date IS NOT NULL THEN
        INSERT INTO daily_streaks (guild_id, user_id, last_date, streak, best)
        VALUES (p_guild, p_user, d_last_date, d_streak, d_best)
        ON CONFLICT (guild_id, user_id) DO UPDATE SET last_date = excluded.last_date,
            streak = excluded.streak, best = excluded.best;
    END IF;
    SELECT COALESCE(SUM(members), 0) INTO ahead FROM score_counts
    WHERE guild_id = p_guild AND period = 'all' AND starts_at = 0
      AND (points > m_points OR (points = m_points AND correct > m_correct));
    RETURN 1 + ahead;
END
$$;
