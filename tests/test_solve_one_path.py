"""One question, one answer (issue 29 item 1): the page's solve panel and ``python -m dpviz
solve`` ask the same :class:`~dpviz.lab.solve.Question`, and the command a page shows builds
the page's scenario again."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from dpviz import cli
from dpviz.estimators.registry import TASKS
from dpviz.estimators.result import to_json_value
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import Question, ask, two_digit_grid


def own_params(task: str, estimator: str) -> dict[str, Any]:
    """An estimator's parameters as a page's widgets give them at their defaults."""
    public = {"k", "n", "degree", "signal"}  # the data's public parameters: not widgets
    return {p.name: p.default for p in TASKS[task][estimator].params if p.name not in public}


def mixture(estimator: str = "dp_em", *, seed: int | None = 0, n: int = 10_000) -> Scenario:
    """The mixtures page's run, built as its controls build it (dpviz.ui.pages.gmm.controls)."""
    return Scenario.from_dict({
        "task": "gmm", "estimator": estimator,
        "data": {"generator": "gmm", "k": 3, "d": 2, "n": n, "separation": 6.0,
                 "weights": "equal", "covariance": "spherical", "seed": 0},
        "params": {**own_params("gmm", estimator), "epsilon": 1.0, "delta": 1e-5,
                   "accounting": "zcdp", "radius": None}, "seed": seed})


def bundled_mixture() -> Scenario:
    """A bundled set without a public radius: the page's radius box gives one."""
    return Scenario.from_dict({
        "task": "gmm", "estimator": "dp_em", "data": {"dataset": "iris"},
        "params": {**own_params("gmm", "dp_em"), "epsilon": 2.0, "delta": 1e-6,
                   "accounting": "pld", "radius": 10.0}, "seed": 4})


def covariance(budget: dict[str, float], *, n: int = 10_000, d: int = 50,
               estimator: str = "adaptive") -> Scenario:
    """The covariance page's run (dpviz.ui.pages.covariance.controls): ρ or (ε, δ), r = 1."""
    return Scenario.from_dict({
        "task": "covariance", "estimator": estimator,
        "data": {"generator": "zipf", "n": n, "d": d, "buckets": 4, "skew": 3.0, "seed": 0},
        "params": {**own_params("covariance", estimator), **budget, "radius": 1.0},
        "seed": 7})


def network(estimator: str = "weak_recovery", *, n: int = 1000, degree: float = 100.0,
            seed: int | None = 0) -> Scenario:
    """The network page's run (dpviz.ui.pages.sbm.controls): its model's d and ε_s as parameters."""
    model = {"degree": degree, "signal": 0.5}
    return Scenario.from_dict({
        "task": "sbm", "estimator": estimator,
        "data": {"generator": "sbm", "n": n, **model, "seed": 0},
        "params": {**own_params("sbm", estimator), "epsilon": 2.0, "delta": 1e-6,
                   "accounting": "pld", **model}, "seed": seed})


def mean(estimator: str = "laplace", *, d: int = 2, seed: int | None = 0) -> Scenario:
    return Scenario.from_dict({
        "task": "mean", "estimator": estimator,
        "data": {"generator": "gmm", "n": 2000, "d": d, "k": 1, "seed": 0},
        "params": {"epsilon": 1.0, **({"delta": 1e-5} if estimator == "gaussian" else {})},
        "seed": seed})


def command_question(command: str) -> Question:
    """The question the command line builds from ``command``: its parser, its flags."""
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "dpviz"]
    args, extra = cli._build_parser().parse_known_args(words[3:])
    question: Question = cli._solve_question(args, extra)
    return question


def on_the_command_line(question: Question, capsys: pytest.CaptureFixture[str]) -> dict:
    """The JSON ``python -m dpviz solve`` prints for the question's command."""
    code = cli.main(shlex.split(question.command())[3:])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def as_json(payload: dict) -> dict:
    return json.loads(json.dumps(to_json_value(payload)))


ROUND_TRIPS = {
    "mixtures page, teaching seed": (mixture(), "mean_error", 0.1),
    "mixtures page, secure randomness": (mixture(seed=None), "mean_error", 0.1),
    "mixtures page, grid means": (mixture("grid_means"), "adjusted_rand", 0.9),
    "mixtures page, a bundled set": (bundled_mixture(), "weight_error", 0.05),
    "covariance page, rho": (covariance({"rho": 0.1, "delta": 0.0}), "frobenius_error", 0.05),
    "covariance page, epsilon": (covariance({"epsilon": 1.0, "delta": 1e-5}),
                                 "frobenius_error", 0.05),
    "network page": (network(), "error_rate", round(1 - 0.95, 12)),
    "mean": (mean(), "mean_error", 0.05),
}


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_the_command_builds_the_pages_scenario_again(name):
    scenario, metric, target = ROUND_TRIPS[name]
    question = ask(scenario, metric=metric, target=target, probability=0.85, runs=15)
    command = question.command()
    again = command_question(command)
    assert again.scenario.to_dict() == question.scenario.to_dict()
    assert again == question
    assert ("--seed" in command.split()) == (scenario.seed is not None)
    assert f"--target {metric}={target!r}" in command and "--probability 0.85" in command


def test_the_page_and_the_command_line_fill_the_same_defaults():
    """The issue's walk: the command line left the radius, iterations and seeds to their
    defaults; the page gave them. The same question is the same scenario either way."""
    page = ask(mixture(), metric="mean_error", target=0.1)
    typed = command_question("python -m dpviz solve gmm dp_em --generator gmm --epsilon 1 "
                             "--delta 1e-5 --seed 0 --target mean_error=0.1")
    assert typed.scenario.params["radius"] is None  # the generator's public radius, as on the page
    assert typed.probability == page.probability and typed.runs == page.runs
    differ = {k for k in page.scenario.params if page.scenario.params[k] !=
              typed.scenario.params.get(k)}
    assert differ == {name for name in own_params("gmm", "dp_em")
                      if name not in typed.scenario.params}  # only what it did not spell out


def test_bad_input_is_the_same_sentence_on_both_sides(capsys):
    with pytest.raises(ValueError) as page:
        ask(mean(), metric="mean_error", target=0.05, probability=1.5)
    code = cli.main(["solve", "mean", "laplace", "--generator", "gmm", "--target",
                     "mean_error=0.05", "--probability", "1.5"])
    assert code == 2 and capsys.readouterr().err == f"dpviz: {page.value}\n"


ANSWERS = {
    "mixtures page (DP-EM)": (mixture(), "mean_error", 0.1, 0.9, 20),
    "grid means": (mixture("grid_means", n=4000), "mean_error", 0.1, 0.8, 10),
    "covariance": (covariance({"rho": 0.1, "delta": 0.0}, n=2000, d=5, estimator="gauss"),
                   "frobenius_error", 0.05, 0.9, 10),
    "network": (network("randomized_response", n=200, degree=20.0), "error_rate", 0.2, 0.8,
                10),
    "mean (Laplace, simulated)": (mean(), "mean_error", 0.05, 0.9, 20),
}


@pytest.mark.parametrize("name", ANSWERS)
def test_the_page_and_the_command_line_give_the_same_answer(name, capsys):
    scenario, metric, target, probability, runs = ANSWERS[name]
    question = ask(scenario, metric=metric, target=target, probability=probability, runs=runs)
    page = as_json(question.solve().to_dict())  # what the panel's Solve button computes
    assert on_the_command_line(question, capsys) == page


@pytest.mark.parametrize("estimator, d", [("gaussian", 3), ("laplace", 1)])
def test_fresh_seeds_give_the_same_closed_form_answer(estimator, d, capsys):
    question = ask(mean(estimator, d=d, seed=None), metric="mean_error", target=0.05)
    assert "--seed" not in question.command()
    page = question.solve()
    assert page.method == "closed form" and page.value is not None
    typed = on_the_command_line(question, capsys)["epsilon"]
    grid = two_digit_grid(page.low, page.high)
    assert abs(grid.index(typed) - grid.index(page.value)) <= 1  # exact: in fact equal
    assert typed == page.value


def test_the_progress_total_bounds_the_runs_simulated():
    question = ask(mean(), metric="mean_error", target=0.05, runs=5)
    calls: list[tuple[int, int]] = []
    question.solve(progress=lambda done, total: calls.append((done, total)))
    assert {total for _, total in calls} == {question.most_runs()}
    assert calls[-1][0] <= question.most_runs()
    assert ask(mean("gaussian"), metric="mean_error", target=0.05).most_runs() == 0
