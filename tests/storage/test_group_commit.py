"""Group commit on real SQLite files: clicks in flight together share one transaction,
each still all-or-nothing, each told only after its batch committed.

What a click must guarantee whatever the backend (one answer from twenty concurrent
clicks by one member, exact totals, nothing scored once the post closed and the reveal's
counts equal to the database) runs on SQLite and PostgreSQL (the `backend` fixture);
PostgreSQL's own group commit (bot/storage/pg/group_commit.py) has its tests in
test_pg_group_commit.py; the savepoints and sqlite3 faults here are SQLite-only."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.quiz.scoring import AnswerResult
from bot.storage.errors import WriteFailed
from bot.storage.sqlite import Storage
from bot.storage.sqlite.group_commit import GroupCommit
from tests.factories import make_bank
from tests.storage.conftest import Backend

GUILD = 111
QUESTION = make_bank()["mlp-split-01"]  # key: choice index 1


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "quiz.sqlite3")
    yield s
    await s.close()


def _rows(storage: Storage, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with sqlite3.connect(storage.db.path) as conn:
        return [tuple(r) for r in conn.execute(sql, params)]


async def _post(storage: Storage | Backend, kind: str = "question"):  # type: ignore[no-untyped-def]
    return await storage.posts.create(
        guild_id=GUILD,
        channel_id=5,
        question_id=QUESTION.id,
        order=(0, 1, 2, 3),
        language="en",
        now_ms=1_000,
        kind=kind,
    )


async def _click(
    storage: Storage | Backend, post_id: int, user: int, choice: int = 1
) -> AnswerResult | None:
    return await storage.answers.record(
        guild_id=GUILD,
        user_id=user,
        name=f"m{user}",
        question=QUESTION,
        choice_index=choice,
        now_ms=2_000 + user,
        post_id=post_id,
    )


async def test_clicks_in_flight_together_share_a_transaction_and_all_commit(
    storage: Storage,
) -> None:
    post = await _post(storage)
    batches: list[int] = []
    commits: list[float] = []
    storage.answers.clicks.on_batch = batches.append
    storage.db.on_commit = commits.append
    results = await asyncio.gather(*(_click(storage, post.id, user) for user in range(1, 41)))
    assert all(r is not None and not r.duplicate and r.points_awarded == 1 for r in results)
    assert sum(batches) == 40 and max(batches) > 1  # shared, not one transaction each
    assert len(commits) == len(batches)
    assert _rows(storage, "SELECT COUNT(*), SUM(points) FROM answers") == [(40, 40)]
    assert _rows(storage, "SELECT answer_count FROM posts WHERE id = ?", (post.id,)) == [(40,)]
    # Every member ties on one point: all rank first, as the summaries count them.
    assert {r.rank for r in results if r is not None} == {1}


async def test_twenty_concurrent_clicks_by_one_member_give_exactly_one_answer(
    backend: Backend,
) -> None:
    post = await _post(backend)
    results = await asyncio.gather(*(_click(backend, post.id, 7, choice=i % 4) for i in range(20)))
    fresh = [r for r in results if r is not None and not r.duplicate]
    assert len(fresh) == 1
    first = fresh[0]
    for r in results:  # every duplicate reports the standing answer
        assert r is not None and r.choice_index == first.choice_index
        assert r.score.answered == 1
    assert await backend.rows("SELECT COUNT(*) FROM answers WHERE user_id = 7", ()) == [(1,)]
    assert await backend.rows("SELECT answered FROM members WHERE user_id = 7", ()) == [(1,)]
    assert (await backend.posts.get(post.id)).answer_count == 1  # type: ignore[union-attr]


async def test_forty_members_clicking_together_give_exact_totals(backend: Backend) -> None:
    post = await _post(backend)
    results = await asyncio.gather(*(_click(backend, post.id, user) for user in range(1, 41)))
    assert all(r is not None and not r.duplicate and r.points_awarded == 1 for r in results)
    assert await backend.rows("SELECT COUNT(*), SUM(points) FROM answers", ()) == [(40, 40)]
    assert (await backend.posts.get(post.id)).answer_count == 40  # type: ignore[union-attr]
    assert await backend.rows(
        "SELECT members FROM score_counts WHERE period = 'all' AND members > 0", ()
    ) == [(40,)]
    assert {r.rank for r in results if r is not None} == {1}


async def test_clicks_racing_the_close_either_count_in_the_reveal_or_score_nothing(
    backend: Backend,
) -> None:
    """Whatever the interleaving: a click answered with a result is in the reveal's
    counts, a click answered None (closed) is nowhere, and a click after it too."""
    post = await _post(backend, kind="daily")
    before = [_click(backend, post.id, user, choice=user % 4) for user in range(1, 21)]
    after = [_click(backend, post.id, user, choice=user % 4) for user in range(21, 41)]
    *results, closed = await asyncio.gather(*before, *after, backend.daily.close(post.id, 5_000))
    assert closed is not None
    _, counts = closed
    recorded = [r for r in results if r is not None]
    assert sum(counts.values()) == len(recorded)
    expected: dict[int, int] = {}
    for r in recorded:
        expected[r.choice_index] = expected.get(r.choice_index, 0) + 1
    assert counts == expected
    rows = await backend.rows("SELECT choice_index, COUNT(*) FROM answers GROUP BY 1", ())
    assert dict(rows) == counts
    assert (await backend.posts.get(post.id)).answer_count == len(recorded)  # type: ignore[union-attr]
    assert await backend.scalar("SELECT COUNT(*) FROM members", ()) == len(recorded)
    # Once closed, a click scores nothing and changes nothing.
    assert await _click(backend, post.id, 99) is None
    assert await backend.scalar("SELECT COUNT(*) FROM answers", ()) == len(recorded)
    assert await backend.daily.close(post.id, 6_000) is None


async def test_one_failing_click_is_rolled_back_alone_and_the_others_commit(
    storage: Storage,
) -> None:
    group: GroupCommit[str] = GroupCommit(storage.db)
    sizes: list[int] = []
    group.on_batch = sizes.append

    def insert(key: str):  # type: ignore[no-untyped-def]
        def work(conn: sqlite3.Connection) -> str:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, 'first')", (key + "-a",))
            conn.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (key,))
            return key

        return work

    await storage.meta.set("taken", "already")
    outcomes = await asyncio.gather(
        *(group.submit(insert(k)) for k in ("a", "taken", "b")), return_exceptions=True
    )
    assert sizes == [3]  # one batch
    assert outcomes[0] == "a" and outcomes[2] == "b"
    assert isinstance(outcomes[1], sqlite3.IntegrityError)
    keys = {k for (k,) in _rows(storage, "SELECT key FROM meta")}
    # The failing click's first statement went with it; the others' both statements stayed.
    assert {"a", "a-a", "b", "b-a", "taken"} <= keys and "taken-a" not in keys


async def test_a_storage_fault_fails_the_whole_batch_and_the_next_one_commits(
    storage: Storage,
) -> None:
    post = await _post(storage)
    await _click(storage, post.id, 1)
    pages = _rows(storage, "PRAGMA page_count")[0][0]
    await storage.db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages}"))
    names = [
        storage.answers.record(
            guild_id=GUILD,
            user_id=user,
            name="n" * 400,  # fills pages: SQLITE_FULL within the batch
            question=QUESTION,
            choice_index=1,
            now_ms=3_000,
            post_id=post.id,
        )
        for user in range(2, 60)
    ]
    outcomes = await asyncio.gather(*names, return_exceptions=True)
    failed = [o for o in outcomes if isinstance(o, WriteFailed)]
    assert failed, "the page limit must be reached"
    saved = [o for o in outcomes if isinstance(o, AnswerResult)]
    assert len(failed) + len(saved) == len(outcomes)
    # Exactly the acknowledged clicks are in the file, and the summaries agree with them.
    assert _rows(storage, "SELECT COUNT(*) FROM answers") == [(1 + len(saved),)]
    assert _rows(storage, "SELECT answer_count FROM posts") == [(1 + len(saved),)]
    await storage.db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages * 100}"))
    again = await _click(storage, post.id, 2)
    assert again is not None and not again.duplicate


async def test_a_click_waiting_while_its_post_closes_scores_nothing_and_the_reveal_agrees(
    storage: Storage,
) -> None:
    post = await _post(storage, kind="daily")
    await _click(storage, post.id, 1, choice=1)
    await _click(storage, post.id, 2, choice=3)
    async with storage.db.transaction() as conn:
        # While this transaction holds the write lock, the closer and then two clicks
        # queue for it, in that order (asyncio's lock is first come, first served).
        closing = asyncio.create_task(storage.daily.close(post.id, 5_000))
        late = [asyncio.create_task(_click(storage, post.id, user)) for user in (3, 4)]
        for _ in range(3):
            await conn.execute("SELECT 1")  # let the tasks reach the lock
    closed = await closing
    assert closed is not None
    closed_post, counts = closed
    assert closed_post.closed_at == 5_000
    assert [await t for t in late] == [None, None]  # answered as closed: nothing scored
    assert counts == {1: 1, 3: 1}
    recorded = _rows(storage, "SELECT choice_index, COUNT(*) FROM answers GROUP BY 1 ORDER BY 1")
    assert dict(recorded) == counts  # type: ignore[arg-type]
    assert _rows(storage, "SELECT answer_count FROM posts") == [(2,)]
    assert _rows(storage, "SELECT COUNT(*) FROM members") == [(2,)]


class _HeldDatabase:
    """A stand-in for `Database` whose transaction waits until the test releases it:
    the batch on the database thread while another process holds the write lock."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:", isolation_level=None)
        self.conn.execute("CREATE TABLE t (x INTEGER)")
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def run_transaction(self, work):  # type: ignore[no-untyped-def]
        self.entered.set()
        await self.release.wait()
        self.conn.execute("BEGIN")
        result = work(self.conn)
        self.conn.execute("COMMIT")
        return result


def _insert(x: int):  # type: ignore[no-untyped-def]
    return lambda conn: conn.execute("INSERT INTO t VALUES (?)", (x,)).rowcount


async def test_close_gives_up_the_queued_clicks_and_the_batch_being_written_commits(
    caplog: pytest.LogCaptureFixture,
) -> None:
    db = _HeldDatabase()
    clicks: GroupCommit[int] = GroupCommit(db)  # type: ignore[arg-type]
    first = asyncio.create_task(clicks.submit(_insert(1)))
    await db.entered.wait()  # the first click's batch is being written

    async def close() -> int:
        return clicks.close()

    # Tasks start in the order they are made: both clicks queue, then the close runs.
    async with asyncio.timeout(10):  # a broken close would leave them waiting forever
        queued_a, queued_b, given_up = await asyncio.gather(
            clicks.submit(_insert(2)), clicks.submit(_insert(3)), close(), return_exceptions=True
        )
    assert given_up == 2
    assert isinstance(queued_a, WriteFailed) and isinstance(queued_b, WriteFailed)
    assert "shutdown: 2 click(s) not saved" in caplog.text
    with pytest.raises(WriteFailed):
        await clicks.submit(_insert(4))  # after the close: refused at once
    db.release.set()
    assert await first == 1
    assert [x for (x,) in db.conn.execute("SELECT x FROM t")] == [1]


async def test_close_with_nothing_queued_gives_up_nothing(storage: Storage) -> None:
    post = await _post(storage)
    assert await _click(storage, post.id, 1) is not None
    assert storage.answers.clicks.close() == 0
    with pytest.raises(WriteFailed):
        await _click(storage, post.id, 2)
    assert _rows(storage, "SELECT user_id FROM answers") == [(1,)]


async def test_a_click_given_up_while_queued_is_not_written() -> None:
    """Its interaction expired while it waited (`within_deadline` cancels its caller):
    its member never sees a result, so it is not recorded; the others commit as before."""
    db = _HeldDatabase()
    clicks: GroupCommit[int] = GroupCommit(db)  # type: ignore[arg-type]
    first = asyncio.create_task(clicks.submit(_insert(1)))
    await db.entered.wait()  # the first click's batch is being written
    given_up = asyncio.create_task(clicks.submit(_insert(2)))
    kept = asyncio.create_task(clicks.submit(_insert(3)))

    async def give_up() -> None:
        # Tasks start in the order they are made: both clicks are queued by now.
        assert clicks.queued() == 2
        given_up.cancel()

    await asyncio.create_task(give_up())
    db.release.set()
    assert await first == 1
    assert await kept == 1
    with pytest.raises(asyncio.CancelledError):
        await given_up
    assert [x for (x,) in db.conn.execute("SELECT x FROM t")] == [1, 3]
