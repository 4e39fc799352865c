"""Thresholds and lexicons for the near-duplicate engine, read from memctl/data/dedupe.toml."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class DedupeConfig:
    """Every tunable of the engine; `default()` reads the shipped TOML."""

    family_min: int = 8
    template_min_distinct_share: float = 0.8
    template_min_literal: int = 8
    boilerplate_min_chars: int = 40
    boilerplate_min_records: int = 8
    boilerplate_max_remainder_similarity: float = 0.5
    boilerplate_near_similarity: float = 0.9
    boilerplate_inside_min_chars: int = 20
    jaccard: float = 0.75
    filler: str = ""
    lsh_bands: int = 64
    lsh_rows: int = 6
    join_min_batch: int = 1000
    join_min_share: float = 0.1
    hamming: int = 3
    simhash_min_chars: int = 100
    simhash_min_jaccard: float = 0.5
    stopwords: tuple[str, ...] = ()
    # (name, regex, triggers): see [mask] in dedupe.toml
    mask_patterns: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    number_words: tuple[str, ...] = ()
    negations_zh: tuple[str, ...] = ()
    negations_en: tuple[str, ...] = ()
    not_negations: tuple[str, ...] = ()
    name_titles: tuple[str, ...] = ()
    # slot kind -> value -> spellings
    slots: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    @classmethod
    def default(cls) -> DedupeConfig:
        text = resources.files("memctl.data").joinpath("dedupe.toml").read_text("utf-8")
        return cls.from_toml(tomllib.loads(text))

    @classmethod
    def from_toml(cls, data: dict[str, Any]) -> DedupeConfig:
        t, b, j, s = data["template"], data["boilerplate"], data["jaccard"], data["simhash"]
        g = data["guard"]
        return cls(
            family_min=int(t["family_min"]),
            template_min_distinct_share=float(t["min_distinct_share"]),
            template_min_literal=int(t["min_literal_chars"]),
            boilerplate_min_chars=int(b["min_chars"]),
            boilerplate_min_records=int(b["min_records"]),
            boilerplate_max_remainder_similarity=float(b["max_remainder_similarity"]),
            boilerplate_near_similarity=float(b["near_similarity"]),
            boilerplate_inside_min_chars=int(b["inside_min_chars"]),
            jaccard=float(j["threshold"]),
            filler=str(j["filler"]),
            lsh_bands=int(j["lsh_bands"]),
            lsh_rows=int(j["lsh_rows"]),
            join_min_batch=int(j["join_min_batch"]),
            join_min_share=float(j["join_min_share"]),
            hamming=int(s["max_distance"]),
            simhash_min_chars=int(s["min_chars"]),
            simhash_min_jaccard=float(s["min_jaccard"]),
            stopwords=tuple(s["stopwords"]),
            mask_patterns=tuple(
                (p["name"], p["regex"], tuple(p["triggers"])) for p in data["mask"]["patterns"]
            ),
            number_words=tuple(g["number_words"]),
            negations_zh=tuple(g["negations_zh"]),
            negations_en=tuple(g["negations_en"]),
            not_negations=tuple(g["not_negations"]),
            name_titles=tuple(g.get("name_titles", ())),
            slots={
                kind: {value: tuple(spellings) for value, spellings in values.items()}
                for kind, values in g["slots"].items()
            },
        )

    def with_(self, **changes: Any) -> DedupeConfig:
        """A copy with some values changed (CLI overrides such as --jaccard 0.8)."""
        return replace(self, **changes)

    def fingerprint(self) -> bytes:
        """8 bytes identifying what a stored signature depends on (masks and guard lexicons)."""
        basis = orjson.dumps(
            [
                self.mask_patterns,
                self.number_words,
                self.negations_zh,
                self.negations_en,
                self.not_negations,
                self.name_titles,
                self.slots,
                self.stopwords,
            ],
            option=orjson.OPT_SORT_KEYS,
        )
        return hashlib.blake2b(basis, digest_size=8).digest()
