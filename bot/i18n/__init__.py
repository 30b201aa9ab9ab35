"""Every user-facing string in Turkish and English, and the command-name translator.

Replies follow the clicker's locale (`tr` gets Turkish, anything else English); public
posts follow the server's language.
"""

from __future__ import annotations

from discord import Locale, app_commands

from bot.i18n.figures import FIGURE_MESSAGES
from bot.i18n.guild_bank import GUILD_BANK_COMMANDS_TR, GUILD_BANK_MESSAGES
from bot.i18n.items import ITEM_COMMANDS_TR, ITEM_MESSAGES
from bot.i18n.live import LIVE_COMMANDS_TR, LIVE_MESSAGES
from bot.i18n.review import REVIEW_COMMANDS_TR, REVIEW_MESSAGES
from bot.i18n.suggestions import SUGGESTION_COMMANDS_TR, SUGGESTION_MESSAGES
from bot.quiz.model import Lang, Text

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
    # -- option values Discord's client would not have sent (issue #10) --
    "unknown_command": {
        "tr": "Bu komut bu sürümde yok ya da değişti. Discord'u yenile (Ctrl+R) ve tekrar dene.",
        "en": "This command does not exist in this version or has changed. Reload Discord"
        " (Ctrl+R) and try again.",
    },
    "option_not_a_choice": {
        "tr": "'{value}', **{option}** için seçeneklerden biri değil. Seçenekler: {allowed}.",
        "en": "'{value}' is not one of the choices for **{option}**. Choices: {allowed}.",
    },
    "option_length": {
        "tr": "**{option}** {min} ile {max} karakter arasında olmalı; gönderilen {length}"
        " karakter. Hiçbir şey değiştirilmedi.",
        "en": "**{option}** must be {min} to {max} characters long; this one has {length}."
        " Nothing was changed.",
    },
    "option_invalid": {
        "tr": "**{option}** için gönderilen değer geçersiz; listeden birini seç.",
        "en": "The value sent for **{option}** is not valid; pick one from the list.",
    },
    "option_unknown_member": {
        "tr": "**{option}** için seçilen kişiyi bu sunucuda bulamadım; listeden bir üye seç.",
        "en": "I could not find the member given for **{option}** in this server; pick a"
        " member from the list.",
    },
    "option_unknown_channel": {
        "tr": "**{option}** için seçilen kanalı bulamadım; listeden bir metin kanalı seç.",
        "en": "I could not find the channel given for **{option}**; pick a text channel from"
        " the list.",
    },
    "option_unknown_role": {
        "tr": "**{option}** için seçilen rolü bulamadım; listeden bir rol seç.",
        "en": "I could not find the role given for **{option}**; pick a role from the list.",
    },
    "internal_error": {
        "tr": "Bir şeyler ters gitti; tekrar dene. Cevabın kaydedildiyse kaybolmadı.",
        "en": "Something went wrong; please try again. A recorded answer is never lost.",
    },
    # A write that did not commit (disk full, database locked, file lost): say so plainly.
    "answer_not_saved": {
        "tr": "⚠️ Cevabın **kaydedilmedi**: bot şu anda veritabanına yazamıyor. "
        "Birkaç dakika sonra tekrar tıkla.",
        "en": "⚠️ Your answer was **not** saved: the bot cannot write to its database "
        "right now. Please click again in a few minutes.",
    },
    "write_failed": {
        "tr": "Bot bunu şu anda kaydedemedi (veritabanı sorunu); hiçbir şey değişmedi. "
        "Lütfen daha sonra tekrar dene.",
        "en": "The bot could not save this right now (a database problem), so nothing "
        "was changed. Please try again later.",
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
    # -- daily questions and /tpquiz-admin (issue #3) --
    "months": {
        "tr": "Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık",
        "en": "January February March April May June July August September October November"
        " December",
    },
    "daily_title": {"tr": "Günün sorusu — {day}", "en": "Question of the day — {day}"},
    "daily_closes": {"tr": "⏳ Kapanış: {when}", "en": "⏳ Closes {when}"},
    "daily_closed_tag": {"tr": "kapandı", "en": "closed"},
    "leaderboard_daily": {"tr": " · 🔥 {n} günlük seri", "en": " · 🔥 {n}-day streak"},
    "stats_daily_streak": {
        "tr": "Günlük soru serisi (şu an / en iyi)",
        "en": "Daily question streak (current / best)",
    },
    "admin_only": {
        "tr": "Bu komutları yalnızca **Sunucuyu Yönet** yetkisi olan üyeler kullanabilir.",
        "en": "Only members with the **Manage Server** permission can use these commands.",
    },
    "daily_bad_time": {
        "tr": "'{value}' geçerli bir saat değil. 24 saat biçiminde SS:DD yaz, örneğin 09:00 ya"
        " da 18:30. Hiçbir şey değiştirilmedi.",
        "en": "'{value}' is not a time. Write it as HH:MM on the 24-hour clock, e.g. 09:00 or"
        " 18:30. Nothing was changed.",
    },
    "daily_bad_timezone": {
        "tr": "'{value}' tanıdığım bir saat dilimi değil. Listeden bir IANA adı seç, örneğin"
        " Europe/Istanbul ya da America/New_York. Hiçbir şey değiştirilmedi.",
        "en": "'{value}' is not a time zone I know. Pick an IANA name from the list, e.g."
        " Europe/Istanbul or America/New_York. Nothing was changed.",
    },
    "daily_missing_permission": {
        "tr": "{channel} kanalına soru gönderemem: orada **{permission}** yetkim yok. Bu yetkiyi"
        " verip tekrar dene. Hiçbir şey değiştirilmedi.",
        "en": "I can't post questions in {channel}: I am missing the **{permission}** permission"
        " there. Grant it and try again. Nothing was changed.",
    },
    "perm_view_channel": {"tr": "Kanalı Görüntüle", "en": "View Channel"},
    "perm_send_messages": {"tr": "Mesaj Gönder", "en": "Send Messages"},
    "perm_embed_links": {"tr": "Bağlantı Yerleştir", "en": "Embed Links"},
    "daily_on": {
        "tr": "Günlük sorular açık: her gün **{time}** ({timezone}) saatinde {channel} kanalında."
        "\nSıradaki soru: {next}",
        "en": "Daily questions are on: every day at **{time}** ({timezone}) in {channel}."
        "\nNext question: {next}",
    },
    "daily_off": {
        "tr": "Günlük sorular kapatıldı. Açık olan son soru, paylaşıldıktan 24 saat sonra kapanır.",
        "en": "Daily questions are off. The last open question still closes 24 hours after it"
        " was posted.",
    },
    "daily_already_off": {
        "tr": "Günlük sorular zaten kapalı.",
        "en": "Daily questions are already off.",
    },
    "daily_not_on": {
        "tr": "Günlük sorular kapalı. Önce `/tpquiz-yönetim günlük kanal` ile aç.",
        "en": "Daily questions are off. Turn them on first with `/tpquiz-admin daily channel`.",
    },
    "daily_already_today": {
        "tr": "Bugünün sorusu zaten paylaşıldı; sıradaki {when} gelecek.",
        "en": "Today's question has already been posted; the next one comes {when}.",
    },
    "daily_posted_now": {
        "tr": "Bugünün sorusu {channel} kanalında paylaşıldı.",
        "en": "Today's question is posted in {channel}.",
    },
    "daily_post_failed": {
        "tr": "{channel} kanalına gönderemedim: {error}. Hata `/tpquiz-yönetim ayarlar` içinde"
        " görünür; ertesi günün sorusu yeniden denenecek.",
        "en": "I could not post in {channel}: {error}. The error shows in `/tpquiz-admin"
        " settings`; the next day's question will try again.",
    },
    "error_unknown_channel": {
        "tr": "kanal artık yok (404, Unknown Channel)",
        "en": "the channel no longer exists (404, Unknown Channel)",
    },
    "error_missing_permissions": {
        "tr": "orada bir yetkim eksik (403, Missing Permissions)",
        "en": "I am missing a permission there (403, Missing Permissions)",
    },
    "error_missing_access": {
        "tr": "kanalı göremiyorum (403, Missing Access)",
        "en": "I cannot see the channel (403, Missing Access)",
    },
    "error_other": {"tr": "HTTP {status}: {text}", "en": "HTTP {status}: {text}"},
    "settings_title": {
        "tr": "Bu sunucunun tpquiz ayarları",
        "en": "tpquiz settings for this server",
    },
    "settings_daily": {"tr": "Günlük sorular", "en": "Daily questions"},
    "settings_daily_on": {
        "tr": "açık — {channel}, her gün {time} ({timezone})",
        "en": "on — {channel}, every day at {time} ({timezone})",
    },
    "settings_daily_off": {"tr": "kapalı", "en": "off"},
    "settings_timezone": {"tr": "Saat dilimi", "en": "Time zone"},
    "settings_next": {"tr": "Sıradaki soru", "en": "Next question"},
    "settings_last_posted": {"tr": "Son günlük soru", "en": "Last daily question"},
    "settings_language": {
        "tr": "Herkese açık paylaşımların dili",
        "en": "Language of public posts",
    },
    "settings_language_default": {
        "tr": "{language} (sunucu dilinden)",
        "en": "{language} (from the server's locale)",
    },
    "settings_role": {
        "tr": "Günlük soruda anılan rol",
        "en": "Role mentioned with daily questions",
    },
    "settings_last_error": {"tr": "Son gönderim hatası", "en": "Last delivery error"},
    "settings_error_line": {
        "tr": "{when} · {channel}: {error}",
        "en": "{when} · {channel}: {error}",
    },
    "settings_none": {"tr": "yok", "en": "none"},
    "lang_tr": {"tr": "Türkçe", "en": "Turkish"},
    "lang_en": {"tr": "İngilizce", "en": "English"},
    "language_set": {
        "tr": "Herkese açık paylaşımların dili artık {language}.",
        "en": "Public posts are now in {language}.",
    },
    "role_set": {
        "tr": "Günlük sorularda {role} rolü anılacak.",
        "en": "Daily questions will mention {role}.",
    },
    "role_cleared": {
        "tr": "Günlük sorularda artık hiçbir rol anılmayacak.",
        "en": "Daily questions will no longer mention a role.",
    },
    # -- issue #14: members own their data (docs/privacy.md) --
    "forget_ask": {
        "tr": "Bu sunucuda senin hakkında saklanan her şey silinsin mi? Cevapların, puanların,"
        " testlerin, serilerin ve tekrar kartların; sıralamalar hiç oynamamışsın gibi"
        " yeniden hesaplanır. Bu geri alınamaz. (Önce `/tpquiz verilerim` ile bir kopyasını"
        " alabilirsin.)",
        "en": "Delete everything stored about you in this server? Your answers, points, tests,"
        " streaks and review cards; the rankings are recounted as if you had never played."
        " This cannot be undone. (You can get a copy first with `/tpquiz my-data`.)",
    },
    "forget_confirm": {"tr": "Evet, hepsini sil", "en": "Yes, delete it all"},
    "forget_cancel": {"tr": "Vazgeç", "en": "Cancel"},
    "forget_done": {
        "tr": "Silindi: bu sunucuda senin hakkında saklanan {rows} kayıt kalmadı.",
        "en": "Deleted: the {rows} records stored about you in this server are gone.",
    },
    "forget_cancelled": {
        "tr": "Vazgeçildi; hiçbir şey silinmedi.",
        "en": "Cancelled; nothing was deleted.",
    },
    "not_your_forget": {
        "tr": "Bu düğme başka birine ait. Kendi verilerin için `/tpquiz beni-unut` yaz.",
        "en": "This button belongs to someone else. Use `/tpquiz forget-me` for your own data.",
    },
    "my_data": {
        "tr": "Bu sunucuda senin hakkında saklanan her şey ekteki JSON dosyasında; `_about`"
        " her alanın ne olduğunu söyler.",
        "en": "Everything stored about you in this server is in the attached JSON file;"
        " `_about` says what each field is.",
    },
}

MESSAGES.update(REVIEW_MESSAGES)
MESSAGES.update(ITEM_MESSAGES)
MESSAGES.update(LIVE_MESSAGES)
MESSAGES.update(FIGURE_MESSAGES)
MESSAGES.update(GUILD_BANK_MESSAGES)
MESSAGES.update(SUGGESTION_MESSAGES)


def t(key: str, lang: Lang, **params: object) -> str:
    """The message `key` in `lang`. A `Text` among the values (a topic's name, issue 32)
    goes in in the same language, so a `QuizError` can carry one without knowing who
    will read it."""
    text = MESSAGES[key][lang]
    if not params:
        return text
    return text.format(**{k: v.get(lang) if isinstance(v, Text) else v for k, v in params.items()})


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
    "forget-me": "beni-unut",
    "my-data": "verilerim",
    "Delete everything tpquiz stores about you here": (
        "tpquiz'in burada senin hakkında sakladığı her şeyi sil"
    ),
    "Get everything tpquiz stores about you here, as JSON": (
        "tpquiz'in burada senin hakkında sakladığı her şeyi JSON olarak al"
    ),
    # /tpquiz-admin (issue #3)
    "tpquiz-admin": "tpquiz-yönetim",
    "daily": "günlük",
    "channel": "kanal",
    "time": "saat",
    "timezone": "saat-dilimi",
    "off": "kapat",
    "now": "şimdi",
    "settings": "ayarlar",
    "language": "dil",
    "role": "rol",
    "tpquiz settings for server admins": "Sunucu yöneticileri için tpquiz ayarları",
    "Daily question posts": "Günlük soru paylaşımları",
    "Post a question every day in a channel": "Her gün bir kanalda soru paylaş",
    "Channel for the daily question": "Günlük sorunun kanalı",
    "Local time to post, HH:MM (default 09:00)": "Paylaşım saati, SS:DD (varsayılan 09:00)",
    "IANA time zone, e.g. Europe/Istanbul (default: the saved one, else UTC)": (
        "IANA saat dilimi, örn. Europe/Istanbul (varsayılan: kayıtlı olan, yoksa UTC)"
    ),
    "Stop the daily questions": "Günlük soruları durdur",
    "Post today's daily question now": "Bugünün sorusunu hemen paylaş",
    "Everything this server has set": "Bu sunucunun bütün ayarları",
    "Language of public posts": "Herkese açık paylaşımların dili",
    "Role to mention with each daily question (empty: none)": (
        "Her günlük soruda anılacak rol (boş bırakılırsa hiçbiri)"
    ),
    "Turkish": "Türkçe",
    "English": "İngilizce",
    **REVIEW_COMMANDS_TR,
    **ITEM_COMMANDS_TR,
    **LIVE_COMMANDS_TR,
    **GUILD_BANK_COMMANDS_TR,
    **SUGGESTION_COMMANDS_TR,
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
