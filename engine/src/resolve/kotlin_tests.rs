//! Kotlin resolution fixtures: packages and imports (by name, wildcard, alias, same package),
//! constructor calls without `new`, objects and companion objects, receivers (`this`, `super`,
//! `?.`, `!!.`, typed locals, parameters, properties, return types, `it` in `let`), implicit
//! `this`, extension functions, inheritance and overrides.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const GATEWAY: &str = r#"package shop.pay

interface Charges {
    fun charge(cents: Int): Boolean
}

open class Gateway : Charges {
    override fun charge(cents: Int): Boolean {
        return log(cents)
    }

    private fun log(cents: Int): Boolean = formatCents(cents).isNotEmpty()

    companion object {
        fun connect(): Gateway = Gateway()
    }
}

fun formatCents(cents: Int): String = cents.toString()
"#;

const BASE: &str = r#"package shop

open class Base {
    init {
        boot()
    }

    protected open fun boot() {}

    open fun save(): Boolean = true
}

object Registry {
    fun register(cart: Cart) {}
}

fun slugify(text: String): String = text.lowercase()
"#;

const CART: &str = r#"package shop

import shop.pay.Gateway
import shop.pay.Gateway as Pay
import shop.pay.*

typealias Book = Ledger

class Cart(private val ledger: Ledger, charges: Charges) : Base() {
    private val gateway: Gateway = Gateway.connect()
    private var backup: Gateway? = null

    constructor(ledger: Ledger) : this(ledger, Gateway())

    override fun boot() {
        super.boot()
    }

    fun checkout(card: Gateway?): Boolean {
        card?.charge(1)
        card!!.charge(2)
        gateway.charge(3)
        this.ledger.record()
        ledger.record()
        val pay = Pay.connect()
        pay.charge(4)
        val other = Cart(Ledger())
        other.save()
        Registry.register(this)
        slugify("x")
        formatCents(5)
        tax()
        other.let { it.total() }
        other.total()
        Ledger().twice()
        backup?.let { it.charge(6) }
        val book: Book = Ledger()
        book.record()
        unknown.mystery()
        return this.save()
    }

    companion object {
        fun tax(): Int = 1
    }
}

class Ledger {
    fun record() {}
}

fun Cart.total(): Int = tax() + twiceOf(this)

fun Ledger.twice() {
    record()
}

fun twiceOf(cart: Cart): Int = 2
"#;

#[test]
fn kotlin_packages_imports_receivers_and_extensions() {
    let g = graph(&[
        ("src/main/kotlin/shop/pay/Gateway.kt", GATEWAY),
        ("src/main/kotlin/shop/Base.kt", BASE),
        ("src/main/kotlin/shop/Cart.kt", CART),
    ]);
    // `unknown.mystery()` and the standard library's calls reach nothing.
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `init` blocks run in the class.
            (
                "Class:src/main/kotlin/shop/Base.kt:Base",
                "Method:src/main/kotlin/shop/Base.kt:Base.boot",
                "0.98",
                "self-method"
            ),
            // `: Base()` builds the superclass; a property initialiser calls the companion's `connect`.
            (
                "Class:src/main/kotlin/shop/Cart.kt:Cart",
                "Class:src/main/kotlin/shop/Base.kt:Base",
                "0.97",
                "constructor"
            ),
            (
                "Class:src/main/kotlin/shop/Cart.kt:Cart",
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.connect",
                "0.97",
                "class-member"
            ),
            (
                "Function:src/main/kotlin/shop/Cart.kt:total",
                "Function:src/main/kotlin/shop/Cart.kt:twiceOf",
                "0.97",
                "same-file"
            ),
            // Inside `fun Cart.total()`, a bare call is a member of `Cart` (here its companion's).
            (
                "Function:src/main/kotlin/shop/Cart.kt:total",
                "Method:src/main/kotlin/shop/Cart.kt:Cart.tax",
                "0.97",
                "self-method"
            ),
            (
                "Function:src/main/kotlin/shop/Cart.kt:twice",
                "Method:src/main/kotlin/shop/Cart.kt:Ledger.record",
                "0.97",
                "self-method"
            ),
            // `constructor(…) : this(…)`.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.Cart",
                "Class:src/main/kotlin/shop/Cart.kt:Cart",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.Cart",
                "Class:src/main/kotlin/shop/pay/Gateway.kt:Gateway",
                "0.97",
                "constructor"
            ),
            // `super.boot()`.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.boot",
                "Method:src/main/kotlin/shop/Base.kt:Base.boot",
                "0.95",
                "super-method"
            ),
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Class:src/main/kotlin/shop/Cart.kt:Cart",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Class:src/main/kotlin/shop/Cart.kt:Ledger",
                "0.97",
                "constructor"
            ),
            // Same package, another file.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Function:src/main/kotlin/shop/Base.kt:slugify",
                "0.97",
                "same-file"
            ),
            // Extension functions: `it.total()` in `other.let { … }`, `other.total()`, `Ledger().twice()`.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Function:src/main/kotlin/shop/Cart.kt:total",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Function:src/main/kotlin/shop/Cart.kt:twice",
                "0.97",
                "receiver-type"
            ),
            // Through `import shop.pay.*`.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Function:src/main/kotlin/shop/pay/Gateway.kt:formatCents",
                "0.97",
                "import-resolved"
            ),
            // `other.save()` and `this.save()`: inherited.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Method:src/main/kotlin/shop/Base.kt:Base.save",
                "0.95",
                "receiver-type"
            ),
            // An `object`'s function.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Method:src/main/kotlin/shop/Base.kt:Registry.register",
                "0.97",
                "class-member"
            ),
            // Implicit `this` reaches the companion's function.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Method:src/main/kotlin/shop/Cart.kt:Cart.tax",
                "0.98",
                "self-method"
            ),
            // The constructor property `ledger`, as `this.ledger` and bare.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Method:src/main/kotlin/shop/Cart.kt:Ledger.record",
                "0.97",
                "receiver-type"
            ),
            // `card?.`, `card!!.`, the property `gateway`, `val pay = Pay.connect()`.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.charge",
                "0.97",
                "receiver-type"
            ),
            // `Pay.connect()` through the import alias.
            (
                "Method:src/main/kotlin/shop/Cart.kt:Cart.checkout",
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.connect",
                "0.97",
                "class-member"
            ),
            (
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.charge",
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.log",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.connect",
                "Class:src/main/kotlin/shop/pay/Gateway.kt:Gateway",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/kotlin/shop/pay/Gateway.kt:Gateway.log",
                "Function:src/main/kotlin/shop/pay/Gateway.kt:formatCents",
                "0.97",
                "same-file"
            ),
        ])
    );
}

const NARROW: &str = r#"package shop

typealias Book = Ledger

class Ledger {
    fun record() {}
}

class Gateway {
    fun charge() {}
}

class Cart {
    private var backup: Gateway? = null

    fun viaAlias() {
        val book: Book = Ledger()
        book.record()
    }

    fun viaIt() {
        backup?.let { it.charge() }
    }

    fun namedLambda(ledger: Ledger) {
        ledger.let { g -> g.record() }
    }
}
"#;

#[test]
fn kotlin_typealiases_and_it_in_let() {
    let g = graph(&[("src/Cart.kt", NARROW)]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Method:src/Cart.kt:Cart.viaAlias",
                "Class:src/Cart.kt:Ledger",
                "0.97",
                "constructor"
            ),
            // A typealias's members are its target's.
            (
                "Method:src/Cart.kt:Cart.viaAlias",
                "Method:src/Cart.kt:Ledger.record",
                "0.95",
                "receiver-type"
            ),
            // `it` is the receiver of `let`: here the property `backup`.
            (
                "Method:src/Cart.kt:Cart.viaIt",
                "Method:src/Cart.kt:Gateway.charge",
                "0.95",
                "attribute-type"
            ),
            // A lambda naming its parameter has no `it`: `g` is untyped, and a method found by
            // its name alone is a candidate only.
            (
                "Method:src/Cart.kt:Cart.namedLambda",
                "Method:src/Cart.kt:Ledger.record",
                "0.48",
                "unique-global-name"
            ),
        ])
    );
}
