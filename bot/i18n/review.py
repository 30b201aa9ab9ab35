"""The strings of `/tpquiz review` and the stats picture (issue #12), in Turkish and
English. Kept beside bot/i18n/__init__.py, which merges them into its MESSAGES and command
translations, so that module stays one screenful per feature."""

from __future__ import annotations

from bot.quiz.model import Lang

REVIEW_MESSAGES: dict[str, dict[Lang, str]] = {
    "review_title": {"tr": "Tekrar", "en": "Review"},
    "review_intro": {
        "tr": "Her cevaptan hemen sonra doğrusu ve açıklaması gelir. Bir soruya ilk cevabın"
        " puan kazanabilir; tekrarlar isabete sayılır.",
        "en": "Each answer shows the right one and why at once. A first answer to a question"
        " can earn its point; reviews count for accuracy.",
    },
    "review_resumed": {
        "tr": "Açık tekrar turuna kaldığın yerden devam ediyorsun.",
        "en": "Continuing your open review round where you left it.",
    },
    "review_done": {
        "tr": "Tekrar bitti: {right}/{total} doğru",
        "en": "Review finished: {right}/{total} right",
    },
    "review_outlook": {
        "tr": "Yarına kadar {tomorrow} kart, 7 gün içinde {week} kart tekrar zamanına gelecek.",
        "en": "Cards due by tomorrow: {tomorrow}; in the next 7 days: {week}.",
    },
    "review_next_due": {
        "tr": "Sıradaki kart {relative} ({when}) tekrar zamanına gelir.",
        "en": "The next card falls due {relative} ({when}).",
    },
    "review_no_cards": {
        "tr": "Zamanı gelecek kartın yok.",
        "en": "You have no cards coming due.",
    },
    "review_nothing": {
        "tr": "Şu an tekrar edilecek kart yok ve çözmediğin yeni soru kalmadı.",
        "en": "Nothing is due for review now, and there is no new question left for you.",
    },
    "review_start_button": {"tr": "Şimdi tekrar et", "en": "Review now"},
    "unknown_review": {
        "tr": "Bu tekrar turu bulunamadı. `/tpquiz tekrar` ile yenisini başlat.",
        "en": "This review round could not be found. Start one with `/tpquiz review`.",
    },
    "review_closed": {
        "tr": "Bu tekrar turu kapandı: daha yeni bir turun açık. `/tpquiz tekrar` ona devam eder.",
        "en": "This review round was closed: a newer one of yours is open."
        " `/tpquiz review` continues it.",
    },
    "not_your_review": {
        "tr": "Bu tekrar turu başkasına ait. Kendi turun için `/tpquiz tekrar` yaz.",
        "en": "This review round belongs to someone else. Start yours with `/tpquiz review`.",
    },
    "stats_due_now": {"tr": "Şimdi tekrar zamanı gelen", "en": "Due now"},
    "stats_due_week": {"tr": "Bu hafta zamanı gelecek", "en": "Due this week"},
    "stats_retention": {
        "tr": "Hatırlama tahmini (FSRS)",
        "en": "Retention estimate (FSRS)",
    },
    "stats_no_cards": {"tr": "henüz kart yok", "en": "no cards yet"},
    # Opt-in reminders by DM
    "reminder_on": {
        "tr": "Tekrar hatırlatmaları açık: en az 5 kartının tekrar zamanı geldiği günlerde"
        " saat {time}'de ({timezone}) sana DM gönderirim; düğmesi tekrarı bu sunucuda başlatır.",
        "en": "Review reminders are on: on days when at least 5 of your cards are due I send"
        " you a DM at {time} ({timezone}), with a button that starts the review in this server.",
    },
    "reminder_off": {
        "tr": "Tekrar hatırlatmaları kapalı.",
        "en": "Review reminders are off.",
    },
    "reminder_dm_title": {
        "tr": "Tekrar zamanı: {n} kart seni bekliyor",
        "en": "Time to review: {n} cards are due",
    },
    "reminder_dm_body": {
        "tr": "**{guild}** sunucusundaki kartların. Düğmeye basınca tekrar turun başlar."
        " Hatırlatmaları kapatmak için orada `/tpquiz tekrar hatırlat:kapat` yaz.",
        "en": "Your cards in **{guild}**. Press the button to start your review round."
        " To stop these reminders, use `/tpquiz review remind:off` there.",
    },
    "reminder_refused": {
        "tr": "Tekrar hatırlatmalarını kapattım: Discord DM'imi reddetti (doğrudan mesajların"
        " kapalı). DM'lere izin verip `/tpquiz tekrar hatırlat:aç` ile yeniden açabilirsin.",
        "en": "I turned your review reminders off: Discord refused my DM (your direct messages"
        " are closed). Allow DMs, then turn them on again with `/tpquiz review remind:on`.",
    },
    "a_server": {"tr": "sunucu", "en": "the server"},
    # The stats picture (bot/ui/charts.py)
    "chart_title": {"tr": "{name} — ilerleme", "en": "{name} — progress"},
    "chart_accuracy": {"tr": "isabet %", "en": "accuracy %"},
    "chart_weeks": {"tr": "Son 12 hafta", "en": "Last 12 weeks"},
    "chart_answers": {"tr": "cevap", "en": "answers"},
    "chart_right": {"tr": "doğru", "en": "right"},
    "chart_weakest": {"tr": "en zayıf", "en": "weakest"},
    "chart_no_answers": {"tr": "henüz cevap yok", "en": "no answers yet"},
}

REVIEW_COMMANDS_TR: dict[str, str] = {
    "review": "tekrar",
    "remind": "hatırlat",
    "on": "aç",
    "Review reminders by DM: on or off": "DM ile tekrar hatırlatmaları: aç ya da kapat",
    "Reminder time, HH:MM in the server's time zone (default: the daily post time)": (
        "Hatırlatma saati, sunucunun saat diliminde SS:DD (varsayılan: günlük soru saati)"
    ),
    "Review your missed questions when they are due (spaced repetition)": (
        "Kaçırdığın soruları zamanı gelince tekrar et (aralıklı tekrar)"
    ),
}
