"""Payments: card validation and charging."""


class CardDeclined(Exception):
    """Raised when a card is refused."""


class PaymentGateway:
    """Keeps the receipts of charges."""

    def __init__(self):
        self.receipts = []

    def record(self, receipt):
        """Stores a receipt."""
        self.receipts.append(receipt)


def validate_card(card):
    """Checks a card number with the Luhn algorithm."""
    digits = [int(d) for d in str(card)][::-1]
    total = sum(digits[0::2]) + sum(sum(divmod(2 * d, 10)) for d in digits[1::2])
    return total % 10 == 0


def charge(card, amount):
    """Charges a card and returns a receipt."""
    if not validate_card(card):
        raise CardDeclined(card)
    return {"card": str(card)[-4:], "amount": amount}
