"""Where hermes keeps its memory files, so they are read as `§` entries even with one entry.

hermes writes `memories/MEMORY.md` and `memories/USER.md` under `$HERMES_HOME` (~/.hermes), and
the same per profile under `profiles/<name>/memories/`. Entries are joined by a `§` line, so a
file holding a single entry has none; its path still says what it is.
"""

from __future__ import annotations

from pathlib import Path

MEMORY_FILES = ("MEMORY.md", "USER.md")


def is_memory_file(path: Path) -> bool:
    """`.hermes/memories/USER.md`, `profiles/work/memories/MEMORY.md`, …"""
    folder = path.parent
    if path.name not in MEMORY_FILES or folder.name != "memories":
        return False
    return folder.parent.name in (".hermes", "hermes") or folder.parent.parent.name == "profiles"
