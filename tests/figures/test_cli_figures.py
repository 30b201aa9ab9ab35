"""`tpquiz figures`: the bank's figures as PNG files, for a reviewer without Discord."""

from __future__ import annotations

import io
from pathlib import Path

from bot.bank.figure_checks import png_size
from bot.cli.bank import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_one_question_writes_its_figure_in_both_languages(tmp_path: Path) -> None:
    code, out, err = run("figures", "--out", str(tmp_path), "--id", "start-02")
    assert (code, err) == (0, "")
    assert out == f"wrote 2 figures to {tmp_path}\n"
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["start-02-explanation_figure-en.png", "start-02-explanation_figure-tr.png"]
    assert png_size((tmp_path / names[0]).read_bytes())[0] == 800


def test_a_template_writes_one_figure_per_draw(tmp_path: Path) -> None:
    code, out, _ = run(
        "figures", "--out", str(tmp_path), "--id", "tpl-pipeline-bubble", "--draws", "2"
    )
    assert code == 0 and out.startswith("wrote 4 figures")
    assert {p.name for p in tmp_path.iterdir()} == {
        f"tpl-pipeline-bubble-explanation_figure-{lang}-{n}.png"
        for lang in ("en", "tr")
        for n in (1, 2)
    }


def test_an_id_without_figures_is_one_sentence(tmp_path: Path) -> None:
    code, _, err = run("figures", "--out", str(tmp_path), "--id", "basics-01")
    assert code == 1
    assert err == "no figure for 'basics-01': no question or template of that id names one\n"
