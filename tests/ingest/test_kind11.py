"""Lines of a memory file that are not memories, by the classes of TAXONOMY.md's "Kind" table
(noise.toml): template slots never filled in, tool calls with their results, instructions for
where the memory file's entries go. Invented lines of the shapes agents write; each class has
memories of a near shape beside it that must be kept."""

from __future__ import annotations

import pytest

from memctl.ingest.noise import judge

SLOT = "template placeholder"


@pytest.mark.parametrize(
    "text",
    [
        # A template's slot, alone or after its label or checkbox, nobody filled in.
        "{{客户名单}}",
        "{{ client_name }}",
        "客户：{{客户名}}",
        "**Name:** {{user_name}}",
        "- Next service: {{date}}",
        # A table row whose cells beyond its serial number are only hints ("| 5 | _(add)_ | | |").
        "5 | _(add)_",
        "6 | (待填写)",
        "3 | {{曲目}} | {{调弦}}",
    ],
)
def test_unfilled_slots_are_placeholders(text: str) -> None:
    assert judge(text) == SLOT


@pytest.mark.parametrize(
    "text",
    [
        "Helm values use {{ .Values.image.tag }} for the tag, never latest",
        "邮件模板里的 {{客户名}} 由脚本替换，发送前检查一遍",
        "5 | 吉他弦 | 每月换 (D'Addario 10-46)",
        "1 | 吉他弦 | 每月换",
    ],
)
def test_memories_that_hold_a_slot_or_a_hint_are_kept(text: str) -> None:
    assert judge(text) is None
