"""Review reminders as the Discord glue sees them: set, find who is due, claim, refuse.

`cogs/reminders.py` runs the tick and sends the DMs; the rules are in
`bot.quiz.reminders`, the SQL in `bot.storage.stores.reminders`. Knows nothing of Discord.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from bot.quiz.model import Lang
from bot.quiz.reminders import reminder_day, worth_sending
from bot.quiz.schedule import ScheduleError, format_time, parse_time, zone
from bot.services.quiz import QuizError, QuizService

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DueReminder:
    guild_id: int
    user_id: int
    day: date
    language: Lang
    due_cards: int


@dataclass(frozen=True, slots=True)
class ReminderSetting:
    enabled: bool
    #: The time it fires, 'HH:MM' in `timezone`, and whether it is the daily post time.
    at: str
    timezone: str
    default_time: bool


class ReminderService:
    def __init__(self, quiz: QuizService) -> None:
        self.quiz = quiz
        self.store = quiz.storage.reminders

    async def set(
        self, *, guild_id: int, user_id: int, on: bool, time_text: str | None, language: Lang
    ) -> ReminderSetting:
        """Turn the member's reminder on or off; QuizError for a time that is not HH:MM."""
        chosen = None
        if time_text is not None:
            try:
                chosen = format_time(parse_time(time_text.strip()))
            except ScheduleError as exc:
                raise QuizError(exc.key, **exc.params) from None
        await self.store.set(
            guild_id,
            user_id,
            enabled=on,
            remind_time=chosen,
            language=language,
            now_ms=self.quiz.now_ms(),
        )
        return await self.setting(guild_id, user_id)

    async def setting(self, guild_id: int, user_id: int) -> ReminderSetting:
        found = await self.store.get(guild_id, user_id)
        daily = await self.quiz.storage.daily.get(guild_id)
        enabled, chosen = found if found else (False, None)
        post_time = daily.post_time if daily else "09:00"
        timezone = daily.timezone if daily else "UTC"
        return ReminderSetting(enabled, chosen or post_time, timezone, chosen is None)

    async def due(
        self, now: datetime, *, owns: Callable[[int], bool] | None = None
    ) -> list[DueReminder]:
        """Reminders due at `now` whose member has enough cards due (not yet claimed).

        `owns` (a process's shards, bot/infra/shards.py) skips other processes' servers
        before their cards are counted.
        """
        found = []
        now_ms = int(now.timestamp() * 1000)
        for row in await self.store.enabled():
            if owns is not None and not owns(row.guild_id):
                continue
            try:
                zone(row.timezone)
                day = reminder_day(
                    remind_time=row.remind_time,
                    post_time=row.post_time,
                    timezone=row.timezone,
                    set_at=datetime.fromtimestamp(row.set_at / 1000, UTC),
                    last_date=date.fromisoformat(row.last_date) if row.last_date else None,
                    now=now,
                )
            except (ScheduleError, ValueError) as exc:
                log.warning(
                    "review reminder of user %s in guild %s skipped: %s",
                    row.user_id,
                    row.guild_id,
                    exc,
                )
                continue
            if day is None:
                continue
            cards = await self.store.due_cards(row.guild_id, row.user_id, now_ms)
            if worth_sending(cards):
                lang: Lang = "tr" if row.language == "tr" else "en"
                found.append(DueReminder(row.guild_id, row.user_id, day, lang, cards))
        return found

    async def claim(self, reminder: DueReminder) -> bool:
        return await self.store.claim(reminder.guild_id, reminder.user_id, reminder.day.isoformat())

    async def refused(self, reminder: DueReminder) -> None:
        await self.store.refused(reminder.guild_id, reminder.user_id, self.quiz.now_ms())

    async def take_refusal(self, guild_id: int, user_id: int) -> bool:
        return await self.store.take_refusal(guild_id, user_id)
