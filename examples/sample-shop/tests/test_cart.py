from shop.cart import Cart


def test_total_applies_member_discount():
    cart = Cart(owner="Ada")
    cart.add("book", 10.0)
    assert cart.total() == 9.0
