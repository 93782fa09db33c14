"""Shopping carts."""

from .payment import PaymentGateway, charge
from .pricing import apply_discount


class Cart:
    """Holds items until checkout."""

    def __init__(self, owner):
        self.owner = owner
        self.items = []
        self.gateway = PaymentGateway()

    def add(self, name, price, quantity=1):
        """Adds an item to the cart."""
        self.items.append((name, price, quantity))

    def total(self):
        """Sums the items, after discounts."""
        subtotal = sum(price * quantity for _, price, quantity in self.items)
        return apply_discount(subtotal, self.owner)

    def checkout(self, card):
        """Charges the card for the total and empties the cart."""
        amount = self.total()
        receipt = charge(card, amount)
        self.gateway.record(receipt)
        self.items = []
        return receipt
