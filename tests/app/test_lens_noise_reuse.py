"""The lens's noise-reuse lesson: closed it costs nothing; open, the attack wins on one seed."""

from __future__ import annotations

import pytest

from .app_helpers import charts, errors, open_section, values

KEY = "lens_reuse_open"


def row(table, randomness):
    return table[table["randomness"].str.startswith(randomness)].iloc[0]


def test_closed_the_lesson_runs_nothing(lens):
    assert not lens.exception
    assert "lens_reuse" not in charts(lens)
    labels = [e.label for e in lens.expander]
    assert "Noise reuse: two releases on one seed give the exact mean away" in labels


def test_open_the_attack_recovers_the_mean_only_with_one_seed(lens):
    open_section(lens, KEY)
    assert not lens.exception and not errors(lens)
    table = next(d.value for d in lens.dataframe if "attacker's answer" in d.value.columns)
    teaching, secure = row(table, "teaching randomness"), row(table, "secure randomness")
    assert teaching["randomness"] == "teaching randomness (one seed)"
    # the page's default data: the mean of 0, 0.35, 0.9, 0.42, 0.71, 0.18, 0.64, 0.83
    truth = (0 + 0.35 + 0.9 + 0.42 + 0.71 + 0.18 + 0.64 + 0.83) / 8
    assert float(teaching["true mean (not released)"]) == pytest.approx(truth, abs=1e-12)
    assert float(teaching["attacker's answer"]) == pytest.approx(truth, abs=1e-12)
    assert float(teaching["attacker's error"]) < 1e-12
    assert float(secure["attacker's error"]) > 1e-6  # independent noise: no exact answer
    # the two releases at ε₁ = 1 and ε₂ = 2: Laplace b = Δ/ε with Δ = (hi − lo)/n = 1/8
    assert teaching["noise scales b₁, b₂"] == "0.125, 0.0625"
    # the secure releases are charged together (linear: ε₁ + ε₂); the teaching ones are not
    assert secure["what both releases cost"] == "ε = 3, δ = 1e-05"
    assert teaching["what both releases cost"].startswith("no guarantee")
    figure = charts(lens)["lens_reuse"]
    assert [t["name"] for t in figure["data"]] == [
        "release at ε₁ = 1", "release at ε₂ = 2",
        "attacker's answer (b₂·o₁ − b₁·o₂)/(b₂ − b₁)", "true mean (not released)"]
    assert list(values(figure["data"][2]["y"])) == ["teaching randomness (one seed)",
                                                    "secure randomness (fresh OS entropy)"]
    assert any("teaching randomness" in m.value and "not private" in m.value
               for m in lens.markdown)


def test_the_lesson_follows_the_mechanism(lens):
    lens.radio(key="lens_mechanism").set_value("Gaussian")
    open_section(lens, KEY)
    assert not lens.exception and not errors(lens)
    table = next(d.value for d in lens.dataframe if "attacker's answer" in d.value.columns)
    assert float(row(table, "teaching")["attacker's error"]) < 1e-12
