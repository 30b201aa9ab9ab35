"""All SQL lives in this package, behind one contract (`contract.py`) that both backends fulfil.

`sqlite/` and `pg/` sit side by side and neither imports the other. What both share is
written once, in neutral modules here: the records and their row mappers (`records.py`),
the exceptions a store raises while running (`errors.py`) and the refusals at open with
their sentences (`problems.py`), the period buckets (`periods.py`), the click's read and
decision (`click_read.py`), the catalogue of what is stored about a member
(`member_data.py`) and the bundled migration files with their headers
(`migration_files.py`). Statements whose SQL is the same in both dialects are written
once too: `sql.py` holds `Query` (named parameters, numbered per dialect once) and the
`Executor` port each backend adapts (sqlite/executor.py, pg/executor.py), and `stores/`
the stores written once over it (posts, test runs, settings, reminders, cards and
progress reads, reports, daily posts). Only `factory.py` (which chooses a backend, and
holds mypy's proof that both bundles fulfil the contract) and `copy.py` (SQLite into
PostgreSQL) import both backends.
"""
