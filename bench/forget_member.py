"""Forgetting a member and a server at 200,000 answers (2,000 members, 500 posts).

Run: .venv/bin/python -m bench.forget_member. Prints milliseconds; docs/performance.md
has the figures. Not a test: nothing here is asserted.
"""

import asyncio
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from bot.storage.sqlite import Storage

G = 5


async def main() -> None:
    d = Path(tempfile.mkdtemp())
    p = d / "m.sqlite3"
    s = await Storage.open(p)
    await s.close()
    conn = sqlite3.connect(p)
    rng = random.Random(1)
    users = 2000
    posts = 500
    conn.execute("BEGIN")
    for _ in range(posts):
        conn.execute(
            "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language, created_at) VALUES (?,1,'q',?, 'en', 0)",
            (G, "0,1,2,3"),
        )
    rows = []
    t0 = 1_790_000_000_000
    for pid in range(1, posts + 1):
        for u in rng.sample(range(1, users + 1), 400):
            c = rng.random() < 0.6
            rows.append(
                (G, u, f"q{pid % 300}", "t", pid, None, 0, int(c), 0, 0, t0 + pid * 3_600_000)
            )
    conn.executemany(
        "INSERT INTO answers (guild_id,user_id,question_id,topic,post_id,test_run_id,choice_index,correct,first,points,answered_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    conn.execute(
        "UPDATE posts SET answer_count = (SELECT COUNT(*) FROM answers WHERE post_id = posts.id)"
    )
    conn.execute(
        "INSERT INTO members (guild_id,user_id,name,points,answered,correct) SELECT guild_id,user_id,'n',SUM(points),COUNT(*),SUM(correct) FROM answers GROUP BY 1,2"
    )
    conn.execute(
        "INSERT INTO member_periods SELECT guild_id,'week',(answered_at/86400000-(answered_at/86400000+3)%7)*86400000,user_id,SUM(points),COUNT(*),SUM(correct) FROM answers GROUP BY 1,2,3,4"
    )
    conn.execute(
        "INSERT INTO score_counts SELECT guild_id,'all',0,points,correct,COUNT(*) FROM members GROUP BY 1,2,3,4,5"
    )
    conn.execute(
        "INSERT INTO score_counts SELECT guild_id,period,starts_at,points,correct,COUNT(*) FROM member_periods GROUP BY 1,2,3,4,5"
    )
    conn.execute("COMMIT")
    conn.close()
    s = await Storage.open(p)
    n = len(rows)
    times = []
    for u in (1, 500, 1000, 1500, 1999):
        t = time.perf_counter()
        d_ = await s.privacy.forget_member(G, u)
        times.append(time.perf_counter() - t)
    print(
        f"answers {n}, member answers ~{d_['answers']}, forget_member ms: {[round(x * 1000, 1) for x in times]}"
    )
    t = time.perf_counter()
    e = await s.privacy.export_member(G, 7)
    print(f"export ms {1000 * (time.perf_counter() - t):.1f} answers {len(e['answers'])}")
    t = time.perf_counter()
    await s.privacy.forget_guild(G)
    print(f"forget_guild ms {1000 * (time.perf_counter() - t):.0f}")
    await s.close()


asyncio.run(main())
