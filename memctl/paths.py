"""Where memctl keeps its data by default."""

import os
from pathlib import Path


def default_db_path() -> Path:
    """`$MEMCTL_DB`, else `$XDG_DATA_HOME/memctl/memctl.db` (~/.local/share/memctl/memctl.db)."""
    if env := os.environ.get("MEMCTL_DB"):
        return Path(env)
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "memctl" / "memctl.db"
