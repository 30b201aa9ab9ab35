"""Every user-facing string in Turkish and English, and the command-name translator.

Replies follow the clicker's locale (`tr` gets Turkish, anything else English); public
posts follow the server's language.
"""

from __future__ import annotations

from discord import Locale, app_commands

from bot.quiz.model import Lang

MESSAGES: dict[str, dict[Lang, str]] = {
    "right": {"tr": "✅ Doğru!", "en": "✅ Correct!"},
    "wrong": {"tr": "❌ Yanlış.", "en": "❌ Wrong."},
    "already": {
        "tr": "Bu soruyu zaten **{letter}** ile cevapladın; ilk cevabın geçerli.",
        "en": "You already answered **{letter}**; your first answer counts.",
    },
    "right_answer": {"tr": "Doğru cevap", "en": "Right answer"},
    "your_answer": {"tr": "Senin cevabın", "en": "Your answer"},
    "why": {"tr": "Neden", "en": "Why"},
    "why_not": {"tr": "{letter} neden yanlış", "en": "Why {letter} is wrong"},
    "source": {"tr": "Kaynak", "en": "Source"},
    "points_line": {
        "tr": "+{awarded} puan · Toplam {points} puan · Sıra #{rank} · Seri {streak}",
        "en": "+{awarded} points · {points} points in all · Rank #{rank} · Streak {streak}",
    },
    "no_points_repeat": {
        "tr": "Bu soruyu daha önce cevapladığın için puan eklenmedi (isabete sayıldı).",
        "en": "No points: you had answered this question before (it counts for accuracy).",
    },
    "answered_count": {"tr": "{n} kişi cevapladı", "en": "{n} answered"},
    "question_title": {"tr": "Tensör paralelliği sorusu", "en": "Tensor parallelism question"},
    "topic_difficulty": {
        "tr": "Konu: {topic} · Zorluk: {difficulty}/3",
        "en": "Topic: {topic} · Difficulty: {difficulty}/3",
    },
    "closed": {
        "tr": "Bu soru kapandı; doğru cevap **{letter}** idi. Puan verilmez.",
        "en": "This question has closed; the answer was **{letter}**. No points are given.",
    },
    "unknown_post": {
        "tr": "Bu soru artık bulunamıyor. `/tpquiz soru` ile yenisini iste.",
        "en": "This question can no longer be found. Ask for a new one with `/tpquiz question`.",
    },
    "question_removed": {
        "tr": "Bu soru ({question_id}) soru bankasından kaldırıldı.",
        "en": "This question ({question_id}) was removed from the question bank.",
    },
    "bad_choice": {"tr": "Bu seçenek geçersiz.", "en": "That choice is not valid."},
    "unknown_topic": {
        "tr": "'{topic}' diye bir konu yok. Konular: {topics}",
        "en": "There is no topic '{topic}'. Topics: {topics}",
    },
    "unknown_test": {
        "tr": "Bu test bulunamadı. `/tpquiz test` ile yeniden başla.",
        "en": "This test could not be found. Start again with `/tpquiz test`.",
    },
    "not_your_test": {
        "tr": "Bu test başkasına ait. Kendi testin için `/tpquiz test` yaz.",
        "en": "This test belongs to someone else. Start your own with `/tpquiz test`.",
    },
    "guild_only": {
        "tr": "Bu komut yalnızca bir sunucuda çalışır.",
        "en": "This command only works in a server.",
    },
    "internal_error": {
        "tr": "Bir şeyler ters gitti; tekrar dene. Cevabın kaydedildiyse kaybolmadı.",
        "en": "Something went wrong; please try again. A recorded answer is never lost.",
    },
    "test_title": {
        "tr": "Büyük Modeller için Tensör Paralelliği Testi",
        "en": "Tensor Parallelism for Large Models Test",
    },
    "test_intro": {
        "tr": "Testi çözdüğünüzde cevaplar ve açıklamalar görünür.",
        "en": "When you finish the test, the answers and explanations appear.",
    },
    "test_progress": {"tr": "Soru {n}/{total}", "en": "Question {n}/{total}"},
    "test_last": {"tr": "Son cevabın: {verdict}", "en": "Your last answer: {verdict}"},
    "test_done": {"tr": "Test bitti: {right}/{total}", "en": "Test finished: {right}/{total}"},
    "not_answered": {"tr": "cevaplanmadı", "en": "not answered"},
    "leaderboard_title": {
        "tr": "Sıralama — {period}",
        "en": "Leaderboard — {period}",
    },
    "period_week": {"tr": "bu hafta", "en": "this week"},
    "period_month": {"tr": "bu ay", "en": "this month"},
    "period_all": {"tr": "tüm zamanlar", "en": "all time"},
    "leaderboard_row": {
        "tr": "**#{rank}** {name} — {points} puan · %{accuracy} isabet",
        "en": "**#{rank}** {name} — {points} points · {accuracy}% accuracy",
    },
    "leaderboard_you": {"tr": "Sen", "en": "You"},
    "leaderboard_empty": {
        "tr": "Bu dönemde henüz cevap yok. İlk soruyu `/tpquiz soru` ile iste!",
        "en": "No answers in this period yet. Ask for a first question with `/tpquiz question`!",
    },
    "page": {
        "tr": "Sayfa {page}/{pages} · {total} kişi",
        "en": "Page {page}/{pages} · {total} members",
    },
    "previous": {"tr": "Önceki", "en": "Previous"},
    "next": {"tr": "Sonraki", "en": "Next"},
    "stats_title": {"tr": "{name} — istatistikler", "en": "{name} — statistics"},
    "stats_none": {
        "tr": "{name} bu sunucuda henüz hiç cevap vermedi.",
        "en": "{name} has not answered anything in this server yet.",
    },
    "stats_points": {"tr": "Puan", "en": "Points"},
    "stats_rank": {"tr": "Sıra", "en": "Rank"},
    "stats_answers": {"tr": "Cevap", "en": "Answers"},
    "stats_accuracy": {"tr": "İsabet", "en": "Accuracy"},
    "stats_streak": {"tr": "Seri (şu an / en iyi)", "en": "Streak (current / best)"},
    "stats_topics": {"tr": "Konulara göre isabet", "en": "Accuracy by topic"},
    "stats_weakest": {"tr": "En zayıf konular", "en": "Weakest topics"},
    "stats_best_test": {"tr": "En iyi test sonucu", "en": "Best test score"},
    "stats_no_test": {"tr": "henüz test yok", "en": "no test yet"},
}


def t(key: str, lang: Lang, **params: object) -> str:
    text = MESSAGES[key][lang]
    return text.format(**params) if params else text


# Turkish command names and descriptions, keyed by the English string in the code.
COMMAND_TRANSLATIONS_TR: dict[str, str] = {
    "question": "soru",
    "leaderboard": "sıralama",
    "stats": "istatistik",
    "test": "test",
    "topic": "konu",
    "period": "dönem",
    "member": "üye",
    "Tensor parallelism quiz": "Tensör paralelliği testi",
    "Post a tensor parallelism question with answer buttons": (
        "Cevap düğmeleriyle bir tensör paralelliği sorusu paylaş"
    ),
    "Only questions of this topic": "Yalnızca bu konudan sorular",
    "Take the whole starting quiz privately, with answers at the end": (
        "Başlangıç testini kendine özel çöz; sonunda cevaplar ve açıklamalar"
    ),
    "This server's top members": "Bu sunucunun en iyileri",
    "Which period to rank": "Hangi dönemin sıralaması",
    "Points, accuracy, streaks and weakest topics": "Puan, isabet, seriler ve en zayıf konular",
    "Whose statistics (default: you)": "Kimin istatistikleri (varsayılan: sen)",
    "week": "hafta",
    "month": "ay",
    "all": "tümü",
}


class CommandTranslator(app_commands.Translator):
    """Gives Turkish clients Turkish command names (`name_localizations`)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is Locale.turkish:
            extra = string.extras.get("tr")
            return extra or COMMAND_TRANSLATIONS_TR.get(string.message)
        return None
