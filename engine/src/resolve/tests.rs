//! Resolution fixtures: small multi-file repositories per language with the exact CALLS,
//! EXTENDS and IMPORTS edges expected — aliased imports, re-exports, self/this, same names in
//! two files, module aliases, constructors and inheritance.

use std::collections::BTreeSet;

use crate::graph::{EdgeKind, Graph};
use crate::ingest::fixture_graph as graph;

/// Every edge of one kind as (from id, to id, reason).
fn edges(g: &Graph, kind: EdgeKind) -> BTreeSet<(String, String, &'static str)> {
    g.edges()
        .iter()
        .filter(|e| e.kind == kind)
        .filter_map(|e| {
            Some((
                g.node(e.from)?.stable_id(),
                g.node(e.to)?.stable_id(),
                e.reason.as_str(),
            ))
        })
        .collect()
}

fn expect(g: &Graph, kind: EdgeKind, expected: &[(&str, &str, &str)]) {
    let actual = edges(g, kind);
    let expected: BTreeSet<(String, String, &str)> = expected
        .iter()
        .map(|(a, b, r)| (a.to_string(), b.to_string(), *r))
        .collect();
    let missing: Vec<_> = expected
        .difference(
            &actual
                .iter()
                .map(|(a, b, r)| (a.clone(), b.clone(), *r))
                .collect(),
        )
        .cloned()
        .collect();
    let extra: Vec<_> = actual.iter().filter(|e| !expected.contains(*e)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{kind}: missing {missing:#?}\nextra {extra:#?}"
    );
}

#[test]
fn python_imports_reexports_self_and_receivers() {
    let g = graph(&[
        ("shop/__init__.py", "from .cart import Cart\n"),
        (
            "shop/cart.py",
            r#"from .payment import charge as pay_charge, Gateway
from . import util
import shop.tax as tax

class Cart:
    def __init__(self):
        self.gateway = Gateway()

    def add(self, item):
        self.total()

    def total(self):
        return util.helper()

    def checkout(self):
        pay_charge(self.total())
        tax.compute()
        self.gateway.send()

class SpecialCart(Cart):
    def checkout(self):
        super().checkout()
        self.add(1)
"#,
        ),
        (
            "shop/payment.py",
            r#"class Gateway:
    def send(self):
        validate()

def charge(x):
    return validate(x)

def validate(x=None):
    return len([x])
"#,
        ),
        ("shop/util.py", "def helper():\n    return 1\n"),
        ("shop/tax.py", "def compute():\n    return 2\n"),
        (
            "app.py",
            r#"from shop import Cart
from shop.payment import validate

def main():
    c = Cart()
    c.checkout()
    validate()
"#,
        ),
        (
            "other.py",
            "def validate():\n    return 0\n\ndef main2():\n    return validate()\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:shop/cart.py:Cart.__init__",
                "Class:shop/payment.py:Gateway",
                "constructor",
            ),
            (
                "Method:shop/cart.py:Cart.add",
                "Method:shop/cart.py:Cart.total",
                "self-method",
            ),
            (
                "Method:shop/cart.py:Cart.total",
                "Function:shop/util.py:helper",
                "import-resolved",
            ),
            (
                "Method:shop/cart.py:Cart.checkout",
                "Function:shop/payment.py:charge",
                "import-resolved",
            ),
            (
                "Method:shop/cart.py:Cart.checkout",
                "Method:shop/cart.py:Cart.total",
                "self-method",
            ),
            (
                "Method:shop/cart.py:Cart.checkout",
                "Function:shop/tax.py:compute",
                "import-resolved",
            ),
            (
                "Method:shop/cart.py:Cart.checkout",
                "Method:shop/payment.py:Gateway.send",
                "attribute-type",
            ),
            (
                "Method:shop/cart.py:SpecialCart.checkout",
                "Method:shop/cart.py:Cart.checkout",
                "super-method",
            ),
            (
                "Method:shop/cart.py:SpecialCart.checkout",
                "Method:shop/cart.py:Cart.add",
                "self-method",
            ),
            (
                "Method:shop/payment.py:Gateway.send",
                "Function:shop/payment.py:validate",
                "same-file",
            ),
            (
                "Function:shop/payment.py:charge",
                "Function:shop/payment.py:validate",
                "same-file",
            ),
            (
                "Function:app.py:main",
                "Class:shop/cart.py:Cart",
                "constructor",
            ),
            (
                "Function:app.py:main",
                "Method:shop/cart.py:Cart.checkout",
                "receiver-type",
            ),
            (
                "Function:app.py:main",
                "Function:shop/payment.py:validate",
                "import-resolved",
            ),
            (
                "Function:other.py:main2",
                "Function:other.py:validate",
                "same-file",
            ),
        ],
    );
    expect(
        &g,
        EdgeKind::Extends,
        &[(
            "Class:shop/cart.py:SpecialCart",
            "Class:shop/cart.py:Cart",
            "heritage",
        )],
    );
    let imports = edges(&g, EdgeKind::Imports);
    for (from, to) in [
        ("File:shop/__init__.py", "File:shop/cart.py"),
        ("File:shop/cart.py", "File:shop/payment.py"),
        ("File:shop/cart.py", "File:shop/util.py"),
        ("File:shop/cart.py", "File:shop/tax.py"),
        ("File:app.py", "File:shop/__init__.py"),
        ("File:app.py", "File:shop/payment.py"),
    ] {
        assert!(
            imports.contains(&(from.into(), to.into(), "import-resolved")),
            "missing import {from} -> {to}: {imports:#?}"
        );
    }
}

#[test]
fn typescript_named_namespace_star_and_aliased_reexports() {
    let g = graph(&[
        (
            "src/payment.ts",
            r#"export function charge(x: number) { return validate(x); }
function validate(x: number) { return x; }
export class Gateway { send() { return charge(1); } }
"#,
        ),
        (
            "src/index.ts",
            "export { charge as pay } from './payment';\nexport * from './cart';\n",
        ),
        (
            "src/cart.ts",
            r#"import { Gateway } from './payment';
import * as payment from './payment';
export class Cart {
  private gw: Gateway;
  total() { return 1; }
  checkout() { this.total(); this.gw.send(); payment.charge(2); }
}
export class BigCart extends Cart { checkout() { super.checkout(); } }
"#,
        ),
        (
            "src/app.ts",
            "import { Cart, pay } from './index';\nexport function main() { const c = new Cart(); c.checkout(); pay(3); }\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Function:src/payment.ts:charge",
                "Function:src/payment.ts:validate",
                "same-file",
            ),
            (
                "Method:src/payment.ts:Gateway.send",
                "Function:src/payment.ts:charge",
                "same-file",
            ),
            (
                "Method:src/cart.ts:Cart.checkout",
                "Method:src/cart.ts:Cart.total",
                "self-method",
            ),
            (
                "Method:src/cart.ts:Cart.checkout",
                "Method:src/payment.ts:Gateway.send",
                "attribute-type",
            ),
            (
                "Method:src/cart.ts:Cart.checkout",
                "Function:src/payment.ts:charge",
                "import-resolved",
            ),
            (
                "Method:src/cart.ts:BigCart.checkout",
                "Method:src/cart.ts:Cart.checkout",
                "super-method",
            ),
            (
                "Function:src/app.ts:main",
                "Class:src/cart.ts:Cart",
                "constructor",
            ),
            (
                "Function:src/app.ts:main",
                "Method:src/cart.ts:Cart.checkout",
                "receiver-type",
            ),
            (
                "Function:src/app.ts:main",
                "Function:src/payment.ts:charge",
                "import-resolved",
            ),
        ],
    );
    expect(
        &g,
        EdgeKind::Extends,
        &[(
            "Class:src/cart.ts:BigCart",
            "Class:src/cart.ts:Cart",
            "heritage",
        )],
    );
}

#[test]
fn typescript_overloads_and_namespaces_merged_with_their_interface() {
    let g = graph(&[
        (
            "src/disposable.ts",
            r#"export interface Disposable { dispose(): void; }
export namespace Disposable {
  export function create(f: () => void): Disposable { return { dispose: f }; }
  export function is(x: unknown): boolean { return !!x && !!create; }
  export function none(): Disposable { return create(() => {}); }
}
export function toDisposable(f: () => void): Disposable;
export function toDisposable(f: () => void, name: string): Disposable;
export function toDisposable(f: () => void): Disposable { return Disposable.create(f); }
"#,
        ),
        (
            "src/logger.ts",
            r#"export interface ILogger {
  error(message: string): void;
  // The second form takes parameters.
  error(message: string, ...params: unknown[]): void;
}
export class Registry {
  unregister(id: string): void;
  unregister(id: number): void;
  unregister(id: string | number): void { this.forget(); }
  forget() {}
}
"#,
        ),
        (
            "src/app.ts",
            r#"import { Disposable, toDisposable } from './disposable';
import { ILogger, Registry } from './logger';
export class App {
  protected readonly logger: ILogger;
  protected readonly registry: Registry;
  run() {
    this.registry.unregister(1);
    this.logger.error('no');
    toDisposable(() => {});
    return Disposable.is(Disposable.none());
  }
}
"#,
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Function:src/disposable.ts:Disposable.none",
                "Function:src/disposable.ts:Disposable.create",
                "local-scope",
            ),
            (
                "Function:src/disposable.ts:toDisposable",
                "Function:src/disposable.ts:Disposable.create",
                "class-member",
            ),
            (
                "Method:src/logger.ts:Registry.unregister",
                "Method:src/logger.ts:Registry.forget",
                "self-method",
            ),
            (
                "Method:src/app.ts:App.run",
                "Method:src/logger.ts:Registry.unregister",
                "attribute-type",
            ),
            (
                "Method:src/app.ts:App.run",
                "Method:src/logger.ts:ILogger.error",
                "attribute-type",
            ),
            (
                "Method:src/app.ts:App.run",
                "Function:src/disposable.ts:toDisposable",
                "import-resolved",
            ),
            (
                "Method:src/app.ts:App.run",
                "Function:src/disposable.ts:Disposable.is",
                "class-member",
            ),
            (
                "Method:src/app.ts:App.run",
                "Function:src/disposable.ts:Disposable.none",
                "class-member",
            ),
        ],
    );
    // One definition per overloaded name: the implementation, or an interface's last signature.
    let lines: Vec<(String, u32)> = g
        .nodes()
        .filter(|n| matches!(n.name(), "toDisposable" | "unregister" | "error"))
        .map(|n| (n.qualified().to_owned(), n.start_line()))
        .collect();
    assert_eq!(
        lines,
        [
            ("toDisposable".to_owned(), 9),
            ("ILogger.error".to_owned(), 4),
            ("Registry.unregister".to_owned(), 9),
        ]
    );
}

#[test]
fn rust_use_trees_module_paths_and_impl_methods() {
    let g = graph(&[
        ("src/lib.rs", "pub mod payment;\npub mod shop;\n"),
        (
            "src/payment.rs",
            r#"pub struct Gateway;
impl Gateway { pub fn send(&self) { validate(); } }
pub fn charge() { validate(); }
fn validate() {}
"#,
        ),
        ("src/shop/mod.rs", "pub mod cart;\n"),
        (
            "src/shop/cart.rs",
            r#"use crate::payment::{charge, Gateway as Gw};
use super::super::payment;
pub struct Cart { gw: Gw }
impl Cart {
    pub fn new() -> Self { Cart { gw: Gw } }
    pub fn total(&self) -> u32 { 1 }
    pub fn checkout(&self, gw: &Gw) {
        self.total();
        charge();
        gw.send();
        payment::charge();
        let c = Cart::new();
        c.total();
    }
}
"#,
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:src/payment.rs:Gateway.send",
                "Function:src/payment.rs:validate",
                "same-file",
            ),
            (
                "Function:src/payment.rs:charge",
                "Function:src/payment.rs:validate",
                "same-file",
            ),
            (
                "Method:src/shop/cart.rs:Cart.checkout",
                "Method:src/shop/cart.rs:Cart.total",
                "self-method",
            ),
            (
                "Method:src/shop/cart.rs:Cart.checkout",
                "Function:src/payment.rs:charge",
                "import-resolved",
            ),
            (
                "Method:src/shop/cart.rs:Cart.checkout",
                "Method:src/payment.rs:Gateway.send",
                "receiver-type",
            ),
            (
                "Method:src/shop/cart.rs:Cart.checkout",
                "Method:src/shop/cart.rs:Cart.new",
                "class-member",
            ),
        ],
    );
}

#[test]
fn go_packages_receivers_and_same_package_calls() {
    let g = graph(&[
        (
            "shop/payment/payment.go",
            r#"package payment

type Gateway struct{}

func (g *Gateway) Send() { validate() }
func Charge() { validate() }
func validate() {}
"#,
        ),
        (
            "shop/cart/cart.go",
            r#"package cart

import "example.com/shop/payment"

type Cart struct{ gw *payment.Gateway }

func (c *Cart) Total() int { return 1 }
func (c *Cart) Checkout(g *payment.Gateway) {
	c.Total()
	g.Send()
	payment.Charge()
	helper()
}
"#,
        ),
        ("shop/cart/util.go", "package cart\n\nfunc helper() {}\n"),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:shop/payment/payment.go:Gateway.Send",
                "Function:shop/payment/payment.go:validate",
                "same-file",
            ),
            (
                "Function:shop/payment/payment.go:Charge",
                "Function:shop/payment/payment.go:validate",
                "same-file",
            ),
            (
                "Method:shop/cart/cart.go:Cart.Checkout",
                "Method:shop/cart/cart.go:Cart.Total",
                "receiver-type",
            ),
            (
                "Method:shop/cart/cart.go:Cart.Checkout",
                "Method:shop/payment/payment.go:Gateway.Send",
                "receiver-type",
            ),
            (
                "Method:shop/cart/cart.go:Cart.Checkout",
                "Function:shop/payment/payment.go:Charge",
                "import-resolved",
            ),
            (
                "Method:shop/cart/cart.go:Cart.Checkout",
                "Function:shop/cart/util.go:helper",
                "same-file",
            ),
        ],
    );
}

#[test]
fn java_packages_implicit_this_fields_statics_and_super() {
    let g = graph(&[
        (
            "src/com/shop/pay/Gateway.java",
            "package com.shop.pay;\npublic class Gateway { public void send() { validate(); } private void validate() {} }\n",
        ),
        (
            "src/com/shop/Cart.java",
            r#"package com.shop;
import com.shop.pay.Gateway;
public class Cart {
    private Gateway gateway;
    public int total() { return 1; }
    public void checkout(Gateway g) { total(); this.total(); g.send(); gateway.send(); Util.log(); new Gateway(); }
}
"#,
        ),
        (
            "src/com/shop/Util.java",
            "package com.shop;\npublic class Util { public static void log() {} }\n",
        ),
        (
            "src/com/shop/BigCart.java",
            "package com.shop;\npublic class BigCart extends Cart { public void checkout(Gateway g) { super.checkout(g); total(); } }\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:src/com/shop/pay/Gateway.java:Gateway.send",
                "Method:src/com/shop/pay/Gateway.java:Gateway.validate",
                "self-method",
            ),
            (
                "Method:src/com/shop/Cart.java:Cart.checkout",
                "Method:src/com/shop/Cart.java:Cart.total",
                "self-method",
            ),
            (
                "Method:src/com/shop/Cart.java:Cart.checkout",
                "Method:src/com/shop/pay/Gateway.java:Gateway.send",
                "receiver-type",
            ),
            (
                "Method:src/com/shop/Cart.java:Cart.checkout",
                "Method:src/com/shop/Util.java:Util.log",
                "class-member",
            ),
            (
                "Method:src/com/shop/Cart.java:Cart.checkout",
                "Class:src/com/shop/pay/Gateway.java:Gateway",
                "constructor",
            ),
            (
                "Method:src/com/shop/BigCart.java:BigCart.checkout",
                "Method:src/com/shop/Cart.java:Cart.checkout",
                "super-method",
            ),
            (
                "Method:src/com/shop/BigCart.java:BigCart.checkout",
                "Method:src/com/shop/Cart.java:Cart.total",
                "self-method",
            ),
        ],
    );
    expect(
        &g,
        EdgeKind::Extends,
        &[(
            "Class:src/com/shop/BigCart.java:BigCart",
            "Class:src/com/shop/Cart.java:Cart",
            "heritage",
        )],
    );
}

#[test]
fn candidates_narrowed_by_imports_and_attribute_types_from_bases() {
    let g = graph(&[
        (
            "pkg/a.py",
            "class Ledger:\n    def settle(self):\n        pass\n\ndef make():\n    return Ledger()\n",
        ),
        (
            "pkg/b.py",
            "class Till:\n    def settle(self):\n        pass\n",
        ),
        (
            "pkg/c.py",
            "class Purse:\n    def settle(self):\n        pass\n",
        ),
        (
            "pkg/base.py",
            "from .b import Till\n\n\nclass Base:\n    def __init__(self):\n        self.till: Till = Till()\n",
        ),
        (
            "pkg/main.py",
            "from .a import make\nfrom .base import Base\n\n\nclass Shop(Base):\n    def close(self):\n        self.till.settle()\n\n\ndef go(x):\n    x.settle()\n",
        ),
    ]);
    // `x` has no known type; of three `settle` methods only one is in a file `main.py` imports.
    // `self.till` is typed in the base class, in another file.
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Function:pkg/a.py:make",
                "Class:pkg/a.py:Ledger",
                "constructor",
            ),
            (
                "Function:pkg/main.py:go",
                "Method:pkg/a.py:Ledger.settle",
                "imported-candidate",
            ),
            (
                "Method:pkg/base.py:Base.__init__",
                "Class:pkg/b.py:Till",
                "constructor",
            ),
            (
                "Method:pkg/main.py:Shop.close",
                "Method:pkg/b.py:Till.settle",
                "attribute-type",
            ),
        ],
    );
}

#[test]
fn recursion_through_this_and_calls_from_nested_arrow_functions() {
    let g = graph(&[(
        "src/a.ts",
        "export class Svc {\n    schedule(): void {\n        setTimeout(async () => {\n            this.schedule();\n        }, 1);\n    }\n\n    listen(): void {\n        const handle = (e: number) => {\n            this.cancel();\n        };\n        handle(1);\n    }\n\n    cancel(): void {}\n}\n",
    )]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:src/a.ts:Svc.schedule",
                "Method:src/a.ts:Svc.schedule",
                "self-method",
            ),
            (
                "Function:src/a.ts:Svc.listen.handle",
                "Method:src/a.ts:Svc.cancel",
                "self-method",
            ),
            (
                "Method:src/a.ts:Svc.listen",
                "Function:src/a.ts:Svc.listen.handle",
                "local-scope",
            ),
        ],
    );
}

#[test]
fn methods_of_module_level_instances_imported_from_another_file() {
    let g = graph(&[
        (
            "app/signals.py",
            "class Signal:\n    def send(self, sender):\n        pass\n\n\nuser_logged_in = Signal()\n",
        ),
        (
            "app/auth.py",
            "from .signals import user_logged_in as logged_in\n\n\ndef login(user):\n    logged_in.send(sender=user)\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "File:app/signals.py",
                "Class:app/signals.py:Signal",
                "constructor",
            ),
            (
                "Function:app/auth.py:login",
                "Method:app/signals.py:Signal.send",
                "receiver-type",
            ),
        ],
    );
}

#[test]
fn typescript_parameter_properties_and_optional_field_types() {
    let g = graph(&[
        (
            "src/shell.ts",
            "export class Shell {\n    activate(id: string): void {}\n}\nexport class Item {\n    dispose(): void {}\n}\n",
        ),
        (
            "src/view.ts",
            "import { Shell, Item } from './shell';\n\nexport class View {\n    private item: Item | undefined;\n\n    constructor(@inject(Shell) protected readonly shell: Shell) {}\n\n    open(): void {\n        this.shell.activate('x');\n        this.item?.dispose();\n    }\n}\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:src/view.ts:View.open",
                "Method:src/shell.ts:Shell.activate",
                "attribute-type",
            ),
            (
                "Method:src/view.ts:View.open",
                "Method:src/shell.ts:Item.dispose",
                "attribute-type",
            ),
        ],
    );
}

#[test]
fn python_return_types_call_results_super_of_a_base_and_conflicting_bindings() {
    let g = graph(&[
        (
            "app/forms.py",
            "class Form:\n    def is_valid(self):\n        return True\n\n    def clone(self):\n        return self\n\n    def render(self):\n        pass\n\n\nclass Base:\n    def save(self):\n        pass\n\n\nclass Middle(Base):\n    def save(self):\n        super().save()\n\n\nclass Leaf(Middle):\n    def save(self):\n        super(Middle, self).save()\n\n\ndef make_form() -> Form:\n    return build()\n\n\ndef build():\n    return Form()\n",
        ),
        (
            "app/views.py",
            "from .forms import make_form, build, Base, Leaf\n\n\ndef view(flag):\n    form = make_form()\n    form.clone().is_valid()\n    build().render()\n    if flag:\n        x = Base()\n    else:\n        x = Leaf()\n    x.save()\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:app/forms.py:Middle.save",
                "Method:app/forms.py:Base.save",
                "super-method",
            ),
            // `super(Middle, self)` skips Middle's own `save`.
            (
                "Method:app/forms.py:Leaf.save",
                "Method:app/forms.py:Base.save",
                "super-method",
            ),
            (
                "Function:app/forms.py:make_form",
                "Function:app/forms.py:build",
                "same-file",
            ),
            (
                "Function:app/forms.py:build",
                "Class:app/forms.py:Form",
                "constructor",
            ),
            (
                "Function:app/views.py:view",
                "Function:app/forms.py:make_form",
                "import-resolved",
            ),
            (
                "Function:app/views.py:view",
                "Function:app/forms.py:build",
                "import-resolved",
            ),
            // `form` holds what `make_form` is declared to return.
            (
                "Function:app/views.py:view",
                "Method:app/forms.py:Form.clone",
                "receiver-type",
            ),
            // `clone` returns `self`: the receiver's own type.
            (
                "Function:app/views.py:view",
                "Method:app/forms.py:Form.is_valid",
                "return-type",
            ),
            // `build` returns `Form(…)` on its only path.
            (
                "Function:app/views.py:view",
                "Method:app/forms.py:Form.render",
                "return-type",
            ),
            (
                "Function:app/views.py:view",
                "Class:app/forms.py:Base",
                "constructor",
            ),
            (
                "Function:app/views.py:view",
                "Class:app/forms.py:Leaf",
                "constructor",
            ),
            // `x` is a Base in one branch and a Leaf in the other: no type, so candidates.
            (
                "Function:app/views.py:view",
                "Method:app/forms.py:Base.save",
                "ambiguous",
            ),
            (
                "Function:app/views.py:view",
                "Method:app/forms.py:Middle.save",
                "ambiguous",
            ),
            (
                "Function:app/views.py:view",
                "Method:app/forms.py:Leaf.save",
                "ambiguous",
            ),
        ],
    );
}

#[test]
fn typescript_awaited_returns_getters_and_attribute_chains() {
    let g = graph(&[
        (
            "src/uri.ts",
            "export class Path {\n    a(): void {}\n    b(): void {}\n    c(): void {}\n    d(): void {}\n}\nexport class URI {\n    get path(): Path { return new Path(); }\n}\nexport namespace URI {\n    export function is(x: unknown): boolean { return true; }\n}\n",
        ),
        (
            "src/service.ts",
            "import { URI, Path } from './uri';\n\nexport class Service {\n    protected readonly home: URI;\n\n    async load(): Promise<URI> { return this.home; }\n\n    async run(uri: URI): Promise<void> {\n        uri.path.a();\n        this.home.path.b();\n        const loaded = await this.load();\n        loaded.path.c();\n        const p = this.home.path as Path;\n        p.d();\n    }\n}\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:src/uri.ts:URI.path",
                "Class:src/uri.ts:Path",
                "constructor",
            ),
            (
                "Method:src/service.ts:Service.run",
                "Method:src/service.ts:Service.load",
                "self-method",
            ),
            // Through the getter `path` of a parameter (whose type `URI` is also a namespace),
            // of a field, and of an awaited result; a variable cast with `as`.
            (
                "Method:src/service.ts:Service.run",
                "Method:src/uri.ts:Path.a",
                "attribute-type",
            ),
            (
                "Method:src/service.ts:Service.run",
                "Method:src/uri.ts:Path.b",
                "attribute-type",
            ),
            (
                "Method:src/service.ts:Service.run",
                "Method:src/uri.ts:Path.c",
                "attribute-type",
            ),
            (
                "Method:src/service.ts:Service.run",
                "Method:src/uri.ts:Path.d",
                "receiver-type",
            ),
        ],
    );
}

#[test]
fn of_alternative_definitions_the_first_is_meant_and_of_redefinitions_the_last() {
    let mut facts = crate::facts::FileFacts::new("m.py", crate::lang::Lang::Python);
    let def = |name: &str, conditional: bool| crate::facts::Def {
        kind: crate::graph::NodeKind::Function,
        name: name.into(),
        qualified: name.into(),
        parent: None,
        start_line: 1,
        end_line: 1,
        signature: String::new(),
        doc: String::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        exported: true,
        decorators: Vec::new(),
        returns: String::new(),
        returns_variable: String::new(),
        conditional,
    };
    facts.defs = vec![
        def("lock", true),
        def("lock", true),
        def("f", false),
        def("f", false),
    ];
    assert_eq!(facts.visible_definition(&[0, 1]), Some(0));
    assert_eq!(facts.visible_definition(&[2, 3]), Some(3));
    assert_eq!(facts.visible_definition(&[]), None);
}

#[test]
fn typescript_elements_of_typed_collections() {
    let g = graph(&[(
        "src/box.ts",
        "export class Item {\n    run(): void {}\n    stop(): void {}\n    halt(): void {}\n}\nexport class Box {\n    items: Item[] = [];\n    all(): Array<Item> { return this.items; }\n    go(list: ReadonlyArray<Item>): void {\n        for (const it of list) { it.run(); }\n        this.items.forEach(x => x.stop());\n        for (const y of this.all()) { y.halt(); }\n    }\n}\n",
    )]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Method:src/box.ts:Box.go",
                "Method:src/box.ts:Box.all",
                "self-method",
            ),
            (
                "Method:src/box.ts:Box.go",
                "Method:src/box.ts:Item.run",
                "receiver-type",
            ),
            (
                "Method:src/box.ts:Box.go",
                "Method:src/box.ts:Item.stop",
                "receiver-type",
            ),
            (
                "Method:src/box.ts:Box.go",
                "Method:src/box.ts:Item.halt",
                "receiver-type",
            ),
        ],
    );
}

#[test]
fn python_returned_variables_given_or_default_and_module_level_instances() {
    let g = graph(&[
        (
            "app/query.py",
            "class QuerySet:\n    def _clone(self):\n        c = self.__class__()\n        return c\n\n    def filter(self):\n        clone = self._clone()\n        return clone\n\n    def exists(self):\n        pass\n",
        ),
        (
            "app/output.py",
            "class Output:\n    def write(self, text):\n        pass\n",
        ),
        (
            "app/signals.py",
            "class Signal:\n    def send(self):\n        pass\n\n\nrequest_started = Signal()\n",
        ),
        (
            "app/views.py",
            "from app import signals\nfrom .output import Output\n\n\nclass View:\n    def __init__(self, out=None):\n        self.out = out or Output()\n\n    def run(self, qs):\n        self.out.write('x')\n        signals.request_started.send()\n\n\ndef check(qs):\n    from .query import QuerySet\n    q = QuerySet()\n    q.filter().exists()\n",
        ),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    for (from, to, reason) in [
        // `self.out = out or Output()`.
        (
            "Method:app/views.py:View.run",
            "Method:app/output.py:Output.write",
            "attribute-type",
        ),
        // A module's top-level instance reached through the module.
        (
            "Method:app/views.py:View.run",
            "Method:app/signals.py:Signal.send",
            "attribute-type",
        ),
        // `filter` returns `clone`, which `_clone` built as `self.__class__()`.
        (
            "Function:app/views.py:check",
            "Method:app/query.py:QuerySet.exists",
            "return-type",
        ),
    ] {
        assert!(
            calls.contains(&(from.to_owned(), to.to_owned(), reason)),
            "missing {from} → {to} ({reason}) in {calls:#?}"
        );
    }
}

#[test]
fn a_bare_call_in_a_method_is_not_a_call_of_the_method_of_that_name() {
    let g = graph(&[
        (
            "src/pin.ts",
            "export function togglePinned(x: number): void {}\n",
        ),
        (
            "src/view.ts",
            "import { togglePinned } from './pin';\n\nexport class View {\n    togglePinned(x: number): void {\n        togglePinned(x);\n    }\n}\n",
        ),
    ]);
    expect(
        &g,
        EdgeKind::Calls,
        &[(
            "Method:src/view.ts:View.togglePinned",
            "Function:src/pin.ts:togglePinned",
            "import-resolved",
        )],
    );
}

#[test]
fn python_class_attributes_holding_classes_and_instances() {
    let g = graph(&[(
        "app/admin.py",
        "class Form:\n    def is_valid(self):\n        pass\n\n\nclass Manager:\n    def all(self):\n        pass\n\n\nclass Admin:\n    form_class = Form\n    objects = Manager()\n\n    def run(self):\n        form = self.form_class()\n        form.is_valid()\n        self.objects.all()\n",
    )]);
    expect(
        &g,
        EdgeKind::Calls,
        &[
            (
                "Class:app/admin.py:Admin",
                "Class:app/admin.py:Manager",
                "constructor",
            ),
            // The attribute holds a class: calling it constructs one.
            (
                "Method:app/admin.py:Admin.run",
                "Class:app/admin.py:Form",
                "constructor",
            ),
            (
                "Method:app/admin.py:Admin.run",
                "Method:app/admin.py:Form.is_valid",
                "receiver-type",
            ),
            // A class-level instance is an attribute of every instance.
            (
                "Method:app/admin.py:Admin.run",
                "Method:app/admin.py:Manager.all",
                "attribute-type",
            ),
        ],
    );
}

#[test]
fn rust_field_types_builder_chains_and_call_results() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod handle;\npub mod runtime;\npub mod other;\n",
        ),
        (
            "src/handle.rs",
            r#"pub struct Handle;
impl Handle {
    pub fn spawn_inner(&self) {}
    pub fn block_on(&self) {}
}
"#,
        ),
        (
            "src/other.rs",
            r#"pub struct Other;
impl Other {
    pub fn spawn_inner(&self) {}
    pub fn block_on(&self) {}
}
"#,
        ),
        (
            "src/runtime.rs",
            r#"use std::sync::Arc;
use crate::handle::Handle;
pub struct Runtime { handle: Arc<Handle> }
pub struct Builder { workers: usize }
impl Builder {
    pub fn new() -> Builder { Builder { workers: 1 } }
    pub fn workers(&mut self, n: usize) -> &mut Self { self.workers = n; self }
    pub fn build(&mut self) -> Runtime { todo() }
}
impl Runtime {
    pub fn spawn(&self) { self.handle.spawn_inner(); }
    pub fn handle(&self) -> &Handle { &self.handle }
}
pub fn main() {
    let rt = Builder::new().workers(2).build();
    rt.spawn();
    rt.handle().block_on();
}
"#,
        ),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    for expected in [
        (
            "Method:src/runtime.rs:Runtime.spawn",
            "Method:src/handle.rs:Handle.spawn_inner",
            "attribute-type",
        ),
        (
            "Function:src/runtime.rs:main",
            "Method:src/runtime.rs:Builder.workers",
            "return-type",
        ),
        (
            "Function:src/runtime.rs:main",
            "Method:src/runtime.rs:Builder.build",
            "return-type",
        ),
        (
            "Function:src/runtime.rs:main",
            "Method:src/runtime.rs:Runtime.spawn",
            "receiver-type",
        ),
        (
            "Function:src/runtime.rs:main",
            "Method:src/handle.rs:Handle.block_on",
            "return-type",
        ),
    ] {
        let (a, b, r) = expected;
        assert!(
            calls.contains(&(a.to_owned(), b.to_owned(), r)),
            "missing {expected:?} in {calls:#?}"
        );
    }
    assert!(
        !calls
            .iter()
            .any(|(_, to, _)| to.starts_with("Method:src/other.rs")),
        "{calls:#?}"
    );
}

#[test]
fn rust_code_for_tests_only_never_wins_over_the_real_code() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod sync;\npub mod time;\npub mod driver;\n#[cfg(test)]\nmod tests;\n",
        ),
        (
            "src/sync/mod.rs",
            r#"#[cfg(all(test, mocked))]
mod mocked;
#[cfg(all(test, mocked))]
pub use self::mocked::*;
#[cfg(not(all(test, mocked)))]
mod real;
#[cfg(not(all(test, mocked)))]
pub use self::real::*;
"#,
        ),
        ("src/sync/mocked.rs", "pub fn lock() {}\n"),
        ("src/sync/real.rs", "pub fn lock() {}\n"),
        (
            "src/time.rs",
            r#"#[cfg(not(test))]
pub fn now() -> u32 { 1 }
#[cfg(test)]
pub fn now() -> u32 { 2 }
pub fn elapsed() -> u32 { now() }
"#,
        ),
        (
            "src/driver.rs",
            r#"use crate::sync::lock;
pub struct Real;
impl Real { pub fn poll_ready(&self) {} }
pub fn drive(x: Unknown) {
    lock();
    x.poll_ready();
}
"#,
        ),
        (
            "src/tests.rs",
            "pub struct Fake;\nimpl Fake { pub fn poll_ready(&self) {} }\n",
        ),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    let to = |from: &str| -> Vec<(String, &str)> {
        calls
            .iter()
            .filter(|(a, _, _)| a == from)
            .map(|(_, b, r)| (b.clone(), *r))
            .collect()
    };
    // Of the two `now`s, the one at line 2 (`#[cfg(not(test))]`).
    let now_lines: Vec<u32> = g
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls)
        .filter(|e| {
            g.node(e.from)
                .is_some_and(|n| n.stable_id() == "Function:src/time.rs:elapsed")
        })
        .filter_map(|e| g.node(e.to).map(|n| n.start_line()))
        .collect();
    assert_eq!(now_lines, [2]);
    assert_eq!(
        to("Function:src/driver.rs:drive"),
        [
            (
                "Function:src/sync/real.rs:lock".to_owned(),
                "import-resolved"
            ),
            (
                "Method:src/driver.rs:Real.poll_ready".to_owned(),
                "unique-global-name"
            ),
        ]
    );
}

#[test]
fn python_attributes_typed_by_parameters_class_annotations_and_calls_in_any_method() {
    let g = graph(&[
        (
            "app/builders.py",
            "class Builder:\n    def init(self):\n        pass\n\nclass Info:\n    def dump(self):\n        pass\n\nclass Env:\n    def find(self):\n        pass\n",
        ),
        (
            "app/other.py",
            "class Other:\n    def init(self):\n        pass\n    def dump(self):\n        pass\n    def find(self):\n        pass\n    def setup(self):\n        pass\n",
        ),
        (
            "app/main.py",
            r#"from app.builders import Builder, Info, Env

class Registry:
    def setup(self):
        pass

class App:
    registry: Registry

    def __init__(self, env: Env):
        self.env = env

    def create_builder(self) -> Builder:
        return Builder()

    def create_info(self):
        return Info()

    def prepare(self):
        self.builder = self.create_builder()
        self.info = self.create_info()

    def run(self):
        self.builder.init()
        self.info.dump()
        self.env.find()
        self.registry.setup()
"#,
        ),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    let from_run: BTreeSet<(&str, &str)> = calls
        .iter()
        .filter(|(a, _, _)| a == "Method:app/main.py:App.run")
        .map(|(_, b, r)| (b.as_str(), *r))
        .collect();
    assert_eq!(
        from_run,
        BTreeSet::from([
            ("Method:app/builders.py:Builder.init", "attribute-type"),
            ("Method:app/builders.py:Info.dump", "attribute-type"),
            ("Method:app/builders.py:Env.find", "attribute-type"),
            ("Method:app/main.py:Registry.setup", "attribute-type"),
        ])
    );
}

#[test]
fn rust_stand_ins_for_features_turned_off_give_way_even_through_macros() {
    let g = graph(&[
        (
            "src/lib.rs",
            "#[macro_use]\nmod macros;\npub mod blocking;\npub mod pool;\npub mod user;\n",
        ),
        (
            "src/macros.rs",
            r#"macro_rules! cfg_off {
    ($($item:item)*) => { $( #[cfg(not(feature = "rt"))] $item )* }
}
macro_rules! cfg_on {
    ($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* }
}
"#,
        ),
        (
            "src/blocking.rs",
            "cfg_on! {\n    pub use crate::pool::spawn_blocking;\n}\ncfg_off! {\n    pub fn spawn_blocking() {}\n}\n",
        ),
        ("src/pool.rs", "pub fn spawn_blocking() {}\n"),
        (
            "src/user.rs",
            r#"use crate::blocking::spawn_blocking;
#[cfg(not(feature = "fast"))]
fn pick() {}
#[cfg(feature = "fast")]
fn pick() {}
pub fn run() {
    spawn_blocking();
    pick();
}
"#,
        ),
    ]);
    let targets: Vec<(String, u32)> = g
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls)
        .filter(|e| {
            g.node(e.from)
                .is_some_and(|n| n.stable_id() == "Function:src/user.rs:run")
        })
        .filter_map(|e| g.node(e.to).map(|n| (n.stable_id(), n.start_line())))
        .collect();
    assert_eq!(targets.len(), 2, "{targets:?}");
    assert!(targets.contains(&("Function:src/pool.rs:spawn_blocking".to_owned(), 1)));
    assert!(targets.contains(&("Function:src/user.rs:pick".to_owned(), 5)));
}

/// Every CALLS edge from `from` as (target id, target's first line, confidence, reason).
/// The calls tools follow (confidence ≥ 0.5) from `from`: (callee, confidence, reason).
fn sure_calls_from(g: &Graph, from: &str) -> Vec<(String, f32, &'static str)> {
    calls_from(g, from)
        .into_iter()
        .filter(|c| c.2 >= 0.5)
        .map(|c| (c.0, c.2, c.3))
        .collect()
}

fn calls_from(g: &Graph, from: &str) -> Vec<(String, u32, f32, &'static str)> {
    let mut out: Vec<(String, u32, f32, &'static str)> = g
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls)
        .filter(|e| g.node(e.from).is_some_and(|n| n.stable_id() == from))
        .filter_map(|e| {
            let to = g.node(e.to)?;
            Some((
                to.stable_id(),
                to.start_line(),
                e.confidence,
                e.reason.as_str(),
            ))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn rust_methods_of_an_impl_in_another_file_join_their_type() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod handle;\npub mod worker;\npub mod alt;\n",
        ),
        (
            "src/handle.rs",
            "pub struct Handle { n: u32 }\nimpl Handle {\n    pub fn spawn(&self) { self.schedule(); }\n}\n",
        ),
        (
            "src/worker.rs",
            r#"use crate::handle::Handle;
impl Handle {
    pub(crate) fn schedule(&self) { self.notify(); }
    fn notify(&self) {}
}
pub fn run(h: &Handle) { h.schedule(); }
"#,
        ),
        (
            "src/alt.rs",
            "pub struct Alt;\nimpl Alt {\n    fn schedule(&self) {}\n    fn notify(&self) {}\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/handle.rs:Handle.spawn"),
        [(
            "Method:src/worker.rs:Handle.schedule".to_owned(),
            3,
            0.98,
            "self-method"
        )]
    );
    assert_eq!(
        calls_from(&g, "Method:src/worker.rs:Handle.schedule"),
        [(
            "Method:src/worker.rs:Handle.notify".to_owned(),
            4,
            0.98,
            "self-method"
        )]
    );
    assert_eq!(
        calls_from(&g, "Function:src/worker.rs:run"),
        [(
            "Method:src/worker.rs:Handle.schedule".to_owned(),
            3,
            0.97,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_cfg_alternatives_are_chosen_as_a_type_checker_configures_the_crate() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod sync;\npub mod metrics;\npub mod user;\n",
        ),
        (
            "src/sync/mod.rs",
            r#"mod mutex;
#[cfg(all(feature = "fast", not(miri)))]
mod fast;
#[cfg(all(feature = "fast", not(miri)))]
pub use self::fast::{Condvar, Mutex};
#[cfg(not(all(feature = "fast", not(miri))))]
pub use std::sync::Condvar;
#[cfg(not(all(feature = "fast", not(miri))))]
pub use self::mutex::Mutex;
"#,
        ),
        (
            "src/sync/mutex.rs",
            "pub struct Mutex;\nimpl Mutex {\n    pub fn new() -> Mutex { Mutex }\n    pub fn lock(&self) {}\n}\n",
        ),
        (
            "src/sync/fast.rs",
            "pub struct Mutex;\nimpl Mutex {\n    pub fn new() -> Mutex { Mutex }\n    pub fn lock(&self) {}\n}\npub struct Condvar;\nimpl Condvar { pub fn new() -> Condvar { Condvar } }\n",
        ),
        (
            "src/metrics.rs",
            "#[cfg(custom_unstable)]\npub fn record() {}\n#[cfg(not(custom_unstable))]\npub fn record() {}\n",
        ),
        (
            "src/user.rs",
            r#"use crate::sync::{Condvar, Mutex};
use crate::metrics::record;
pub fn go() {
    let m = Mutex::new();
    m.lock();
    Condvar::new();
    record();
}
"#,
        ),
    ]);
    // The custom flag is off and `miri` on (rust-analyzer's default): `mutex.rs` and the
    // second `record`; `Condvar` is std's, so `Condvar::new()` is no project call.
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:go"),
        [
            (
                "Function:src/metrics.rs:record".to_owned(),
                4,
                0.97,
                "import-resolved"
            ),
            (
                "Method:src/sync/mutex.rs:Mutex.lock".to_owned(),
                4,
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/sync/mutex.rs:Mutex.new".to_owned(),
                3,
                0.97,
                "class-member"
            ),
        ]
    );
}

#[test]
fn rust_paths_through_used_modules_inline_modules_and_outside_names() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod coop;\npub mod context;\npub mod cell;\npub(crate) mod trace {\n    pub(crate) fn leaf() {}\n}\n",
        ),
        ("src/context.rs", "pub fn budget() {}\n"),
        (
            "src/cell.rs",
            "pub struct UnsafeCell;\nimpl UnsafeCell { pub fn new() -> UnsafeCell { UnsafeCell } }\n",
        ),
        (
            "src/coop.rs",
            r#"use crate::context;
use std::cell::UnsafeCell;
pub fn budget() { context::budget(); }
pub fn make() {
    UnsafeCell::new();
    std::cell::Cell::new();
    crate::trace::leaf();
}
"#,
        ),
    ]);
    // `context::budget` is the module's, not the caller's own `budget`.
    assert_eq!(
        calls_from(&g, "Function:src/coop.rs:budget"),
        [(
            "Function:src/context.rs:budget".to_owned(),
            1,
            0.97,
            "import-resolved"
        )]
    );
    // std's `UnsafeCell` is not the project's; `trace` is an inline module of the crate root.
    assert_eq!(
        calls_from(&g, "Function:src/coop.rs:make"),
        [(
            "Function:src/lib.rs:trace.leaf".to_owned(),
            5,
            0.97,
            "import-resolved"
        )]
    );
}

#[test]
fn rust_method_candidates_near_the_caller_stay_below_the_followed_confidence() {
    let g = graph(&[
        ("src/lib.rs", "pub mod interval;\npub mod sleep;\n"),
        (
            "src/interval.rs",
            "pub struct Interval;\nimpl Interval {\n    pub fn reset(&self) {}\n    pub fn tick(&self, d: Unknown) { d.reset(); }\n}\n",
        ),
        (
            "src/sleep.rs",
            "pub struct Sleep;\nimpl Sleep { pub fn reset(&self) {} }\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/interval.rs:Interval.tick"),
        [(
            "Method:src/interval.rs:Interval.reset".to_owned(),
            3,
            0.48,
            "imported-candidate"
        )]
    );
}

#[test]
fn rust_tuple_fields_wrapped_values_and_generic_parameters_bound_by_one_trait() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod io;\npub mod split;\npub mod other;\n",
        ),
        (
            "src/io.rs",
            "pub trait AsyncRead { fn poll_read(&mut self); }\npub struct Stream;\nimpl Stream {\n    pub fn try_read(&self) {}\n    pub fn poll_write(&self) {}\n}\n",
        ),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    fn poll_read(&mut self) {}\n    fn try_read(&self) {}\n    fn poll_write(&self) {}\n}\n",
        ),
        (
            "src/split.rs",
            r#"use std::pin::Pin;
use crate::io::{AsyncRead, Stream};
pub struct ReadHalf<'a>(&'a Stream);
impl ReadHalf<'_> {
    pub fn try_read(&self) { self.0.try_read(); }
}
pub struct Writer { io: Stream }
impl Writer {
    pub fn poll_write(&mut self) { Pin::new(&mut self.io).poll_write(); }
}
pub fn copy<R: AsyncRead + ?Sized + Unpin>(reader: Pin<&mut R>) { reader.poll_read(); }
pub fn fill<W>(w: &mut W) where W: AsyncRead { w.poll_read(); }
pub fn drain(r: impl AsyncRead + Send) { r.poll_read(); }
"#,
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/split.rs:ReadHalf.try_read"),
        [(
            "Method:src/io.rs:Stream.try_read".to_owned(),
            4,
            0.95,
            "attribute-type"
        )]
    );
    assert_eq!(
        calls_from(&g, "Method:src/split.rs:Writer.poll_write"),
        [(
            "Method:src/io.rs:Stream.poll_write".to_owned(),
            5,
            0.95,
            "attribute-type"
        )]
    );
    for caller in ["copy", "fill", "drain"] {
        assert_eq!(
            calls_from(&g, &format!("Function:src/split.rs:{caller}")),
            [(
                "Method:src/io.rs:AsyncRead.poll_read".to_owned(),
                1,
                0.97,
                "receiver-type"
            )],
            "{caller}"
        );
    }
}

#[test]
fn rust_private_uses_seen_by_descendants_and_turbofish_paths() {
    let g = graph(&[
        ("src/lib.rs", "pub mod sched;\n"),
        (
            "src/sched/mod.rs",
            "mod defer;\nuse defer::Defer;\npub mod worker;\n",
        ),
        (
            "src/sched/defer.rs",
            "pub struct Defer;\nimpl Defer { pub fn new() -> Defer { Defer } }\npub struct Cell<T>(T);\nimpl<T> Cell<T> { pub fn from_raw(t: T) -> Cell<T> { Cell(t) } }\n",
        ),
        (
            "src/sched/worker.rs",
            "use crate::sched::Defer;\nuse super::defer::Cell;\npub fn run() {\n    Defer::new();\n    Cell::<u8>::from_raw(1);\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Function:src/sched/worker.rs:run"),
        [
            (
                "Method:src/sched/defer.rs:Cell.from_raw".to_owned(),
                4,
                0.97,
                "class-member"
            ),
            (
                "Method:src/sched/defer.rs:Defer.new".to_owned(),
                2,
                0.97,
                "class-member"
            ),
        ]
    );
}

#[test]
fn rust_results_and_options_unwrapped_by_question_mark_unwrap_and_expect() {
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod other;\n"),
        (
            "src/io.rs",
            r#"pub struct Registration;
impl Registration {
    pub fn new() -> std::io::Result<Registration> { todo() }
    pub fn find() -> Option<Registration> { None }
    pub fn poll_ready(&self) {}
    pub fn clear(&self) {}
    pub fn close(&self) {}
}
pub fn setup() -> std::io::Result<()> {
    Registration::new()?.poll_ready();
    let r = Registration::new()?;
    r.clear();
    Registration::find().unwrap().poll_ready();
    Registration::find().expect("one").close();
    Ok(())
}
"#,
        ),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn poll_ready(&self) {}\n    pub fn clear(&self) {}\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Function:src/io.rs:setup"),
        [
            (
                "Method:src/io.rs:Registration.clear".to_owned(),
                6,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Registration.close".to_owned(),
                7,
                0.95,
                "return-type"
            ),
            (
                "Method:src/io.rs:Registration.find".to_owned(),
                4,
                0.97,
                "class-member"
            ),
            (
                "Method:src/io.rs:Registration.new".to_owned(),
                3,
                0.97,
                "class-member"
            ),
            (
                "Method:src/io.rs:Registration.poll_ready".to_owned(),
                5,
                0.95,
                "return-type"
            ),
        ]
    );
}

#[test]
fn rust_as_mut_as_ref_and_clone_keep_their_receivers_type() {
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod other;\n"),
        (
            "src/io.rs",
            r#"use std::pin::Pin;
pub struct Writer;
impl Writer {
    pub fn poll_write(&mut self) {}
    pub fn poll_flush(self: Pin<&mut Self>) {}
    pub fn flush_all(mut self: Pin<&mut Self>) { self.as_mut().poll_flush(); }
}
pub fn copy(w: Pin<&mut Writer>, v: &Writer) {
    w.as_mut().poll_write();
    v.clone().poll_flush();
}
"#,
        ),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn poll_write(&mut self) {}\n    pub fn poll_flush(&self) {}\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/io.rs:Writer.flush_all"),
        [(
            "Method:src/io.rs:Writer.poll_flush".to_owned(),
            5,
            0.95,
            "return-type"
        )]
    );
    assert_eq!(
        calls_from(&g, "Function:src/io.rs:copy"),
        [
            (
                "Method:src/io.rs:Writer.poll_flush".to_owned(),
                5,
                0.95,
                "return-type"
            ),
            (
                "Method:src/io.rs:Writer.poll_write".to_owned(),
                4,
                0.95,
                "return-type"
            ),
        ]
    );
}

#[test]
fn rust_modules_bound_by_use_cfg_blocks_and_modules_of_stand_in_macros() {
    let g = graph(&[
        (
            "src/lib.rs",
            "macro_rules! cfg_custom { ($($i:item)*) => { $( #[cfg(custom_flag)] $i )* } }\npub mod net;\npub mod util;\npub mod sched;\n",
        ),
        ("src/net/mod.rs", "mod addr;\npub mod lookup;\n"),
        ("src/net/addr.rs", "pub(crate) fn to_socket_addrs() {}\n"),
        (
            "src/net/lookup.rs",
            "use crate::net::addr::{self};\nuse crate::util::memchr;\npub fn lookup() {\n    addr::to_socket_addrs();\n    memchr::memchr();\n    variant::now();\n}\n#[cfg(not(feature = \"test-util\"))]\nmod variant { pub(super) fn now() {} }\n#[cfg(feature = \"test-util\")]\nmod variant { pub(super) fn now() {} }\n",
        ),
        ("src/util/mod.rs", "pub(crate) mod memchr;\n"),
        ("src/util/memchr.rs", "pub(crate) fn memchr() {}\n"),
        (
            "src/sched/mod.rs",
            "cfg_custom! {\n    pub(crate) mod alt;\n}\npub(crate) mod worker;\npub fn block() {\n    #[cfg(custom_flag)]\n    {\n        alt::block_in_place();\n    }\n    worker::block_in_place();\n}\n",
        ),
        (
            "src/sched/alt.rs",
            "pub(crate) fn block_in_place() {}\npub(crate) fn shutdown_core() {}\n",
        ),
        (
            "src/sched/worker.rs",
            "pub(crate) fn block_in_place() {}\npub(crate) fn shutdown_core() {}\npub fn stop() { shutdown_core(); }\n",
        ),
    ]);
    // `variant` is the real alternative of the two inline modules (every feature on: line 11).
    assert_eq!(
        calls_from(&g, "Function:src/net/lookup.rs:lookup"),
        [
            (
                "Function:src/net/addr.rs:to_socket_addrs".to_owned(),
                1,
                0.97,
                "import-resolved"
            ),
            (
                "Function:src/net/lookup.rs:variant.now".to_owned(),
                11,
                0.97,
                "import-resolved"
            ),
            (
                "Function:src/util/memchr.rs:memchr".to_owned(),
                1,
                0.97,
                "import-resolved"
            ),
        ]
    );
    // The call under `#[cfg(custom_flag)]` is not compiled; `alt.rs` is declared only there.
    assert_eq!(
        calls_from(&g, "Function:src/sched/mod.rs:block"),
        [(
            "Function:src/sched/worker.rs:block_in_place".to_owned(),
            1,
            0.97,
            "import-resolved"
        )]
    );
    assert_eq!(
        calls_from(&g, "Function:src/sched/worker.rs:stop"),
        [(
            "Function:src/sched/worker.rs:shutdown_core".to_owned(),
            2,
            0.97,
            "same-file"
        )]
    );
}

/// The io.rs of the fixtures below: `Registration::find` returns an `Option<Registration>`,
/// `Registration::open` a `Result<Registration, _>`, `Token::next` an `Option<Token>`; `Other`
/// has methods of the same names.
const PATTERN_TYPES: &str = r#"pub struct Registration;
impl Registration {
    pub fn find() -> Option<Registration> { None }
    pub fn open() -> std::io::Result<Registration> { todo() }
    pub fn poll_ready(&self) {}
    pub fn clear(&self) {}
    pub fn close(&self) {}
    pub fn shutdown(&self) {}
}
pub struct Token;
impl Token {
    pub fn next() -> Option<Token> { None }
    pub fn clear(&self) {}
}
"#;

#[test]
fn rust_variables_bound_by_some_and_ok_patterns_hold_the_unwrapped_type() {
    let user = r#"use crate::io::{Registration, Token};
pub fn setup() -> Option<()> {
    if let Some(r) = Registration::find() {
        r.poll_ready();
    }
    while let Ok(o) = Registration::open() {
        o.clear();
    }
    let Some(e) = Registration::find() else { return None };
    e.close();
    match Registration::find() {
        Some(m) => m.shutdown(),
        None => {}
    }
    None
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod other;\npub mod user;\n"),
        ("src/io.rs", PATTERN_TYPES),
        ("src/user.rs", user),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn poll_ready(&self) {}\n    pub fn clear(&self) {}\n    pub fn close(&self) {}\n    pub fn shutdown(&self) {}\n}\n",
        ),
    ]);
    let calls = calls_from(&g, "Function:src/user.rs:setup");
    for (method, line) in [
        ("poll_ready", 5),
        ("clear", 6),
        ("close", 7),
        ("shutdown", 8),
    ] {
        let expected = (
            format!("Method:src/io.rs:Registration.{method}"),
            line,
            0.95,
            "receiver-type",
        );
        assert!(calls.contains(&expected), "{expected:?} in {calls:?}");
    }
}

#[test]
fn rust_a_name_bound_twice_in_one_function_has_each_type_where_it_holds() {
    let user = r#"use crate::io::{Registration, Token};
pub enum Either { A(Registration), B(Token) }
pub fn setup() {
    if let Some(x) = Registration::find() {
        x.clear();
    }
    let x = Token {};
    x.clear();
}
pub fn same_line(e: Either) {
    match e { Either::A(v) => v.clear(), Either::B(v) => v.clear() }
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod user;\n"),
        ("src/io.rs", PATTERN_TYPES),
        ("src/user.rs", user),
    ]);
    let typed = |from: &str| -> Vec<_> {
        calls_from(&g, from)
            .into_iter()
            .filter(|(_, _, _, reason)| *reason == "receiver-type")
            .collect()
    };
    assert_eq!(
        typed("Function:src/user.rs:setup"),
        [
            (
                "Method:src/io.rs:Registration.clear".to_owned(),
                6,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Token.clear".to_owned(),
                13,
                0.97,
                "receiver-type"
            ),
        ]
    );
    // Two arms on one line: the name has no one type there.
    assert_eq!(typed("Function:src/user.rs:same_line"), []);
}

#[test]
fn rust_enum_variant_patterns_bind_the_variants_field_types() {
    let user = r#"use crate::io::{Registration, Token};
pub enum Either { Reg(Box<Registration>), Tok(Token), Named { reg: Registration, tok: Token } }
impl Either {
    pub fn poll(&self) {
        match self {
            Self::Reg(ref r) => r.poll_ready(),
            Either::Named { reg, tok: t, .. } => { reg.close(); t.clear() }
            _ => {}
        }
    }
    pub fn shut(&self) {
        if let Either::Tok(u) = self {
            u.clear();
        }
    }
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod other;\npub mod user;\n"),
        ("src/io.rs", PATTERN_TYPES),
        ("src/user.rs", user),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn poll_ready(&self) {}\n    pub fn clear(&self) {}\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Either.poll"),
        [
            (
                "Method:src/io.rs:Registration.close".to_owned(),
                7,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Registration.poll_ready".to_owned(),
                5,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Token.clear".to_owned(),
                13,
                0.95,
                "receiver-type"
            ),
        ]
    );
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Either.shut"),
        [(
            "Method:src/io.rs:Token.clear".to_owned(),
            13,
            0.95,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_uses_inside_inline_modules_are_relative_to_the_inline_module() {
    let g = graph(&[
        ("src/lib.rs", "pub mod shim;\npub mod user;\n"),
        ("src/shim/mod.rs", "mod imp;\npub use self::imp::*;\n"),
        (
            "src/shim/imp/mod.rs",
            "mod cell_impl;\npub mod cell {\n    pub use super::cell_impl::Cell;\n}\n",
        ),
        (
            "src/shim/imp/cell_impl.rs",
            "pub struct Cell;\nimpl Cell {\n    pub fn new() -> Cell { Cell }\n    pub fn with(&self) {}\n}\n",
        ),
        (
            "src/shim/cell_impl.rs",
            "pub struct Cell;\nimpl Cell {\n    pub fn new() -> Cell { Cell }\n    pub fn with(&self) {}\n}\n",
        ),
        (
            "src/user.rs",
            r#"use crate::shim::cell::Cell;
pub struct Holder { c: Cell }
impl Holder {
    pub fn make() -> Holder { Holder { c: Cell::new() } }
    pub fn go(&self) { self.c.with(); }
}
"#,
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Holder.make"),
        [(
            "Method:src/shim/imp/cell_impl.rs:Cell.new".to_owned(),
            3,
            0.97,
            "class-member"
        )]
    );
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Holder.go"),
        [(
            "Method:src/shim/imp/cell_impl.rs:Cell.with".to_owned(),
            4,
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn rust_mut_ref_and_reference_patterns_bind_their_name() {
    let user = r#"use crate::io::{Registration, Token};
pub enum Slot { Busy(Registration), Idle(Token) }
pub fn setup(mut given: Token, slot: &mut Slot) {
    given.clear();
    let mut made = Registration { };
    made.close();
    if let Some(mut found) = Registration::find() {
        found.poll_ready();
    }
    match slot {
        Slot::Busy(ref mut busy) => busy.shutdown(),
        Slot::Idle(_) => {}
    }
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod other;\npub mod user;\n"),
        ("src/io.rs", PATTERN_TYPES),
        ("src/user.rs", user),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn poll_ready(&self) {}\n    pub fn clear(&self) {}\n    pub fn close(&self) {}\n    pub fn shutdown(&self) {}\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:setup"),
        [
            (
                "Method:src/io.rs:Registration.close".to_owned(),
                7,
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Registration.find".to_owned(),
                3,
                0.97,
                "class-member"
            ),
            (
                "Method:src/io.rs:Registration.poll_ready".to_owned(),
                5,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Registration.shutdown".to_owned(),
                8,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/io.rs:Token.clear".to_owned(),
                13,
                0.97,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn rust_type_parameters_stand_for_their_one_trait_bound_in_parameters_and_fields() {
    let io = r#"pub trait Read { fn poll_read(&self); }
pub struct Plain;
impl Plain { pub fn poll_read(&self) {} }
pub struct T;
impl T { pub fn poll_read(&self) {} }
"#;
    let user = r#"use crate::io::Read;
pub struct Reader<R> { inner: R }
impl<R: Read + Unpin> Reader<R> {
    pub fn go(&self) { self.inner.poll_read(); }
    pub fn take(&self, other: R) { other.poll_read(); }
}
pub fn free<U>(x: U) where U: Read { x.poll_read(); }
pub fn none<T>(x: T) { x.poll_read(); }
pub struct Bound<S: Read> { s: S }
impl<S: Read> Bound<S> {
    pub fn go(&self) { self.s.poll_read(); }
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod io;\npub mod user;\n"),
        ("src/io.rs", io),
        ("src/user.rs", user),
    ]);
    let read = |conf: f32, reason: &'static str| {
        vec![(
            "Method:src/io.rs:Read.poll_read".to_owned(),
            1,
            conf,
            reason,
        )]
    };
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Reader.go"),
        read(0.95, "attribute-type")
    );
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Reader.take"),
        read(0.97, "receiver-type")
    );
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:free"),
        read(0.97, "receiver-type")
    );
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Bound.go"),
        read(0.95, "attribute-type")
    );
    // An unbounded parameter is no type of its name.
    assert!(
        calls_from(&g, "Function:src/user.rs:none")
            .iter()
            .all(|(_, _, conf, _)| *conf < 0.5)
    );
}

#[test]
fn rust_fields_of_call_results_and_pin_projections() {
    let source = r#"pub struct Inner;
impl Inner { pub fn poll(&self) {} }
pub struct Other;
impl Other { pub fn poll(&self) {} }
pub struct Outer { inner: Inner }
impl Outer {
    pub fn go(&self) { self.project().inner.poll(); }
    pub fn via(&self) { self.me().inner.poll(); }
    fn me(&self) -> &Outer { self }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    let poll = (
        "Method:src/lib.rs:Inner.poll".to_owned(),
        2,
        0.95,
        "attribute-type",
    );
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Outer.go"),
        std::slice::from_ref(&poll)
    );
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Outer.via"),
        [
            poll,
            (
                "Method:src/lib.rs:Outer.me".to_owned(),
                9,
                0.98,
                "self-method"
            )
        ]
    );
}

#[test]
fn rust_uses_of_items_inside_inline_modules() {
    let shared = r#"use self::state::AtomicState;
pub use self::outer::inner::Flag;
pub struct Shared { state: AtomicState }
impl Shared {
    pub fn go(&self) { self.state.load(); }
}
mod state {
    pub struct AtomicState;
    impl AtomicState { pub fn load(&self) {} }
}
pub mod outer {
    pub mod inner {
        pub struct Flag;
        impl Flag { pub fn set(&self) {} }
    }
}
"#;
    let user = r#"use crate::shared::Flag;
pub fn run(f: Flag) { f.set(); }
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod shared;\npub mod user;\n"),
        ("src/shared.rs", shared),
        ("src/user.rs", user),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn load(&self) {}\n    pub fn set(&self) {}\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/shared.rs:Shared.go"),
        [(
            "Method:src/shared.rs:AtomicState.load".to_owned(),
            9,
            0.95,
            "attribute-type"
        )]
    );
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:run"),
        [(
            "Method:src/shared.rs:Flag.set".to_owned(),
            14,
            0.97,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_globs_of_inline_modules_and_cfg_alternatives_through_module_paths() {
    let counters = "#[cfg(test)]\nmod imp {\n    pub fn bump() {}\n}\n#[cfg(not(test))]\nmod imp {\n    pub fn bump() {}\n}\npub use imp::*;\n";
    let block = "#[cfg(test)]\npub fn block() {}\n#[cfg(not(test))]\npub fn block() {}\n";
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod counters;\npub mod fut;\npub mod user;\n",
        ),
        ("src/counters.rs", counters),
        ("src/fut/mod.rs", "mod block;\npub use block::block;\n"),
        ("src/fut/block.rs", block),
        (
            "src/user.rs",
            "pub fn run() {\n    crate::counters::bump();\n    crate::fut::block();\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:run"),
        [
            (
                "Function:src/counters.rs:imp.bump".to_owned(),
                7,
                0.97,
                "import-resolved"
            ),
            (
                "Function:src/fut/block.rs:block".to_owned(),
                4,
                0.97,
                "import-resolved"
            ),
        ]
    );
}

#[test]
fn rust_paths_to_items_of_module_files() {
    let driver = "pub struct Driver;\nimpl Driver {\n    pub fn new() -> Driver { Driver }\n}\n";
    let g = graph(&[
        ("src/lib.rs", "pub mod runtime;\npub mod user;\n"),
        ("src/runtime/mod.rs", "pub mod signal;\npub mod other;\n"),
        ("src/runtime/signal/mod.rs", driver),
        ("src/runtime/other.rs", driver),
        (
            "src/user.rs",
            "use crate::runtime::signal;\npub fn run() {\n    crate::runtime::signal::Driver::new();\n}\npub fn run_used() {\n    signal::Driver::new();\n}\n",
        ),
    ]);
    let new = (
        "Method:src/runtime/signal/mod.rs:Driver.new".to_owned(),
        3,
        0.97,
        "class-member",
    );
    // The whole path names the item `Driver` of the module file, not the module; each form
    // of the path in a function of its own.
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:run"),
        std::slice::from_ref(&new)
    );
    assert_eq!(calls_from(&g, "Function:src/user.rs:run_used"), [new]);
}

#[test]
fn rust_a_variable_holding_self_has_the_methods_type() {
    let source = r#"pub struct Inner;
impl Inner { pub fn poll(&self) {} }
pub struct Other;
impl Other { pub fn poll(&self) {} pub fn tick(&self) {} }
pub struct Outer { inner: Inner }
impl Outer {
    pub fn go(&mut self) {
        let me = &mut *self;
        me.inner.poll();
        me.tick();
    }
    fn tick(&self) {}
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Outer.go"),
        [
            (
                "Method:src/lib.rs:Inner.poll".to_owned(),
                2,
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Outer.tick".to_owned(),
                12,
                0.97,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn rust_a_let_value_still_sees_the_name_it_shadows() {
    let source = r#"pub struct Guard;
impl Guard {
    fn skip(self) -> Inner { Inner }
    pub fn map(this: Self) {
        let this = this.skip();
        this.done();
    }
}
pub struct Inner;
impl Inner { pub fn done(&self) {} }
pub struct Other;
impl Other { pub fn skip(self) {} pub fn done(&self) {} }
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Guard.map"),
        [
            (
                "Method:src/lib.rs:Guard.skip".to_owned(),
                3,
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/lib.rs:Inner.done".to_owned(),
                10,
                0.95,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn rust_a_match_arm_under_a_cfg_that_does_not_hold_calls_nothing() {
    let source = r#"pub struct A;
impl A { pub fn stop(&self) {} }
pub struct B;
impl B { pub fn stop(&self) {} }
pub enum Which { A(A), B(B) }
pub fn stop(w: Which) {
    match w {
        Which::A(x) => {
            x.stop();
        }
        #[cfg(test)]
        Which::B(x) => {
            x.stop();
        }
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Function:src/lib.rs:stop"),
        [(
            "Method:src/lib.rs:A.stop".to_owned(),
            2,
            0.95,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_options_hold_their_type_through_some_patterns_unwrap_as_ref_and_take() {
    let source = r#"use std::sync::Arc;
pub struct Inner;
impl Inner { pub fn close(&self) {} }
pub struct Other;
impl Other { pub fn close(&self) {} }
pub struct Holder { inner: Option<Arc<Inner>> }
impl Holder {
    pub fn a(&self) { if let Some(i) = self.inner.as_ref() { i.close(); } }
    pub fn b(&mut self) {
        let i = self.inner.take().unwrap();
        i.close();
    }
    pub fn c(opt: Option<Inner>) { if let Some(i) = opt { i.close(); } }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    for method in ["a", "b", "c"] {
        assert_eq!(
            calls_from(&g, &format!("Method:src/lib.rs:Holder.{method}")),
            [(
                "Method:src/lib.rs:Inner.close".to_owned(),
                3,
                0.95,
                "receiver-type"
            )],
            "{method}"
        );
    }
}

#[test]
fn rust_elements_of_array_slice_and_vec_fields() {
    let source = r#"pub struct Slot;
impl Slot { pub fn a(&self) {} pub fn b(&self) {} pub fn c(&self) {} }
pub struct Other;
impl Other { pub fn a(&self) {} pub fn b(&self) {} pub fn c(&self) {} }
pub struct Remote { unpark: Slot }
pub struct Wheel { slots: [Slot; 64], boxed: Box<[Slot]>, remotes: Vec<Remote> }
impl Wheel {
    pub fn go(&self, i: usize) {
        self.slots[i].a();
        self.boxed[i].b();
        self.remotes[i].unpark.c();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    let slot = |m: &str| {
        (
            format!("Method:src/lib.rs:Slot.{m}"),
            2,
            0.95,
            "attribute-type",
        )
    };
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Wheel.go"),
        [slot("a"), slot("b"), slot("c")]
    );
}

#[test]
fn rust_for_loops_over_typed_collections_bind_their_elements() {
    let source = r#"pub struct Slot;
impl Slot { pub fn a(&self) {} pub fn b(&self) {} pub fn c(&self) {} }
pub struct Other;
impl Other { pub fn a(&self) {} pub fn b(&self) {} pub fn c(&self) {} }
pub struct Inner { slots: Vec<Slot> }
pub struct Wheel { inner: Inner }
impl Wheel {
    pub fn go(&self, given: &[Slot], others: Vec<Other>) {
        for s in &self.inner.slots {
            s.a();
        }
        for s in given.iter() {
            s.b();
        }
        for s in others {
            s.c();
        }
        for s in s.slots.iter() {
            s.c();
        }
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Wheel.go"),
        [
            (
                "Method:src/lib.rs:Other.c".to_owned(),
                4,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/lib.rs:Slot.a".to_owned(),
                2,
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/lib.rs:Slot.b".to_owned(),
                2,
                0.95,
                "receiver-type"
            ),
            // `for s in s.slots` asks for itself: no type, only a candidate.
            ("Method:src/lib.rs:Slot.c".to_owned(), 2, 0.48, "ambiguous"),
        ]
    );
}

#[test]
fn rust_type_aliases_of_the_file_and_imported_ones_the_compiled_alternative() {
    let lists = r#"pub struct Sharded;
impl Sharded { pub fn len(&self) {} pub fn new() -> Sharded { Sharded } }
pub struct Linked;
impl Linked { pub fn len(&self) {} pub fn new() -> Linked { Linked } }
#[cfg(test)]
pub type EntryList = Linked;
#[cfg(not(test))]
pub type EntryList = Sharded;
"#;
    let user = r#"use crate::lists::EntryList;
type Local = crate::lists::Linked;
pub struct Owner { list: EntryList, local: Local }
impl Owner {
    pub fn go(&self) {
        self.list.len();
        self.local.len();
        EntryList::new();
    }
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod lists;\npub mod user;\n"),
        ("src/lists.rs", lists),
        ("src/user.rs", user),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Owner.go"),
        [
            (
                "Method:src/lists.rs:Linked.len".to_owned(),
                4,
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lists.rs:Sharded.len".to_owned(),
                2,
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lists.rs:Sharded.new".to_owned(),
                2,
                0.97,
                "class-member"
            ),
        ]
    );
}

#[test]
fn rust_modules_declared_with_a_path_attribute() {
    let process = r#"#[path = "unix/mod.rs"]
#[cfg(unix)]
mod imp;
#[path = "windows.rs"]
#[cfg(windows)]
mod imp;
pub struct Child { inner: imp::Stdio }
impl Child {
    pub fn spawn(&self) {
        imp::spawn_child();
        self.inner.flush();
    }
}
"#;
    let imp =
        "pub fn spawn_child() {}\npub struct Stdio;\nimpl Stdio {\n    pub fn flush(&self) {}\n}\n";
    let g = graph(&[
        ("src/lib.rs", "pub mod process;\n"),
        ("src/process/mod.rs", process),
        ("src/process/unix/mod.rs", imp),
        ("src/process/windows.rs", imp),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/process/mod.rs:Child.spawn"),
        [
            (
                "Function:src/process/unix/mod.rs:spawn_child".to_owned(),
                1,
                0.97,
                "import-resolved"
            ),
            (
                "Method:src/process/unix/mod.rs:Stdio.flush".to_owned(),
                4,
                0.95,
                "attribute-type"
            ),
        ]
    );
}

#[test]
fn rust_options_and_results_of_generic_types_unwrap_to_the_type() {
    let source = r#"pub struct Entry<'a, T> { v: &'a T }
impl<'a, T> Entry<'a, T> { pub fn remove(self) {} }
pub struct Other;
impl Other { pub fn remove(self) {} }
pub struct Set;
impl Set {
    fn pop(&self) -> Option<Entry<'_, u8>> { None }
    fn take(&self) -> Result<Entry<'_, u8>, std::io::Error> { todo() }
    pub fn go(&self) -> Option<()> {
        let entry = self.pop()?;
        entry.remove();
        self.take().unwrap().remove();
        None
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    let calls: Vec<_> = calls_from(&g, "Method:src/lib.rs:Set.go")
        .into_iter()
        .filter(|(to, ..)| to.ends_with("remove"))
        .collect();
    assert_eq!(
        calls,
        [(
            "Method:src/lib.rs:Entry.remove".to_owned(),
            2,
            0.95,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_a_variable_holding_a_field_of_self_has_the_fields_type() {
    let source = r#"pub struct Raw;
impl Raw { pub fn poll(&self) {} }
pub struct Other;
impl Other { pub fn poll(&self) {} }
pub struct Task { raw: Raw }
impl Task {
    pub fn run(self) {
        let raw = self.raw;
        raw.poll();
    }
    pub fn peek(&self) {
        let raw = &self.raw;
        raw.poll();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    for method in ["run", "peek"] {
        assert_eq!(
            calls_from(&g, &format!("Method:src/lib.rs:Task.{method}")),
            [(
                "Method:src/lib.rs:Raw.poll".to_owned(),
                2,
                0.95,
                "receiver-type"
            )],
            "{method}"
        );
    }
}

#[test]
fn rust_impls_for_a_pointer_to_a_type_are_methods_of_the_type() {
    let source = r#"use std::sync::Arc;
pub trait Schedule { fn schedule(&self); }
pub struct Handle;
impl Schedule for Arc<Handle> { fn schedule(&self) {} }
pub struct Other;
impl Other { pub fn schedule(&self) {} }
pub fn run(h: Arc<Handle>) { h.schedule(); }
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Function:src/lib.rs:run"),
        [(
            "Method:src/lib.rs:Handle.schedule".to_owned(),
            4,
            0.97,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_type_aliases_through_a_parents_private_use() {
    let g = graph(&[
        ("src/lib.rs", "pub mod time;\n"),
        (
            "src/time/mod.rs",
            "mod entry;\nmod wheel;\nuse entry::EntryList;\n",
        ),
        (
            "src/time/entry.rs",
            "pub struct Linked;\nimpl Linked { pub fn is_empty(&self) {} }\npub type EntryList = Linked;\n",
        ),
        (
            "src/time/wheel.rs",
            "use super::EntryList;\npub struct Wheel { pending: EntryList }\nimpl Wheel {\n    pub fn idle(&self) { self.pending.is_empty(); }\n}\npub struct Other;\nimpl Other { pub fn is_empty(&self) {} }\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/time/wheel.rs:Wheel.idle"),
        [(
            "Method:src/time/entry.rs:Linked.is_empty".to_owned(),
            2,
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn rust_an_impl_written_before_its_type_gives_the_type_its_methods() {
    let source = r#"impl Hooks {
    pub fn spawn(&self) {}
}
pub struct Hooks;
pub struct Other;
impl Other { pub fn spawn(&self) {} }
pub struct Handle { hooks: Hooks }
impl Handle {
    pub fn run(&self) { self.hooks.spawn(); }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Handle.run"),
        [(
            "Method:src/lib.rs:Hooks.spawn".to_owned(),
            2,
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn rust_a_variable_holding_a_nested_field_or_element_of_self() {
    let source = r#"pub struct Unpark;
impl Unpark { pub fn unpark(&self) {} }
pub struct Other;
impl Other { pub fn unpark(&self) {} }
pub struct Remote { unpark: Unpark }
pub struct Shared { remotes: Vec<Remote> }
pub struct Worker { shared: Shared }
impl Worker {
    pub fn wake(&self, i: usize) {
        let remote = &self.shared.remotes[i];
        remote.unpark.unpark();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        calls_from(&g, "Method:src/lib.rs:Worker.wake"),
        [(
            "Method:src/lib.rs:Unpark.unpark".to_owned(),
            2,
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn rust_a_module_renamed_by_self_as_in_a_use_list() {
    let g = graph(&[
        ("src/lib.rs", "pub mod batch;\npub mod user;\n"),
        (
            "src/batch.rs",
            "pub struct Semaphore;\nimpl Semaphore { pub fn close(&self) {} }\n",
        ),
        (
            "src/user.rs",
            "use crate::batch::{self as semaphore};\npub struct Semaphore { inner: semaphore::Semaphore }\nimpl Semaphore {\n    pub fn close(&self) { self.inner.close(); }\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/user.rs:Semaphore.close"),
        [(
            "Method:src/batch.rs:Semaphore.close".to_owned(),
            2,
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn go_an_import_path_names_the_folder_it_ends_with_not_another_of_the_same_last_name() {
    let g = graph(&[
        ("ast/node.go", "package ast\n\nfunc NewText() {}\n"),
        (
            "extension/ast/table.go",
            "package ast\n\nfunc NewText() {}\n",
        ),
        (
            "parser/parse.go",
            "package parser\n\nimport \"example.com/md/ast\"\n\nfunc Parse() { ast.NewText() }\n",
        ),
        (
            "extension/table.go",
            "package extension\n\nimport east \"example.com/md/extension/ast\"\n\nfunc Table() { east.NewText() }\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Function:parser/parse.go:Parse"),
        [(
            "Function:ast/node.go:NewText".to_owned(),
            3,
            0.97,
            "import-resolved"
        )]
    );
    assert_eq!(
        calls_from(&g, "Function:extension/table.go:Table"),
        [(
            "Function:extension/ast/table.go:NewText".to_owned(),
            3,
            0.97,
            "import-resolved"
        )]
    );
}

#[test]
fn go_methods_of_an_embedded_struct_are_promoted() {
    let g = graph(&[
        (
            "ast/base.go",
            "package ast\n\ntype BaseNode struct{ parent *BaseNode }\n\nfunc (n *BaseNode) Parent() {}\n",
        ),
        (
            "ast/heading.go",
            "package ast\n\ntype Heading struct {\n\tBaseNode\n\tLevel int\n}\n\nfunc (h *Heading) Dump() { h.Parent() }\n",
        ),
        (
            "ext/table.go",
            "package ext\n\nimport \"example.com/md/ast\"\n\ntype Table struct{ *ast.BaseNode }\n\nfunc (t Table) Dump() { t.Parent() }\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:ast/heading.go:Heading.Dump"),
        [(
            "Method:ast/base.go:BaseNode.Parent".to_owned(),
            5,
            0.95,
            "receiver-type"
        )]
    );
    assert_eq!(
        calls_from(&g, "Method:ext/table.go:Table.Dump"),
        [(
            "Method:ast/base.go:BaseNode.Parent".to_owned(),
            5,
            0.95,
            "receiver-type"
        )]
    );
}

#[test]
fn go_a_struct_field_types_calls_on_it() {
    let g = graph(&[
        (
            "render/writer.go",
            "package render\n\ntype Writer struct{}\n\nfunc (w *Writer) Write() {}\n\ntype Other struct{}\n\nfunc (o *Other) Write() {}\n",
        ),
        (
            "render/html.go",
            "package render\n\ntype Renderer struct {\n\tWriter *Writer\n\tout, err Other\n}\n\nfunc (r *Renderer) Render() {\n\tr.Writer.Write()\n\tr.err.Write()\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:render/html.go:Renderer.Render"),
        [
            (
                "Method:render/writer.go:Other.Write".to_owned(),
                9,
                0.95,
                "attribute-type"
            ),
            (
                "Method:render/writer.go:Writer.Write".to_owned(),
                5,
                0.95,
                "attribute-type"
            ),
        ]
    );
}

#[test]
fn go_a_variable_holds_what_the_call_assigned_to_it_returns() {
    let g = graph(&[
        (
            "ast/node.go",
            r#"package ast

type Node interface {
	Next() Node
	Text() string
}

type Link struct{}

func (l *Link) Title() {}
func (l *Link) Text() string { return "" }

type Image struct{}

func (i *Image) Title() {}

func NewLink() (*Link, error) { return &Link{}, nil }
func NewImage() *Image { return &Image{} }
func First() Node { return nil }
"#,
        ),
        (
            "parser/parse.go",
            r#"package parser

import "example.com/md/ast"

func Parse(ok bool) {
	link, err := ast.NewLink()
	link.Title()
	var img *ast.Image
	img.Title()
	for c := ast.First(); c != nil; c = c.Next() {
		c.Text()
	}
	if ok {
		x := ast.NewImage()
		x.Title()
	} else {
		x, _ := ast.NewLink()
		x.Title()
	}
}

func Chain() { ast.First().Next().Text() }
"#,
        ),
    ]);
    let calls = calls_from(&g, "Function:parser/parse.go:Parse");
    let sure: Vec<(&str, f32, &str)> = calls
        .iter()
        .filter(|c| c.2 >= 0.5)
        .map(|c| (c.0.as_str(), c.2, c.3))
        .collect();
    // `x` is a link in one block and an image in the other: its `Title` is no sure edge.
    assert_eq!(
        sure,
        [
            ("Function:ast/node.go:First", 0.97, "import-resolved"),
            ("Function:ast/node.go:NewImage", 0.97, "import-resolved"),
            ("Function:ast/node.go:NewLink", 0.97, "import-resolved"),
            ("Method:ast/node.go:Image.Title", 0.97, "receiver-type"),
            ("Method:ast/node.go:Link.Title", 0.95, "receiver-type"),
            ("Method:ast/node.go:Node.Next", 0.95, "receiver-type"),
            ("Method:ast/node.go:Node.Text", 0.95, "receiver-type"),
        ]
    );
    assert_eq!(
        calls_from(&g, "Function:parser/parse.go:Chain"),
        [
            (
                "Function:ast/node.go:First".to_owned(),
                19,
                0.97,
                "import-resolved"
            ),
            (
                "Method:ast/node.go:Node.Next".to_owned(),
                4,
                0.95,
                "return-type"
            ),
            (
                "Method:ast/node.go:Node.Text".to_owned(),
                5,
                0.95,
                "return-type"
            ),
        ]
    );
}

#[test]
fn go_the_top_folder_is_the_package_its_import_path_ends_with_and_the_standard_library_is_not_the_project()
 {
    let g = graph(&[
        (
            "markdown.go",
            "package goldmark\n\ntype Markdown interface{ Convert() }\n\nfunc New() {}\n",
        ),
        (
            "util/strings/strings.go",
            "package strings\n\nfunc Contains() {}\n",
        ),
        (
            "ext/table.go",
            r#"package ext

import (
	"strings"

	"example.com/goldmark"
	ustrings "example.com/goldmark/util/strings"
)

func Extend(m goldmark.Markdown, v interface{}) {
	goldmark.New()
	m.Convert()
	v.(goldmark.Markdown).Convert()
	strings.Contains()
	ustrings.Contains()
}
"#,
        ),
    ]);
    let sure: Vec<(String, f32, &str)> = calls_from(&g, "Function:ext/table.go:Extend")
        .into_iter()
        .filter(|c| c.2 >= 0.5)
        .map(|c| (c.0, c.2, c.3))
        .collect();
    assert_eq!(
        sure,
        [
            (
                "Function:markdown.go:New".to_owned(),
                0.97,
                "import-resolved"
            ),
            (
                "Function:util/strings/strings.go:Contains".to_owned(),
                0.97,
                "import-resolved"
            ),
            (
                "Method:markdown.go:Markdown.Convert".to_owned(),
                0.97,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn go_definitions_in_files_go_build_leaves_out_give_way_to_the_real_ones() {
    let g = graph(&[
        ("util/a_test.go", "package util\n\nfunc Setup() {}\n"),
        ("util/b.go", "package util\n\nfunc Setup() {}\n"),
        (
            "util/util_safe.go",
            "//go:build appengine || js\n\npackage util\n\nfunc ToBytes() {}\n",
        ),
        (
            "util/util_unsafe.go",
            "//go:build !appengine && !js\n\npackage util\n\nfunc ToBytes() {}\n",
        ),
        (
            "util/util.go",
            "package util\n\nfunc Convert() {\n\tToBytes()\n\tSetup()\n}\n",
        ),
        (
            "ast/ast.go",
            "package ast\n\nimport \"example.com/md/util\"\n\nfunc Text() {\n\tutil.ToBytes()\n\tutil.Setup()\n}\n",
        ),
    ]);
    for caller in ["Function:util/util.go:Convert", "Function:ast/ast.go:Text"] {
        let reason = if caller.starts_with("Function:util") {
            "same-file"
        } else {
            "import-resolved"
        };
        assert_eq!(
            calls_from(&g, caller),
            [
                ("Function:util/b.go:Setup".to_owned(), 3, 0.97, reason),
                (
                    "Function:util/util_unsafe.go:ToBytes".to_owned(),
                    5,
                    0.97,
                    reason
                ),
            ],
            "{caller}"
        );
    }
}

#[test]
fn go_range_elements_asserted_types_and_function_literal_parameters_type_their_names() {
    let g = graph(&[
        (
            "html/html.go",
            r#"package html

type Option interface{ SetOption() }

type Text struct{}

func (t *Text) IsRaw() bool { return false }

func Texts() []*Text { return nil }

func Walk(f func(n *Text)) {}
"#,
        ),
        (
            "ext/ext.go",
            r#"package ext

import "example.com/md/html"

func New(opts ...html.Option) {
	for _, opt := range opts {
		opt.SetOption()
	}
}

func Render(v interface{}) {
	n := v.(*html.Text)
	n.IsRaw()
	for _, t := range html.Texts() {
		t.IsRaw()
	}
}

func Visit(v interface{}) {
	o, ok := v.(html.Option)
	if ok {
		o.SetOption()
	}
	html.Walk(func(m *html.Text) {
		m.IsRaw()
	})
}
"#,
        ),
    ]);
    let sure = |caller: &str| sure_calls_from(&g, caller);
    assert_eq!(
        sure("Function:ext/ext.go:New"),
        [(
            "Method:html/html.go:Option.SetOption".to_owned(),
            0.95,
            "receiver-type"
        )]
    );
    assert_eq!(
        sure("Function:ext/ext.go:Render"),
        [
            (
                "Function:html/html.go:Texts".to_owned(),
                0.97,
                "import-resolved"
            ),
            (
                "Method:html/html.go:Text.IsRaw".to_owned(),
                0.97,
                "receiver-type"
            ),
        ]
    );
    assert_eq!(
        sure("Function:ext/ext.go:Visit"),
        [
            (
                "Function:html/html.go:Walk".to_owned(),
                0.97,
                "import-resolved"
            ),
            (
                "Method:html/html.go:Option.SetOption".to_owned(),
                0.97,
                "receiver-type"
            ),
            (
                "Method:html/html.go:Text.IsRaw".to_owned(),
                0.97,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn go_methods_join_their_type_in_another_file_and_any_defined_type_has_methods() {
    let g = graph(&[
        (
            "toml/meta.go",
            "package toml\n\ntype Key []string\n\nfunc (k Key) String() string { return \"\" }\n\ntype MetaData struct{ context Key }\n",
        ),
        (
            "toml/lex.go",
            "package toml\n\ntype item struct{}\n\nfunc (it item) String() string { return \"\" }\n",
        ),
        (
            "toml/decode_meta.go",
            "package toml\n\nfunc (md *MetaData) Keys() {}\n",
        ),
        (
            "toml/decode.go",
            "package toml\n\nfunc (md *MetaData) Decode() {\n\tmd.context.String()\n\tmd.Keys()\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:toml/decode.go:MetaData.Decode"),
        [
            (
                "Method:toml/decode_meta.go:MetaData.Keys".to_owned(),
                3,
                0.97,
                "receiver-type"
            ),
            (
                "Method:toml/meta.go:Key.String".to_owned(),
                5,
                0.95,
                "attribute-type"
            ),
        ]
    );
}

#[test]
fn go_a_package_variable_of_another_file_is_typed_unless_a_local_hides_it() {
    let g = graph(&[
        (
            "ext/table.go",
            "package ext\n\ntype table struct{}\n\nfunc (t *table) Extend() {}\n\nvar Table = &table{}\n",
        ),
        (
            "ext/list.go",
            "package ext\n\ntype list struct{}\n\nfunc (l *list) Extend() {}\n\nfunc newList() *list { return nil }\n\nvar List = newList()\n",
        ),
        (
            "ext/gfm.go",
            "package ext\n\nfunc Use() {\n\tTable.Extend()\n\tList.Extend()\n}\n\nfunc Hidden(Table int) {\n\tTable.Extend()\n\tList := t.list\n\tList.Extend()\n}\n",
        ),
    ]);
    let sure = |caller: &str| sure_calls_from(&g, caller);
    assert_eq!(
        sure("Function:ext/gfm.go:Use"),
        [
            (
                "Method:ext/list.go:list.Extend".to_owned(),
                0.95,
                "receiver-type"
            ),
            (
                "Method:ext/table.go:table.Extend".to_owned(),
                0.97,
                "receiver-type"
            ),
        ]
    );
    assert_eq!(sure("Function:ext/gfm.go:Hidden"), []);
}

#[test]
fn go_a_variable_holds_what_the_field_chain_assigned_to_it_holds() {
    let g = graph(&[(
        "ast/ast.go",
        r#"package ast

type Node interface{ Text() string }

type Segment struct{}

func (s Segment) Value() {}

type Other struct{}

func (o Other) Value() {}

type Info struct{ Segment Segment }

type Base struct {
	first Node
	info  *Info
	other Other
}

func (b *Base) Walk() {
	for c := b.first; c != nil; c = nil {
		c.Text()
	}
	segment := b.info.Segment
	segment.Value()
}

func (b *Base) Pick(ok bool) {
	if ok {
		x := b.other
		x.Value()
	} else {
		x := b.info.Segment
		x.Value()
	}
}
"#,
    )]);
    let sure = |caller: &str| sure_calls_from(&g, caller);
    assert_eq!(
        sure("Method:ast/ast.go:Base.Walk"),
        [
            (
                "Method:ast/ast.go:Node.Text".to_owned(),
                0.95,
                "receiver-type"
            ),
            (
                "Method:ast/ast.go:Segment.Value".to_owned(),
                0.95,
                "receiver-type"
            ),
        ]
    );
    // `x` holds an `Other` in one block and a `Segment` in the other: no sure edge.
    assert_eq!(sure("Method:ast/ast.go:Base.Pick"), []);
}

#[test]
fn go_an_embedded_type_is_also_a_field_named_as_the_type() {
    let g = graph(&[
        (
            "html/html.go",
            "package html\n\ntype Config struct{}\n\nfunc (c *Config) SetOption() {}\n",
        ),
        (
            "ext/footnote.go",
            "package ext\n\nimport \"example.com/md/html\"\n\ntype FootnoteConfig struct {\n\thtml.Config\n}\n\nfunc (c *FootnoteConfig) SetOption() {\n\tc.Config.SetOption()\n}\n",
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:ext/footnote.go:FootnoteConfig.SetOption"),
        [(
            "Method:html/html.go:Config.SetOption".to_owned(),
            5,
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn go_range_over_a_field_gives_its_elements() {
    let g = graph(&[(
        "ext/options.go",
        r#"package ext

type Option interface{ Set() }

type Cell struct{}

func (c Cell) Render() {}

type options struct {
	value []Option
	cells []*Cell
}

func (o *options) Apply() {
	for _, v := range o.value {
		v.Set()
	}
	for _, c := range o.cells {
		c.Render()
	}
}
"#,
    )]);
    assert_eq!(
        calls_from(&g, "Method:ext/options.go:options.Apply"),
        [
            (
                "Method:ext/options.go:Cell.Render".to_owned(),
                7,
                0.95,
                "receiver-type"
            ),
            (
                "Method:ext/options.go:Option.Set".to_owned(),
                3,
                0.95,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn go_a_type_of_a_package_outside_the_project_has_none_of_its_methods() {
    let g = graph(&[
        (
            "util/util.go",
            "package util\n\nimport \"io\"\n\ntype BufWriter interface {\n\tio.Writer\n\tFlush()\n}\n\ntype sorter struct{}\n\nfunc (s sorter) Len() int { return 0 }\n",
        ),
        (
            "html/html.go",
            "package html\n\ntype Writer interface{ Write() }\n",
        ),
        (
            "html/render.go",
            r#"package html

import (
	"reflect"

	"example.com/md/util"
)

func Render(w util.BufWriter, out reflect.Value) {
	w.Write()
	w.Flush()
	out.Len()
}
"#,
        ),
    ]);
    // `Write` is `io.Writer`'s, not the project's `Writer.Write`; `reflect.Value` has no
    // project method `Len`.
    assert_eq!(
        calls_from(&g, "Function:html/render.go:Render"),
        [(
            "Method:util/util.go:BufWriter.Flush".to_owned(),
            7,
            0.97,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_closure_parameters_hold_what_the_callees_fn_bound_gives_them() {
    let shared = r#"pub struct Inner;
impl Inner { pub fn poll(&self) {} }
pub struct Clock;
impl Clock { pub fn pause(&self) {} }
pub struct Other;
impl Other { pub fn poll(&self) {} pub fn pause(&self) {} }
pub struct Shared { inner: Inner }
impl Shared {
    pub fn with_lock<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R { todo!() }
    pub fn with_both<F, R>(&self, n: u32, f: F) -> R
    where
        F: FnOnce(u32, Option<&Clock>) -> R,
    { todo!() }
}
pub fn with_clock<F: Fn(&Clock)>(f: &mut F) {}
"#;
    let user = r#"use crate::shared::{with_clock, Other, Shared};
pub fn run(s: &Shared) {
    s.with_lock(|inner| inner.poll());
    s.with_both(1, |_, maybe| match maybe {
        Some(clock) => clock.pause(),
        None => {}
    });
    with_clock(&mut |c| c.pause());
    Shared::with_lock(s, |inner| {
        let inner: Other = Other {};
        inner.poll()
    });
}
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod shared;\npub mod user;\n"),
        ("src/shared.rs", shared),
        ("src/user.rs", user),
    ]);
    let sure = sure_calls_from(&g, "Function:src/user.rs:run");
    let called = |id: &str, conf: f32, reason: &'static str| (id.to_owned(), conf, reason);
    // `with_clock(&mut |c| …)` passes a reference, not a closure: `c` stays unknown.
    assert_eq!(
        sure,
        [
            called("Function:src/shared.rs:with_clock", 0.97, "import-resolved"),
            called("Method:src/shared.rs:Clock.pause", 0.95, "receiver-type"),
            called("Method:src/shared.rs:Inner.poll", 0.95, "receiver-type"),
            called("Method:src/shared.rs:Other.poll", 0.97, "receiver-type"),
            called(
                "Method:src/shared.rs:Shared.with_both",
                0.97,
                "receiver-type"
            ),
            called(
                "Method:src/shared.rs:Shared.with_lock",
                0.97,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn rust_methods_of_a_compiled_impl_join_the_compiled_alternative_of_their_type() {
    let inner = "pub struct Inner;\nimpl Inner { pub fn lock(&self) {} }\npub struct Other;\nimpl Other { pub fn lock(&self) {} }\n";
    let clock = r#"use crate::inner::Inner;
cfg_off! {
    pub struct Clock {}
    impl Clock { pub fn now(&self) {} }
}
cfg_on! {
    pub struct Clock { inner: Inner }
    impl Clock { pub fn pause(&self) { self.inner.lock(); } }
}
#[cfg(test)]
pub struct Timer {}
#[cfg(not(test))]
pub struct Timer { inner: Inner }
impl Timer { pub fn tick(&self) { self.inner.lock(); } }
"#;
    let g = graph(&[
        (
            "src/lib.rs",
            "#[macro_use]\nmod macros;\npub mod clock;\npub mod inner;\n",
        ),
        (
            "src/macros.rs",
            r#"macro_rules! cfg_off {
    ($($item:item)*) => { $( #[cfg(not(feature = "rt"))] $item )* }
}
macro_rules! cfg_on {
    ($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* }
}
"#,
        ),
        ("src/clock.rs", clock),
        ("src/inner.rs", inner),
    ]);
    let lock = |caller: &str| {
        assert_eq!(
            sure_calls_from(&g, caller),
            [(
                "Method:src/inner.rs:Inner.lock".to_owned(),
                0.95,
                "attribute-type"
            )],
            "{caller}"
        );
    };
    lock("Method:src/clock.rs:Clock.pause");
    lock("Method:src/clock.rs:Timer.tick");
}

#[test]
fn rust_a_parameter_a_field_or_callee_leaves_open_is_the_callers_of_the_same_name() {
    let source = r#"use std::pin::Pin;
pub trait Semaphore { fn is_closed(&self) -> bool; }
pub trait Read { fn poll_read(&self); }
pub struct Plain;
impl Plain {
    pub fn is_closed(&self) -> bool { true }
    pub fn poll_read(&self) {}
}
pub struct Chan<T, S> { semaphore: S, value: T }
pub struct Tx<T, S> { chan: Chan<T, S> }
impl<T, S: Semaphore> Tx<T, S> {
    pub fn closed(&self) { self.chan.semaphore.is_closed(); }
}
pub struct Inner<T> { stream: T }
impl<T> Inner<T> {
    pub fn with_lock<R>(&self, f: impl FnOnce(Pin<&mut T>) -> R) -> R { todo!() }
}
pub struct Half<T> { inner: Inner<T> }
impl<T: Read> Half<T> {
    pub fn read(&self) { self.inner.with_lock(|stream| stream.poll_read()); }
}
pub struct Open<T> { inner: Inner<T>, chan: Chan<T, T> }
impl<T> Open<T> {
    pub fn read(&self) {
        self.inner.with_lock(|stream| stream.poll_read());
        self.chan.semaphore.is_closed();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Tx.closed"),
        [(
            "Method:src/lib.rs:Semaphore.is_closed".to_owned(),
            0.95,
            "attribute-type"
        )]
    );
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Half.read"),
        [
            (
                "Method:src/lib.rs:Inner.with_lock".to_owned(),
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Read.poll_read".to_owned(),
                0.95,
                "receiver-type"
            ),
        ]
    );
    // Open in the caller too: nothing to stand for.
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Open.read"),
        [(
            "Method:src/lib.rs:Inner.with_lock".to_owned(),
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn rust_tuple_patterns_hold_the_elements_of_the_tuple_a_call_returns() {
    let source = r#"pub struct Notify;
impl Notify { pub fn wake(&self) {} }
pub struct Waiter;
impl Waiter { pub fn wake(&self) {} }
pub struct Fut { notify: Notify, waiter: Waiter }
impl Fut {
    fn project(&mut self) -> (&Notify, &mut Waiter, usize) { todo!() }
    pub fn poll(&mut self) {
        let (notify, waiter, _) = self.project();
        notify.wake();
        waiter.wake();
    }
    pub fn unsafe_poll(&mut self) {
        let (_, waiter, _) = unsafe { self.project() };
        waiter.wake();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    let project = (
        "Method:src/lib.rs:Fut.project".to_owned(),
        0.98,
        "self-method",
    );
    let wake = |ty: &str| {
        (
            format!("Method:src/lib.rs:{ty}.wake"),
            0.95,
            "receiver-type",
        )
    };
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Fut.poll"),
        [project.clone(), wake("Notify"), wake("Waiter")]
    );
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Fut.unsafe_poll"),
        [project, wake("Waiter")]
    );
}

#[test]
fn rust_a_result_of_pinned_self_bound_to_names_is_the_types_own_methods() {
    let source = r#"use std::pin::Pin;
pub struct Notify;
impl Notify { pub fn wake(&self) {} }
pub struct Other;
impl Other { pub fn wake(&self) {} }
pub struct Fut { notify: Notify }
impl Fut {
    fn project(self: Pin<&mut Self>) -> (&Notify, usize) { todo!() }
    pub fn cancel(&mut self) {
        let (notify, _) = unsafe { Pin::new_unchecked(self).project() };
        notify.wake();
        let pinned = Pin::new(&mut *self).as_mut();
        pinned.wake();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    // `as_mut` is `Pin`'s own: `pinned` stays unknown (two `wake`s, no sure edge). The call
    // of `project` itself is only guessed by its name.
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Fut.cancel"),
        [
            (
                "Method:src/lib.rs:Fut.project".to_owned(),
                0.95,
                "unique-global-name"
            ),
            (
                "Method:src/lib.rs:Notify.wake".to_owned(),
                0.95,
                "receiver-type"
            )
        ]
    );
}

#[test]
fn rust_a_type_parameter_a_callee_returns_is_the_callers_by_the_trait_that_has_the_method() {
    let source = r#"use std::pin::Pin;
pub trait Read { fn poll_read(&self); }
pub trait Write { fn poll_write(&self); }
pub trait Seek { fn poll_write(&self); }
pub struct Reader<R> { inner: R }
impl<R: Read> Reader<R> {
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> { todo!() }
    pub fn get_ref(&self) -> &R { &self.inner }
}
impl<R: Read + Write> Write for Reader<R> {
    fn poll_write(&self) { self.get_ref().poll_write(); }
}
impl<R> Reader<R>
where
    R: Read + Write + Seek,
{
    pub fn both(self: Pin<&mut Self>) { self.get_pin_mut().poll_write(); }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Reader.poll_write"),
        [
            (
                "Method:src/lib.rs:Reader.get_ref".to_owned(),
                0.98,
                "self-method"
            ),
            (
                "Method:src/lib.rs:Write.poll_write".to_owned(),
                0.95,
                "return-type"
            ),
        ]
    );
    // Two of the traits have `poll_write`: no one of them.
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Reader.both"),
        [(
            "Method:src/lib.rs:Reader.get_pin_mut".to_owned(),
            0.98,
            "self-method"
        )]
    );
}

#[test]
fn rust_lock_guards_stand_for_what_they_lock() {
    let source = r#"use std::sync::{Mutex, MutexGuard, RwLockWriteGuard};
pub struct Wheel;
impl Wheel { pub fn remove(&self) {} }
pub struct List;
impl List { pub fn remove(&self) {} }
pub struct Sharded { wheels: Vec<Mutex<Wheel>> }
impl Sharded {
    pub fn lock_wheel(&self) -> MutexGuard<'_, Wheel> { todo!() }
}
pub struct Writer<'a> { list: RwLockWriteGuard<'a, List> }
impl<'a> Writer<'a> {
    pub fn clear(&self, sharded: &Sharded) {
        let lock = sharded.lock_wheel();
        lock.remove();
        self.list.remove();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Writer.clear"),
        [
            (
                "Method:src/lib.rs:List.remove".to_owned(),
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Sharded.lock_wheel".to_owned(),
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/lib.rs:Wheel.remove".to_owned(),
                0.95,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn rust_a_fields_deref_wrapper_stands_for_its_target_when_it_lacks_the_method() {
    let source = r#"use std::ops::Deref;
pub struct Waker;
impl Waker { pub fn wake(&self) {} pub fn get(&self) {} }
pub struct Table;
impl Table { pub fn wake(&self) {} pub fn get(&self) {} }
pub struct Padded<'a, T> { value: &'a T }
impl<'a, T> Deref for Padded<'a, T> {
    type Target = T;
    fn deref(&self) -> &T { self.value }
}
impl<'a, T> Padded<'a, T> { pub fn get(&self) {} }
pub struct Globals;
impl Deref for Globals {
    type Target = Table;
    fn deref(&self) -> &Table { todo!() }
}
pub struct Chan<'a> { waker: Padded<'a, Waker>, globals: Globals }
impl<'a> Chan<'a> {
    pub fn notify(&self) {
        self.waker.wake();
        self.waker.get();
        self.globals.wake();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    // `get` is the wrapper's own.
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Chan.notify"),
        [
            (
                "Method:src/lib.rs:Padded.get".to_owned(),
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Table.wake".to_owned(),
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Waker.wake".to_owned(),
                0.95,
                "attribute-type"
            ),
        ]
    );
}

#[test]
fn rust_a_method_returning_its_impls_type_parameter_gives_the_fields_type_argument() {
    let source = r#"use std::sync::MutexGuard;
pub trait Semaphore { fn is_closed(&self) -> bool; }
pub struct Bounded;
impl Bounded { pub fn is_closed(&self) -> bool { true } }
pub struct Waiters;
impl Waiters { pub fn remove(&self) {} }
pub struct Other;
impl Other { pub fn remove(&self) {} pub fn is_closed(&self) -> bool { true } }
pub struct Tx<T, S> { value: T, semaphore: S }
impl<T, S: Semaphore> Tx<T, S> {
    pub fn semaphore(&self) -> &S { &self.semaphore }
}
pub struct Lock<T> { value: T }
impl<T> Lock<T> {
    pub fn lock(&self) -> MutexGuard<'_, T> { todo!() }
}
pub struct Sender { chan: Tx<u8, Bounded>, waiters: Lock<Waiters> }
impl Sender {
    pub fn close(&self) {
        let semaphore = self.chan.semaphore();
        semaphore.is_closed();
        let waiters = self.waiters.lock();
        waiters.remove();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Sender.close"),
        [
            (
                "Method:src/lib.rs:Bounded.is_closed".to_owned(),
                0.95,
                "receiver-type"
            ),
            (
                "Method:src/lib.rs:Lock.lock".to_owned(),
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Tx.semaphore".to_owned(),
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/lib.rs:Waiters.remove".to_owned(),
                0.95,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn rust_element_accessors_of_a_collection_field_give_its_elements_not_project_methods() {
    let source = r#"use std::collections::VecDeque;
pub struct Task;
impl Task { pub fn run(&self) {} }
pub struct Other;
impl Other { pub fn run(&self) {} }
pub struct List;
impl List { pub fn pop_front(&mut self) -> Option<Other> { None } }
pub struct Shared { queue: VecDeque<Task>, tasks: Vec<Task> }
impl Shared {
    pub fn drain(&mut self) {
        while let Some(task) = self.queue.pop_front() {
            task.run();
        }
        let last = self.tasks.last().unwrap();
        last.run();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    // `pop_front` is `VecDeque`'s own, not the project's only `pop_front`.
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:Shared.drain"),
        [(
            "Method:src/lib.rs:Task.run".to_owned(),
            0.95,
            "receiver-type"
        )]
    );
}

#[test]
fn rust_a_pins_get_mut_and_get_ref_give_the_pinned_value() {
    let source = r#"use std::pin::Pin;
pub struct Inner;
impl Inner { pub fn flush(&self) {} }
pub struct Other;
impl Other { pub fn flush(&self) {} }
pub struct File { inner: Inner }
impl File {
    pub fn poll_flush(self: Pin<&mut Self>) {
        let me = self.get_mut();
        me.inner.flush();
    }
    pub fn poll_ref(self: Pin<&Self>) {
        self.get_ref().inner.flush();
    }
}
"#;
    let g = graph(&[("src/lib.rs", source)]);
    let flush = vec![(
        "Method:src/lib.rs:Inner.flush".to_owned(),
        0.95,
        "attribute-type",
    )];
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:File.poll_flush"),
        flush
    );
    assert_eq!(
        sure_calls_from(&g, "Method:src/lib.rs:File.poll_ref"),
        flush
    );
}

#[test]
fn rust_a_method_candidate_near_the_caller_is_followed_unless_it_is_the_callers_own_type() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod other;\npub mod user;\npub mod wrap;\npub mod far;\n",
        ),
        (
            "src/other.rs",
            "pub struct Other;\nimpl Other {\n    pub fn drain(&mut self) {}\n}\n",
        ),
        (
            "src/far.rs",
            "pub struct Far;\nimpl Far {\n    pub fn drain(&mut self) {}\n}\n",
        ),
        (
            "src/user.rs",
            r#"use crate::other::Other;
pub fn run(cx: &mut Context) {
    let source = cx.source();
    source.drain();
}
"#,
        ),
        (
            "src/wrap.rs",
            r#"pub struct Wrap;
impl Wrap {
    pub fn drain(&mut self) {}
    pub fn pump(&mut self, cx: &mut Context) {
        let inner = cx.source();
        inner.drain();
    }
}
"#,
        ),
    ]);
    // Of three `drain`s, the only one in a file `run`'s file imports is followed.
    assert_eq!(
        calls_from(&g, "Function:src/user.rs:run"),
        [(
            "Method:src/other.rs:Other.drain".to_owned(),
            3,
            0.9,
            "imported-candidate"
        )]
    );
    // A method calling, on another value, a method its own type has is most often a wrapper
    // delegating to what it wraps: its own type's `drain` stays a candidate.
    assert_eq!(
        calls_from(&g, "Method:src/wrap.rs:Wrap.pump"),
        [(
            "Method:src/wrap.rs:Wrap.drain".to_owned(),
            3,
            0.48,
            "imported-candidate"
        )]
    );
}

#[test]
fn python_an_import_in_an_earlier_branch_is_the_alternative_meant() {
    let g = graph(&[
        (
            "pkg/_win.py",
            "def console_stream(f):\n    return f\n\ndef console_width():\n    return 80\n",
        ),
        (
            "pkg/compat.py",
            "import sys\n\nif sys.platform == 'win32':\n    from ._win import console_stream\nelse:\n    def console_stream(f):\n        return None\n\ntry:\n    def console_width():\n        return 0\nexcept ImportError:\n    from ._win import console_width\n\ndef text_stream(f):\n    return console_stream(f)\n\ndef width():\n    return console_width()\n",
        ),
    ]);
    // The `if` side is an import, the `else` side a definition: the import is meant. The `try`
    // side is a definition, the `except` side an import: the definition is.
    assert_eq!(
        sure_calls_from(&g, "Function:pkg/compat.py:text_stream"),
        [(
            "Function:pkg/_win.py:console_stream".to_owned(),
            0.97,
            "import-resolved"
        )]
    );
    assert_eq!(
        sure_calls_from(&g, "Function:pkg/compat.py:width"),
        [(
            "Function:pkg/compat.py:console_width".to_owned(),
            0.97,
            "same-file"
        )]
    );
}

#[test]
fn rust_a_trait_method_called_by_the_traits_name_is_a_candidate_when_the_project_implements_it() {
    let g = graph(&[(
        "src/lib.rs",
        r#"pub trait Latch { fn set(this: *const Self); }
pub trait Probe { fn probe(&self); }
pub struct LockLatch;
impl Latch for LockLatch { fn set(this: *const Self) {} }
pub fn run(latch: &LockLatch, probe: &dyn Probe) {
    Latch::set(latch);
    Probe::probe(probe);
}
pub fn generic<L: Latch>(latch: &L) {
    L::set(latch);
}
"#,
    )]);
    // `Latch::set(latch)` runs `LockLatch`'s `set`; `Probe` has no implementation here.
    assert_eq!(
        calls_from(&g, "Function:src/lib.rs:run"),
        [
            (
                "Method:src/lib.rs:Latch.set".to_owned(),
                1,
                0.48,
                "ambiguous"
            ),
            (
                "Method:src/lib.rs:Probe.probe".to_owned(),
                2,
                0.97,
                "class-member"
            ),
        ]
    );
    // Through a type parameter the trait bounds: the declaration.
    assert_eq!(
        sure_calls_from(&g, "Function:src/lib.rs:generic"),
        [(
            "Method:src/lib.rs:Latch.set".to_owned(),
            0.97,
            "class-member"
        )]
    );
}

#[test]
fn java_a_member_type_of_an_enclosing_class_hides_other_types_of_its_name() {
    let g = graph(&[
        (
            "src/com/shop/Task.java",
            "package com.shop;\npublic interface Task { void run(); }\n",
        ),
        (
            "src/com/shop/Queue.java",
            r#"package com.shop;
public class Queue {
    interface Task { void run(); }
    static class Worker {
        Worker(int n) {}
        void work() {}
    }
    void drain(Task task) {
        task.run();
        new Worker(1).work();
        Queue.Worker other = new Queue.Worker(2);
        other.work();
    }
}
"#,
        ),
    ]);
    // `Task` in `Queue` is its own member interface, not the package's `Task`; `Worker` and
    // `Queue.Worker` are the member class, built by its constructor.
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Queue.java:Queue.drain"),
        [
            (
                "Class:src/com/shop/Queue.java:Queue.Worker".to_owned(),
                0.97,
                "constructor"
            ),
            (
                "Method:src/com/shop/Queue.java:Queue.Task.run".to_owned(),
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/com/shop/Queue.java:Queue.Worker.work".to_owned(),
                0.97,
                "receiver-type"
            ),
        ]
    );
}

#[test]
fn java_this_and_super_constructor_calls_build_their_class() {
    let g = graph(&[
        (
            "src/com/shop/Base.java",
            "package com.shop;\npublic class Base { public Base(int n) {} }\n",
        ),
        (
            "src/com/shop/Cart.java",
            r#"package com.shop;
public class Cart extends Base {
    public Cart() { this(1); }
    public Cart(int n) { super(n); }
}
"#,
        ),
    ]);
    assert_eq!(
        calls_from(&g, "Method:src/com/shop/Cart.java:Cart.Cart"),
        [
            (
                "Class:src/com/shop/Base.java:Base".to_owned(),
                2,
                0.97,
                "constructor"
            ),
            (
                "Class:src/com/shop/Cart.java:Cart".to_owned(),
                2,
                0.97,
                "constructor"
            ),
        ]
    );
}

#[test]
fn java_calls_on_a_returned_or_constructed_value_use_its_declared_type() {
    let g = graph(&[
        (
            "src/com/shop/Builder.java",
            r#"package com.shop;
public class Builder {
    public Builder add(int n) { return this; }
    public Order build() { return new Order(); }
    public int[] sizes() { return null; }
}
"#,
        ),
        (
            "src/com/shop/Order.java",
            "package com.shop;\npublic class Order { public void send() {} }\n",
        ),
        (
            "src/com/shop/Shop.java",
            r#"package com.shop;
public class Shop {
    Builder builder() { return new Builder(); }
    void order() {
        new Builder().add(1)
            .add(2).build().send();
        builder().build();
        this.builder().add(3);
    }
}
"#,
        ),
    ]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Shop.java:Shop.order"),
        [
            (
                "Class:src/com/shop/Builder.java:Builder".to_owned(),
                0.97,
                "constructor"
            ),
            (
                "Method:src/com/shop/Builder.java:Builder.add".to_owned(),
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/com/shop/Builder.java:Builder.build".to_owned(),
                0.95,
                "return-type"
            ),
            (
                "Method:src/com/shop/Order.java:Order.send".to_owned(),
                0.95,
                "return-type"
            ),
            (
                "Method:src/com/shop/Shop.java:Shop.builder".to_owned(),
                0.98,
                "self-method"
            ),
        ]
    );
}

#[test]
fn java_for_each_and_try_with_resources_variables_have_their_declared_type() {
    let g = graph(&[
        (
            "src/com/shop/Item.java",
            "package com.shop;\npublic class Item implements AutoCloseable { public void ship() {} public void close() {} }\n",
        ),
        (
            "src/com/shop/Cart.java",
            r#"package com.shop;
import java.util.List;
public class Cart {
    void ship(List<Item> items) {
        for (final Item item : items) { item.ship(); }
        try (Item first = items.get(0)) { first.ship(); }
    }
}
"#,
        ),
    ]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Cart.java:Cart.ship"),
        [(
            "Method:src/com/shop/Item.java:Item.ship".to_owned(),
            0.97,
            "receiver-type"
        )]
    );
}

#[test]
fn java_outer_this_calls_a_method_of_the_enclosing_class() {
    let g = graph(&[(
        "src/com/shop/Cart.java",
        r#"package com.shop;
public class Cart {
    int size() { return 0; }
    class View {
        int size() { return Cart.this.size(); }
    }
}
"#,
    )]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Cart.java:Cart.View.size"),
        [(
            "Method:src/com/shop/Cart.java:Cart.size".to_owned(),
            0.97,
            "self-method"
        )]
    );
}

#[test]
fn java_a_bare_call_in_a_nested_class_reaches_the_enclosing_class_only_when_nothing_outside_can_hold_it()
 {
    let g = graph(&[
        (
            "src/com/shop/Base.java",
            "package com.shop;\npublic class Base { void log() {} }\n",
        ),
        (
            "src/com/shop/Cart.java",
            r#"package com.shop;
import java.util.AbstractList;
public class Cart {
    void check() {}
    void clear() {}
    public String toString() { return ""; }
    static class Line extends Base {
        void add() { check(); log(); toString(); }
    }
    class Items extends AbstractList<String> {
        void reset() { clear(); check(); }
    }
}
"#,
        ),
    ]);
    // `check` is the outer class's, `log` the inherited one; `toString` is `Object`'s in every
    // class. `Items` inherits from a JDK class, which has a `clear` (no edge to the outer one)
    // and may have a `check`: the outer `check` is less sure.
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Cart.java:Cart.Line.add"),
        [
            (
                "Method:src/com/shop/Base.java:Base.log".to_owned(),
                0.95,
                "self-method"
            ),
            (
                "Method:src/com/shop/Cart.java:Cart.check".to_owned(),
                0.98,
                "self-method"
            ),
        ]
    );
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Cart.java:Cart.Items.reset"),
        [(
            "Method:src/com/shop/Cart.java:Cart.check".to_owned(),
            0.95,
            "self-method"
        )]
    );
}

#[test]
fn java_a_cast_receiver_has_the_type_it_is_cast_to() {
    let g = graph(&[
        (
            "src/com/shop/Bag.java",
            "package com.shop;\npublic interface Bag { int count(Object o); }\n",
        ),
        (
            "src/com/shop/Util.java",
            r#"package com.shop;
public class Util {
    static int count(Object items, Object o) { return ((Bag) items).count(o); }
}
"#,
        ),
    ]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Util.java:Util.count"),
        [(
            "Method:src/com/shop/Bag.java:Bag.count".to_owned(),
            0.97,
            "receiver-type"
        )]
    );
}

#[test]
fn java_static_imports_name_a_project_classs_methods() {
    let g = graph(&[
        (
            "src/com/shop/util/Checks.java",
            "package com.shop.util;\npublic class Checks { public static void notNull(Object o) {} public static void positive(int n) {} }\n",
        ),
        (
            "src/com/shop/Cart.java",
            r#"package com.shop;
import static com.shop.util.Checks.notNull;
import static com.shop.util.Checks.*;
public class Cart {
    void add(Object item, int n) { notNull(item); positive(n); }
}
"#,
        ),
    ]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Cart.java:Cart.add"),
        [
            (
                "Method:src/com/shop/util/Checks.java:Checks.notNull".to_owned(),
                0.97,
                "import-resolved"
            ),
            (
                "Method:src/com/shop/util/Checks.java:Checks.positive".to_owned(),
                0.97,
                "import-resolved"
            ),
        ]
    );
}

#[test]
fn java_a_receiver_of_a_type_outside_the_project_calls_no_project_method() {
    let g = graph(&[
        (
            "src/com/shop/Text.java",
            "package com.shop;\npublic class Text { public static String valueOf(Object o) { return null; } public char charAt(int i) { return 'a'; } }\n",
        ),
        (
            "src/com/shop/Label.java",
            "package com.shop;\npublic class Label { public int size() { return 0; } }\n",
        ),
        (
            "src/com/shop/Cart.java",
            r#"package com.shop;
public class Cart<T extends Text> implements Comparable<Character> {
    private static final String SPACE = " ";
    private Label label;
    <E extends Text> void show(String name, T item, E other, Object any) {
        String.valueOf(name);
        Character.valueOf(name);
        SPACE.charAt(0);
        label.size();
        name.charAt(0);
        item.charAt(0);
        other.charAt(1);
        any.charAt(2);
    }
}
"#,
        ),
    ]);
    // `String`, `Character` (an argument of an implemented type, no type parameter), `name` and
    // the field `SPACE` are the JDK's; `T` and `E` are type parameters (their bounds are not
    // followed, the project-wide guess stays); `any` is `Object`, outside the project too. The
    // field `label` is of a project type.
    assert_eq!(
        calls_from(&g, "Method:src/com/shop/Cart.java:Cart.show"),
        [
            (
                "Method:src/com/shop/Label.java:Label.size".to_owned(),
                2,
                0.95,
                "attribute-type"
            ),
            (
                "Method:src/com/shop/Text.java:Text.charAt".to_owned(),
                2,
                0.95,
                "unique-global-name"
            ),
        ]
    );
}

#[test]
fn java_an_overload_taking_the_calls_argument_count_is_looked_for_in_base_classes() {
    let g = graph(&[
        (
            "src/com/shop/Bag.java",
            r#"package com.shop;
public class Bag {
    public boolean remove(Object o, int copies) { return true; }
    public void log(String... parts) {}
}
"#,
        ),
        (
            "src/com/shop/CountingBag.java",
            r#"package com.shop;
public class CountingBag extends Bag {
    @SuppressWarnings("unchecked")
    public boolean remove(Object o) { return remove(o, 1); }
    public void log(String part) { log(part, "!"); }
    public void clear(Object o) { remove(o); }
}
"#,
        ),
    ]);
    // `remove(o, 1)` takes two arguments: `Bag`'s, not the one-argument override around it;
    // `log(part, "!")` reaches the variadic `log` of the base; `remove(o)` stays the class's own.
    assert_eq!(
        calls_from(
            &g,
            "Method:src/com/shop/CountingBag.java:CountingBag.remove"
        ),
        [(
            "Method:src/com/shop/Bag.java:Bag.remove".to_owned(),
            3,
            0.95,
            "self-method"
        )]
    );
    assert_eq!(
        calls_from(&g, "Method:src/com/shop/CountingBag.java:CountingBag.log"),
        [(
            "Method:src/com/shop/Bag.java:Bag.log".to_owned(),
            4,
            0.95,
            "self-method"
        )]
    );
    assert_eq!(
        calls_from(&g, "Method:src/com/shop/CountingBag.java:CountingBag.clear"),
        [(
            "Method:src/com/shop/CountingBag.java:CountingBag.remove".to_owned(),
            3,
            0.98,
            "self-method"
        )]
    );
}

#[test]
fn java_member_types_are_static_receivers_and_single_type_imports() {
    let g = graph(&[
        (
            "src/com/shop/Streams.java",
            r#"package com.shop;
public class Streams {
    public static class Flow {
        public Flow(int n) {}
        public void run() {}
    }
}
"#,
        ),
        (
            "src/com/shop/util/Members.java",
            r#"package com.shop.util;
import com.shop.Streams.Flow;
public class Members {
    private static class Executable {
        static Executable of(Object o) { return null; }
    }
    void check(Object o) {
        Executable.of(o);
        new Flow(1).run();
    }
}
"#,
        ),
    ]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/util/Members.java:Members.check"),
        [
            (
                "Class:src/com/shop/Streams.java:Streams.Flow".to_owned(),
                0.97,
                "constructor"
            ),
            (
                "Method:src/com/shop/Streams.java:Streams.Flow.run".to_owned(),
                0.97,
                "receiver-type"
            ),
            (
                "Method:src/com/shop/util/Members.java:Members.Executable.of".to_owned(),
                0.97,
                "class-member"
            ),
        ]
    );
}

#[test]
fn java_a_dotted_receiver_may_start_at_a_field_of_the_class() {
    let g = graph(&[
        (
            "src/com/shop/Node.java",
            "package com.shop;\npublic class Node { public Node next; public int get(int i) { return i; } public int size() { return 0; } }\n",
        ),
        (
            "src/com/shop/Tree.java",
            r#"package com.shop;
public class Tree {
    Node root;
    class Walker {
        Tree parent;
        int step(int i) { return parent.root.get(i) + root.next.size(); }
    }
}
"#,
        ),
    ]);
    // `parent` is a field of `Walker`; `root` one of the enclosing `Tree`, not followed.
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Tree.java:Tree.Walker.step"),
        [(
            "Method:src/com/shop/Node.java:Node.get".to_owned(),
            0.95,
            "attribute-type"
        )]
    );
}

#[test]
fn java_a_call_on_the_result_of_a_super_call_uses_its_return_type() {
    let g = graph(&[
        (
            "src/com/shop/Entry.java",
            "package com.shop;\npublic class Entry { public Object getKey() { return null; } }\n",
        ),
        (
            "src/com/shop/Base.java",
            "package com.shop;\npublic class Base { protected Entry nextEntry() { return null; } }\n",
        ),
        (
            "src/com/shop/Keys.java",
            r#"package com.shop;
public class Keys extends Base {
    public Object next() { return super.nextEntry().getKey(); }
}
"#,
        ),
    ]);
    assert_eq!(
        sure_calls_from(&g, "Method:src/com/shop/Keys.java:Keys.next"),
        [
            (
                "Method:src/com/shop/Base.java:Base.nextEntry".to_owned(),
                0.95,
                "super-method"
            ),
            (
                "Method:src/com/shop/Entry.java:Entry.getKey".to_owned(),
                0.95,
                "return-type"
            ),
        ]
    );
}
