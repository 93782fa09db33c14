"""Command-line entry point."""

import sys

from .cart import Cart


def main(argv=None):
    """Buys one item with the card given on the command line."""
    argv = argv or sys.argv[1:]
    cart = Cart(owner="Ada")
    cart.add("book", 12.5, 2)
    receipt = cart.checkout(argv[0] if argv else "4539578763621486")
    print(receipt)


if __name__ == "__main__":
    main()
