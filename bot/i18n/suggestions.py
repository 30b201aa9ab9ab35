"""The strings of members' suggested questions (`/tpquiz suggest`, the review queue and
its buttons; issue 27), both languages."""

from __future__ import annotations

from bot.quiz.model import Lang

__all__ = ["SUGGESTION_COMMANDS_TR", "SUGGESTION_MESSAGES"]

SUGGESTION_MESSAGES: dict[str, dict[Lang, str]] = {
    # The modal (titles and labels: at most 45 characters; placeholders 100).
    "suggest_title": {"tr": "Bir soru öner", "en": "Suggest a question"},
    "suggest_edit_title": {"tr": "Önerini düzenle (#{id})", "en": "Edit your suggestion (#{id})"},
    "suggest_review_title": {"tr": "Düzenle ve kabul et (#{id})", "en": "Edit and accept (#{id})"},
    "suggest_field_text": {"tr": "Soru", "en": "Question"},
    "suggest_field_right": {"tr": "Doğru cevap", "en": "Right answer"},
    "suggest_field_wrong": {
        "tr": "Yanlış cevaplar (1-4, her satıra bir)",
        "en": "Wrong answers (1-4, one per line)",
    },
    "suggest_field_explanation": {"tr": "Açıklama", "en": "Explanation"},
    "suggest_field_source": {"tr": "Kaynak", "en": "Source"},
    "suggest_wrong_hint": {
        "tr": "yanlış cevap | neden yanlış olduğu (her satıra bir)",
        "en": "wrong answer | why it is wrong (one per line)",
    },
    "suggest_source_hint": {
        "tr": "Makale, bölüm, sayfa ya da bağlantı",
        "en": "A paper, section, page or link",
    },
    # Problems with what was typed (bot/quiz/suggestions.py draft_problems).
    "suggest_empty": {"tr": "boş", "en": "is empty"},
    "suggest_too_long": {
        "tr": "{n} karakter; sınır {limit}",
        "en": "is {n} characters; the limit is {limit}",
    },
    "suggest_one_line": {"tr": "tek satır olmalı", "en": "must be one line"},
    "suggest_no_wrong": {
        "tr": "1-4 yanlış cevap yaz, her satıra bir: `yanlış cevap | neden yanlış`",
        "en": "add 1 to 4 wrong answers, one per line: `wrong answer | why it is wrong`",
    },
    "suggest_too_many_wrong": {
        "tr": "{n} satır var; en çok 4 yanlış cevap olabilir",
        "en": "has {n} lines; a question takes at most 4 wrong answers",
    },
    "suggest_no_why": {
        "tr": "{line}. satırda `| neden yanlış` yok: her yanlış cevap açıklanmalı",
        "en": "line {line} has no `| why it is wrong`: every wrong answer must be explained",
    },
    "suggest_empty_wrong": {
        "tr": "{line}. satırda `|` işaretinden önce cevap yok",
        "en": "line {line} has no answer before the `|`",
    },
    "suggest_duplicate": {
        "tr": "{line}. satır başka bir seçeneği tekrarlıyor",
        "en": "line {line} repeats another choice",
    },
    "suggest_unreadable": {
        "tr": "soru olarak okunamadı",
        "en": "could not be read as a question",
    },
    # Replies to the member.
    "suggest_problems": {
        "tr": "❌ Önerinde {n} sorun var. Yazdıkların taslak olarak saklandı, hiçbiri"
        " kaybolmadı: **Düzenle** ile düzelt ve yeniden gönder.",
        "en": "❌ Your suggestion has {n} problem(s). What you typed is kept as a draft,"
        " nothing is lost: press **Edit** to fix it and send it again.",
    },
    "suggest_sent": {
        "tr": "✅ Önerin (#{id}) inceleme sırasında. Moderatörlerin kararı sana bildirilecek."
        " Açık önerilerin: {open}/{limit}.",
        "en": "✅ Your suggestion (#{id}) is waiting for review. You will be told the"
        " moderators' decision. Your open suggestions: {open}/{limit}.",
    },
    "suggest_limit": {
        "tr": "Bu sunucuda zaten {limit} açık önerin var; yenisi için birinin karara"
        " bağlanmasını bekle. Yazdıkların taslak olarak saklandı: sonra **Düzenle** ile gönder.",
        "en": "You already have {limit} open suggestions in this server; wait for a decision"
        " before sending more. What you typed is kept as a draft: send it later with **Edit**.",
    },
    "suggest_warnings": {
        "tr": "⚠️ Uyarılar (gönderimi engellemez; moderatörler de görür):",
        "en": "⚠️ Warnings (they do not stop it; the moderators see them too):",
    },
    "suggest_edit_button": {"tr": "Düzenle", "en": "Edit"},
    "suggestion_unknown": {
        "tr": "Bu öneri artık yok.",
        "en": "This suggestion no longer exists.",
    },
    "suggestion_not_yours": {
        "tr": "Bu öneri başka birine ait.",
        "en": "This suggestion is someone else's.",
    },
    "suggestion_not_editable": {
        "tr": "Bu öneri artık düzenlenemez (karara bağlandı ya da yeniden gönderildi).",
        "en": "This suggestion can no longer be edited (it was decided, or sent again).",
    },
    "suggestion_decided": {
        "tr": "Bu öneri zaten karara bağlandı; hiçbir şey değişmedi.",
        "en": "This suggestion was already decided; nothing was changed.",
    },
    "suggestion_reason_needed": {
        "tr": "Bir gerekçe yaz; yazar onu görecek.",
        "en": "Give a reason; the author will see it.",
    },
    "suggestion_not_reviewer": {
        "tr": "Önerileri yalnızca **Sunucuyu Yönet** yetkisi ya da bu sunucunun inceleyici"
        " rolü olan üyeler inceleyebilir.",
        "en": "Only members with **Manage Server** or this server's reviewer role can review"
        " suggestions.",
    },
    # Review buttons, the reason modal, the review post.
    "review_accept": {"tr": "Kabul et", "en": "Accept"},
    "review_edit": {"tr": "Düzenle", "en": "Edit"},
    "review_changes": {"tr": "Değişiklik iste", "en": "Ask for changes"},
    "review_reject": {"tr": "Reddet", "en": "Reject"},
    "review_changes_title": {"tr": "Değişiklik iste (#{id})", "en": "Ask for changes (#{id})"},
    "review_reject_title": {"tr": "Reddet (#{id})", "en": "Reject (#{id})"},
    "review_reason": {"tr": "Gerekçe (yazar görür)", "en": "Reason (the author sees it)"},
    "suggestion_title": {"tr": "Öneri #{id}", "en": "Suggestion #{id}"},
    "suggestion_by": {
        "tr": "Öneren: {name} · Dil: {language}",
        "en": "Suggested by {name} · In {language}",
    },
    "suggestion_wrong": {"tr": "❌ {n}. yanlış cevap", "en": "❌ Wrong answer {n}"},
    "suggestion_right": {"tr": "✅ Doğru cevap", "en": "✅ Right answer"},
    "suggestion_state_open": {"tr": "İnceleme bekliyor", "en": "Waiting for review"},
    "suggestion_state_accepted": {
        "tr": "✅ {reviewer} kabul etti: `{question_id}`",
        "en": "✅ Accepted by {reviewer}: `{question_id}`",
    },
    "suggestion_state_rejected": {
        "tr": "❌ {reviewer} reddetti: {reason}",
        "en": "❌ Rejected by {reviewer}: {reason}",
    },
    "suggestion_state_changes": {
        "tr": "✏️ {reviewer} değişiklik istedi: {reason}",
        "en": "✏️ Changes asked by {reviewer}: {reason}",
    },
    "suggestion_accepted_problems": {
        "tr": "❌ Düzenlenen metinde {n} sorun var; hiçbir şey kabul edilmedi. Yazdığın metin"
        " aşağıda; **Düzenle** ile yeniden dene.",
        "en": "❌ The edited text has {n} problem(s); nothing was accepted. What you typed is"
        " below; try again with **Edit**.",
    },
    # The queue and its settings.
    "suggestions_title": {"tr": "İnceleme bekleyen öneriler", "en": "Suggestions waiting"},
    "suggestions_empty": {
        "tr": "İnceleme bekleyen öneri yok.",
        "en": "No suggestions are waiting for review.",
    },
    "suggestions_page": {"tr": "Öneri {page}/{pages}", "en": "Suggestion {page}/{pages}"},
    "suggestion_settings": {
        "tr": "İnceleme kanalı: {channel} · İnceleyici rolü: {role}",
        "en": "Review channel: {channel} · Reviewer role: {role}",
    },
    "suggestion_settings_none": {"tr": "yok", "en": "none"},
    "suggestion_missing_permission": {
        "tr": "Önerileri {channel} kanalına gönderemem: orada **{permission}** yetkim yok. Bu"
        " yetkiyi verip tekrar dene. Hiçbir şey değiştirilmedi.",
        "en": "I can't post suggestions in {channel}: I am missing the **{permission}**"
        " permission there. Grant it and try again. Nothing was changed.",
    },
    # What the author is told, once in the server and by DM.
    "notice_accepted": {
        "tr": "✅ **{guild}** sunucusundaki önerin (#{id}) kabul edildi: artık sunucunun"
        " sorularından biri (`{question_id}`), kaynağında adınla.",
        "en": "✅ Your suggestion (#{id}) in **{guild}** was accepted: it is now one of the"
        " server's questions (`{question_id}`), credited to you in its source.",
    },
    "notice_rejected": {
        "tr": "❌ **{guild}** sunucusundaki önerin (#{id}) reddedildi. Gerekçe: {reason}",
        "en": "❌ Your suggestion (#{id}) in **{guild}** was rejected. Reason: {reason}",
    },
    "notice_changes": {
        "tr": "✏️ Moderatörler **{guild}** sunucusundaki önerinde (#{id}) değişiklik istiyor:"
        " {reason}\n**Düzenle** ile değiştirip yeniden gönder.",
        "en": "✏️ The moderators ask for changes to your suggestion (#{id}) in **{guild}**:"
        " {reason}\nPress **Edit** to change it and send it again.",
    },
}

#: Turkish names and descriptions of the suggestion commands (`bot.i18n.COMMANDS_TR`).
SUGGESTION_COMMANDS_TR: dict[str, str] = {
    "suggest": "öner",
    "Suggest a question for this server": "Bu sunucu için bir soru öner",
    "suggestions": "öneriler",
    "Members' suggested questions waiting for review": "İnceleme bekleyen üye önerileri",
    "suggestions-settings": "öneri-ayarları",
    "Where suggestions are posted and who reviews them": (
        "Önerilerin paylaşıldığı kanal ve onları kimin incelediği"
    ),
    "Channel where each new suggestion is posted for review": (
        "Her yeni önerinin inceleme için paylaşıldığı kanal"
    ),
    "reviewer-role": "inceleyici-rol",
    "Role whose members may review suggestions": "Üyeleri önerileri inceleyebilen rol",
    "Clear the review channel and the reviewer role": "İnceleme kanalını ve rolünü kaldır",
}
