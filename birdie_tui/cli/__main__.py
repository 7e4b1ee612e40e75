"""`python -m birdie_tui.cli`: the same as the `birdie-tui` command (tests and bench run it so)."""

from birdie_tui.cli import main

raise SystemExit(main())
