"""memctl.settings: memctl/data/*.toml parsed once, overrides checked against the defaults."""

from __future__ import annotations

import pytest

from memctl import consolidate
from memctl.errors import ConfigError
from memctl.settings import consolidate_settings, data_file


def test_each_call_gets_its_own_copy_of_a_data_file() -> None:
    first = data_file("consolidate")
    first["caps"]["profile"] = -1
    first["steps"].append("nonsense")
    again = data_file("consolidate")
    assert again["caps"]["profile"] == 500
    assert "nonsense" not in again["steps"]


def test_the_default_steps_are_every_step_consolidate_has_in_order() -> None:
    # consolidate_settings takes the defaults as the list of known steps.
    assert tuple(data_file("consolidate")["steps"]) == tuple(consolidate.STEPS)


def test_an_unknown_step_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError) as refused:
        consolidate_settings({"steps": ["expire", "vacuum"]})
    known = ", ".join(consolidate.STEPS)
    assert str(refused.value) == f"steps: unknown step 'vacuum' (known: {known})"


def test_a_subset_of_steps_in_another_order_is_accepted() -> None:
    assert consolidate_settings({"steps": ["index", "expire"]}).steps == ("index", "expire")
