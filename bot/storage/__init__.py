"""All SQL lives in this package, behind one contract (`contract.py`) that both backends fulfil.

`sqlite/` and `pg/` sit side by side; `factory.py` is the only code that chooses between them.
Nothing outside this package imports a backend.
"""
