"""One chat message pasted with its header (sender, channel and time in brackets, the message
quoted) is a transcript's line, noise (TAXONOMY.md, "Kind": raw transcripts); a note of one's
own about a message, a dated note or a sender named without a quote is kept."""

from __future__ import annotations

import pytest

from memctl.ingest.noise import judge


@pytest.mark.parametrize(
    "text",
    [
        'Guest (Airbnb, 2026-11-29 21:14): "Hi! Is parking included?"',
        "- 王姐（微信 2026-11-03 09:12）：「明天几点到？」",
        "Tom (Slack, 2026-10-02T08:30): “can you send the deck?”",
    ],
)
def test_a_pasted_message_with_its_header_is_a_log_line(text: str) -> None:
    assert judge(text) == "log line", text


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-29 21:14: parking is included now",
        "Guest asked (2026-11-29) whether parking is included",
        "Mum (call, 2026-11-29 21:14) wants me to ring back",
        'Wi-Fi (since 2026-11-01 10:00): "Harbour-5G", password on the fridge',
    ],
)
def test_a_note_about_a_message_is_kept(text: str) -> None:
    assert judge(text) is None, text
