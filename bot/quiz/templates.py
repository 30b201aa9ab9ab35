"""Computed questions: templates whose numbers are drawn for each post (issue #9 4).

A `Template` holds texts with placeholders, parameters (each a small set of values that
make sense together), constraints between them, the formula of the right answer and three
distractors, each the formula of one named mistake. `draw` picks parameters with the
random source it is given; `materialize` turns parameters into an ordinary `Question`,
so rendering, scoring and feedback treat a computed question like any other. A post
stores the drawn parameters (`encode_params`), and the same parameters always give the
same question: the message, the click reply, the reveal and a restart agree.

A draw is rejected, and drawn again, when a constraint fails, a count is not whole, a
value is not positive, two choices would read the same in either language, or its four
values would give the key's rank away (`Template._pick_mistakes`: the rank is chosen
evenly first, and parameters and shown mistakes are drawn until they reach it).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from bot.quiz.expressions import Expression, ExpressionError
from bot.quiz.model import (
    MAX_CHOICE_TEXT,
    MAX_EXPLANATION,
    MAX_FEEDBACK,
    MAX_QUESTION_TEXT,
    Bank,
    Choice,
    FigureRef,
    Lang,
    Question,
    Text,
)
from bot.quiz.numbers import (
    MAX_DIGITS,
    NumberError,
    exact_decimals,
    format_number,
    too_long,
    with_unit,
)

#: Tag on every question made from a template.
COMPUTED_TAG = "computed"
#: Draws tried before a template gives up (each try is a few microseconds).
MAX_TRIES = 200
#: Placeholder in a text: {name}, {name:plain} (no thousands grouping), {name:.2}.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")
PLACEHOLDER_SPEC = re.compile(r"(plain)?(?:\.([0-6]))?\Z")
#: Names every text may use besides the parameters: the right choice as written.
ANSWER_NAME = "answer"
#: Name a mistake's feedback may use for its own choice as written.
VALUE_NAME = "value"

#: Mistakes shown per post. A template may name more (up to MAX_MISTAKES); each post
#: shows three of them, drawn, so that the key is not always, say, the second smallest.
SHOWN_MISTAKES = 3
MAX_MISTAKES = 6
#: Stored with the parameters: which mistakes a post shows, as a bit mask of their indexes.
MISTAKES_KEY = "_mistakes"
#: Tries of a draw that keep to the key's rank chosen for it (Template._pick_mistakes),
#: and parameter draws probed for the ranks a template's key can reach.
RANK_TRIES = 20
RANK_PROBES = 100
#: A figure's alt text once filled (Discord allows 1024 for an attachment's description).
MAX_FIGURE_ALT = 500

Params = dict[str, Fraction]


class Rejected(ValueError):
    """This draw cannot be asked (a constraint, a duplicate choice...); draw again."""


class TemplateError(RuntimeError):
    """A template gave no usable draw in MAX_TRIES tries, or stored parameters no longer fit."""


@dataclass(frozen=True)
class Param:
    name: str
    values: tuple[Fraction, ...]


@dataclass(frozen=True)
class Distractor:
    value: tuple[Expression, ...]
    #: The mistake that gives this value, shown as the choice's feedback.
    mistake: Text


@dataclass(frozen=True)
class Template:
    id: str
    topic: str
    difficulty: int
    source: str
    text: Text
    explanation: Text
    params: tuple[Param, ...]
    #: Derived values, in order: each may use the parameters and the ones before it.
    lets: tuple[tuple[str, Expression], ...]
    where: tuple[Expression, ...]
    answer: tuple[Expression, ...]
    distractors: tuple[Distractor, ...]
    unit: str = ""
    decimals: int = 0
    #: The answer is a count: key and distractors must be whole numbers.
    count: bool = False
    file: str = ""
    line: int = 0
    #: Figures by name, their alt text with placeholders; drawn with the post's values.
    figure: FigureRef | None = None
    explanation_figure: FigureRef | None = None

    # -- drawing -----------------------------------------------------------------------

    def draw(self, rng: random.Random, tries: int = MAX_TRIES) -> Params:
        """Parameters for one post: redrawn until every check passes, at most `tries` times.

        The key's rank among the four values is chosen first, evenly among the ranks the
        template can reach (`reachable_ranks`), and kept for RANK_TRIES tries; after that
        any rank the parameters allow will do (`_pick_mistakes` says how)."""
        reason = "no tries"
        target = rng.choice(self.reachable_ranks())
        for attempt in range(tries):
            params = {p.name: rng.choice(p.values) for p in self.params}
            try:
                shown = self._pick_mistakes(params, rng, target if attempt < RANK_TRIES else None)
                if len(self.distractors) > SHOWN_MISTAKES:
                    params[MISTAKES_KEY] = Fraction(sum(1 << i for i in shown))
                self.materialize(params)
            except Rejected as exc:
                reason = str(exc)
                continue
            return params
        raise TemplateError(f"template {self.id}: no usable draw in {tries} tries ({reason})")

    def reachable_ranks(self) -> tuple[int, ...]:
        """The ranks the key can take among the four values (probed once, seeded)."""
        return _reachable(self)

    def _pick_mistakes(
        self, params: Params, rng: random.Random, target: int | None
    ) -> tuple[int, ...]:
        """Three of the mistakes for a post, so that the key's rank is `target`.

        A mistake is mostly a fixed factor away from the key, so a random three (or the
        same three every time) would leave the key in the middle nearly always, and
        "always the second smallest" would beat chance. The rule: the rank is the number
        of shown values below the key (a shape: the product of its dimensions); a three
        with a mistake equal to the key is not shown (the key would hold two ranks at
        once); among the threes that put the key at `target` one is picked at random,
        and when none does the draw is Rejected and the parameters are drawn again. So
        the key sits at each reachable rank equally often over many posts. With `target`
        None, any rank the parameters allow is picked evenly, then a three with it."""
        by_rank, tied = self._threes(params)
        if target is not None:
            if target not in by_rank:
                raise Rejected(f"no three mistakes put the key at rank {target}")
            return rng.choice(by_rank[target])
        fallback = by_rank or tied
        if not fallback:
            raise Rejected(f"fewer than {SHOWN_MISTAKES} mistakes can be computed")
        return rng.choice(fallback[rng.choice(sorted(fallback))])

    def _threes(self, params: Params) -> tuple[dict[int, list[tuple[int, ...]]], ...]:
        """(threes by the key's rank they give, threes with a mistake equal to the key),
        among the mistakes that can be asked with these parameters."""
        values = self.values(params)
        try:
            key = Fraction(math.prod(e.number(values) for e in self.answer))
        except ExpressionError as exc:
            raise Rejected(str(exc)) from None
        sizes: dict[int, Fraction] = {}
        for i, distractor in enumerate(self.distractors):
            try:
                numbers = [e.number(values) for e in distractor.value]
            except ExpressionError:
                continue  # cannot be computed here: not shown in this post
            whole = not (self.count or len(numbers) > 1) or all(n.denominator == 1 for n in numbers)
            if whole and all(n > 0 for n in numbers):  # else not askable: not shown either
                sizes[i] = Fraction(math.prod(numbers))
        by_rank: dict[int, list[tuple[int, ...]]] = {}
        tied: dict[int, list[tuple[int, ...]]] = {}
        for combo in itertools.combinations(sorted(sizes), SHOWN_MISTAKES):
            into = tied if any(sizes[i] == key for i in combo) else by_rank
            into.setdefault(sum(sizes[i] < key for i in combo), []).append(combo)
        return by_rank, tied

    def values(self, params: Mapping[str, Fraction]) -> Params:
        """Parameters plus derived values; Rejected when a constraint fails."""
        missing = [p.name for p in self.params if p.name not in params]
        if missing:
            raise Rejected(f"parameters missing: {', '.join(missing)}")
        values = {p.name: Fraction(params[p.name]) for p in self.params}
        try:
            for name, expr in self.lets:
                values[name] = expr.number(values)
            for condition in self.where:
                if not condition(values):
                    raise Rejected(f"constraint fails: {condition.text}")
        except ExpressionError as exc:
            raise Rejected(str(exc)) from None
        return values

    def shown(self, params: Mapping[str, Fraction]) -> tuple[int, ...]:
        """Indexes of the mistakes a post with these parameters shows, in file order."""
        mask = params.get(MISTAKES_KEY)
        if mask is None:
            return tuple(range(SHOWN_MISTAKES))
        indexes = tuple(i for i in range(len(self.distractors)) if int(mask) >> i & 1)
        if (
            mask.denominator != 1
            or len(indexes) != SHOWN_MISTAKES
            or mask >= 1 << len(self.distractors)
        ):
            raise Rejected(f"{MISTAKES_KEY} {mask} does not pick {SHOWN_MISTAKES} mistakes")
        return indexes

    def numbers(self, params: Mapping[str, Fraction]) -> tuple[Params, list[tuple[Fraction, ...]]]:
        """(values, [key numbers, numbers of the mistakes shown...]) for these parameters."""
        values = self.values(params)
        shown = [self.distractors[i] for i in self.shown(params)]
        formulas = [self.answer, *(d.value for d in shown)]
        try:
            choices = [tuple(e.number(values) for e in f) for f in formulas]
        except ExpressionError as exc:
            raise Rejected(str(exc)) from None
        for numbers in choices:
            if any(n <= 0 for n in numbers):
                raise Rejected("a choice is not positive")
            if any(too_long(n) for n in numbers):
                raise Rejected(f"a choice has over {MAX_DIGITS} digits")
            if (self.count or len(numbers) > 1) and any(n.denominator != 1 for n in numbers):
                raise Rejected("a count is not a whole number")
        return values, choices

    def shown_decimals(self, choices: list[tuple[Fraction, ...]]) -> int:
        """Decimals every choice is written with: as few as the most exact choice needs,
        at most `decimals`, and the same for all four so that none stands out."""
        needed = (exact_decimals(n) for c in choices for n in c)
        return min(max((self.decimals if d is None else d) for d in needed), self.decimals)

    def choice_text(self, numbers: tuple[Fraction, ...], lang: Lang, decimals: int) -> str:
        if len(numbers) > 1:  # a shape: 2048×16384
            return "×".join(format_number(n, lang, decimals=0, group=False) for n in numbers)
        return with_unit(format_number(numbers[0], lang, decimals=decimals), self.unit, lang)

    def written(self, params: Mapping[str, Fraction]) -> tuple[Params, dict[Lang, list[str]]]:
        """(values, the four choices as written in each language); Rejected when a
        constraint fails, a number is not usable, or two choices read the same."""
        values, choices = self.numbers(params)
        places = self.shown_decimals(choices)
        written: dict[Lang, list[str]] = {
            lang: [self.choice_text(c, lang, places) for c in choices] for lang in ("tr", "en")
        }
        for lang, texts in written.items():
            if len(set(texts)) != len(texts):
                raise Rejected(f"two choices read the same in {lang}: {' / '.join(texts)}")
        return values, written

    def materialize(self, params: Mapping[str, Fraction]) -> Question:
        """The question these parameters make; Rejected when it cannot be asked."""
        values, written = self.written(params)

        def fill(text: Text, extra: dict[str, dict[str, str]], limit: int) -> Text:
            parts = {
                lang: _fill(
                    text.get(lang), values, lang, {k: v[lang] for k, v in extra.items()}, limit
                )
                for lang in ("tr", "en")
            }
            return Text(tr=parts["tr"], en=parts["en"])

        answer = {lang: written[lang][0] for lang in ("tr", "en")}
        base = {ANSWER_NAME: answer}
        built = [Choice(Text(tr=written["tr"][0], en=written["en"][0]), correct=True)]
        shown = [self.distractors[i] for i in self.shown(params)]
        for i, distractor in enumerate(shown, start=1):
            mine = {lang: written[lang][i] for lang in ("tr", "en")}
            feedback = fill(distractor.mistake, {**base, VALUE_NAME: mine}, MAX_FEEDBACK)
            built.append(Choice(Text(tr=mine["tr"], en=mine["en"]), feedback=feedback))
        for choice in built:
            if max(len(choice.text.tr), len(choice.text.en)) > MAX_CHOICE_TEXT:
                raise Rejected(f"a choice is longer than {MAX_CHOICE_TEXT} characters")
        drawn = tuple(sorted(values.items()))

        def picture(ref: FigureRef | None) -> FigureRef | None:
            if ref is None:
                return None
            return FigureRef(ref.name, fill(ref.alt, base, MAX_FIGURE_ALT), drawn)

        return Question(
            id=self.id,
            topic=self.topic,
            difficulty=self.difficulty,
            text=fill(self.text, base, MAX_QUESTION_TEXT),
            choices=tuple(built),
            explanation=fill(self.explanation, base, MAX_EXPLANATION),
            source=self.source,
            tags=frozenset({COMPUTED_TAG}),
            file=self.file,
            line=self.line,
            figure=picture(self.figure),
            explanation_figure=picture(self.explanation_figure),
        )

    def stand_in(self) -> Question:
        """One fixed draw, standing for the template where questions are picked."""
        return self.materialize(self.draw(random.Random(self.id)))


def _fill(
    text: str, values: Mapping[str, Fraction], lang: Lang, extra: Mapping[str, str], limit: int
) -> str:
    def one(match: re.Match[str]) -> str:
        name, spec = match[1], match[2] or ""
        if name in extra:
            return extra[name]
        spec_match = PLACEHOLDER_SPEC.match(spec)
        if name not in values or spec_match is None:
            raise Rejected(f"placeholder {match[0]} is unknown")
        decimals = int(spec_match[2]) if spec_match[2] is not None else None
        try:
            return format_number(values[name], lang, decimals=decimals, group=spec_match[1] is None)
        except NumberError as exc:
            raise Rejected(f"placeholder {match[0]}: {exc}") from None

    filled = PLACEHOLDER.sub(one, text)
    if len(filled) > limit:
        raise Rejected(f"a text is longer than {limit} characters once filled")
    return filled


@functools.lru_cache(maxsize=256)
def _reachable(template: Template) -> tuple[int, ...]:
    """The key's ranks over RANK_PROBES seeded parameter draws (all four if none works):
    a draw aims only at these, so no draw spends its tries on a rank it cannot reach."""
    rng = random.Random(f"reach:{template.id}")
    found: set[int] = set()
    for _ in range(RANK_PROBES):
        try:
            found.update(
                template._threes({p.name: rng.choice(p.values) for p in template.params})[0]
            )
        except Rejected:
            continue
    return tuple(sorted(found)) or tuple(range(SHOWN_MISTAKES + 1))


@functools.lru_cache(maxsize=512)
def _rebuilt(template: Template, stored: str) -> Question:
    """A post's question from its stored parameters; every click and count edit of a post
    asks again, so the last few hundred are kept (a Question is immutable)."""
    return template.materialize(decode_params(stored))


def encode_params(params: Mapping[str, Fraction]) -> str:
    """Parameters as stored with a post: JSON, each value an exact fraction ('25/2')."""
    return json.dumps({k: str(Fraction(v)) for k, v in sorted(params.items())})


def decode_params(stored: str) -> Params:
    """The inverse of encode_params; ValueError on anything else."""
    raw = json.loads(stored)
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise ValueError("stored parameters are not a JSON object of strings")
    return {str(k): Fraction(v) for k, v in raw.items()}


@dataclass(frozen=True)
class TemplateSet:
    """The loaded templates, by id; empty when a bot runs without computed questions."""

    templates: tuple[Template, ...] = ()
    _by_id: dict[str, Template] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {t.id: t for t in self.templates})

    def __len__(self) -> int:
        return len(self.templates)

    def __iter__(self) -> Iterator[Template]:
        return iter(self.templates)

    def __contains__(self, template_id: object) -> bool:
        return template_id in self._by_id

    def get(self, template_id: str) -> Template | None:
        return self._by_id.get(template_id)

    def pool(self, bank: Bank) -> Bank:
        """Questions and templates as one pool to pick from: a template counts as one
        question (its stand-in), under its id."""
        clash = sorted({t.id for t in self.templates} & {q.id for q in bank})
        if clash:
            raise ValueError(f"template ids also used by questions: {', '.join(clash)}")
        return Bank.of([*bank, *(t.stand_in() for t in self.templates)])

    def question(self, template_id: str, stored: str | None) -> Question:
        """The question a post of this template showed, from its stored parameters."""
        template = self.get(template_id)
        if template is None or stored is None:
            raise TemplateError(f"no template {template_id} with stored parameters")
        try:
            return _rebuilt(template, stored)
        except (Rejected, ValueError) as exc:
            raise TemplateError(
                f"template {template_id}: stored parameters unusable: {exc}"
            ) from None
