"""`python -m bot` runs the errfix command line."""

from bot.cli import main

raise SystemExit(main())
