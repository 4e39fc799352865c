"""The Markdown reader: what becomes a record, its line, text, time and section."""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memctl.ingest.markdown import FORMAT, HERMES_FORMAT, file_date, read_markdown
from memctl.models import MEMORY, Record, Rejection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def read(path: Path) -> list[Record | Rejection]:
    return list(read_markdown(path))


def records(path: Path) -> list[Record]:
    items = read(path)
    assert all(isinstance(i, Record) for i in items), items
    return [i for i in items if isinstance(i, Record)]


def lines_texts(path: Path) -> list[tuple[int, str]]:
    return [(r.line, r.text) for r in records(path)]


def write(tmp_path: Path, text: str | bytes, name: str = "MEMORY.md") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8", newline="")
    else:
        path.write_bytes(text)
    return path


# --- bullets, checkboxes, continuations, paragraphs ------------------------------------------


def test_every_bullet_marker_is_a_record(tmp_path: Path) -> None:
    path = write(tmp_path, "- dash\n* star\n+ plus\n1. one\n2) two\n-无空格\n")
    assert lines_texts(path) == [
        (1, "dash"),
        (2, "star"),
        (3, "plus"),
        (4, "one"),
        (5, "two"),
        (6, "无空格"),
    ]


def test_emphasis_and_double_dash_lines_are_not_bullets(tmp_path: Path) -> None:
    path = write(tmp_path, "*斜体说明*\n\n**粗体** 也是段落\n\n--flag 不是列表\n")
    assert lines_texts(path) == [
        (1, "*斜体说明*"),
        (3, "**粗体** 也是段落"),
        (5, "--flag 不是列表"),
    ]


def test_checkboxes_are_stripped_from_the_text(tmp_path: Path) -> None:
    path = write(tmp_path, "- [ ] 修好 cron\n- [x] 续费服务器\n- [X] Renew domain\n")
    assert lines_texts(path) == [(1, "修好 cron"), (2, "续费服务器"), (3, "Renew domain")]


def test_indented_continuation_joins_its_bullet(tmp_path: Path) -> None:
    path = write(tmp_path, "- 第一条\n  接着写的第二行\n\tand a tabbed third\n- second bullet\n")
    assert lines_texts(path) == [
        (1, "第一条\n接着写的第二行\nand a tabbed third"),
        (4, "second bullet"),
    ]


def test_unindented_line_after_a_bullet_opens_a_new_record(tmp_path: Path) -> None:
    path = write(tmp_path, "- bullet\nplain line after it\n")
    assert lines_texts(path) == [(1, "bullet"), (2, "plain line after it")]


def test_paragraphs_are_split_by_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "First paragraph, wrapped\nat a width.\n\n\nSecond paragraph.\n")
    assert lines_texts(path) == [
        (1, "First paragraph, wrapped\nat a width."),
        (5, "Second paragraph."),
    ]


def test_a_paragraph_of_statements_gives_one_record_each(tmp_path: Path) -> None:
    """Rules written one per line with no list marker (common in CLAUDE.md) are separate
    memories; only English prose wrapped mid-sentence continues on the next line."""
    text = "修改要小步快跑\n不要使用表情符号\nDeploy only on Fridays.\n"
    text += "Keep the log short and\nreadable.\n"
    assert lines_texts(write(tmp_path, text)) == [
        (1, "修改要小步快跑"),
        (2, "不要使用表情符号"),
        (3, "Deploy only on Fridays."),
        (4, "Keep the log short and\nreadable."),
    ]


def test_lines_that_stop_short_of_the_paragraphs_width_are_statements(tmp_path: Path) -> None:
    """Lower-case lines with no full stop are still one statement each when the next line's
    first word would have fitted on them: no wrapping broke them, the writer did. (Read as
    one wrapped sentence, a file of 20k such lines was one record, rejected as too long.)"""
    text = "user likes green tea\nuser runs every morning\nuser works at a bakery in town\n"
    text += "\nthe user keeps a small garden behind the house where she grows\n"
    text += "tomatoes and basil every summer\n"
    assert lines_texts(write(tmp_path, text)) == [
        (1, "user likes green tea"),
        (2, "user runs every morning"),
        (3, "user works at a bakery in town"),
        (5, "the user keeps a small garden behind the house where she grows\n"
            "tomatoes and basil every summer"),
    ]  # fmt: skip
    many = "".join(f"note {i} about the weather and the garden\n" for i in range(3000))
    found = records(write(tmp_path, many, "MANY.md"))
    assert [(r.line, r.text) for r in found[-1:]] == [
        (3000, "note 2999 about the weather and the garden")
    ]
    assert len(found) == 3000


def test_a_paragraph_opening_with_a_label_is_named_by_it(tmp_path: Path) -> None:
    [rec] = records(write(tmp_path, "## 概述\n\n**一句话概括**：\n我是主人的内容助理。\n"))
    assert (rec.line, rec.text, rec.section) == (4, "我是主人的内容助理。", "概述 > 一句话概括")


def test_block_quote_is_its_own_record_without_the_marker(tmp_path: Path) -> None:
    path = write(tmp_path, "plain\n> quoted, and\n> wrapped\n")
    assert lines_texts(path) == [(1, "plain"), (2, "quoted, and\nwrapped")]


# --- tables ------------------------------------------------------------------------------------


def test_table_header_and_rule_are_skipped_and_cells_joined(tmp_path: Path) -> None:
    path = write(tmp_path, "| 模型 | 用途 |\n|:---|---:|\n| Kimi | 规划 |\n|DeepSeek|文案|\n")
    assert lines_texts(path) == [(3, "Kimi | 规划"), (4, "DeepSeek | 文案")]


def test_table_row_with_a_date_cell_gives_the_time_and_drops_the_separator(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "| 日期 | 决策 |\n|---|---|\n| 2026-02-13 | 改用 DeepSeek |\n")
    [rec] = records(path)
    assert (rec.line, rec.text, rec.ts) == (3, "改用 DeepSeek", "2026-02-13")


def test_table_without_a_rule_keeps_its_first_row(tmp_path: Path) -> None:
    path = write(tmp_path, "| a | b |\n| c | d |\n")
    assert lines_texts(path) == [(1, "a | b"), (2, "c | d")]


# --- hermes `§` entries -----------------------------------------------------------------------


def test_hermes_entries_are_split_on_section_sign_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "用户叫小林\n§\nline one\nline two\n§\n\n§\nlast entry")
    recs = records(path)
    assert [(r.line, r.text, r.format) for r in recs] == [
        (1, "用户叫小林", HERMES_FORMAT),
        (3, "line one\nline two", HERMES_FORMAT),
        (8, "last entry", HERMES_FORMAT),
    ]


def test_hermes_entry_with_an_inline_section_sign_prefix(tmp_path: Path) -> None:
    path = write(tmp_path, "first\n§\n§ 生日：1994-07-19\n")
    assert lines_texts(path) == [(1, "first"), (3, "生日：1994-07-19")]


def test_hermes_entry_starting_after_blank_lines_reports_its_first_text_line(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "a\n§\n\n\nb\n")
    assert lines_texts(path) == [(1, "a"), (5, "b")]


def test_hermes_fixture_memory(tmp_path: Path) -> None:
    recs = records(FIXTURES / "hermes" / "memories" / "MEMORY.md")
    assert [(r.line, r.text) for r in recs] == [
        (1, "用户的主力机是 ThinkPad X1 Carbon，系统 Fedora 41。"),
        (3, "Deploy script lives at ~/bin/deploy.sh; run it with --dry-run first."),
        (5, "用户对花生过敏"),
        (7, "Infrastructure:\n- NAS 群晖 DS920+，内网 192.168.50.10\n- 路由器刷了 OpenWrt"),
        (11, "test"),
    ]
    assert {(r.format, r.kind, r.ts, r.section) for r in recs} == {
        (HERMES_FORMAT, MEMORY, None, None)
    }


def test_hermes_fixture_user_has_no_trailing_newline() -> None:
    path = FIXTURES / "hermes" / "memories" / "USER.md"
    assert not path.read_bytes().endswith(b"\n")
    assert lines_texts(path) == [
        (1, "叫我小林就好。"),
        (3, "User prefers dark mode in every editor."),
        (5, "生日：1994-07-19"),
        (7, "偏好简洁的回答，先给结论再解释。"),
    ]


# --- headings, dates and sections ---------------------------------------------------------------


def test_headings_become_the_section_path(tmp_path: Path) -> None:
    path = write(tmp_path, "# Memory\n## 偏好\n- a\n### 饮食\n- b\n## Projects ##\n- c\n")
    assert [(r.text, r.section) for r in records(path)] == [
        ("a", "Memory > 偏好"),
        ("b", "Memory > 偏好 > 饮食"),
        ("c", "Memory > Projects"),
    ]


def test_date_heading_gives_the_time_to_the_records_below(tmp_path: Path) -> None:
    path = write(tmp_path, "- before\n# 2026-02-08\n- after\n## 2026-02-09 周一\n- later\n")
    assert [(r.text, r.ts) for r in records(path)] == [
        ("before", None),
        ("after", "2026-02-08"),
        ("later", "2026-02-09"),
    ]


def test_file_name_dates() -> None:
    assert file_date(Path("memory/2026-02-08.md")) == "2026-02-08"
    assert file_date(Path("memory/2026-03-22-0804.md")) == "2026-03-22"
    assert file_date(Path("memory/202602/20260214.md")) == "2026-02-14"
    assert file_date(Path("MEMORY.md")) is None


def test_daily_note_file_name_gives_the_time(tmp_path: Path) -> None:
    path = write(
        tmp_path, "## Session: 08:04\n- 小车 IP 更新为 192.168.75.54\n", "2026-03-22-0804.md"
    )
    [rec] = records(path)
    assert (rec.line, rec.text, rec.ts, rec.section) == (
        2,
        "小车 IP 更新为 192.168.75.54",
        "2026-03-22",
        "Session: 08:04",
    )


def test_dated_prefixes_give_the_time_and_are_cut_from_the_text(tmp_path: Path) -> None:
    text = (
        "- 2026-02-21: Token 消耗 120 万/日\n"
        "- **2026-02-22** — 博客上线\n"
        "[2026-02-14 10:57] The user reminded me about conda.\n"
        "- 2026-03-01：开始用 memctl 整理记忆\n"
    )
    path = write(tmp_path, text)
    assert [(r.line, r.text, r.ts) for r in records(path)] == [
        (1, "Token 消耗 120 万/日", "2026-02-21"),
        (2, "博客上线", "2026-02-22"),
        (3, "The user reminded me about conda.", "2026-02-14 10:57"),
        (4, "开始用 memctl 整理记忆", "2026-03-01"),
    ]


def test_dated_lines_open_a_record_even_without_a_blank_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[2026-02-14 01:40] first\n[2026-02-14 10:57] second\ncontinued\n")
    assert [(r.line, r.text, r.ts) for r in records(path)] == [
        (1, "first", "2026-02-14 01:40"),
        (2, "second\ncontinued", "2026-02-14 10:57"),
    ]


# --- what never becomes a record ----------------------------------------------------------------


def test_front_matter_is_never_a_record(tmp_path: Path) -> None:
    path = write(tmp_path, "---\ntitle: 记忆\ntags: [a, b]\n---\n- real\n")
    assert lines_texts(path) == [(5, "real")]


def test_front_matter_may_end_with_dots(tmp_path: Path) -> None:
    path = write(tmp_path, "---\nk: v\n...\nbody\n")
    assert lines_texts(path) == [(4, "body")]


def test_a_rule_after_line_one_is_not_front_matter(tmp_path: Path) -> None:
    path = write(tmp_path, "intro\n\n---\n\n- after the rule\n***\n___\n")
    assert lines_texts(path) == [(1, "intro"), (5, "after the rule")]


def test_a_code_fence_is_one_record_and_nothing_inside_it_is_structure(tmp_path: Path) -> None:
    """Commands and configs are procedural knowledge (TAXONOMY.md): a fence is one record, kept
    as code; a list or heading inside it is not a record of its own. An empty fence is none."""
    text = (
        "- keep\n```bash\n- 代码里的列表\n```\n~~~\n# not a heading\n~~~\n```\n```\n- also keep\n"
    )
    path = write(tmp_path, text)
    assert [(r.line, r.text, r.section) for r in records(path)] == [
        (1, "keep", None),
        (2, "```bash\n- 代码里的列表\n```", None),
        (5, "~~~\n# not a heading\n~~~", None),
        (10, "also keep", None),
    ]


def test_unterminated_fence_runs_to_the_end_of_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "- before\n````\n- inside\n```\n- still inside\n")
    assert lines_texts(path) == [(1, "before"), (2, "````\n- inside\n```\n- still inside")]


def test_html_comments_are_never_records(tmp_path: Path) -> None:
    text = "<!-- one line -->\n- a\n<!--\n- hidden\n-->\n- b\n"
    path = write(tmp_path, text)
    assert lines_texts(path) == [(2, "a"), (6, "b")]


def test_headings_alone_yield_nothing(tmp_path: Path) -> None:
    assert read(write(tmp_path, "# Title\n\n## Empty section\n")) == []


# --- encodings and line endings -------------------------------------------------------------------


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = write(tmp_path, "# 标题\r\n\r\n- 一\r\n  二\r\n- three\r\n")
    assert [(r.line, r.text, r.section) for r in records(path)] == [
        (3, "一\n二", "标题"),
        (5, "three", "标题"),
    ]


def test_utf8_bom_does_not_hide_the_first_heading(tmp_path: Path) -> None:
    path = write(tmp_path, codecs.BOM_UTF8 + "# 2026-02-08\n- 带 BOM\n".encode())
    [rec] = records(path)
    assert (rec.line, rec.text, rec.ts, rec.section) == (2, "带 BOM", "2026-02-08", "2026-02-08")


def test_utf16_file_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "# 偏好\r\n- 喜欢绿茶\r\n".encode("utf-16"))
    assert [(r.line, r.text, r.section) for r in records(path)] == [(2, "喜欢绿茶", "偏好")]


def test_invalid_utf8_line_is_rejected_and_the_rest_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, b"- good\n- bad \xff\xfe here\n- also good\n")
    items = read(path)
    assert [(i.line, i.reason) for i in items if isinstance(i, Rejection)] == [
        (2, "invalid UTF-8 at byte 6")
    ]
    assert [(i.line, i.text) for i in items if isinstance(i, Record)] == [
        (1, "good"),
        (3, "also good"),
    ]


def test_records_carry_path_format_and_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "- x\n")
    [rec] = records(path)
    assert (rec.path, rec.format, rec.kind, rec.role, rec.session_id) == (
        str(path),
        FORMAT,
        MEMORY,
        None,
        None,
    )


# --- the fixtures ------------------------------------------------------------


def test_picoclaw_memory_fixture() -> None:
    recs = records(FIXTURES / "picoclaw" / "workspace" / "memory" / "MEMORY.md")
    assert [(r.line, r.text, r.section) for r in recs] == [
        (5, "用户在杭州工作，时区 Asia/Shanghai", "Long-term Memory > User Information"),
        (6, "user prefers dark mode in every editor", "Long-term Memory > User Information"),
        (10, "代码注释用英文，提交信息用中文", "Long-term Memory > Preferences"),
        (
            11,
            "Likes ＴｙｐｅＳｃｒｉｐｔ more than plain JavaScript",
            "Long-term Memory > Preferences",
        ),
        (15, "周报每周五 18:00 前发给老板", "Long-term Memory > Important Notes"),
        (16, "服务器 SSH 端口改成了 2222", "Long-term Memory > Important Notes"),
    ]


def test_picoclaw_daily_note_fixture() -> None:
    recs = records(FIXTURES / "picoclaw" / "workspace" / "memory" / "202602" / "20260214.md")
    assert [(r.line, r.text, r.ts) for r in recs] == [
        (3, "情人节，和女朋友去西湖边吃了饭", "2026-02-14"),
        (4, "续费了阿里云服务器", "2026-02-14"),
        (5, "修好每天 08:00 的 cron 任务\n（上次因为时区写错没跑）", "2026-02-14"),
    ]


def test_nanobot_fixtures() -> None:
    memory = FIXTURES / "nanobot" / "workspace" / "memory"
    assert lines_texts(memory / "MEMORY.md") == [
        (5, "Likes TypeScript more than plain JavaScript."),
        (6, "服务器 SSH 端口改成了 2222"),
        (10, "memctl：把各个 agent 的记忆迁到 SQLite"),
        (11, "博客用 Hugo 搭建，托管在 Cloudflare Pages"),
    ]
    assert [(r.line, r.text, r.ts) for r in records(memory / "HISTORY.md")] == [
        (1, "User asked to remember the test marker E2E041 (蓝鲸).", "2026-02-20 21:00"),
        (2, "讨论了小说第二章的剧情走向，没有新的长期事实。", "2026-02-20 21:05"),
        (4, "User confirmed the blog moved to Cloudflare Pages.", "2026-02-21 09:30"),
    ]


def test_openclaw_memory_fixture() -> None:
    recs = records(FIXTURES / "openclaw" / "workspace" / "MEMORY.md")
    assert [(r.line, r.text, r.ts, r.section) for r in recs] == [
        (8, "名字：林晓，叫她「晓晓」", None, "MEMORY.md - Long-term Memory > 主人"),
        (9, "用户对花生过敏。", None, "MEMORY.md - Long-term Memory > 主人"),
        (
            15,
            "改用 DeepSeek 写文案，成本降一半",
            "2026-02-13",
            "MEMORY.md - Long-term Memory > 决策记录",
        ),
        (
            16,
            "博客迁移到 Cloudflare Pages",
            "2026-02-20",
            "MEMORY.md - Long-term Memory > 决策记录",
        ),
        (20, "开始用 memctl 整理记忆", "2026-03-01", "MEMORY.md - Long-term Memory > 决策记录"),
    ]


def test_openclaw_daily_note_fixture() -> None:
    recs = records(FIXTURES / "openclaw" / "workspace" / "memory" / "2026-03-22.md")
    assert [(r.line, r.text, r.ts, r.section) for r in recs] == [
        (4, "用户要求以后都用语音回复", "2026-03-22", "2026-03-22 > 用户偏好"),
        (7, "博客迁移完成，DNS 已切到 Cloudflare", "2026-03-22", "2026-03-22 > 服务记录"),
    ]


def test_claude_md_fixture_skips_front_matter_and_keeps_the_build_block_whole() -> None:
    recs = records(FIXTURES / "claude-code" / "CLAUDE.md")
    assert [(r.line, r.text, r.section) for r in recs] == [
        (8, "回答一律使用中文。", "CLAUDE.md"),
        (12, "```bash\npip install -e .\n- 这一行在代码块里，不是记忆\n```", "CLAUDE.md > 构建"),
        (19, "提交前运行 ruff 和 mypy", "CLAUDE.md > 约定"),
        (20, "Never import typer in pipeline code", "CLAUDE.md > 约定"),
    ]


# --- properties ------------------------------------------------------------


def _line_count(data: bytes) -> int:
    """Lines as an editor numbers them: split on "\\n", a final line without one still counts."""
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


_MARKDOWNISH = st.lists(
    st.one_of(
        st.sampled_from(
            ["", "§", "---", "- ", "* x", "1. y", "# h", "## 2026-02-08", "```", "~~~", "<!--",
             "-->", "| a | b |", "|---|---|", "> q", "  cont", "[2026-02-14 10:57] x", "\r", "§ z"]
        ),
        st.text(max_size=30),
    ),
    max_size=25,
).map("\n".join)  # fmt: skip


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_MARKDOWNISH)
def test_reader_never_raises_on_text_and_lines_are_in_range(tmp_path: Path, text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    path = write(tmp_path, data, "prop.md")
    for item in read(path):
        if isinstance(item, Record):
            assert 1 <= item.line <= _line_count(data), (item, text)
            assert item.text.strip()


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=400))
def test_reader_never_raises_on_bytes_and_lines_are_in_range(tmp_path: Path, data: bytes) -> None:
    path = write(tmp_path, data, "prop.md")
    for item in read(path):
        if isinstance(item, Record):
            assert 1 <= item.line <= _line_count(data)


# --- structure: a record is a memory, not a line ------------------------------------------------


def test_a_list_item_with_its_nested_items_is_one_record(tmp_path: Path) -> None:
    path = write(tmp_path, "- 部署流程\n  - 先跑 make test\n  - 再推到 staging\n- 另一条\n")
    assert lines_texts(path) == [(1, "部署流程\n- 先跑 make test\n- 再推到 staging"), (4, "另一条")]


def test_a_label_line_is_the_section_of_the_list_it_introduces(tmp_path: Path) -> None:
    text = "## 更新\n\n**新增**:\n- 支持导出\n- 支持导入\n\n后面的段落\n"
    recs = records(write(tmp_path, text))
    assert [(r.line, r.text, r.section) for r in recs] == [
        (4, "支持导出", "更新 > 新增"),
        (5, "支持导入", "更新 > 新增"),
        (7, "后面的段落", "更新"),
    ]


def test_labels_in_either_language_and_with_emoji_introduce_blocks(tmp_path: Path) -> None:
    text = "Notes:\n- one\n\n🐛 Bug：\n\n- two\n\n**配置说明**\n\n| k | v |\n|---|---|\n| a | b |\n"
    recs = records(write(tmp_path, text))
    assert [(r.line, r.text, r.section) for r in recs] == [
        (2, "one", "Notes"),
        (6, "two", "🐛 Bug"),
        (12, "a | b", "配置说明"),
    ]


def test_a_label_with_nothing_after_it_is_skipped_not_lost(tmp_path: Path) -> None:
    [rec] = records(write(tmp_path, "# A\n\nNotes:\n\n# B\n"))
    assert (rec.line, rec.text, rec.skip) == (3, "Notes:", "label with no content")


def test_a_sentence_ending_in_a_colon_with_its_own_content_is_not_a_label(tmp_path: Path) -> None:
    path = write(tmp_path, "用户说过：以后都用中文回复\n- 列表\n")
    assert lines_texts(path) == [(1, "用户说过：以后都用中文回复"), (2, "列表")]


def test_nested_items_in_a_block_quote_stay_with_their_parent(tmp_path: Path) -> None:
    path = write(tmp_path, "> - 父\n>   - 子\n")
    assert lines_texts(path) == [(1, "父\n- 子")]


def test_setext_headings_are_sections(tmp_path: Path) -> None:
    [rec] = records(write(tmp_path, "偏好\n====\n\n- 喝茶\n"))
    assert (rec.text, rec.section) == ("喝茶", "偏好")


_FLAT_LINES = st.lists(
    st.one_of(
        st.just(""),
        st.builds(
            lambda n, t: "#" * n + " " + t, st.integers(1, 6), st.text("ab 中文", max_size=8)
        ),
        st.builds(
            lambda m, t: m + " " + t,
            st.sampled_from(["-", "*", "+", "1.", "2)"]),
            st.text("ab 中文*-[]x", min_size=1, max_size=10),
        ),
    ),
    max_size=30,
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_FLAT_LINES)
def test_the_flat_fast_path_reads_what_the_parser_reads(tmp_path: Path, lines: list[str]) -> None:
    """A file of headings and flat items skips the CommonMark parse; the records are the same."""
    from memctl.ingest import markdown

    path = write(tmp_path, "\n".join(lines) + "\n", "flat.md")
    fast = [(r.line, r.text, r.section) for r in records(path)]
    numbers = list(range(1, len(lines) + 1))
    reader = markdown._Reader(path, numbers, lines)
    parsed = [(r.line, r.text, r.section) for r in reader.parsed()]
    assert fast == parsed


def test_hermes_section_sign_prefixes_inside_an_entry_stay_in_it(tmp_path: Path) -> None:
    """hermes splits on a line holding only "§"; "§ " inside an entry does not split it."""
    path = write(tmp_path, "**Name:**\n§ 汉语名: 张强\n§\nlast\n")
    assert lines_texts(path) == [(1, "**Name:**\n§ 汉语名: 张强"), (4, "last")]


def test_a_key_broken_over_lines_stays_one_record(tmp_path: Path) -> None:
    """Lines of a blob (a PEM key, a token) are no statements: redaction must see them whole."""
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAabc\nQRSTline2xyz\n"
    text += "-----END RSA PRIVATE KEY-----\n"
    [rec] = records(write(tmp_path, text))
    assert rec.text == text.strip()


def test_english_rules_one_per_line_are_separate(tmp_path: Path) -> None:
    text = "Use pnpm for installs\nNever push to main\nthe CI is slow, so\nbatch the pushes\n"
    assert lines_texts(write(tmp_path, text)) == [
        (1, "Use pnpm for installs"),
        (2, "Never push to main\nthe CI is slow, so\nbatch the pushes"),
    ]


# --- what a heading or the file's title says of the lines below it (noise.toml) --------------


def test_chinese_line_after_one_ending_in_a_file_name_is_a_new_statement(tmp_path: Path) -> None:
    text = "文件名格式为 例如 CLAUDE_AGENT_2025_fix.md\n 每次记录不超过1000字符\n"
    text += "描述文件的作者都署名 例如 lilith项目组Seraphiel\n使用命令获取时间信息\n"
    text += "列出这些文件：\nREADME.md\n"
    assert [line for line, _ in lines_texts(write(tmp_path, text))] == [1, 2, 3, 4, 5]


def test_bookkeeping_headings_mark_their_lines_as_about_the_file(tmp_path: Path) -> None:
    text = "# MEMORY\n\n## 置信度体系 (Confidence)\n\n| **0.5** | 一般 | 自动提取 |\n\n"
    text += "**2️⃣ 时间衰减**\n- 连续10轮 → 0.85 → 0.54\n\n## 记忆系统设计\n\n- 使用双层记忆系统\n"
    got = [(r.line, r.skip) for r in read(write(tmp_path, text)) if isinstance(r, Record)]
    assert got == [(5, "about the memory file"), (8, "about the memory file"), (12, None)]


def test_a_business_heading_about_retention_or_a_life_cycle_keeps_its_lines(
    tmp_path: Path,
) -> None:
    text = "## Customer retention\n\n- 老客户复购率 32%\n\n## 产品生命周期\n\n- 新品三个月内上架\n"
    text += "\n## 假期安排 (3天)\n\n- 西湖\n"
    assert [r.skip for r in records(write(tmp_path, text))] == [None, None, None]


def test_bare_category_names_under_a_retention_tier_are_an_index(tmp_path: Path) -> None:
    text = "## P1 - 重要信息 (90天)\n- API配置和预算\n- 主人：Yu\n- **素材库**：\n  - 金句区：https://x\n"
    got = [(r.line, r.skip) for r in records(write(tmp_path, text))]
    assert got == [(2, "index line"), (3, None), (4, None)]


def test_a_session_header_and_its_key_value_lines_are_a_log(tmp_path: Path) -> None:
    text = "# Session: 2026-03-22 08:04:29 UTC\n\n- **Source**: telegram\n- 用户说明天要交报告\n"
    got = [(r.line, r.skip) for r in records(write(tmp_path, text, "2026-03-22-0804.md"))]
    assert got == [(3, "log line"), (4, None)]


def test_the_blockquote_under_the_title_is_the_files_tagline(tmp_path: Path) -> None:
    text = "# MEMORY.md - 长期记忆\n\n> **维护:** 定期回顾和更新，保持简洁。\n\n"
    text += "- 用户在杭州\n\n> 引用的规则\n"
    got = [(r.line, r.skip) for r in records(write(tmp_path, text))]
    assert got == [(3, "about the memory file"), (5, None), (7, None)]
    # A tagline about the person is a memory all the same.
    about = write(tmp_path, "# USER.md\n\n> 我的主人是一位风水师。\n", "USER.md")
    assert [(r.line, r.skip) for r in records(about)] == [(3, None)]
    mission = write(
        tmp_path, "# NOW.md\n\n> 🎯 **Mission**: 直接响应用户，处理服务重启\n", "NOW.md"
    )
    assert [(r.line, r.skip) for r in records(mission)] == [(3, None)]


def test_an_unchecked_box_is_a_task_still_to_do(tmp_path: Path) -> None:
    from memctl.ingest.frontmatter import apply_hint

    path = write(tmp_path, "- [ ] 建立标准化的外联评论模板库\n- [x] 续费服务器\n- 每周一写周报\n")
    assert [r.layer_hint for r in records(path)] == ["open_task", None, None]
    assert apply_hint("procedural", "open_task") == "episodic"


def test_unchecked_boxes_of_an_unfilled_template_are_options_nobody_picked(
    tmp_path: Path,
) -> None:
    template = "# User\n\n- **Name**: (your name)\n- **Timezone**: (your timezone)\n"
    template += (
        "- **Role**: (your role, e.g. developer)\n\n## Style\n\n- [ ] Casual\n- [ ] Technical\n"
    )
    got = [(r.line, r.skip) for r in records(write(tmp_path, template, "USER.md"))]
    assert got[-2:] == [(9, "template placeholder"), (10, "template placeholder")]
    notes = "# Todo\n\n- [ ] Casual Friday outfit\n- 用户在杭州\n"
    assert [r.skip for r in records(write(tmp_path, notes))] == [None, None]


def test_a_log_stamp_is_cut_whole_and_read_with_its_line(tmp_path: Path) -> None:
    """A stamp with seconds and a zone is the record's time, all of it, and a program's line
    behind it is judged with its stamp: "memory_flush: …" alone could be anyone's note."""
    path = write(
        tmp_path,
        "# Auto log\n\n[2026-11-10T23:58:01+08:00] memory_flush: appended 9 lines to x.md\n\n"
        "[2026-11-10T23:59:00.250Z] 用户说周五不要推送\n\n"
        "2026-02-13 10:00-12:00 dentist\n",
        name="2026-11-10.md",
    )
    flush, note, dentist = records(path)
    assert (flush.ts, flush.text, flush.skip) == (
        "2026-11-10T23:58:01",
        "memory_flush: appended 9 lines to x.md",
        "log line",
    )
    assert (note.ts, note.text, note.skip) == ("2026-11-10T23:59:00", "用户说周五不要推送", None)
    assert (dentist.ts, dentist.text, dentist.skip) == ("2026-02-13 10:00", "12:00 dentist", None)


def test_a_blockquote_of_a_conversations_turns_is_a_saved_transcript(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# Notes\n\n- Isla is left-handed.\n\nTranscript excerpt (auto-saved):\n"
        "> **Harrow:** You're telling me a fridge keeps a diary?\n"
        "> **Mensah:** Every door opening, ma'am.\n"
        "> **Harrow:** Don't ma'am me.\n\n"
        "> **Why:** the seed round closes in January.\n"
        "> **How:** ask the lead investor first.\n",
    )
    skips = [(r.text.split(":")[0], r.skip) for r in records(path)]
    assert skips == [
        ("Isla is left-handed.", None),
        ("**Harrow", "log line"),
        ("**Mensah", "log line"),
        ("**Harrow", "log line"),
        # Fields, each named once: no conversation.
        ("**Why", None),
        ("**How", None),
    ]
