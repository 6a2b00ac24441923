"""The errfix exception family: library code raises these, the CLI maps them to exit codes."""


class ErrfixError(Exception):
    """Base class: an expected failure with a message meant for a person."""


class InvalidInput(ErrfixError):
    """The user gave us something we cannot use (bad file, bad argument). CLI exit code 2."""


class InvalidRecords(InvalidInput):
    """One or more records failed validation; `problems` lists each as `file:line: id: field: msg`."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the records; nothing was written")


class NotFound(ErrfixError):
    """A record id (or other key) that is not in the store."""


class StoreError(ErrfixError):
    """The database cannot be used (not an errfix database, newer schema, corrupt)."""
