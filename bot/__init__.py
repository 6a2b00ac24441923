"""errfix: a Slack bot that turns a pasted error into the fix that works."""

__version__ = "0.1.0"
