"""The strings of a server's own questions (`/tpquiz-admin bank`, issue 27), both languages."""

from __future__ import annotations

from bot.quiz.model import Lang

__all__ = ["GUILD_BANK_COMMANDS_TR", "GUILD_BANK_MESSAGES"]

GUILD_BANK_MESSAGES: dict[str, dict[Lang, str]] = {
    "own_only_language": {
        "tr": "Bu sunucunun sorusu yalnızca {language} yazılmış.",
        "en": "This server's question is written in {language} only.",
    },
    "language_tr": {"tr": "Türkçe", "en": "Turkish"},
    "language_en": {"tr": "İngilizce", "en": "English"},
    "bank_unknown": {
        "tr": "Bu sunucunun `{question_id}` kimlikli bir sorusu yok.",
        "en": "This server has no question `{question_id}`.",
    },
    "bank_already_retired": {
        "tr": "`{question_id}` zaten kullanımdan kaldırılmış.",
        "en": "`{question_id}` is already retired.",
    },
    "bank_empty": {
        "tr": "Bu sunucunun kullanımda kendi sorusu yok. `/tpquiz-yönetim banka yükle` ile ekle.",
        "en": "This server has no questions of its own in use. Add some with"
        " `/tpquiz-admin bank upload`.",
    },
    "bank_bad_draw": {
        "tr": "'{draw}' bir seçenek değil: both, own ya da bundled. Hiçbir şey değişmedi.",
        "en": "'{draw}' is not a choice: both, own or bundled. Nothing was changed.",
    },
    "bank_bad_share": {
        "tr": "Pay 0 ile 100 arasında olmalı; gönderilen {share}. Hiçbir şey değişmedi.",
        "en": "The share must be from 0 to 100; this one is {share}. Nothing was changed.",
    },
    "bank_too_big": {
        "tr": "Dosya {size} KiB; sınır {limit} KiB. Böl ve parça parça yükle. Hiçbir şey"
        " kaydedilmedi.",
        "en": "The file is {size} KiB; the limit is {limit} KiB. Split it and upload the parts."
        " Nothing was stored.",
    },
    "bank_download_failed": {
        "tr": "Dosya Discord'dan okunamadı ({why}). Yeniden dene; hiçbir şey kaydedilmedi.",
        "en": "The file could not be read from Discord ({why}). Try again; nothing was stored.",
    },
    "bank_problems": {
        "tr": "❌ **{file}**: {n} sorun; hiçbir şey kaydedilmedi. Her satır"
        " `dosya:satır: kimlik: alan: neden`.",
        "en": "❌ **{file}**: {n} problem(s); nothing was stored. Each line is"
        " `file:line: id: field: reason`.",
    },
    "bank_attached": {
        "tr": "Listenin tamamı ekteki dosyada.",
        "en": "The whole list is in the attached file.",
    },
    "bank_warnings": {
        "tr": "⚠️ {n} uyarı (kaydı engellemez):",
        "en": "⚠️ {n} warning(s) (they do not stop the upload):",
    },
    "bank_checked": {
        "tr": "✅ **{file}**: {n} soru denetimlerden geçti. Yalnızca denetlendi; hiçbir şey"
        " kaydedilmedi.",
        "en": "✅ **{file}**: {n} question(s) pass the checks. Checked only; nothing was stored.",
    },
    "bank_stored": {
        "tr": "✅ **{file}**: {added} soru eklendi, {replaced} soru yenilendi (yeni sürüm)."
        " Sunucuda kullanımda {total} soru var.",
        "en": "✅ **{file}**: {added} added, {replaced} replaced (a new version)."
        " The server has {total} questions in use.",
    },
    "bank_added": {"tr": "Eklenen: {ids}", "en": "Added: {ids}"},
    "bank_replaced": {"tr": "Yenilenen: {ids}", "en": "Replaced: {ids}"},
    "bank_full": {
        "tr": "❌ Hiçbir şey kaydedilmedi: sunucunun {total} sorusu olurdu, sınır {limit}."
        " Önce bazılarını kaldır (`/tpquiz-yönetim banka kaldır`).",
        "en": "❌ Nothing was stored: the server would have {total} questions, over the limit"
        " of {limit}. Retire some first (`/tpquiz-admin bank retire`).",
    },
    "bank_list_title": {"tr": "Bu sunucunun soruları", "en": "This server's questions"},
    "bank_list_empty": {
        "tr": "Henüz soru yok. `/tpquiz-yönetim banka yükle` ile bir dosya yükle.",
        "en": "No questions yet. Upload a file with `/tpquiz-admin bank upload`.",
    },
    "bank_list_page": {
        "tr": "Sayfa {page}/{pages} · {n} soru ({used} kullanımda)",
        "en": "Page {page}/{pages} · {n} questions ({used} in use)",
    },
    "bank_line": {
        "tr": "`{id}` s{version} · {topic} · {languages}",
        "en": "`{id}` v{version} · {topic} · {languages}",
    },
    "bank_retired_mark": {"tr": " · kaldırıldı", "en": " · retired"},
    "bank_probation": {
        "tr": " · deneme sürecinde: {n}/{limit} ilk cevap",
        "en": " · on probation: {n}/{limit} first answers",
    },
    "bank_withheld_wrong_key": {
        "tr": " · ⚠️ seçilmiyor: anahtarı büyük olasılıkla yanlış (madde istatistikleri)",
        "en": " · ⚠️ out of the picks: likely wrong key (item statistics)",
    },
    "bank_withheld_reported": {
        "tr": " · ⚠️ seçilmiyor: iki ya da daha çok açık bildirim",
        "en": " · ⚠️ out of the picks: two open reports or more",
    },
    "bank_show_head": {
        "tr": "`{id}` sürüm {version} · {topic} · zorluk {difficulty}/3 · dil: {languages}",
        "en": "`{id}` version {version} · {topic} · difficulty {difficulty}/3 · in: {languages}",
    },
    "bank_retired_done": {
        "tr": "`{question_id}` kaldırıldı: artık seçilmez. Cevapları, kartları ve"
        " istatistikleri kalır.",
        "en": "`{question_id}` is retired: it is no longer picked. Its answers, cards and"
        " statistics stay.",
    },
    "bank_exported": {
        "tr": "{n} soru, bankanın biçiminde. Dosyayı düzeltip geri yüklemek aynı soruları yeniler.",
        "en": "{n} question(s), in the bank's format. Uploading the file back (edited or not)"
        " replaces the same questions.",
    },
    "bank_settings": {
        "tr": "Sorular: **{draw}** · Günlük paylaşımlarda kendi sorularının payı: **%{share}**",
        "en": "Questions from: **{draw}** · Share of own questions in daily posts: **{share}%**",
    },
    "bank_draw_both": {
        "tr": "paket bankası ve sunucunun kendi soruları",
        "en": "the bundled bank and this server's own",
    },
    "bank_draw_own": {"tr": "yalnızca sunucunun kendi soruları", "en": "this server's own only"},
    "bank_draw_bundled": {"tr": "yalnızca paket bankası", "en": "the bundled bank only"},
}

#: Turkish names and descriptions of `/tpquiz-admin bank` (`bot.i18n.COMMANDS_TR`).
GUILD_BANK_COMMANDS_TR: dict[str, str] = {
    "bank": "banka",
    "This server's own questions": "Bu sunucunun kendi soruları",
    "upload": "yükle",
    "Add or replace questions from a file (YAML, GIFT or Aiken)": (
        "Bir dosyadan soru ekle ya da yenile (YAML, GIFT ya da Aiken)"
    ),
    "file": "dosya",
    "The question file, at most 1 MiB": "Soru dosyası, en çok 1 MiB",
    "format": "biçim",
    "The file's format (default: from its name)": "Dosyanın biçimi (varsayılan: adından)",
    "lang": "dil-seç",
    "Language of a GIFT or Aiken file (default: yours)": (
        "GIFT ya da Aiken dosyasının dili (varsayılan: seninki)"
    ),
    "check-only": "yalnızca-denetle",
    "Only check the file; store nothing": "Dosyayı yalnızca denetle; hiçbir şey kaydetme",
    "list": "liste",
    "This server's questions, a page at a time": "Bu sunucunun soruları, sayfa sayfa",
    "show": "göster",
    "One of this server's questions": "Bu sunucunun sorularından biri",
    "retire": "kaldır",
    "Stop picking a question (its answers stay)": "Bir soruyu artık seçme (cevapları kalır)",
    "export": "dışa-aktar",
    "This server's questions as a file that uploads back": (
        "Bu sunucunun soruları, geri yüklenebilen bir dosya olarak"
    ),
    "What this server's questions are drawn from": "Bu sunucunun soruları nereden seçilir",
    "draw": "kaynak",
    "Bundled bank, this server's own, or both": "Paket bankası, sunucunun kendi soruları ya da ikisi",
    "daily-share": "günlük-pay",
    "Percent of own questions in daily posts": "Günlük paylaşımlarda kendi sorularının yüzdesi",
    "both": "ikisi",
    "own": "kendi",
    "bundled": "paket",
}
