"""The loader turns question YAML into a Bank, or reports every problem precisely.

Broken fixtures live in tests/quiz/fixtures/broken/, one kind of mistake per file, each
with a header naming the problem it must produce:

    # expect: LINE: QUESTION-ID: FIELD: fragment of the message
    # schema: rejects | accepts | unparseable

`expect` is checked here, by the CLI tests and (with `schema`) by the schema agreement
tests, so adding a check means adding one fixture file.
"""

from __future__ import annotations

import difflib
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

import bot
from bot.bank import loader
from bot.bank.loader import (
    NEAR_DUPLICATE_RATIO,
    BankError,
    Problem,
    bundled_question_files,
    check_files,
    expand_paths,
    load_bank,
    near_duplicate_pairs,
    normalise,
)
from bot.quiz.model import Bank, Text

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = FIXTURES / "good"
BROKEN = FIXTURES / "broken"
BROKEN_MULTI = FIXTURES / "broken-multi"


@dataclass(frozen=True)
class Expectation:
    """What one broken fixture must produce, paths relative to FIXTURES."""

    path: str
    line: int
    question_id: str
    field: str
    fragment: str
    schema: str

    @property
    def prefix(self) -> str:
        return f"{self.path}:{self.line}: {self.question_id}: {self.field}: "

    def matches(self, problem_line: str) -> bool:
        return problem_line.startswith(self.prefix) and self.fragment in problem_line


def _expectation(path: Path) -> Expectation:
    text = path.read_text(encoding="utf-8")
    expect = re.search(r"^# expect: (.*)$", text, re.MULTILINE)
    schema = re.search(r"^# schema: (\w+)$", text, re.MULTILINE)
    assert expect and schema, f"{path} needs '# expect:' and '# schema:' header lines"
    line, qid, field, fragment = expect.group(1).split(": ", 3)
    rel = path.relative_to(FIXTURES).as_posix()
    fragment = fragment.replace("{dir}", path.parent.relative_to(FIXTURES).as_posix())
    return Expectation(rel, int(line), qid, field, fragment, schema.group(1))


def broken_fixtures() -> list[Expectation]:
    """One expectation per single-file broken fixture."""
    return [_expectation(p) for p in sorted(BROKEN.glob("*.yaml"))]


def broken_multi_fixtures() -> list[tuple[str, Expectation]]:
    """(directory, expectation) for mistakes that need several files to show."""
    cases = []
    for directory in sorted(p for p in BROKEN_MULTI.iterdir() if p.is_dir()):
        for file in sorted(directory.glob("*.yaml")):
            if "# expect:" in file.read_text(encoding="utf-8"):
                cases.append((directory.relative_to(FIXTURES).as_posix(), _expectation(file)))
    return cases


@pytest.fixture
def in_fixtures(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the fixtures directory so reported paths are short and exact."""
    monkeypatch.chdir(FIXTURES)
    return FIXTURES


def _write(tmp_path: Path, body: str, name: str = "q.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


QUESTION = """\
- id: {id}
  topic: basics
  difficulty: 1
  text:
    tr: "{tr}"
    en: "{en}"
  choices:
    - text: {{tr: "Ağırlıkları", en: "The weights"}}
      correct: true
    - text: {{tr: "{choice_tr}", en: "{choice_en}"}}
      feedback: {{tr: "Yanlış.", en: "Wrong."}}
  explanation: {{tr: "Açıklama.", en: "Explanation."}}
  source: "Megatron-LM 3"
"""


def _question(
    qid: str = "q-1",
    tr: str = "Tensör paralelliği neyi böler?",
    en: str = "What does tensor parallelism split?",
    choice_tr: str = "Verileri",
    choice_en: str = "The data",
) -> str:
    return QUESTION.format(id=qid, tr=tr, en=en, choice_tr=choice_tr, choice_en=choice_en)


# --------------------------------------------------------------------------- good files


def test_good_fixtures_build_the_expected_bank(in_fixtures: Path) -> None:
    bank, problems = check_files(["good"])
    assert problems == []
    assert isinstance(bank, Bank)
    assert [q.id for q in bank] == ["fx-mlp-01", "fx-collectives-01", "fx-memory-01"]
    q = bank["fx-mlp-01"]
    assert q.topic == "mlp-split" and q.difficulty == 2
    assert q.tags == frozenset({"starting"})
    assert q.text.en.startswith("In the Megatron-LM MLP block")
    assert q.correct_index == 0
    assert q.choices[0].feedback is None  # correct choice: feedback optional
    assert q.choices[1].feedback is not None
    assert q.source == "Shoeybi et al. 2019, Megatron-LM (arXiv:1909.08053), 3"
    assert (q.file, q.line) == ("good/sample-basics.yaml", 3)
    assert bank["fx-collectives-01"].choices[0].feedback is not None  # allowed on correct
    assert bank["fx-memory-01"].tags == frozenset()
    assert bank.tagged("starting") == [q]


def test_strings_are_stripped_so_block_scalars_render_cleanly(tmp_path: Path) -> None:
    body = _question().replace(
        '    en: "What does tensor parallelism split?"',
        "    en: >\n      What does tensor\n      parallelism split?\n",
    )
    bank = load_bank([_write(tmp_path, body)])
    assert bank["q-1"].text == Text(
        tr="Tensör paralelliği neyi böler?", en="What does tensor parallelism split?"
    )


def test_load_bank_returns_bank_for_good_files() -> None:
    assert len(load_bank([GOOD])) == 3


# --------------------------------------------------------------------------- problems


def test_problem_str_is_file_line_id_field_message() -> None:
    problem = Problem("questions/a.yaml", 12, "mlp-01", "choices[2].feedback.tr", "is empty")
    assert str(problem) == "questions/a.yaml:12: mlp-01: choices[2].feedback.tr: is empty"


def test_bank_error_lists_every_problem_one_a_line() -> None:
    problems = [Problem("a.yaml", 1, "-", "-", "one"), Problem("b.yaml", 2, "q", "id", "two")]
    error = BankError(problems)
    assert error.problems == problems
    assert str(error) == "a.yaml:1: -: -: one\nb.yaml:2: q: id: two"


@pytest.mark.parametrize("case", broken_fixtures(), ids=lambda c: Path(c.path).stem)
def test_broken_fixture_reports_expected_problem(case: Expectation, in_fixtures: Path) -> None:
    bank, problems = check_files([case.path])
    assert bank is None
    lines = [str(p) for p in problems]
    assert any(case.matches(line) for line in lines), (
        f"expected a line starting {case.prefix!r} containing {case.fragment!r}, got:\n"
        + "\n".join(lines)
    )


@pytest.mark.parametrize(
    ("directory", "case"), broken_multi_fixtures(), ids=lambda x: str(x).split("/")[-1]
)
def test_cross_file_problem(directory: str, case: Expectation, in_fixtures: Path) -> None:
    bank, problems = check_files([directory])
    assert bank is None
    assert any(case.matches(str(p)) for p in problems), "\n".join(map(str, problems))


def test_every_problem_is_reported_at_once_across_files(in_fixtures: Path) -> None:
    """One run lists every mistake in every file, so authors fix them all in one go."""
    _, problems = check_files(["broken"])
    lines = [str(p) for p in problems]
    missing = [c.prefix for c in broken_fixtures() if not any(c.matches(x) for x in lines)]
    assert missing == []


def test_several_problems_in_one_question_are_all_reported(tmp_path: Path) -> None:
    body = (
        _question(qid="Bad_Id")
        .replace("topic: basics", "topic: basic")
        .replace("difficulty: 1", "difficulty: 0")
        .replace('      feedback: {tr: "Yanlış.", en: "Wrong."}\n', "")
        .replace('  source: "Megatron-LM 3"\n', "")
    )
    path = _write(tmp_path, body)
    _, problems = check_files([path])
    fields = sorted(p.field for p in problems)
    assert fields == ["choices[1].feedback", "difficulty", "id", "source", "topic"]
    assert {p.question_id for p in problems} == {"Bad_Id"}


def test_load_bank_raises_with_all_problems(in_fixtures: Path) -> None:
    with pytest.raises(BankError) as info:
        load_bank(["broken/not-a-list.yaml", "broken/topic-unknown.yaml"])
    assert [p.field for p in info.value.problems] == ["-", "topic"]
    assert "broken/topic-unknown.yaml:5: fx-topic: topic: " in str(info.value)


def test_problems_are_ordered_by_file_then_line(in_fixtures: Path) -> None:
    _, problems = check_files(["broken/topic-unknown.yaml", "broken/not-a-list.yaml"])
    assert [p.file for p in problems] == ["broken/topic-unknown.yaml", "broken/not-a-list.yaml"]


def test_missing_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    bank, problems = check_files([path])
    assert bank is None
    assert [(p.line, p.field) for p in problems] == [(1, "-")]
    assert "file not found" in problems[0].message


def test_non_utf8_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("- id: ç\n".encode("latin-1"))
    _, problems = check_files([path])
    assert "not valid UTF-8" in problems[0].message


def test_no_files_is_a_problem(tmp_path: Path) -> None:
    bank, problems = check_files([tmp_path])
    assert bank is None
    assert "no question files" in problems[0].message


def test_unsafe_yaml_tags_are_syntax_errors_not_objects(tmp_path: Path) -> None:
    path = _write(tmp_path, "- !!python/object/apply:os.system ['true']\n")
    _, problems = check_files([path])
    assert problems[0].line == 1
    assert problems[0].message.startswith("YAML syntax error")


def test_two_yaml_documents_are_a_syntax_error(tmp_path: Path) -> None:
    path = _write(tmp_path, _question() + "---\n" + _question(qid="q-2"))
    _, problems = check_files([path])
    assert problems[0].message.startswith("YAML syntax error")
    assert problems[0].line == 14  # the '---' line


def test_yes_is_not_accepted_as_correct_string(tmp_path: Path) -> None:
    path = _write(tmp_path, _question().replace("correct: true", 'correct: "true"'))
    _, problems = check_files([path])
    assert [p.field for p in problems] == ["choices[0].correct"]


def test_boolean_difficulty_is_wrong_type(tmp_path: Path) -> None:
    path = _write(tmp_path, _question().replace("difficulty: 1", "difficulty: true"))
    _, problems = check_files([path])
    assert [(p.field, "must be an integer" in p.message) for p in problems] == [
        ("difficulty", True)
    ]


def test_unknown_key_lists_allowed_keys(tmp_path: Path) -> None:
    path = _write(tmp_path, _question().replace("  source:", "  sources:"))
    _, problems = check_files([path])
    unknown = next(p for p in problems if p.field == "sources")
    assert "did you mean 'source'?" in unknown.message
    assert "allowed keys: id, topic, difficulty, tags, text, choices, explanation, source" in (
        unknown.message
    )


def test_near_duplicates_across_files_name_both_places(tmp_path: Path) -> None:
    first = _write(tmp_path, _question(qid="a-1"), "a.yaml")
    second = _write(
        tmp_path,
        _question(qid="b-1", en="What does tensor parallelism split??", tr="Bambaşka bir soru?"),
        "b.yaml",
    )
    _, problems = check_files([first, second])
    assert len(problems) == 1
    p = problems[0]
    assert (p.file, p.line, p.question_id, p.field) == (str(second), 4, "b-1", "text.en")
    assert f"a-1 at {first}:4" in p.message and f"b-1 at {second}:4" in p.message


def test_different_stems_are_not_near_duplicates(tmp_path: Path) -> None:
    body = _question(qid="a-1") + _question(
        qid="a-2",
        en="How many all-reduces does one MLP block need in the forward pass?",
        tr="Bir MLP bloğu ileri geçişte kaç all-reduce gerektirir?",
    )
    assert len(load_bank([_write(tmp_path, body)])) == 2


@pytest.mark.parametrize(
    ("tr", "en", "flagged"),
    [
        ("Hepsi", "Both", "tr"),
        ("Hiçbiri doğru değil", "Neither one", None),  # a sentence, not the catch-all phrase
        ("HİÇBİRİ.", "Neither", "tr"),
        ("Hepsi doğru", "Neither", "tr"),
        ("Yukarıdakilerin Hiçbiri", "Neither", "tr"),
        ("Her GPU'nun hepsi aynı ağırlıkları tutar", "Every GPU holds the same weights", None),
        ("Veri", "All of the above are correct", "en"),
        ("Veri", "NONE of the above.", "en"),
    ],
)
def test_all_or_none_of_the_above(tmp_path: Path, tr: str, en: str, flagged: str | None) -> None:
    path = _write(tmp_path, _question(choice_tr=tr, choice_en=en))
    _, problems = check_files([path])
    fields = [p.field for p in problems]
    assert fields == ([f"choices[1].text.{flagged}"] if flagged else [])


def test_duplicate_choice_text_is_case_and_punctuation_insensitive(tmp_path: Path) -> None:
    path = _write(tmp_path, _question(choice_tr="ağırlıkları!", choice_en="Other"))
    _, problems = check_files([path])
    assert [p.field for p in problems] == ["choices[1].text.tr"]
    assert "same text as choices[0] (tr)" in problems[0].message


def test_normalise_folds_case_accents_dotless_i_and_punctuation() -> None:
    assert normalise("HİÇBİRİ.") == normalise("hiçbiri") == "hicbiri"
    assert normalise("Yukarıdakilerin  tümü!") == "yukaridakilerintumu"
    assert normalise("All-reduce, twice?") == "allreducetwice"


def test_a_large_bank_of_distinct_stems_has_no_near_duplicates(tmp_path: Path) -> None:
    """400 distinct stems give no false near-duplicate (speed is bench.near_duplicates' job)."""
    rng = random.Random(0)
    vocabulary = [
        "".join(rng.choices("abcdefghijklmnoprstuvyz", k=rng.randint(2, 9))) for _ in range(300)
    ]
    body = []
    for i in range(400):
        en = " ".join(rng.choices(vocabulary, k=30))
        tr = " ".join(rng.choices(vocabulary, k=30))
        body.append(_question(qid=f"q-{i}", en=en, tr=tr))
    path = _write(tmp_path, "".join(body))
    bank, problems = check_files([path])
    assert problems == [] and bank is not None and len(bank) == 400


# --------------------------------------------------------------------------- paths


def test_expand_paths_lists_yaml_in_directories_sorted(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yml", "c.txt", "question.schema.json"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    explicit = tmp_path / "explicit.txt"
    assert expand_paths([tmp_path, str(explicit)]) == [
        tmp_path / "a.yml",
        tmp_path / "b.yaml",
        explicit,
    ]


def test_bundled_question_files_are_the_sorted_yaml_in_questions() -> None:
    files = bundled_question_files()
    expected_dir = Path(bot.__file__).resolve().parents[1] / "questions"
    assert files == sorted(expected_dir.glob("*.yaml"))
    assert loader._bundled_dir().resolve() == expected_dir


BUNDLED = bundled_question_files()


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_every_bundled_file_loads(path: Path) -> None:
    bank, problems = check_files([path])
    assert problems == [], "\n".join(map(str, problems))
    assert bank is not None and len(bank) > 0


@pytest.mark.skipif(not BUNDLED, reason="no questions/*.yaml yet")
def test_bundled_bank_loads_as_a_whole() -> None:
    """Cross-file checks (duplicate ids, near-duplicate stems) over the shipped bank."""
    files = bundled_question_files()
    bank = load_bank(files)
    assert len(bank) == sum(len(yaml.safe_load(p.read_text(encoding="utf-8"))) for p in files)


def test_near_duplicate_pruning_never_drops_a_match() -> None:
    """The prefilters are bounds, not heuristics: same pairs as comparing every pair."""
    rng = random.Random(7)
    base = ["".join(rng.choices("abcdeilmnorstu", k=rng.randint(3, 120))) for _ in range(40)]
    texts = list(base)
    for text in base:  # plant near-copies: a few random edits each
        chars = list(text)
        for _ in range(rng.randint(0, 6)):
            pos = rng.randrange(len(chars) + 1)
            op = rng.choice("ids")
            if op == "i":
                chars.insert(pos, rng.choice("xyz"))
            elif chars and pos < len(chars):
                if op == "d":
                    del chars[pos]
                else:
                    chars[pos] = rng.choice("xyz")
        texts.append("".join(chars))
    texts += ["", "ab", "abc", "abd"]
    brute = set()
    for j, b in enumerate(texts):
        for i in range(j):
            matcher = difflib.SequenceMatcher(None, texts[i], b, autojunk=False)
            if matcher.ratio() >= NEAR_DUPLICATE_RATIO:
                brute.add((i, j))
    found = {(i, j) for i, j, _ in near_duplicate_pairs(texts)}
    assert found == brute
    assert len(brute) > 20  # the planted copies are there to be found


def test_merge_keys_may_override_without_duplicate_key_errors(tmp_path: Path) -> None:
    """`<<: *anchor` reuse is legal YAML: overriding a merged key is not a duplicate."""
    body = _question(qid="m-1").replace("- id: m-1", "- &base\n  id: m-1") + (
        "- <<: *base\n  id: m-2\n"
        '  text: {tr: "Tamamen farklı bir soru", en: "An entirely different stem about GPUs"}\n'
    )
    bank = load_bank([_write(tmp_path, body)])
    assert [q.id for q in bank] == ["m-1", "m-2"]
    assert bank["m-2"].source == bank["m-1"].source


def test_unquoted_no_is_read_as_boolean_and_explained(tmp_path: Path) -> None:
    path = _write(
        tmp_path, _question().replace('{tr: "Yanlış.", en: "Wrong."}', '{tr: no, en: "x"}')
    )
    _, problems = check_files([path])
    assert [p.field for p in problems] == ["choices[1].feedback.tr"]
    assert "quote it" in problems[0].message
