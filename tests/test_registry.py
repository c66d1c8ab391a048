"""The registry: estimators describe themselves as data, and nobody can change it at run time."""

from __future__ import annotations

import importlib
import pkgutil
from types import MappingProxyType

import pytest

import dpviz
import dpviz.privacy
from dpviz.core.entry import Estimator, Param
from dpviz.estimators import metrics, registry

ALL_ESTIMATORS = [(task, name) for task, ests in registry.TASKS.items() for name in ests]


def test_the_mean_task_is_registered():
    assert set(registry.TASKS["mean"]) == {"laplace", "gaussian", "coinpress"}


@pytest.mark.parametrize(("task", "name"), ALL_ESTIMATORS)
def test_entry_describes_itself(task, name):
    est = registry.estimator(task, name)
    assert isinstance(est, Estimator)
    assert (est.task, est.name) == (task, name)
    assert callable(est.function)
    assert est.label and est.paper
    assert est.notion in {"pure", "approximate", "zCDP", "edge-DP", "none"}
    assert est.outputs and all(isinstance(o, str) for o in est.outputs)
    names = [p.name for p in est.params]
    assert len(names) == len(set(names))
    common = {p.name for p in registry.COMMON_PARAMS}
    assert not common & set(names), "an estimator parameter shadows a budget parameter"


@pytest.mark.parametrize(("task", "name"), ALL_ESTIMATORS)
def test_every_parameter_parses_its_default(task, name):
    est = registry.estimator(task, name)
    for p in est.params:
        if p.required:
            assert p.default is None
            continue
        assert p.parse(p.default) == p.default
        assert p.parse(str(p.default)) == p.default  # as the CLI's --set gives it
    # a value every required parameter accepts: 3, or its upper bound when that is lower
    required = {p.name: 3 if p.max is None or p.max >= 3 else p.max
                for p in est.params if p.required}
    resolved = est.resolve(required)
    assert resolved == {p.name: required.get(p.name, p.default) for p in est.params}


def test_common_parameters_parse_their_defaults():
    for p in registry.COMMON_PARAMS:
        if p.default is not None:
            assert p.parse(p.default) == p.default
            assert p.parse(str(p.default)) == p.default


@pytest.mark.parametrize(("task", "name"), ALL_ESTIMATORS)
def test_numeric_defaults_lie_in_their_range(task, name):
    for p in (*registry.COMMON_PARAMS, *registry.estimator(task, name).params):
        if p.type in ("int", "float") and p.default is not None:
            assert (p.min is None or p.default >= p.min) and (p.max is None or
                                                                p.default <= p.max), p.name
        if p.options is not None and p.default is not None:
            assert p.default in p.options, p.name


# --- Param.parse ---

ITER = Param("iterations", "int", 20, min=1, max=500)
RATE = Param("rate", "float", 0.5, min=0.0, max=1.0)
SHAPE = Param("shape", "str", "full", options=("full", "diag"))
FLAG = Param("pca", "bool", False)


@pytest.mark.parametrize(("param", "value", "expected"), [
    (ITER, "30", 30), (ITER, 30, 30), (ITER, 30.0, 30), (ITER, "1", 1), (ITER, "500", 500),
    (RATE, "0.25", 0.25), (RATE, 0, 0.0), (RATE, "1", 1.0), (RATE, " 0.5 ", 0.5),
    (SHAPE, "diag", "diag"),
    (FLAG, "true", True), (FLAG, "Yes", True), (FLAG, "1", True), (FLAG, True, True),
    (FLAG, "off", False), (FLAG, "0", False), (FLAG, False, False),
])
def test_param_parse_accepts(param, value, expected):
    got = param.parse(value)
    assert got == expected
    assert type(got) is type(expected)


@pytest.mark.parametrize(("param", "value", "message"), [
    (ITER, "0", "iterations must be >= 1 and <= 500, got 0"),
    (ITER, 501, "iterations must be >= 1 and <= 500, got 501"),
    (ITER, "2.5", "iterations must be a whole number, got 2.5"),
    (ITER, "many", "iterations must be a number, got 'many'"),
    (ITER, True, "iterations must be a number, got True"),
    (ITER, None, "iterations must be a number, got None"),
    (RATE, "-0.1", "rate must be >= 0 and <= 1, got -0.1"),
    (RATE, 1.5, "rate must be >= 0 and <= 1, got 1.5"),
    (RATE, "nan", "rate must be a number, got NaN"),
    (RATE, "inf", "rate must be >= 0 and <= 1, got inf"),
    (SHAPE, "spherical", "shape must be one of full, diag, got 'spherical'"),
    (FLAG, "maybe", "pca must be true or false, got 'maybe'"),
])
def test_param_parse_refuses_with_a_sentence_naming_the_parameter(param, value, message):
    with pytest.raises(ValueError) as err:
        param.parse(value)
    assert str(err.value) == message


@pytest.mark.parametrize(("task", "name"), ALL_ESTIMATORS)
def test_registered_numeric_params_refuse_values_outside_their_range(task, name):
    for p in registry.estimator(task, name).params:
        if p.type not in ("int", "float"):
            continue
        below = [] if p.min is None else [p.min - max(1.0, abs(p.min)), p.min - 1e-9 * max(
            1.0, abs(p.min))]
        above = [] if p.max is None else [p.max + max(1.0, abs(p.max)), p.max + 1e-9 * max(
            1.0, abs(p.max))]
        for outside in below + above:
            with pytest.raises(ValueError, match=rf"^{p.name} must be "):
                p.parse(outside)
            with pytest.raises(ValueError, match=rf"^{p.name} must be "):
                p.parse(repr(outside))


def test_to_dict_is_the_list_shape():
    assert ITER.to_dict() == {"type": "int", "default": 20, "min": 1, "max": 500,
                              "options": None, "required": False, "choice": False, "help": ""}
    assert SHAPE.to_dict()["options"] == ["full", "diag"]


# --- lookups and resolution ---

def test_unknown_task_lists_the_tasks():
    with pytest.raises(ValueError, match=r"^unknown task 'gmmm'; the tasks are: mean"):
        registry.estimator("gmmm", "dp_em")


def test_unknown_estimator_lists_the_estimators():
    with pytest.raises(ValueError) as err:
        registry.estimator("mean", "median")
    assert str(err.value) == ("unknown estimator 'median' for task 'mean'; choose one of: "
                              "laplace, gaussian, coinpress")


def test_unknown_parameter_lists_the_parameters():
    est = registry.estimator("mean", "laplace")
    with pytest.raises(ValueError) as err:
        est.resolve({"centre": 0.5})
    assert str(err.value) == ("unknown parameter 'centre' for mean/laplace; its parameters are: "
                              "center")


def test_resolve_parses_given_values_and_refuses_missing_required():
    est = registry.estimator("mean", "laplace")
    assert est.resolve({"center": "0.5"}) == {"center": 0.5}
    assert est.resolve({"center": None}) == {"center": 0.0}
    needs = Estimator("t", "e", lambda *a, **k: None, "L", "P", "pure", ("x",),
                      (Param("k", "int", None, min=1, max=10, required=True),))
    with pytest.raises(ValueError, match=r"^t/e needs the parameter 'k'$"):
        needs.resolve({})
    assert needs.resolve({"k": "3"}) == {"k": 3}


def test_describe_lists_every_estimator_with_common_params_first():
    out = registry.describe()
    for task, name in ALL_ESTIMATORS:
        params = list(out[task][name]["params"])
        common = [p.name for p in registry.COMMON_PARAMS]
        assert params[:len(common)] == common
        assert params[len(common):] == [p.name for p in registry.estimator(task, name).params]
    assert out["metrics"] == {task: list(metrics.METRICS.get(task, {})) for task in registry.TASKS}


# --- read-only ---

def test_registry_mappings_are_read_only():
    with pytest.raises(TypeError):
        registry.TASKS["mean"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        registry.TASKS["mean"]["laplace"] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        del registry.TASKS["mean"]["gaussian"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        metrics.METRICS["mean"]["x"] = len  # type: ignore[index]
    assert isinstance(registry.COMMON_PARAMS, tuple)


def test_registry_entries_are_frozen():
    est = registry.estimator("mean", "laplace")
    with pytest.raises(AttributeError):
        est.label = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        est.params[0].default = 1.0  # type: ignore[misc]
    assert isinstance(est.params, tuple)


def test_describe_returns_a_fresh_copy_each_time():
    first = registry.describe()
    first["mean"]["laplace"]["params"]["center"]["default"] = 99
    first["mean"].pop("gaussian")
    second = registry.describe()
    assert second["mean"]["laplace"]["params"]["center"]["default"] == 0.0
    assert "gaussian" in second["mean"]


def _mutable_module_globals(module_names):
    found = []
    for module_name in module_names:
        module = importlib.import_module(module_name)
        for key, value in vars(module).items():
            if key.startswith("__") or isinstance(value, MappingProxyType):
                continue
            if isinstance(value, dict | list | set | bytearray):
                found.append(f"{module_name}.{key}")
    return found


def test_registry_modules_hold_no_mutable_state():
    assert _mutable_module_globals(["dpviz.estimators.registry", "dpviz.estimators.metrics",
                                    "dpviz.core.entry", "dpviz.core.limits",
                                    "dpviz.estimators.result", "dpviz.cli"]) == []


def test_engine_modules_hold_no_mutable_state():
    privacy = ["dpviz.privacy." + m.name for m in pkgutil.iter_modules(dpviz.privacy.__path__)]
    assert _mutable_module_globals(["dpviz.estimators.mean", "dpviz.lab.lens", *privacy]) == []


def test_every_registered_estimator_has_a_measured_cost():
    """Only an estimator added since ``bench/work_costs.py`` last ran is charged a guess."""
    unmeasured = [f"{task}/{name}" for task, entries in registry.TASKS.items()
                  for name, entry in entries.items() if entry.cost.seconds_per_unit is None]
    assert not unmeasured, f"run python bench/work_costs.py for {unmeasured}"
