"""One module per exercise of the catalogue."""
