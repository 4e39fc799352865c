"""The reader families `--format` accepts (detect.READERS has one reader for each; a module of
its own so the CLI lists them without loading the readers)."""

FORMATS = ("markdown", "jsonl", "json")
