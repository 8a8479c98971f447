"""Errors shared by the host tools' front ends."""


class CliError(Exception):
    """A problem the user can fix; the CLI prints it as one line, no traceback."""
