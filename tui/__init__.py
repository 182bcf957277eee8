"""Everything a person touches: the command line, its renderers, and the app."""
