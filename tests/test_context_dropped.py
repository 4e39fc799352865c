"""When the budget cuts retrieval, the block says how many relevant memories did not fit (so
the agent knows its memory is incomplete), and `--json` lists them with their token counts."""

from __future__ import annotations

import orjson
import pytest
from helpers import add

from memctl import context
from memctl.context import count_tokens
from memctl.store import Store

NOTICE = "（另有 {count} 条相关记忆超出篇幅未列出：以上记忆不完整）"


@pytest.fixture
def many(store: Store) -> list[int]:
    """Twelve procedural entries whose lines cost 44 tokens each (the heading 4 more)."""
    return [
        add(
            store,
            f"部署步骤{i:02d}：" + "先检查迁移再滚动重启服务并确认监控正常" * 2,
            layer="procedural",
        )  # fmt: skip
        for i in range(12)
    ]


def build(store: Store, budget: int, notice: str = NOTICE) -> context.Context:
    settings = context.load_settings(
        overrides={"budget": {"retrieval": budget}, "notice": {"dropped": notice}}
    )
    return context.build(store.for_user("alice"), "work", query="部署步骤", settings=settings,
                         touch=False)  # fmt: skip


def test_the_block_ends_saying_how_many_did_not_fit(store: Store, many: list[int]) -> None:
    block = build(store, 200)
    kept, dropped = block.retrieval.entries, block.retrieval.dropped
    assert len(kept) + len(dropped) == 12
    assert len(kept) == 3  # 4 would fit without the line; the line takes the room of one
    assert block.markdown().splitlines()[-1] == NOTICE.replace("{count}", str(len(dropped)))
    assert block.retrieval.tokens <= 200
    retrieval_text = block.markdown().split("## 相关记忆\n", 1)[1]
    # Recounted from the emitted text (per-line rounding makes the block's own count higher).
    assert count_tokens("## 相关记忆\n" + retrieval_text) <= block.retrieval.tokens <= 200


def test_json_lists_what_was_dropped_with_token_counts(store: Store, many: list[int]) -> None:
    out = build(store, 200).as_dict()["retrieval"]
    line_tokens = count_tokens("- 部署步骤00：" + "先检查迁移再滚动重启服务并确认监控正常" * 2)
    assert {d["tokens"] for d in out["dropped"]} == {line_tokens}
    assert [d["layer"] for d in out["dropped"]] == ["procedural"] * 9
    assert {e["id"] for e in out["entries"]} | {d["id"] for d in out["dropped"]} == set(many)


def test_no_line_when_everything_fits(store: Store, many: list[int]) -> None:
    block = build(store, 5000)
    assert block.retrieval.dropped == []
    assert "超出篇幅" not in block.markdown()


def test_a_budget_too_small_for_the_line_gets_none(store: Store, many: list[int]) -> None:
    block = build(store, 10)
    assert block.retrieval.entries == []
    assert len(block.retrieval.dropped) == 12
    assert block.retrieval.tokens == 0
    assert "超出篇幅" not in block.markdown()


def test_the_line_can_be_turned_off(store: Store, many: list[int]) -> None:
    block = build(store, 200, notice="")
    assert len(block.retrieval.entries) == 4
    assert block.markdown().splitlines()[-1].startswith("- 部署步骤")


def test_cli_json_and_summary(run, store: Store, many: list[int], tmp_path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[budget]\nretrieval = 200\n")
    result = run("context", "--channel", "work", "--query", "部署步骤", "--config", config,
                 "--json", "--no-touch", "--user", "alice")  # fmt: skip
    out = orjson.loads(result.stdout)
    assert len(out["retrieval"]["dropped"]) == 9
    assert out["markdown"].endswith("（另有 9 条相关记忆超出篇幅未列出：以上记忆不完整）\n")
    text = run("context", "--channel", "work", "--query", "部署步骤", "--config", config,
               "--no-touch", "--user", "alice")  # fmt: skip
    assert "9 relevant did not fit" in text.stderr
