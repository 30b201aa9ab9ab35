"""The strings of item statistics and problem reports (issue #13), in Turkish and English.

Kept apart from `bot.i18n` (which merges them into its MESSAGES) so that module stays
readable; `t()` finds these like any other key.
"""

from __future__ import annotations

from bot.quiz.model import Lang

ITEM_MESSAGES: dict[str, dict[Lang, str]] = {
    # -- flags: the reason written out, from bot.quiz.itemstats.Flag.params ------------
    "flag_wrong_key": {
        "tr": "Anahtar yanlış ya da soru belirsiz olabilir: ayırt edicilik {discrimination}"
        " < 0 (güçlü üyeler zayıflardan daha sık yanlış cevaplıyor; {n} ilk cevap).",
        "en": "Likely wrong key or ambiguous: discrimination {discrimination} < 0 (strong"
        " members get it wrong more often than weak ones; {n} first answers).",
    },
    "flag_top_prefers": {
        "tr": "Anahtar yanlış ya da soru belirsiz olabilir: en iyi üçte bir {choice}"
        " seçeneğini ({choice_rate}) anahtardan {key_choice} ({key_rate}) daha çok seçiyor"
        " ({n} üye).",
        "en": "Likely wrong key or ambiguous: the top third picks {choice} ({choice_rate})"
        " more than the key {key_choice} ({key_rate}) ({n} members).",
    },
    "flag_reported": {
        "tr": "Bildirildi: {reports} açık sorun bildirimi.",
        "en": "Reported: {reports} open problem reports.",
    },
    "flag_too_hard": {
        "tr": "Çok zor: kolaylık {facility}, şans düzeyi + 5 puanın ({limit}) altında.",
        "en": "Too hard: facility {facility}, below chance + 5 points ({limit}).",
    },
    "flag_dead_distractor": {
        "tr": "Ölü çeldirici: {choice} seçeneğini {n} cevabın yalnızca {rate} kadarı seçti.",
        "en": "Dead distractor: {choice} picked by only {rate} of {n} answers.",
    },
    "flag_too_easy": {
        "tr": "Çok kolay: kolaylık {facility} (> %95).",
        "en": "Too easy: facility {facility} (> 95%).",
    },
    # -- the report button and modal ---------------------------------------------------
    "report_button": {"tr": "Sorun bildir", "en": "Report a problem"},
    "report_title": {"tr": "Soruyla ilgili bir sorun bildir", "en": "Report a problem"},
    "report_reason": {"tr": "Sorun ne?", "en": "What is wrong?"},
    "report_body": {
        "tr": "Ayrıntı (isteğe bağlı, en çok 500 karakter)",
        "en": "Details (optional, up to 500 characters)",
    },
    "report_body_hint": {
        "tr": "Örn. doğru cevap B olmalı, çünkü ...",
        "en": "E.g. the answer should be B, because ...",
    },
    "report_which": {"tr": "Hangi soru?", "en": "Which question?"},
    "reason_wrong_answer": {"tr": "Cevap yanlış", "en": "Wrong answer"},
    "reason_unclear": {"tr": "Soru belirsiz", "en": "Unclear"},
    "reason_typo": {"tr": "Yazım ya da çeviri hatası", "en": "Typo or translation"},
    "reason_outdated": {"tr": "Güncel değil", "en": "Outdated"},
    "reason_other": {"tr": "Başka bir şey", "en": "Other"},
    "report_thanks": {
        "tr": "Teşekkürler! Bildirimin sunucu yöneticilerine ve soru bankasının"
        " bakımcılarına iletildi.",
        "en": "Thank you! Your report reaches the server's admins and the question bank's"
        " maintainers.",
    },
    "report_already": {
        "tr": "Bu soruyu zaten bildirdin; bir soru için bir bildirim yeterli.",
        "en": "You already reported this question; one report per question is enough.",
    },
    "report_daily_limit": {
        "tr": "Son 24 saatte 5 bildirim gönderdin; lütfen daha sonra yeniden dene.",
        "en": "You sent 5 reports in the last 24 hours; please try again later.",
    },
    "report_bad_reason": {
        "tr": "Bu sorun türü geçersiz; listeden birini seç.",
        "en": "That reason is not valid; pick one from the list.",
    },
    # -- admin views -------------------------------------------------------------------
    "reports_title": {"tr": "Açık sorun bildirimleri", "en": "Open problem reports"},
    "reports_none": {"tr": "Açık bildirim yok.", "en": "No open reports."},
    "reports_line": {
        "tr": "**#{id}** · `{question}` · {reason} · <@{user}> · {when}",
        "en": "**#{id}** · `{question}` · {reason} · <@{user}> · {when}",
    },
    "reports_page": {
        "tr": "Sayfa {page}/{pages} · {n} açık",
        "en": "Page {page}/{pages} · {n} open",
    },
    "resolve_button": {"tr": "#{id} çözüldü", "en": "Resolve #{id}"},
    "report_resolved": {"tr": "#{id} çözüldü olarak işaretlendi.", "en": "#{id} marked resolved."},
    "report_unknown": {
        "tr": "#{id} numaralı açık bir bildirim bu sunucuda yok.",
        "en": "There is no open report #{id} in this server.",
    },
    "questions_title": {
        "tr": "En çok işaretlenen sorular",
        "en": "Most flagged questions",
    },
    "questions_title_own": {
        "tr": "Bu sunucunun soruları, ardından en çok işaretlenenler",
        "en": "This server's own questions, then the most flagged",
    },
    "questions_none": {
        "tr": "Henüz işaretlenen soru yok (bir soru en az 30 ilk cevaptan sonra işaretlenir).",
        "en": "No flagged questions yet (a question is flagged after 30 first answers at"
        " the least).",
    },
    "questions_figures": {
        "tr": "{n} ilk cevap · kolaylık {facility} · ayırt edicilik {discrimination} ·"
        " {reports} bildirim",
        "en": "{n} first answers · facility {facility} · discrimination {discrimination} ·"
        " {reports} reports",
    },
    "questions_as_of": {
        "tr": "Rakamlar {when} itibarıyla: bu sunucunun ilk cevaplarından her {minutes}"
        " dakikada bir yeniden hesaplanır.",
        "en": "Figures as of {when}: recomputed from this server's first answers every"
        " {minutes} minutes.",
    },
    "questions_computed_now": {
        "tr": "Henüz güncel bir özet yok; rakamlar bu sunucunun ilk cevaplarından şimdi"
        " hesaplandı (özet her {minutes} dakikada bir yenilenir).",
        "en": "No up-to-date summary yet: figures computed just now from this server's"
        " first answers (the summary is refreshed every {minutes} minutes).",
    },
    "question_unknown": {
        "tr": "Bankada '{question_id}' diye bir soru yok.",
        "en": "There is no question '{question_id}' in the bank.",
    },
    "question_stats_title": {"tr": "Soru {question_id}", "en": "Question {question_id}"},
    "question_all_choices": {"tr": "Tüm cevaplar", "en": "All answers"},
    "question_top_third": {"tr": "En iyi üçte bir", "en": "Top third"},
    "question_bottom_third": {"tr": "En zayıf üçte bir", "en": "Bottom third"},
    "question_flags": {"tr": "İşaretler", "en": "Flags"},
    "question_reports": {"tr": "Bildirimler", "en": "Reports"},
    "question_no_answers": {
        "tr": "Bu sunucuda henüz ilk cevap yok.",
        "en": "No first answers in this server yet.",
    },
    "none_short": {"tr": "yok", "en": "none"},
    "questions_page": {
        "tr": "Sayfa {page}/{pages} · {n} işaretli soru",
        "en": "Page {page}/{pages} · {n} flagged",
    },
    "questions_page_own": {
        "tr": "Sayfa {page}/{pages} · bu sunucunun {own} sorusu · bankanın {n} işaretli sorusu",
        "en": "Page {page}/{pages} · {own} of this server's own · {n} flagged of the bank",
    },
    # -- a server's own questions in the list (issue 27) ---------------------------------
    "questions_own_mark": {"tr": "bu sunucunun sorusu", "en": "this server's own"},
    "questions_probation": {
        "tr": "Deneme sürecinde: {n}/{limit} ilk cevap; {limit} ilk cevaptan önce işaretlenmez.",
        "en": "On probation: {n}/{limit} first answers; it is not flagged before {limit}.",
    },
    "questions_withheld_wrong_key": {
        "tr": "⚠️ Seçilmiyor: anahtarı büyük olasılıkla yanlış. Düzeltilmiş sürümünü yükle"
        " (`/tpquiz-yönetim banka yükle`) ya da kaldır.",
        "en": "⚠️ Out of the picks: likely wrong key. Upload a fixed version"
        " (`/tpquiz-admin bank upload`) or retire it.",
    },
    "questions_withheld_reported": {
        "tr": "⚠️ Seçilmiyor: iki ya da daha çok açık bildirim. Bildirimleri çöz"
        " (`/tpquiz-yönetim bildirimler`) ya da düzeltilmiş sürümünü yükle.",
        "en": "⚠️ Out of the picks: two open reports or more. Resolve them"
        " (`/tpquiz-admin reports`) or upload a fixed version.",
    },
    "questions_previous": {"tr": "Önceki", "en": "Previous"},
    "questions_next": {"tr": "Sonraki", "en": "Next"},
    # -- a number option out of its range (bot.ui.options; the admin listings' `page`) ------
    "option_range": {
        "tr": "**{option}** {min} ile {max} arasında bir tam sayı olmalı; gönderilen {value}."
        " Hiçbir şey değiştirilmedi.",
        "en": "**{option}** must be a whole number from {min} to {max}; this one is {value}."
        " Nothing was changed.",
    },
}

#: Turkish names and descriptions of the admin's reports command (`bot.i18n.COMMAND_TRANSLATIONS_TR`).
ITEM_COMMANDS_TR: dict[str, str] = {
    "reports": "bildirimler",
    "Open problem reports on questions": "Sorular hakkındaki açık sorun bildirimleri",
    "page": "sayfa",
    "Page number": "Sayfa numarası",
    "questions": "sorular",
    "This server's most flagged questions": "Bu sunucuda en çok işaretlenen sorular",
    "One question's figures, choice bars and reports": (
        "Bir sorunun rakamları, seçenek çubukları ve bildirimleri"
    ),
    "id": "kimlik",
    "The question's id": "Sorunun kimliği",
}
