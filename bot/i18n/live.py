"""The strings of quiz night (`/tpquiz live`, issue 26), in Turkish and English; merged
into bot/i18n/__init__.py's MESSAGES and command translations."""

from __future__ import annotations

from bot.quiz.model import Lang

LIVE_MESSAGES: dict[str, dict[Lang, str]] = {
    "live_bad_topic": {
        "tr": "'{topic}' diye bir konu yok; `mixed`, `group-weakest` ya da bir konu seç.",
        "en": "There is no topic '{topic}'; choose `mixed`, `group-weakest` or a topic.",
    },
    "live_bad_questions": {
        "tr": "Soru sayısı {low} ile {high} arasında olmalı.",
        "en": "The number of questions must be between {low} and {high}.",
    },
    "live_bad_seconds": {
        "tr": "Soru başına süre {low} ile {high} saniye arasında olmalı.",
        "en": "Seconds per question must be between {low} and {high}.",
    },
    "live_bad_scoring": {
        "tr": "Puanlama `accuracy` ya da `speed` olmalı.",
        "en": "Scoring must be `accuracy` or `speed`.",
    },
    "live_too_few_questions": {
        "tr": "Bu seçimle en az 3 soru bulunamadı.",
        "en": "Fewer than 3 questions match these settings.",
    },
    "live_running": {
        "tr": "Bu kanalda zaten bir canlı yarışma var: {link}",
        "en": "A live quiz is already running in this channel: {link}",
    },
    "live_unknown": {
        "tr": "Bu canlı yarışmayı tanımıyorum.",
        "en": "I do not know this live quiz.",
    },
    "live_ended": {"tr": "Bu canlı yarışma bitti.", "en": "This live quiz has ended."},
    "live_not_now": {
        "tr": "Bu şimdi yapılamaz (yarışma o durumda değil).",
        "en": "That cannot be done now (the quiz is not in that state).",
    },
    "live_not_host": {
        "tr": "Bu düğmeyi yalnızca yarışmayı başlatan ya da Sunucuyu Yönet yetkisi olan kullanabilir.",
        "en": "Only the host or a member with Manage Server can press this button.",
    },
    "live_lobby_title": {"tr": "Canlı yarışma", "en": "Live quiz"},
    "live_lobby_text": {
        "tr": "{host} bir yarışma başlatıyor: {questions} soru, {seconds}, puanlama: {scoring},"
        " konu: {topic}. Katılmak için **Katıl**'a bas (ya da ilk soruyu cevapla)."
        " {starts} kendiliğinden başlar.",
        "en": "{host} is starting a quiz: {questions} questions, {seconds}, scoring: {scoring},"
        " topic: {topic}. Press **Join** to play (or just answer the first question)."
        " It starts by itself {starts}.",
    },
    "live_seconds_auto": {"tr": "soruya göre süre", "en": "time by question"},
    "live_seconds_each": {"tr": "soru başına {n} sn", "en": "{n} s per question"},
    "live_joined": {"tr": "Katıldın.", "en": "You joined."},
    "live_already_joined": {"tr": "Zaten katıldın.", "en": "You have already joined."},
    "live_join": {"tr": "Katıl", "en": "Join"},
    "live_start": {"tr": "Başlat", "en": "Start"},
    "live_cancel": {"tr": "İptal", "en": "Cancel"},
    "live_reveal": {"tr": "Şimdi göster", "en": "Reveal now"},
    "live_pause": {"tr": "Duraklat", "en": "Pause"},
    "live_resume": {"tr": "Devam", "en": "Resume"},
    "live_skip": {"tr": "Atla", "en": "Skip"},
    "live_end": {"tr": "Bitir", "en": "End"},
    "live_done": {"tr": "Tamam.", "en": "Done."},
    "live_question_title": {"tr": "Soru {n}/{total}", "en": "Question {n}/{total}"},
    "live_time_up": {"tr": "Süre {relative} biter.", "en": "Time is up {relative}."},
    "live_locked": {
        "tr": "Kilitlendi: {letter} — süre bitene kadar değiştirebilirsin.",
        "en": "Locked in: {letter} — you can change it until the time is up.",
    },
    "live_late": {
        "tr": "Geç kaldın: bu soru gösterildi, cevabın değişmedi.",
        "en": "Too late: this question was revealed; nothing changed.",
    },
    "live_paused": {
        "tr": "⏸ Duraklatıldı: süre, devam edince kaldığı yerden işler.",
        "en": "⏸ Paused: the time left runs again on Resume.",
    },
    "live_right_answer": {"tr": "Doğru cevap: {letter}", "en": "Right answer: {letter}"},
    "live_skipped": {"tr": "Bu soru atlandı.", "en": "This question was skipped."},
    "live_top": {"tr": "İlk 5", "en": "Top 5"},
    "live_verdict_right": {
        "tr": "Doğru! ({letter}) Puanın: {points}, sıran: {place}.",
        "en": "Right! ({letter}) Your points: {points}, your place: {place}.",
    },
    "live_verdict_wrong": {
        "tr": "Yanlış: {mine}. Doğrusu {letter}. Puanın: {points}, sıran: {place}.",
        "en": "Wrong: {mine}. The right answer is {letter}. Your points: {points}, place: {place}.",
    },
    "live_podium": {"tr": "Kürsü", "en": "Podium"},
    "live_podium_row": {
        "tr": "{medal} {name}: {points} puan, {right} doğru, {seconds} sn",
        "en": "{medal} {name}: {points} points, {right} right, {seconds} s",
    },
    "live_most_missed": {
        "tr": "En çok kaçırılan soru: {text}\n{why}",
        "en": "The question the room missed most: {text}\n{why}",
    },
    "live_cancelled": {"tr": "Yarışma iptal edildi.", "en": "The quiz was cancelled."},
    "live_summary": {
        "tr": "Canlı yarışma özetin: {rows}\nKaçırdıkların artık `/tpquiz tekrar`'da.",
        "en": "Your live quiz summary: {rows}\nYour misses are now due in `/tpquiz review`.",
    },
}

LIVE_COMMANDS_TR: dict[str, str] = {
    "live": "canlı",
    "questions": "sorular",
    "seconds": "saniye",
    "scoring": "puanlama",
    "Play a timed quiz together in this channel": "Bu kanalda birlikte süreli bir yarışma oyna",
    "mixed (default), group-weakest, or a topic": "mixed (varsayılan), group-weakest ya da bir konu",
    "Number of questions, 3-20 (default 10)": "Soru sayısı, 3-20 (varsayılan 10)",
    "Seconds per question, 10-120 (default: by question)": (
        "Soru başına saniye, 10-120 (varsayılan: soruya göre)"
    ),
    "accuracy (default) or speed": "accuracy (varsayılan) ya da speed",
}
