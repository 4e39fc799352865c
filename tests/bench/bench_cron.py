"""The cron case: an agent's home imported again every day, each time with one new daily note,
into a store that keeps growing. What a small import costs should follow its new lines, not
the size of the store or of the home (a year of daily imports would be quadratic).

    python tests/bench/bench_cron.py [--size 10000 50000] [--seed 1] [--repeat 3]
                                     [--other PYTHON] [--other-path CHECKOUT]

An OpenClaw-style home of `--size` entries is written once per size: ws/USER.md stating a job,
ws/MEMORY.md, and ws/memory/YYYY-MM-DD.md daily notes of ~50 lines each, Chinese and English
mixed (job rules, the person's life, relatives, private lines, random memories), varied with
the seed so that lines are no template copies. Each build imports the home once (a fresh
database), then `--repeat` times a new 2-line daily note (the same notes for each build, the
builds alternating). Printed per size and build: seconds of the big import, and the medians of
the small imports' seconds inside the import (its report) and user CPU seconds (the process);
with B, whether the two stores end identical (each entry's realm, layer, audience, status).

A is this checkout's python; B (`--other`) another build's: its venv's python, or with
`--other-path` any python given PYTHONPATH=CHECKOUT (an older checkout run with this venv).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parents[1]))
from corpus import _Writer  # noqa: E402

JOB = (
    "# USER.md\n\n## About\n\n- Name: Orla Quinlan\n- 住在杭州，养了一只猫\n\n## Work\n\n"
    "- Works at Fernhill Cycles as a bike mechanic.\n- 在 Fernhill Cycles 做自行车维修师傅\n"
)
KIN_EN = ["sister", "brother", "son", "daughter", "wife", "husband", "mum", "dad"]
KIN_ZH = ["姐姐", "哥哥", "儿子", "女儿", "妻子", "丈夫", "妈妈", "爸爸"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _line(rng: random.Random, w: _Writer, names: list[str]) -> str:
    """One bullet of a note: a job rule, the person's life, a relative, a private line or a
    random memory, with words, names and numbers of its own."""
    kind = rng.randrange(10)
    n, word, day = rng.randrange(2, 500), w.en_word(), rng.choice(_DAYS)
    zh = "".join(w.zh_words(rng.randint(1, 3)))
    if kind == 0:
        return rng.choice([
            f"Repair ticket {n} for the {word} frame is taped to the saddle",
            f"Customers with a {word} bike get a text when it is ready, ticket {n}",
            f"Fernhill invoices for {word} parts are exported as PDF every {day}",
            f"The rota for the {word} bench is posted on {day}s",
        ])  # fmt: skip
    if kind == 1:
        return rng.choice([
            f"顾客的{zh}车架维修单号 {n}，贴在车座上",
            f"店里{zh}配件每周{rng.choice('一二三四五')}盘点一次，差 {n} 件要报",
            f"给客户发{zh}取车短信，模板第 {n} 条",
        ])  # fmt: skip
    if kind == 2:
        kin = rng.choice(names)
        return rng.choice([
            f"{kin} visits on {day}, lunch at the {word} place",
            f"Call {kin} after the {word} appointment at {n % 12 + 1} o'clock",
            f"{kin}周{rng.choice('一二三四五六日')}来吃饭，带{zh}",
        ])  # fmt: skip
    if kind == 3:
        return rng.choice([
            f"My {rng.choice(KIN_EN)} {w.name()} starts {word} lessons on {day}",
            f"{rng.choice(KIN_ZH)}{w.name()}，{n % 60 + 5} 岁，喜欢{zh}",
        ])  # fmt: skip
    if kind == 4:
        return rng.choice([
            f"Bank PIN hint for the {word} account: {n:04d}",
            f"工资卡尾号 {n:04d}，{zh}",
            f"Blood pressure {100 + n % 60}/{60 + n % 30} after the {word} run",
        ])  # fmt: skip
    if kind == 5:
        return rng.choice([
            f"每天 {5 + n % 3}:{n % 60:02d} 起床跑步，路线经过{zh}",
            f"Prefers {word} tea in the morning, {n} ml",
            f"周末去{zh}爬山，{n % 20 + 3} 公里",
        ])  # fmt: skip
    return w.memory(english=rng.random() < 0.5, long=rng.random() < 0.05)


def write_home(root: Path, size: int, seed: int) -> dt.date:
    """The home of about `size` entries under root/ws; returns the day after its last note."""
    rng = random.Random(seed)
    w = _Writer(rng)
    ws = root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "USER.md").write_text(JOB, encoding="utf-8")
    names = [w.name() for _ in range(6)]
    memory = ["# MEMORY.md", "", "## Family", ""]
    memory += [f"- My {k} {n} lives in {w.name()}" for k, n in zip(KIN_EN, names, strict=False)]
    memory += ["", "## Notes", ""] + [f"- {_line(rng, w, names)}" for _ in range(200)]
    (ws / "MEMORY.md").write_text("\n".join(memory) + "\n", encoding="utf-8")
    day, left = dt.date(2024, 1, 1), size - 206
    while left > 0:
        count = min(left, rng.randint(40, 60))
        body = [f"# {day}", "", "## Notes", ""]
        body += [f"- {_line(rng, w, names)}" for _ in range(count)]
        (ws / "memory" / f"{day}.md").write_text("\n".join(body) + "\n", encoding="utf-8")
        day += dt.timedelta(days=1)
        left -= count
    return day


def write_note(root: Path, day: dt.date, seed: int) -> Path:
    rng = random.Random(f"{seed}-{day}")
    w = _Writer(rng)
    path = root / "ws" / "memory" / f"{day}.md"
    lines = [f"# {day}", "", f"- {_line(rng, w, ['Brenna'])}", f"- {w.memory(True, False)}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(python: str, env: dict[str, str], path: Path, db: Path) -> tuple[float, float, float]:
    """(wall seconds, seconds inside the import, user CPU seconds) of one `memctl import`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "memctl", "import", str(path), "--db", str(db), "--json", "--silent"],
        capture_output=True, env=env, cwd=db.parent, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"memctl failed: {done.stderr.decode()[-2000:]}")
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    return wall, float(orjson.loads(done.stdout)["seconds"]), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--other", help="python of the other build (B)")
    parser.add_argument("--other-path", help="checkout B runs from (PYTHONPATH)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    builds = {"A": (sys.executable, env)}
    if args.other or args.other_path:
        other_env = {**env, "PYTHONPATH": args.other_path} if args.other_path else env
        builds["B"] = (args.other or sys.executable, other_env)
    named = "; ".join(f"{n} = {p} {e.get('PYTHONPATH', '')}" for n, (p, e) in builds.items())
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"seed {args.seed}, medians of {args.repeat}; {named}")  # fmt: skip
    print("| size | build | entries | big import s | small s (inside) | small wall s "
          "| small user cpu s |")  # fmt: skip
    print("|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.size:
            root = Path(tmp) / f"home{size}"
            day = write_home(root, size, args.seed)
            big, small = {}, {name: [] for name in builds}
            for name, (python, e) in builds.items():
                big[name] = run(python, e, root / "ws", root / f"{name}.db")[1]
            for _ in range(args.repeat):
                note = write_note(root, day, args.seed)
                day += dt.timedelta(days=1)
                for name, (python, e) in builds.items():
                    small[name].append(run(python, e, note, root / f"{name}.db"))
            stores = {name: _store(root / f"{name}.db") for name in builds}
            if len(builds) > 1:
                print(f"# size {size:,}: stores A and B "
                      f"{'identical' if stores['A'] == stores['B'] else 'DIFFER'}")  # fmt: skip
            for name in builds:
                rows = small[name]
                entries = _entries(root / f"{name}.db")
                inside, wall, cpu = (statistics.median(r[k] for r in rows) for k in (1, 0, 2))
                print(f"| {size:,} | {name} | {entries:,} | {big[name]:.1f} | {inside:.2f} | "
                      f"{wall:.2f} | {cpu:.2f} |", flush=True)  # fmt: skip


def _store(db: Path) -> list[tuple[object, ...]]:
    """What the imports decided of each entry."""
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT id, content, realm, layer, audience, status, merged_into FROM entries "
            "ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def _entries(db: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM entries").fetchone()[0])
    finally:
        conn.close()


if __name__ == "__main__":
    main()
