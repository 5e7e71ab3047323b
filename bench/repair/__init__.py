"""The rollback-repair benchmark (issue 5): ``python bench/repair/run.py --seed N [--cases N] [--json]``."""
