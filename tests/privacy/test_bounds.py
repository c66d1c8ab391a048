"""Public bounds and clipping (ALGORITHMS.md §1.3)."""

import warnings

import numpy as np
import pytest

from dpviz.privacy import Ball, PrivacyLeakWarning, clip_to_ball, resolve_ball


@pytest.mark.parametrize("d", [1, 2, 7])
@pytest.mark.parametrize("radius", [0.1, 1.0, 25.0])
def test_clip_never_outside_and_unchanged_inside(rng, d, radius):
    center = rng.normal(size=d) * 3
    x = center + rng.normal(size=(2_000, d)) * radius * rng.choice([0.1, 1.0, 10.0],
                                                                   size=(2_000, 1))
    clipped = clip_to_ball(x, center, radius)
    assert clipped.shape == x.shape
    distance = np.linalg.norm(x - center, axis=1)
    after = np.linalg.norm(clipped - center, axis=1)
    assert np.all(after <= radius * (1 + 1e-12))
    inside = distance <= radius
    assert inside.any() and (~inside).any()
    np.testing.assert_array_equal(clipped[inside], x[inside])
    # outside rows land on the sphere, in the same direction from the centre
    np.testing.assert_allclose(after[~inside], radius, rtol=1e-12)
    direction = (x - center)[~inside] / distance[~inside, None]
    np.testing.assert_allclose((clipped - center)[~inside] / radius, direction, atol=1e-12)


def test_clip_centre_row_and_one_row(rng):
    assert clip_to_ball([0.0, 0.0], [0.0, 0.0], 1.0).tolist() == [[0.0, 0.0]]
    np.testing.assert_allclose(clip_to_ball([[3.0, 4.0]], [0.0, 0.0], 1.0), [[0.6, 0.8]])


def test_resolve_ball_default_is_the_unit_ball():
    x = np.full((5, 3), 10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ball = resolve_ball(x, None)
    assert isinstance(ball, Ball)
    assert (ball.radius, ball.source, ball.not_private) == (1.0, "default", None)
    np.testing.assert_array_equal(ball.center, np.zeros(3))
    assert "default unit ball" in ball.describe()


def test_resolve_ball_public_radius_and_centre():
    x = np.zeros((4, 2))
    ball = resolve_ball(x, 2.5, center=[1.0, -1.0])
    assert (ball.radius, ball.source, ball.not_private) == (2.5, "public", None)
    np.testing.assert_array_equal(ball.center, [1.0, -1.0])
    assert resolve_ball(x, "2.5").radius == 2.5  # from the command line


def test_resolve_ball_from_data_warns_and_is_not_private():
    x = np.array([[3.0, 4.0], [1.0, 0.0], [-6.0, 8.0]])
    with pytest.warns(PrivacyLeakWarning, match="not private"):
        ball = resolve_ball(x, "data")
    assert ball.radius == pytest.approx(10.0)
    assert ball.source == "data"
    assert ball.not_private == "bound read from the data"
    assert "not private" in ball.describe()
    with pytest.warns(PrivacyLeakWarning):
        assert resolve_ball(np.zeros((3, 2)), " Data ").radius == 1.0  # all at the centre


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), float("nan"), "abc", "-2"])
def test_resolve_ball_bad_radius(bad):
    with pytest.raises(ValueError, match="radius"):
        resolve_ball(np.zeros((3, 2)), bad)
