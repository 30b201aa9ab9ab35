"""`tpquiz validate` on templates: checked next to the questions, counted apart."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.bank.template_files import load_templates
from bot.cli.bank import main
from tests.mounts import bound_by_modes
from tests.quiz.test_loader import FIXTURES
from tests.quiz.test_templates import RING
from tests.test_cli import FAKE_TOKEN, tpquiz


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def bank_with(tmp_path: Path, template_text: str) -> Path:
    """A copy of the good fixture bank with one template file beside it."""
    tmp_path.mkdir(exist_ok=True)
    for file in (FIXTURES / "good").glob("*.yaml"):
        shutil.copy(file, tmp_path / file.name)
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "ring.yaml").write_text(template_text, encoding="utf-8")
    return tmp_path


def test_the_bundled_templates_are_checked_and_counted() -> None:
    code, out, err = run("validate")
    assert (code, err) == (0, "")
    (line,) = [x for x in out.splitlines() if "template" in x]
    templates = list(load_templates())  # the count and topics from the loader, not numbers
    topics = sorted({t.topic for t in templates})
    assert line == (
        f"OK: {len(templates)} templates (computed questions, each drawn 200 times)"
        f" in {len(topics)} topics: {', '.join(topics)}"
    )
    assert len(templates) >= 30 and {"context-parallel", "fp8", "moe-parallel"} <= set(topics)


def test_a_good_template_beside_a_bank_is_counted(tmp_path: Path) -> None:
    code, out, _ = run("validate", str(bank_with(tmp_path, RING)))
    assert code == 0
    assert out.splitlines()[-1] == (
        "OK: 1 template (computed questions, each drawn 200 times) in 1 topic: collectives"
    )


def test_a_broken_template_fails_validate_with_its_file_and_line(tmp_path: Path) -> None:
    broken = RING.replace("value: 2 * S", "value: open('x')")
    code, out, err = run("validate", str(bank_with(tmp_path, broken)))
    line = RING.splitlines().index("    - value: 2 * S") + 1
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (
        f"{tmp_path / 'templates' / 'ring.yaml'}:{line}: tpl-ring: distractors[1].value[0]:"
        " only these functions may be called: ceil, floor, log2, max, min"
    )
    assert err.splitlines()[-1] == "1 problem in 1 file"


# -- issue 31, defect 12: a directory that may not be read --------------------------------


@pytest.fixture
def closed_bank(tmp_path: Path) -> Iterator[Path]:
    """A good bank with a templates folder; the test closes one of them (mode 000)."""
    bank = bank_with(tmp_path / "bank", RING)
    yield bank
    for folder in (bank, bank / "templates"):  # pytest must be able to remove them
        folder.chmod(0o755)


@pytest.mark.parametrize(
    ("closed", "named"), [("bank", "bank"), ("bank/templates", "bank/templates")]
)
def test_a_directory_that_may_not_be_read_is_one_sentence(
    closed_bank: Path, closed: str, named: str
) -> None:
    """As the kernel refuses it (root, whom modes do not stop, runs without the override):
    the bank folder, or only its templates folder, at mode 000. A closed bank folder is
    named once (not again for the templates inside it); a closed templates folder is not
    passed over in silence."""
    cwd = closed_bank.parent
    (cwd / closed).chmod(0o000)
    sentence = (
        f"{named}:1: -: -: cannot list the directory (Permission denied); check its permissions"
    )
    checked = tpquiz("validate", "bank", cwd=cwd, prefix=bound_by_modes())
    assert (checked.returncode, checked.stdout) == (1, "")
    assert checked.stderr == f"{sentence}\n1 problem in 1 file\n"
    run = tpquiz(
        "run", cwd=cwd, prefix=bound_by_modes(), DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_QUESTIONS="bank"
    )
    assert run.returncode == 1
    assert run.stderr == (
        f"tpquiz: the question bank is invalid; fix these and start again:\n{sentence}\n"
    )
