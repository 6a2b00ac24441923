"""`python -m bot` runs the errfix command line."""

from bot.cli.main import main

main()
