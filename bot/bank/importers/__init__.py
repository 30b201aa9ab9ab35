"""Turn quizzes written for Moodle-style tools (Aiken, GIFT) into bank YAML drafts.

Many teachers already have multiple-choice questions in one of these two plain-text
formats. An import is a *draft*, not a finished question: the formats carry one
language and (Aiken) no feedback, explanation or source, so the importer fills what it
can in the given language and leaves the rest for the author, in a way that
`tpquiz validate` keeps flagging until it is done:

* the other language is left **out** (not filled with a "TODO" string, which would pass
  the "missing language" check), so validate reports `missing language en`;
* `explanation`, `source` and the feedback of wrong choices without GIFT feedback are
  written as empty strings, so the slot is visible in the YAML and validate reports
  `is empty`;
* `difficulty` is set to 1 and `topic` to the one given; review both.

One module per job: `source` reads the input file safely, `aiken` and `gift` (with its
text layer `gift_text`) read the two formats, `draft` holds what they share (drafts,
problems, the strict/lenient rule, ids) and `yaml_out` writes the bank file. This
module only gathers the public names.
"""

from __future__ import annotations

from bot.bank.importers.aiken import import_aiken
from bot.bank.importers.draft import ImportProblems, ImportResult, Skipped
from bot.bank.importers.gift import import_gift
from bot.bank.importers.source import MAX_INPUT_BYTES, SourceError, read_source
from bot.bank.importers.yaml_out import dump_yaml

__all__ = [
    "MAX_INPUT_BYTES",
    "ImportProblems",
    "ImportResult",
    "Skipped",
    "SourceError",
    "dump_yaml",
    "import_aiken",
    "import_gift",
    "read_source",
]
