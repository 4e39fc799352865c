"""memctl: clean, trustworthy long-term memory for AI agents, kept in SQLite."""

__version__ = "0.1.0"

# Every block memctl emits for injection carries this marker; every reader skips text that
# carries it, so memctl never re-ingests its own injected memory from later transcripts.
CONTEXT_MARKER = "<!-- memctl:context -->"
