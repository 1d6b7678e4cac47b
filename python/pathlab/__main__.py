"""`python -m pathlab` is the `pathlab` command."""

from pathlab.cli import main

main()
