"""The privacy core: mechanisms, accounting, the budget solver, the ledger, bounds, audits.

Every private release in dpviz goes through this package (ALGORITHMS.md §1).
Its names are imported on first use (:mod:`dpviz.core.lazy`): ``import dpviz`` no longer
loads scipy's optimisers, OpenDP and dp-accounting before a page needs them.
"""

from typing import TYPE_CHECKING

from dpviz.core.lazy import lazy_names

if TYPE_CHECKING:  # for type checkers; at run time a name's module loads on first use
    from dpviz.privacy.accounting import (
        METHOD_LABELS,
        METHODS,
        PrivacyEvent,
        compose,
        compose_parts,
        total_rho,
    )
    from dpviz.privacy.audit import (
        AuditResult,
        attainable_lower_bound,
        audit,
        clopper_pearson,
        repeat,
    )
    from dpviz.privacy.bounds import Ball, clip_to_ball, resolve_ball
    from dpviz.privacy.budget import Budget
    from dpviz.privacy.errors import BudgetError, PrivacyLeakWarning
    from dpviz.privacy.ledger import Ledger, Release, Total, compose_runs
    from dpviz.privacy.mechanisms import (
        above_threshold,
        add_noise,
        draw_noise,
        exponential,
        exponential_on_sphere,
        flip_probability,
        gaussian,
        laplace,
        randomized_response,
        release,
        sampler_of,
        simulate,
        stable_histogram,
        symmetric_gaussian,
        symmetric_laplace,
        truncated_laplace,
    )
    from dpviz.privacy.randomness import is_secure, secure_generator
    from dpviz.privacy.solver import Allocation, PlannedRelease, compare_methods, solve

# The function audit shares its module's name: importing the module dpviz.privacy.audit binds
# the package's "audit" to the module, so the function is bound here, after it, for good.
from dpviz.privacy.audit import audit  # noqa: E402

__getattr__ = lazy_names(__name__, {
    "accounting": ("METHOD_LABELS", "METHODS", "PrivacyEvent", "compose", "compose_parts",
            "total_rho"),
    "audit": ("AuditResult", "attainable_lower_bound", "clopper_pearson", "repeat"),
    "bounds": ("Ball", "clip_to_ball", "resolve_ball"),
    "budget": ("Budget",),
    "errors": ("BudgetError", "PrivacyLeakWarning"),
    "ledger": ("Ledger", "Release", "Total", "compose_runs"),
    "mechanisms": ("above_threshold", "add_noise", "draw_noise", "exponential",
            "exponential_on_sphere", "flip_probability", "gaussian", "laplace",
            "randomized_response", "release", "sampler_of", "simulate", "stable_histogram",
            "symmetric_gaussian", "symmetric_laplace", "truncated_laplace"),
    "randomness": ("is_secure", "secure_generator"),
    "solver": ("Allocation", "PlannedRelease", "compare_methods", "solve"),
})

__all__ = [
    "METHODS", "METHOD_LABELS", "Allocation", "AuditResult", "Ball", "Budget", "BudgetError",
    "Ledger", "PlannedRelease", "PrivacyEvent", "PrivacyLeakWarning", "Release", "Total",
    "above_threshold", "add_noise", "attainable_lower_bound", "audit", "clip_to_ball",
    "clopper_pearson", "compare_methods", "compose", "compose_parts", "compose_runs", "draw_noise",
    "exponential", "exponential_on_sphere", "flip_probability", "gaussian", "is_secure", "laplace",
    "randomized_response", "release", "repeat", "resolve_ball", "sampler_of", "secure_generator",
    "simulate", "solve", "stable_histogram", "symmetric_gaussian", "symmetric_laplace",
    "total_rho", "truncated_laplace",
]
