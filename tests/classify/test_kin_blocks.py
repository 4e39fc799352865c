"""kin cuts only the pieces of a text that hold a kinship word: the names must be exactly those
jieba.posseg's cut of the whole text gives."""

from __future__ import annotations

import random

from memctl.classify import kin

PIECES = [
    "女儿", "儿子", "老婆", "妈妈", "叫", "是", "名叫", "：", ":", " ", "\n", "\r\n", "。", "，",
    "！", "、", "（", "）", "王丽", "小宇", "朵朵", "张", "小雨", "陈涛", "今天", "上学",
    "喜欢", "画画", "Theo", "2024", "a.b", "#", "鿖", "\u9fe0", "\u3400", "😀", "—", "…",
]  # fmt: skip


def _lines(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))) for _ in range(n)]


def _whole(text: str) -> set[str]:
    return set(kin._names_after(kin._tokens(text), kin._kin()))


def test_names_cut_from_pieces_equal_those_cut_from_the_whole_text() -> None:
    k = kin._kin()
    assert k.stops is not None  # the data's words allow cutting
    lines = _lines(3000, 7) + [
        "我女儿叫王丽。今天她上学",
        "女儿：朵朵，儿子：小宇",
        "老婆是张小雨！",
        "女儿\u9fe0张小雨",
        "妈妈 王丽、爸爸陈涛",
    ]
    found = 0
    for text in lines:
        got = set(kin._cjk_names(text, k))
        assert got == _whole(text), text
        found += bool(got)
    assert found > 100  # the lines do name people


def test_the_part_of_speech_cut_is_loaded_ahead_only_for_a_chinese_kinship_word() -> None:
    kin.posseg.cache_clear()
    kin.warm(["My son Theo starts school", "用户喜欢绿茶"])
    assert kin.posseg.cache_info().currsize == 0
    kin.warm(["用户喜欢绿茶", "我女儿叫王丽"])
    assert kin.posseg.cache_info().currsize == 1
