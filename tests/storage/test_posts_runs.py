"""Post and test-run stores, the same tests on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Awaitable

from bot.storage.records import Post, TestRun
from tests.storage.conftest import Backend

BIG_ID = 2**63 - 1
ANSWER = (
    "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, test_run_id,"
    " choice_index, correct, first, points, answered_at) VALUES (?, ?, ?, 't', ?, ?, ?, 0, 1, 0, 5)"
)


async def _post(backend: Backend, **kw: object) -> Post:
    fields: dict[str, object] = dict(
        guild_id=BIG_ID, channel_id=BIG_ID - 1, question_id="q1", order=(2, 0, 3, 1),
        language="tr", now_ms=1_700_000_000_000,
    )  # fmt: skip
    fields.update(kw)
    return await backend.posts.create(**fields)  # type: ignore[arg-type]


async def test_a_post_reads_back_as_created(backend: Backend) -> None:
    post = await _post(backend, kind="daily", closes_at=1_700_000_060_000, params='{"n": "8"}')
    assert post == Post(
        id=post.id, guild_id=BIG_ID, channel_id=BIG_ID - 1, message_id=None, question_id="q1",
        order=(2, 0, 3, 1), language="tr", kind="daily", created_at=1_700_000_000_000,
        closes_at=1_700_000_060_000, closed_at=None, answer_count=0, daily_date=None,
        params='{"n": "8"}',
    )  # fmt: skip
    assert await backend.posts.get(post.id) == post
    assert await backend.posts.get(post.id + 1000) is None
    await backend.posts.set_message(post.id, BIG_ID - 2)
    stored = await backend.posts.get(post.id)
    assert stored is not None and stored.message_id == BIG_ID - 2


async def test_ids_grow_and_recent_question_ids_are_newest_first(backend: Backend) -> None:
    posts = [await _post(backend, question_id=f"q{i}") for i in range(5)]
    assert [p.id for p in posts] == sorted({p.id for p in posts})
    await _post(backend, guild_id=1, question_id="elsewhere")
    assert await backend.posts.recent_question_ids(BIG_ID, 3) == ["q4", "q3", "q2"]


async def test_delete_forgets_only_a_post_without_answers(backend: Backend) -> None:
    empty, answered = await _post(backend), await _post(backend)
    await backend.execute("UPDATE posts SET answer_count = 1 WHERE id = ?", (answered.id,))
    await backend.posts.delete(empty.id)
    await backend.posts.delete(answered.id)
    assert await backend.posts.get(empty.id) is None
    assert await backend.posts.get(answered.id) is not None


async def test_choice_counts_count_members_per_choice(backend: Backend) -> None:
    post = await _post(backend)
    for user, choice in ((1, 0), (2, 3), (3, 3), (4, 1)):
        await backend.execute(ANSWER, (1, user, "q1", post.id, None, choice))
    assert await backend.posts.choice_counts(post.id) == {0: 1, 1: 1, 3: 2}
    assert await backend.posts.choice_counts(post.id + 1) == {}


async def test_a_run_reads_back_and_finishes_once(backend: Backend) -> None:
    run = await backend.test_runs.create(
        guild_id=BIG_ID, user_id=7, question_ids=("a", "b"), orders=((1, 0), (0, 1)),
        now_ms=10, kind="review", params=('{"n": "2"}', None),
    )  # fmt: skip
    assert (run.question_ids, run.orders, run.kind) == (("a", "b"), ((1, 0), (0, 1)), "review")
    assert run.params == ('{"n": "2"}', None)
    assert (run.started_at, run.finished_at, run.score) == (10, None, None)
    assert await backend.test_runs.get(run.id) == run
    assert await backend.test_runs.open_review(BIG_ID, 7) == run
    await backend.execute(ANSWER, (BIG_ID, 7, "a", None, run.id, 1))
    assert await backend.test_runs.answers(run.id) == {"a": 1}
    await backend.test_runs.finish(run.id, score=1, now_ms=20)
    await backend.test_runs.finish(run.id, score=0, now_ms=30)  # a second finish is ignored
    done = await backend.test_runs.get(run.id)
    assert done is not None and (done.finished_at, done.score) == (20, 1)
    assert await backend.test_runs.open_review(BIG_ID, 7) is None


async def test_a_members_one_open_review_beside_tests_and_other_members(
    backend: Backend,
) -> None:
    def start(kind: str, user: int, now: int) -> Awaitable[TestRun]:
        return backend.test_runs.create(
            guild_id=1, user_id=user, question_ids=("a",), orders=((0,),), now_ms=now, kind=kind
        )

    review = await start("review", 2, 1)
    await start("test", 2, 2)
    await start("test", 2, 3)  # open tests do not count: only review rounds are unique
    await start("review", 4, 4)
    assert review.params == ()
    assert await backend.test_runs.open_review(1, 2) == review
    assert await backend.test_runs.open_review(1, 3) is None


async def test_for_click_remembers_an_open_post_until_forgotten(backend: Backend) -> None:
    post = await _post(backend)
    assert await backend.posts.for_click(post.id) == post
    await backend.execute("UPDATE posts SET closed_at = 1 WHERE id = ?", (post.id,))
    assert await backend.posts.for_click(post.id) == post  # from memory: fields a click reads
    backend.posts.forget(post.id)
    closed = await backend.posts.for_click(post.id)
    assert closed is not None and closed.closed_at == 1
    assert await backend.posts.for_click(post.id + 99) is None
