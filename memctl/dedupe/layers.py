"""The names of the engine's layers (a module of its own so the CLI lists them without loading
the engine and numpy)."""

TEMPLATE, JACCARD, SIMHASH = "template", "jaccard", "simhash"
ALL_LAYERS = (TEMPLATE, JACCARD, SIMHASH)
