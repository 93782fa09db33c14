"""A tiny shop: carts, payments and an entry point."""

from .cart import Cart
from .payment import PaymentGateway

__all__ = ["Cart", "PaymentGateway"]
