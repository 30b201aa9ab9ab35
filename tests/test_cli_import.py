"""`tpquiz import` as an author runs it: exact sentences and exit statuses.

Exit status 0: something was imported; 1: the input yields nothing (unreadable, every
question skipped, or any problem with --strict); 2: the output or an option cannot be
used. Nothing is written unless the status is 0, and an existing output file is only
ever replaced by a complete new one.
"""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from bot.cli.bank import main
from bot.infra import files
from tests.quiz.importers.test_gift import MIXED_SKIPPED

FIXTURES = Path(__file__).parent / "quiz" / "fixtures"
NEXT_STEPS = (
    "; now add the tr texts, explanations, sources and feedback, set topic and difficulty, "
    "and run 'tpquiz validate' on the file until it passes\n"
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths in messages are relative to here, so expected lines are exact."""
    monkeypatch.chdir(FIXTURES)


def _good_to(target: Path, *extra: str) -> tuple[int, str, str]:
    return run(
        "import", "aiken", "import/good.aiken.txt", "--lang", "en", "-o", str(target), *extra
    )


# --------------------------------------------------------------------------- results


def test_writes_yaml_to_stdout() -> None:
    code, out, err = run("import", "gift", "import/good.gift", "--lang", "en")
    assert code == 0
    assert out.startswith("# yaml-language-server: $schema=./question.schema.json\n- id: good-01\n")
    assert err == "imported 3 question(s) from import/good.gift" + NEXT_STEPS


def test_to_file_then_validate_lists_what_is_left(tmp_path: Path) -> None:
    target = tmp_path / "draft.yaml"
    code, out, err = _good_to(target, "--topic", "mlp-split", "--id-prefix", "mlp-imp")
    assert (code, out) == (0, "")
    assert err == f"imported 3 question(s) from import/good.aiken.txt into {target}" + NEXT_STEPS
    assert "- id: mlp-imp-01" in target.read_text(encoding="utf-8")
    code, _, err = run("validate", str(target))
    assert code == 1
    assert f"{target}:5: mlp-imp-01: text.tr: missing language tr" in err


def test_mixed_gift_imports_the_multiple_choice_and_lists_the_rest() -> None:
    code, out, err = run("import", "gift", "import/mixed.gift", "--lang", "en")
    assert code == 0
    assert out.count("\n- id: mixed-") == 5
    assert err.splitlines() == [
        *(f"import/mixed.gift:{line}: skipped: {why}" for line, why in MIXED_SKIPPED),
        "imported 5 question(s) from import/mixed.gift, skipped 14 (listed above)"
        + NEXT_STEPS.rstrip("\n"),
    ]


def test_strict_keeps_all_or_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    code, out, err = run(
        "import", "gift", "import/mixed.gift", "--lang", "en", "--strict", "-o", str(target)
    )
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == (
        "import/mixed.gift:6: mixed-01: answers: true/false question ('{T}' / '{F}'); only "
        "multiple choice with one right answer is imported"
    )
    assert lines[-1] == "14 problem(s); nothing was written"
    assert not target.exists()


def test_nothing_importable_is_exit_1_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    code, out, err = run(
        "import", "aiken", "import/broken.aiken.txt", "--lang", "tr", "-o", str(target)
    )
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == (
        "import/broken.aiken.txt:1: skipped: option 'A.' comes before any question text; "
        "write the question on the line(s) before its options"
    )
    assert lines[-1] == (
        "nothing imported from import/broken.aiken.txt: all 4 question(s) were skipped "
        "(listed above); nothing was written"
    )
    assert not target.exists()


def test_no_questions_at_all(tmp_path: Path) -> None:
    empty = tmp_path / "empty.gift"
    empty.write_text("// nothing but a comment\n\n", encoding="utf-8")
    code, out, err = run("import", "gift", str(empty), "--lang", "en")
    assert (code, out) == (1, "")
    assert err == (
        f"{empty}:1: -: -: no questions found; GIFT is 'stem {{=right ~wrong ~wrong}}'\n"
        "1 problem(s); nothing was written\n"
    )


def test_a_title_after_a_bom_is_dropped(tmp_path: Path) -> None:
    source = tmp_path / "bom.gift"
    source.write_bytes(b"\xef\xbb\xbf::title:: Soru? {=evet ~hay\xc4\xb1r}\n")
    code, out, _ = run("import", "gift", str(source), "--lang", "tr")
    assert code == 0
    assert "    tr: Soru?\n" in out and "title" not in out


def test_standard_output_full() -> None:
    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    err = io.StringIO()
    code = main(["import", "gift", "import/good.gift", "--lang", "en"], stdout=Full(), stderr=err)
    assert code == 2
    assert err.getvalue() == (
        "tpquiz import: cannot write the YAML to standard output: No space left on device\n"
    )


def test_requires_lang() -> None:
    with pytest.raises(SystemExit) as info:
        run("import", "gift", "import/good.gift")
    assert info.value.code == 2


# --------------------------------------------------------------------------- options (exit 2)


def test_bad_prefix() -> None:
    code, _, err = run("import", "gift", "import/good.gift", "--lang", "en", "--id-prefix", "B!")
    assert code == 2
    assert err == (
        "tpquiz import: id prefix 'B!' must be lowercase letters, digits and '-', "
        "e.g. 'mlp-split-imp'\n"
    )


def test_prefix_too_long_for_over_999_questions(tmp_path: Path) -> None:
    source = tmp_path / "many.txt"
    source.write_text("\n".join(["Q?\nA. a\nB. b\nANSWER: A\n"] * 1000), encoding="utf-8")
    prefix = "p" * 36
    code, out, err = run("import", "aiken", str(source), "--lang", "en", "--id-prefix", prefix)
    assert (code, out) == (2, "")
    assert err == (
        f"tpquiz import: id prefix '{prefix}' is 36 characters: with 1000 questions the last id "
        "ends in '-1000' and would be 41 characters, over the limit of 40; use a prefix of at "
        "most 35 characters, or import the file in parts\n"
    )
    long_name = tmp_path / ("q" * 60 + ".txt")
    long_name.write_bytes(source.read_bytes())
    code, out, _ = run("import", "aiken", str(long_name), "--lang", "en")
    assert code == 0
    assert f"- id: {'q' * 35}-1000\n" in out  # the prefix from the file name is shortened


# --------------------------------------------------------------------------- output (exit 2)


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("keep me", encoding="utf-8")
    code, _, err = _good_to(target)
    assert code == 2
    assert err == f"tpquiz import: {target}: already exists; choose another -o or add --force\n"
    assert target.read_text(encoding="utf-8") == "keep me"
    assert _good_to(target, "--force")[0] == 0
    assert target.read_text(encoding="utf-8").startswith("# yaml-language-server")


def test_force_on_a_full_disk_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("the author's edited draft", encoding="utf-8")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", disk_full)
    code, out, err = _good_to(target, "--force")
    assert (code, out) == (2, "")
    assert err == (
        f"tpquiz import: cannot write {target}: No space left on device; {target} is unchanged\n"
    )
    assert target.read_text(encoding="utf-8") == "the author's edited draft"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]  # no temporary left


def test_read_only_file_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(files.tempfile, "mkstemp", read_only)
    target = tmp_path / "out.yaml"
    code, _, err = _good_to(target)
    assert code == 2
    assert err == (
        f"tpquiz import: cannot write {target}: Read-only file system; nothing was written\n"
    )
    assert not target.exists()


def test_missing_directory(tmp_path: Path) -> None:
    code, _, err = _good_to(tmp_path / "no" / "out.yaml")
    assert code == 2
    assert err == f"tpquiz import: {tmp_path}/no: no such directory\n"


def test_output_folder_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    code, _, err = _good_to(tmp_path / "notes.txt" / "out.yaml")
    assert code == 2
    assert err == (
        f"tpquiz import: {tmp_path}/notes.txt/out.yaml: cannot be inspected (Not a directory)\n"
    )


def test_output_is_a_directory(tmp_path: Path) -> None:
    code, _, err = _good_to(tmp_path, "--force")
    assert code == 2
    assert err == f"tpquiz import: {tmp_path} is a directory; refusing to replace it\n"


def test_output_is_a_device() -> None:
    code, _, err = _good_to(Path("/dev/full"), "--force")
    assert code == 2
    assert err == "tpquiz import: /dev/full is not a regular file; refusing to replace it\n"


def test_output_is_the_input(tmp_path: Path) -> None:
    source = tmp_path / "quiz.gift"
    source.write_text("Q {=a ~b}\n", encoding="utf-8")
    code, _, err = run("import", "gift", str(source), "--lang", "en", "-o", str(source), "--force")
    assert code == 2
    assert err == f"tpquiz import: {source} is the input file; write the YAML to another file\n"
    assert source.read_text(encoding="utf-8") == "Q {=a ~b}\n"


# --------------------------------------------------------------------------- input (exit 1)


def _input_error(path: str) -> str:
    code, out, err = run("import", "gift", path, "--lang", "en")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1, err  # one line, no traceback
    return err


def test_missing_input() -> None:
    assert (
        _input_error("import/missing.gift") == "tpquiz import: import/missing.gift: no such file\n"
    )


def test_input_is_a_directory() -> None:
    assert _input_error("import") == (
        "tpquiz import: import: is a directory; give the Aiken or GIFT text file inside it\n"
    )


def test_input_is_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gift"
    os.mkfifo(fifo)
    assert _input_error(str(fifo)) == (
        f"tpquiz import: {fifo}: not a regular file (a device, FIFO or socket); give the "
        "Aiken or GIFT text file\n"
    )


def test_input_is_dev_zero() -> None:
    assert _input_error("/dev/zero") == (
        "tpquiz import: /dev/zero: not a regular file (a device, FIFO or socket); give the "
        "Aiken or GIFT text file\n"
    )


def test_input_too_big(tmp_path: Path) -> None:
    big = tmp_path / "big.gift"
    with big.open("wb") as f:
        f.truncate(20_000_001)
    assert _input_error(str(big)) == (
        f"tpquiz import: {big}: larger than the import limit of 20 MB; split it into smaller "
        "files\n"
    )


def test_input_not_utf8(tmp_path: Path) -> None:
    latin = tmp_path / "tr.gift"
    latin.write_bytes("Doğru mu? {=evet ~hayır}\n".encode("cp1254"))
    assert _input_error(str(latin)) == (
        f"tpquiz import: {latin}:1: not UTF-8 (byte 0xf0); save the file as UTF-8 "
        "(Windows-1254 and Latin-1 are common for Turkish) and import again\n"
    )


def test_input_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.bank.importers import source

    target = tmp_path / "secret.gift"
    target.write_text("Q {=a ~b}\n", encoding="utf-8")
    real_open = os.open

    def refuse(path: object, *args: object, **kwargs: object) -> int:
        if str(path) == str(target):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(source.os, "open", refuse)
    assert _input_error(str(target)) == (
        f"tpquiz import: {target}: cannot be read (Permission denied)\n"
    )
