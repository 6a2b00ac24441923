"""`errfix demo`: try errfix in a browser, with a local stand-in for Slack (see server.py)."""
