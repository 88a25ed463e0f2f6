"""Order handlers for the demo shop."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Order:
    id: int
    total_cents: int


def place_order(order_id: int, total_cents: int) -> Order:
    """Create an order; totals are integer cents, never floats."""
    return Order(order_id, total_cents)
