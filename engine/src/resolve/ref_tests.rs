//! Reference fixtures: small repositories per language with the exact references (not calls)
//! expected — imports, annotations, values passed, reads through module aliases, bases — and
//! none for locals that share a symbol's name.

use std::collections::BTreeSet;

use crate::graph::Graph;
use crate::ingest::fixture_graph as graph;

/// Every reference as "from -kind:line-> to (reason)".
fn references(g: &Graph) -> BTreeSet<String> {
    g.references()
        .iter()
        .filter_map(|r| {
            Some(format!(
                "{} -{}:{}-> {} ({})",
                g.node(r.from)?.stable_id(),
                r.kind.as_str(),
                r.line,
                g.node(r.to)?.stable_id(),
                r.reason.as_str()
            ))
        })
        .collect()
}

fn expect(g: &Graph, expected: &[&str]) {
    let actual = references(g);
    let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:#?}\nextra {extra:#?}"
    );
}

#[test]
fn python_references_by_kind_and_locals_hide_nothing_they_do_not_bind() {
    let g = graph(&[
        (
            "shop/cart.py",
            "class Cart:\n    pass\n\ndef total(items):\n    return 0\n",
        ),
        (
            "shop/order.py",
            "\
from shop.cart import Cart, total
import shop.cart as carts

class Order(Cart):
    def add(self, cart: Cart) -> carts.Cart:
        sorted([], key=total)
        if isinstance(cart, carts.Cart):
            return self.add
        return cart

def other(total):
    return total
",
        ),
    ]);
    expect(
        &g,
        &[
            "File:shop/order.py -import:1-> Class:shop/cart.py:Cart (import-resolved)",
            "File:shop/order.py -import:1-> Function:shop/cart.py:total (import-resolved)",
            "Class:shop/order.py:Order -inherit:4-> Class:shop/cart.py:Cart (heritage)",
            "Method:shop/order.py:Order.add -type:5-> Class:shop/cart.py:Cart (import-resolved)",
            "Method:shop/order.py:Order.add -value:6-> Function:shop/cart.py:total (import-resolved)",
            "Method:shop/order.py:Order.add -value:7-> Class:shop/cart.py:Cart (import-resolved)",
        ],
    );
}

#[test]
fn typescript_rust_go_java_and_c_references() {
    let ts = graph(&[
        (
            "src/cart.ts",
            "export class Cart {}\nexport function rank(a: number) { return a; }\n",
        ),
        (
            "src/use.ts",
            "import { Cart, rank } from './cart';\nexport function f(c: Cart): number[] {\n  return [1].map(rank);\n}\n",
        ),
    ]);
    expect(
        &ts,
        &[
            "File:src/use.ts -import:1-> Class:src/cart.ts:Cart (import-resolved)",
            "File:src/use.ts -import:1-> Function:src/cart.ts:rank (import-resolved)",
            "Function:src/use.ts:f -type:2-> Class:src/cart.ts:Cart (import-resolved)",
            "Function:src/use.ts:f -value:3-> Function:src/cart.ts:rank (import-resolved)",
        ],
    );

    let c = graph(&[
        (
            "lib/cart.h",
            "typedef struct cart { int n; } cart_t;\nint handler(int x);\n",
        ),
        (
            "lib/cart.c",
            "#include \"cart.h\"\nint handler(int x) { return x; }\n",
        ),
        (
            "lib/use.c",
            "#include \"cart.h\"\nstatic int run(cart_t *c) {\n  int handler = 0;\n  return handler;\n}\nint go(void) { return register_cb(handler); }\n",
        ),
    ]);
    let found = references(&c);
    assert!(
        found.contains(
            "Function:lib/use.c:run -type:2-> Struct:lib/cart.h:cart_t (import-resolved)"
        ),
        "{found:#?}"
    );
    assert!(
        found.contains(
            "Function:lib/use.c:go -value:6-> Function:lib/cart.c:handler (unique-global-name)"
        ) || found.contains(
            "Function:lib/use.c:go -value:6-> Function:lib/cart.c:handler (import-resolved)"
        ),
        "{found:#?}"
    );
    assert!(
        !found
            .iter()
            .any(|r| r.starts_with("Function:lib/use.c:run -read:4")),
        "a local named like a function is no reference: {found:#?}"
    );
}
