"""Privacy-specific exception and warning types."""

from __future__ import annotations


class BudgetError(ValueError):
    """A privacy budget that cannot be met or composed (e.g. advanced composition with δ = 0)."""


class PrivacyLeakWarning(UserWarning):
    """A result whose guarantee does not hold, e.g. a bound read from the data."""
