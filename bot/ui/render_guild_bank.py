"""What `/tpquiz-admin bank` shows (issue 27): an upload's result, a page of the server's
questions, one question, the settings.

Why its own module: an upload's problems can be many and long; the reply keeps to
Discord's 2,000-character message and puts the whole list in a text attachment when it
does not fit, so no problem is lost. Text a server wrote is escaped (its markdown shown
as written) and every reply goes out with no allowed mentions (the cog's).
"""

from __future__ import annotations

import io

import discord

from bot.bank.problems import Problem
from bot.bank.topic_names import topic_name
from bot.i18n import t
from bot.quiz.itemstats import MIN_FLAG_ANSWERS
from bot.quiz.model import LETTERS, Lang
from bot.quiz.own_questions import MAX_SERVER_QUESTIONS, BankSettings, OwnQuestion
from bot.services.guild_bank import Upload

__all__ = [
    "MESSAGE_LIMIT",
    "list_embed",
    "question_embed",
    "settings_text",
    "upload_reply",
]

#: Discord's limit on a message's content.
MESSAGE_LIMIT = 2000
#: Room kept for the reply's first line and the attachment note.
_HEAD_ROOM = 400


def _escaped(text: str) -> str:
    return discord.utils.escape_markdown(discord.utils.escape_mentions(text))


def _problem_lines(problems: tuple[Problem, ...]) -> list[str]:
    return [str(p) for p in problems]


def _ids(ids: tuple[str, ...], limit: int = 600) -> str:
    text = ", ".join(f"`{i}`" for i in ids)
    return text if len(text) <= limit else text[:limit].rsplit(",", 1)[0] + ", …"


def upload_reply(
    upload: Upload, filename: str, total: int, lang: Lang
) -> tuple[str, discord.File | None]:
    """The reply's content and, when the problems and warnings do not fit, a text file
    holding all of them."""
    check, stored = upload.check, upload.stored
    name = _escaped(filename)
    if not check.ok:
        head = t("bank_problems", lang, file=name, n=len(check.problems))
    elif stored is None:
        head = t("bank_checked", lang, file=name, n=len(check.questions))
    elif stored.refused_total is not None:
        head = t("bank_full", lang, total=stored.refused_total, limit=MAX_SERVER_QUESTIONS)
    else:
        head = t(
            "bank_stored",
            lang,
            file=name,
            added=len(stored.added),
            replaced=len(stored.replaced),
            total=total,
        )
        if stored.added:
            head += "\n" + t("bank_added", lang, ids=_ids(stored.added))
        if stored.replaced:
            head += "\n" + t("bank_replaced", lang, ids=_ids(stored.replaced))
    lines = _problem_lines(check.problems)
    if check.warnings:
        lines += [""] if lines else []
        lines += [t("bank_warnings", lang, n=len(check.warnings))]
        lines += _problem_lines(check.warnings)
    if not lines:
        return head, None
    body = "\n".join(lines)
    fenced = body.replace("```", "'''")
    block = f"\n```\n{fenced}\n```"
    if len(head) + len(block) <= MESSAGE_LIMIT:
        return head + block, None
    shown: list[str] = []
    room = MESSAGE_LIMIT - len(head) - _HEAD_ROOM
    for line in lines:
        if sum(len(s) + 1 for s in shown) + len(line) > room:
            break
        shown.append(line)
    preview = "\n".join(shown).replace("```", "'''")
    content = f"{head}\n```\n{preview}\n…\n```\n{t('bank_attached', lang)}"
    attached = discord.File(io.BytesIO(body.encode("utf-8")), filename="problems.txt")
    return content[:MESSAGE_LIMIT], attached


def _languages(own: OwnQuestion) -> str:
    return "+".join(own.languages)


def list_embed(
    questions: list[OwnQuestion],
    page: int,
    pages: int,
    total: int,
    used: int,
    lang: Lang,
    withheld: dict[str, str] | None = None,
    answers: dict[str, int] | None = None,
) -> discord.Embed:
    embed = discord.Embed(title=t("bank_list_title", lang))
    if not questions:
        embed.description = t("bank_list_empty", lang)
        return embed
    lines = []
    for own in questions:
        line = t(
            "bank_line",
            lang,
            id=own.question_id,
            version=own.version,
            topic=topic_name(own.question.topic, lang),
            languages=_languages(own),
        )
        if own.retired:
            line += t("bank_retired_mark", lang)
        line += _withheld(own, withheld, lang) + _probation(own, answers, lang)
        text = own.question.text.get(lang)
        short = text if len(text) <= 80 else text[:79] + "…"
        lines.append(f"{line}\n{_escaped(short)}")
    embed.description = "\n".join(lines)
    embed.set_footer(text=t("bank_list_page", lang, page=page + 1, pages=pages, n=total, used=used))
    return embed


def _probation(own: OwnQuestion, answers: dict[str, int] | None, lang: Lang) -> str:
    """A new question is on probation until its first answers can flag it (issue 27)."""
    if answers is None or own.retired:
        return ""
    n = answers.get(own.question.id, 0)
    return "" if n >= MIN_FLAG_ANSWERS else t("bank_probation", lang, n=n, limit=MIN_FLAG_ANSWERS)


def _withheld(own: OwnQuestion, withheld: dict[str, str] | None, lang: Lang) -> str:
    """One line's end saying why a question is out of the picks, or nothing."""
    why = (withheld or {}).get(own.question.id)
    return "" if why is None or own.retired else t(f"bank_withheld_{why}", lang)


def question_embed(
    own: OwnQuestion,
    lang: Lang,
    withheld: dict[str, str] | None = None,
    answers: dict[str, int] | None = None,
) -> discord.Embed:
    """One question as its moderators check it: the stem, the choices with the key and
    the feedback, the explanation and the source."""
    q = own.question
    shown_lang: Lang = lang if lang in own.languages else own.languages[0]
    head = t(
        "bank_show_head",
        lang,
        id=own.question_id,
        version=own.version,
        topic=topic_name(q.topic, lang),
        difficulty=q.difficulty,
        languages=_languages(own),
    )
    if own.retired:
        head += t("bank_retired_mark", lang)
    head += _withheld(own, withheld, lang) + _probation(own, answers, lang)
    embed = discord.Embed(title=own.question_id, description=_escaped(q.text.get(shown_lang)))
    for i, choice in enumerate(q.choices):
        mark = "✅" if choice.correct else "❌"
        value = _escaped(choice.text.get(shown_lang))
        if choice.feedback is not None:
            value += "\n> " + _escaped(choice.feedback.get(shown_lang))
        embed.add_field(name=f"{mark} {LETTERS[i]}", value=value[:1024], inline=False)
    embed.add_field(
        name=t("why", lang), value=_escaped(q.explanation.get(shown_lang))[:1024], inline=False
    )
    embed.add_field(name=t("source", lang), value=_escaped(q.source)[:1024], inline=False)
    embed.set_footer(text=head.replace("`", ""))
    return embed


def settings_text(settings: BankSettings, lang: Lang) -> str:
    draw = t(f"bank_draw_{settings.draw}", lang)
    return t("bank_settings", lang, draw=draw, share=settings.daily_share)
