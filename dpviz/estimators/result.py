"""The result every estimator returns, and its JSON form (DESIGN.md, the command line)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpviz.privacy.ledger import Ledger, json_number

#: What ``choices["randomness"]`` says of a run whose noise comes from a known seed (or any
#: generator that is not :func:`~dpviz.privacy.randomness.secure_generator`'s).
TEACHING_RANDOMNESS = ("teaching randomness: the noise can be recomputed from the seed — not a "
                       "private release")


def to_json_value(value: Any) -> Any:
    """Arrays to lists, ``inf`` to ``"inf"``, NaN to ``None``, recursively."""
    if isinstance(value, np.ndarray):
        return to_json_value(value.tolist())
    if isinstance(value, np.generic):
        return to_json_value(value.item())
    if isinstance(value, Mapping):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    return json_number(value)


@dataclass(frozen=True)
class Result:
    """An estimator's answer.

    Attributes
    ----------
    estimate : mapping
        The released values under their JSON names (``mean``; later ``means``,
        ``covariance``, ``labels`` …). Everything here went through ``dpviz.privacy``.
    ledger : Ledger
        Every release and its spend.
    choices : mapping
        The constants the paper leaves open, as used, and how the bound was set;
        ``randomness`` is :data:`TEACHING_RANDOMNESS` when the noise came from a known seed.
    not_private : str or None
        Why the guarantee does not hold (e.g. the bound was read from the data).
    failed : str or None
        An honest ⊥, with the reason.
    diagnostics : mapping
        Non-released material for plots (the true value is *not* private: pages show it
        only as ground truth).
    """

    estimate: Mapping[str, Any]
    ledger: Ledger
    choices: Mapping[str, Any] = field(default_factory=dict)
    not_private: str | None = None
    failed: str | None = None
    diagnostics: Mapping[str, Any] = field(default_factory=dict)
    task: str = ""
    estimator: str = ""
    seed: int | None = None  # None: OS entropy, never shown

    def to_dict(self) -> dict[str, Any]:
        """Exactly the JSON of ``python -m dpviz run``."""
        out: dict[str, Any] = {"task": self.task, "estimator": self.estimator, "seed": self.seed}
        out.update(to_json_value(dict(self.estimate)))
        out["ledger"] = self.ledger.to_dict()
        out["choices"] = to_json_value(dict(self.choices))
        out["not_private"] = self.not_private
        out["failed"] = self.failed
        return out
