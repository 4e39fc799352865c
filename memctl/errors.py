"""Domain exceptions. The CLI maps each to a one-line message and a documented exit code."""

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_REJECTED = 3  # --strict and at least one record was rejected
EXIT_LOCKED = 75  # EX_TEMPFAIL: another run holds the lock, try again later


class MemctlError(Exception):
    """Base class: any error a user can cause; shown as one line, exit code 1."""

    exit_code = EXIT_ERROR


class StoreError(MemctlError):
    """The database cannot be opened, created or written."""


class NoUser(MemctlError):
    """A store operation was attempted without a user (tenant)."""


class EntryNotFound(MemctlError):
    """No entry with that id exists for this user."""


class InputNotFound(MemctlError):
    """A path given on the command line does not exist."""


class UsageError(MemctlError):
    """A bad option value that only the core can judge."""

    exit_code = EXIT_USAGE


class Locked(MemctlError):
    """Another run holds the database's consolidation lock."""

    exit_code = EXIT_LOCKED


class ConfigError(MemctlError):
    """A pipeline or settings file is invalid; the message names the key."""
