"""The command line, one module per command group (tui/cli.py dispatches)."""
