"""The poll interval rule shared by both task generations: floor, ceiling, back-off, unusable = not given."""

from __future__ import annotations

import pytest

from mcp_widgets.core.polling import CEILING, DEFAULT, FLOOR, WAITING, backed_off, poll_interval


@pytest.mark.parametrize(
    "sent",
    [0, -1, -1000, -0.0, float("nan"), float("inf"), float("-inf"), "500", "abc", "", True, None, [500]],
)
def test_a_value_that_is_not_a_positive_number_counts_as_not_given(sent: object) -> None:
    assert poll_interval(sent) == DEFAULT
    assert poll_interval(sent, 2.5) == 2.5  # the interval in force stays


@pytest.mark.parametrize(
    ("sent", "seconds"),
    [
        (1, FLOOR),
        (0.001, FLOOR),
        (49, FLOOR),
        (50, 0.05),
        (250, 0.25),
        (1.5, FLOOR),
        (60_000, 60.0),
        (86_400_000, CEILING),
        (1e300, CEILING),
        (10**400, CEILING),
    ],
)
def test_a_positive_value_is_kept_between_the_floor_and_the_ceiling(sent: float, seconds: float) -> None:
    assert poll_interval(sent, 7.0) == pytest.approx(seconds)


def test_back_off_doubles_up_to_the_waiting_bound_never_below_the_servers_interval() -> None:
    assert [backed_off(FLOOR, calm) for calm in range(9)] == pytest.approx(
        [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, WAITING, WAITING]
    )
    assert backed_off(1.0, 0) == 1.0 and backed_off(1.0, 10**6) == WAITING
    assert backed_off(30.0, 5) == 30.0  # a server asking for more than WAITING gets its interval
    assert backed_off(FLOOR, -3) == FLOOR
