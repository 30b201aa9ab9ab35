"""The `tpquiz` command line: run, check the bank, operate the database, answer privacy requests."""
