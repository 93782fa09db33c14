"""Discounts."""

MEMBER_DISCOUNT = 0.1


def is_member(owner):
    """Members have names that start with a capital letter (a sample rule)."""
    return owner[:1].isupper()


def apply_discount(subtotal, owner):
    """Applies the member discount."""
    if is_member(owner):
        return round(subtotal * (1 - MEMBER_DISCOUNT), 2)
    return subtotal
