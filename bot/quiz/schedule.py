"""Daily question posts: every scheduling decision, as pure functions.

Each answer here is a function of (a server's daily settings, the local date it last
posted, now), so tests pin every edge with a fixed clock: DST gaps and overlaps,
date-line zones, an admin moving the time in the middle of a day, a restart after the
post time. Nothing here reads a clock, a database or Discord; the caller passes `now`
(an aware datetime) and gets back dates and instants in UTC.

Rules:
- A server posts at most once per *local* date (its own time zone). The storage layer
  enforces that with a unique slot; these functions only say when a slot is due.
- The post time is a wall-clock time. When it does not exist on a day (the hour skipped
  when clocks spring forward) the post goes out at the first instant after the gap;
  when it happens twice (the hour repeated when clocks fall back) it goes out at the
  first occurrence only.
- A post time that had already passed when the schedule was set (by an admin, in the
  middle of a day) does not fire that day: the first post comes at the next occurrence.
  A post time missed because the bot was down fires once when it starts (catch-up),
  but only the same local day.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.quiz.model import Bank, Question

DEFAULT_TIME = time(9, 0)
DEFAULT_TIMEZONE = "UTC"
#: A daily post still open when daily posts are turned off closes this long after posting.
CLOSE_AFTER_OFF = timedelta(hours=24)
#: Discord shows at most this many autocomplete choices.
MAX_SUGGESTIONS = 25

# Names zoneinfo knows that are not places: never offered, never accepted.
_NOT_ZONES = frozenset({"Factory", "localtime", "posixrules"})
_TIME_RE = re.compile(r"^\s*(\d{1,2})[:.](\d{2})\s*$")
#: Offered when the time zone option is still empty: the zones most servers want.
_POPULAR_ZONES = (
    "UTC",
    "Europe/Istanbul",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "Europe/Moscow",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Asia/Singapore",
    "Asia/Dubai",
    "Australia/Sydney",
    "Pacific/Auckland",
)


class ScheduleError(ValueError):
    """A time or time zone an admin typed is not valid; `key` names the bot.i18n message."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class DailyConfig:
    """What a server's admins chose, as the scheduling rules need it."""

    enabled: bool
    post_time: time = DEFAULT_TIME
    timezone: str = DEFAULT_TIMEZONE
    #: When the schedule (channel, time or zone) was last set; a post time earlier than
    #: this does not fire, so setting 09:00 at noon starts tomorrow, not at once.
    set_at: datetime | None = None


# -- parsing what admins type ------------------------------------------------------------


def parse_time(text: str) -> time:
    """'09:00', '9:00' or '9.00' -> time(9, 0); anything else raises ScheduleError."""
    match = _TIME_RE.match(text or "")
    if match:
        hour, minute = int(match.group(1)), int(match.group(2))
        if hour < 24 and minute < 60:
            return time(hour, minute)
    raise ScheduleError("daily_bad_time", value=text)


def format_time(value: time) -> str:
    return f"{value.hour:02d}:{value.minute:02d}"


@lru_cache(maxsize=1)
def _zone_names() -> dict[str, str]:
    """lower-case name -> canonical IANA name, for every zone tzdata provides."""
    return {name.lower(): name for name in available_timezones() if name not in _NOT_ZONES}


def canonical_zone(name: str) -> str:
    """The IANA name as tzdata spells it ('europe/istanbul' -> 'Europe/Istanbul')."""
    key = (name or "").strip().replace(" ", "_").lower()
    found = _zone_names().get(key)
    if found is None:
        raise ScheduleError("daily_bad_timezone", value=name)
    return found


@lru_cache(maxsize=512)
def zone(name: str) -> ZoneInfo:
    """The ZoneInfo for a stored (canonical) name; ScheduleError if tzdata lacks it."""
    try:
        return ZoneInfo(canonical_zone(name))
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ScheduleError("daily_bad_timezone", value=name) from exc


def timezone_suggestions(query: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """IANA names for the autocomplete: names starting with the query first, then names
    containing it anywhere ('istanbul' finds Europe/Istanbul and Asia/Istanbul)."""
    needle = (query or "").strip().replace(" ", "_").lower()
    if not needle:
        return list(_POPULAR_ZONES[:limit])
    names = sorted(_zone_names().values())
    starts = [n for n in names if n.lower().startswith(needle)]
    parts = [
        n
        for n in names
        if n not in starts and any(part.startswith(needle) for part in n.lower().split("/"))
    ]
    inside = [n for n in names if needle in n.lower() and n not in starts and n not in parts]
    return (starts + parts + inside)[:limit]


# -- local dates and post instants -------------------------------------------------------


def local_date(now: datetime, tz: ZoneInfo) -> date:
    """The calendar date at `now` on the server's clocks."""
    return now.astimezone(tz).date()


def _wall(instant: datetime, tz: ZoneInfo) -> datetime:
    return instant.astimezone(tz).replace(tzinfo=None)


def post_instant(day: date, at: time, tz: ZoneInfo) -> datetime:
    """The UTC instant of wall-clock time `at` on local date `day`.

    The first instant whose local wall time is at or after `at` that day: the time
    itself when it exists once; its first occurrence when clocks fall back over it;
    the end of the gap (e.g. 03:00 EDT for 02:30 on the spring-forward day) when
    clocks skip it.
    """
    wall = datetime.combine(day, at)
    valid = []
    for fold in (0, 1):
        instant = wall.replace(tzinfo=tz, fold=fold).astimezone(UTC)
        if _wall(instant, tz) == wall:
            valid.append(instant)
    if valid:
        return min(valid)
    # In a gap: the two folds map to instants on either side of the transition, one
    # showing a wall time before `at`, one after. Bisect (in whole seconds: transitions
    # fall on whole seconds) for the first instant whose wall time is not before `at`.
    lo, hi = sorted(wall.replace(tzinfo=tz, fold=f).astimezone(UTC) for f in (0, 1))
    lo_s, hi_s = int(lo.timestamp()), int(hi.timestamp())
    while hi_s - lo_s > 1:
        mid = (lo_s + hi_s) // 2
        if _wall(datetime.fromtimestamp(mid, UTC), tz) >= wall:
            hi_s = mid
        else:
            lo_s = mid
    return datetime.fromtimestamp(hi_s, UTC)


def _fires(config: DailyConfig, day: date, tz: ZoneInfo) -> datetime | None:
    """When `day`'s post fires under `config`, or None when that day has no post.

    None for a date the zone skipped altogether (Pacific/Apia jumped over 30 December
    2011) and for a post time that had passed before the schedule was set.
    """
    instant = post_instant(day, config.post_time, tz)
    if local_date(instant, tz) != day:
        return None
    if config.set_at is not None and instant < config.set_at:
        return None
    return instant


def due_date(config: DailyConfig, last_posted: date | None, now: datetime) -> date | None:
    """The local date whose post is due at `now`, or None when nothing is due.

    Only today (on the server's clocks) can be due: a day missed entirely while the bot
    was down is not posted late. A post time already reached today fires once: catch-up
    after a restart, and no second post once `last_posted` is today.
    """
    if not config.enabled:
        return None
    tz = zone(config.timezone)
    today = local_date(now, tz)
    if last_posted is not None and last_posted >= today:
        return None
    instant = _fires(config, today, tz)
    if instant is None or now < instant:
        return None
    return today


def next_post_at(config: DailyConfig, last_posted: date | None, now: datetime) -> datetime | None:
    """The instant of the next post (UTC), or None when daily posts are off.

    May be in the past by up to one tick when today's post is due but not yet sent.
    """
    if not config.enabled:
        return None
    tz = zone(config.timezone)
    today = local_date(now, tz)
    for offset in range(4):  # a skipped date and a passed time cost at most two days
        day = today + timedelta(days=offset)
        if last_posted is not None and day <= last_posted:
            continue
        instant = _fires(config, day, tz)
        if instant is not None:
            return instant
    return None  # pragma: no cover - no zone skips three days in a row


def closes_at(config: DailyConfig, day: date, posted_at: datetime) -> datetime:
    """When the post of local date `day` closes: at the next daily post, as scheduled
    when it goes out (or 24 hours after posting if no next post is scheduled)."""
    following = next_post_at(config, day, posted_at)
    return following if following is not None else posted_at + CLOSE_AFTER_OFF


# -- which question ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DailyPick:
    question: Question
    #: Rounds number 1, 2, ...: each round posts every question of the bank once.
    round: int


def _arrangeable(counts: Counter[str], last: str | None) -> bool:
    """Can these topics be posted with no topic twice in a row, after `last`?

    With n questions left and the largest topic holding m, the classic condition is
    m <= ceil(n/2); when m is exactly that and n is odd, that topic must come first,
    which `last` forbids if it is that topic.
    """
    n = sum(counts.values())
    if n == 0:
        return True
    topic, m = counts.most_common(1)[0]
    if m > (n + 1) // 2:
        return False
    return not (n % 2 == 1 and m == (n + 1) // 2 and topic == last)


def pick_daily(bank: Bank, history: Sequence[tuple[str, int]], rng: random.Random) -> DailyPick:
    """The next daily question: one this server has not had in the current round.

    `history` is the server's delivered daily questions, newest first, as
    (question id, round). When every question of the bank had its turn, a new round
    starts in a new (random) order. The topic differs from the previous day's whenever
    the rest of the round can still be arranged that way; among such topics the choice
    is random, weighted by how many questions each has left, so big topics are spread
    over the whole round instead of piling up at its end.
    """
    if not len(bank):
        raise LookupError("the question bank is empty")
    current = history[0][1] if history else 1
    used = {qid for qid, r in history if r == current}
    remaining = [q for q in bank if q.id not in used]
    if not remaining:
        current += 1
        remaining = list(bank)
    last_q = bank.get(history[0][0]) if history else None
    last_topic = last_q.topic if last_q else None

    counts = Counter(q.topic for q in remaining)
    topics = sorted(counts)
    good = []
    for topic in topics:
        if topic == last_topic and len(topics) > 1:
            continue
        after = counts.copy()
        after[topic] -= 1
        if _arrangeable(+after, topic):
            good.append(topic)
    if not good:
        # Some repeat is unavoidable later on; still avoid one today if possible, and
        # take the biggest topic so the forced run at the end is as short as it can be.
        others = [t for t in topics if t != last_topic] or topics
        good = [max(others, key=lambda t: counts[t])]
    topic = rng.choices(good, weights=[counts[t] for t in good])[0]
    question = rng.choice(sorted((q for q in remaining if q.topic == topic), key=lambda q: q.id))
    return DailyPick(question, current)


# -- daily streaks -------------------------------------------------------------------------


def next_daily_streak(
    streak: int, last_answered: date | None, day: date, previous_post: date | None
) -> int:
    """A member's daily streak after answering the daily question of local date `day`.

    The streak counts consecutive daily questions answered: it grows when the member's
    last answered daily question was the server's previous one (`previous_post`, the
    latest delivered daily post before `day`), and restarts at 1 otherwise. A day with
    no daily post (bot down, posts off, channel broken) gave nothing to answer, so it
    neither breaks nor extends a streak.
    """
    if last_answered is not None and last_answered >= day:
        return streak  # already counted (or an older post answered late: no change)
    if last_answered is not None and previous_post is not None and last_answered == previous_post:
        return streak + 1
    return 1


def current_daily_streak(streak: int, last_answered: date | None, last_closed: date | None) -> int:
    """The streak as it stands now: 0 once a daily question closed without the member's
    answer (`last_closed` is the local date of the server's latest closed daily post)."""
    if last_answered is None:
        return 0
    if last_closed is not None and last_answered < last_closed:
        return 0
    return streak
