//! Dart resolution fixtures: `package:` and relative imports, prefixes, `show`, `export`
//! re-exports and parts; constructors (unnamed, named, factory, redirecting, `super(…)`),
//! receivers (`this`, `super`, `?.`, `!.`, cascades, typed fields, parameters, locals, return
//! types through `await`), implicit `this`, mixins, extensions, inheritance and overrides.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const BASE: &str = r#"abstract class Charges {
  bool charge(int cents);
}

class Base {
  Base(int x) {
    boot();
  }

  void boot() {}

  bool save() => true;
}

mixin Audited on Base {
  void audit() {
    save();
  }
}

String slugify(String text) => text.toLowerCase();
"#;

const PAY: &str = r#"import 'base.dart';

class Gateway implements Charges {
  Gateway();
  Gateway.sandbox() : this();
  factory Gateway.connect() => Gateway.sandbox();
  static Gateway shared() => Gateway();

  @override
  bool charge(int cents) {
    return _log(cents);
  }

  bool _log(int cents) => formatCents(cents).isNotEmpty;
}

String formatCents(int cents) => cents.toString();
"#;

const LIBRARY: &str = r#"export 'src/base.dart';
export 'src/pay.dart' show Gateway;
"#;

const CART: &str = r#"import 'package:shop/shop.dart';
import 'pay.dart' as pay;
import 'dart:math';

part 'cart_lines.dart';

class Ledger {
  void record() {}
}

extension LedgerTwice on Ledger {
  void twice() {
    record();
    twiceMore();
  }

  void twiceMore() {}
}

class Cart extends Base with Audited {
  final Ledger ledger;
  Gateway? backup;

  Cart(this.ledger) : super(1);
  Cart.empty() : this(Ledger());

  @override
  void boot() {
    super.boot();
  }

  Future<Gateway> fetch() async => Gateway();

  Future<bool> checkout(Gateway card) async {
    card.charge(1);
    backup?.charge(2);
    backup!.charge(3);
    this.ledger.record();
    ledger.record();
    final p = pay.Gateway.connect();
    p.charge(4);
    var other = Cart(Ledger());
    other.save();
    other.audit();
    Gateway.shared().charge(5);
    slugify('x');
    pay.formatCents(5);
    ledger.twice();
    final g = await fetch();
    g.charge(6);
    ledger..record()..twice();
    Line(1).total();
    unknown.mystery();
    return this.save();
  }
}
"#;

const LINES: &str = r#"part of 'cart.dart';

class Line {
  final int n;
  Line(this.n);
  int total() => n;
  Ledger book() => Ledger();
}
"#;

#[test]
fn dart_libraries_constructors_receivers_mixins_and_extensions() {
    let g = graph(&[
        ("shop/lib/src/base.dart", BASE),
        ("shop/lib/src/pay.dart", PAY),
        ("shop/lib/shop.dart", LIBRARY),
        ("shop/lib/src/cart.dart", CART),
        ("shop/lib/src/cart_lines.dart", LINES),
    ]);
    // `unknown.mystery()` and the platform's calls (`toLowerCase`, `toString`) reach nothing.
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A mixin's `this` has the members of its `on` type.
            (
                "Method:shop/lib/src/base.dart:Audited.audit",
                "Method:shop/lib/src/base.dart:Base.save",
                "0.95",
                "self-method"
            ),
            (
                "Method:shop/lib/src/base.dart:Base.Base",
                "Method:shop/lib/src/base.dart:Base.boot",
                "0.98",
                "self-method"
            ),
            // `: super(1)` runs the superclass's constructor.
            (
                "Method:shop/lib/src/cart.dart:Cart.Cart",
                "Class:shop/lib/src/base.dart:Base",
                "0.97",
                "constructor"
            ),
            // `super.boot()`.
            (
                "Method:shop/lib/src/cart.dart:Cart.boot",
                "Method:shop/lib/src/base.dart:Base.boot",
                "0.95",
                "super-method"
            ),
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Class:shop/lib/src/cart.dart:Cart",
                "0.97",
                "constructor"
            ),
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Class:shop/lib/src/cart.dart:Ledger",
                "0.97",
                "constructor"
            ),
            // A class of a part is the library's.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Class:shop/lib/src/cart_lines.dart:Line",
                "0.97",
                "constructor"
            ),
            // Through the `package:` import's `export`.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Function:shop/lib/src/base.dart:slugify",
                "0.97",
                "import-resolved"
            ),
            // `pay.formatCents` through the prefix.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Function:shop/lib/src/pay.dart:formatCents",
                "0.97",
                "import-resolved"
            ),
            // A mixin's method on a `var` built by a constructor call.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/base.dart:Audited.audit",
                "0.95",
                "receiver-type"
            ),
            // `other.save()` and `this.save()`: inherited.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/base.dart:Base.save",
                "0.95",
                "receiver-type"
            ),
            // Implicit `this`.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/cart.dart:Cart.fetch",
                "0.98",
                "self-method"
            ),
            // The field `ledger`, as `this.ledger`, bare and in a cascade.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/cart.dart:Ledger.record",
                "0.95",
                "attribute-type"
            ),
            // An extension's method on a field of the type it is on, also in a cascade.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/cart.dart:LedgerTwice.twice",
                "0.95",
                "receiver-type"
            ),
            // `Line(1).total()`.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/cart_lines.dart:Line.total",
                "0.97",
                "receiver-type"
            ),
            // A parameter, `?.`, `!.`, `final p = pay.Gateway.connect()`, `Gateway.shared()`, `await fetch()`.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/pay.dart:Gateway.charge",
                "0.97",
                "receiver-type"
            ),
            // A factory constructor through the prefix.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/pay.dart:Gateway.connect",
                "0.97",
                "class-member"
            ),
            // A static method.
            (
                "Method:shop/lib/src/cart.dart:Cart.checkout",
                "Method:shop/lib/src/pay.dart:Gateway.shared",
                "0.97",
                "class-member"
            ),
            // `: this(…)` redirects to the unnamed constructor.
            (
                "Method:shop/lib/src/cart.dart:Cart.empty",
                "Class:shop/lib/src/cart.dart:Cart",
                "0.97",
                "constructor"
            ),
            (
                "Method:shop/lib/src/cart.dart:Cart.empty",
                "Class:shop/lib/src/cart.dart:Ledger",
                "0.97",
                "constructor"
            ),
            (
                "Method:shop/lib/src/cart.dart:Cart.fetch",
                "Class:shop/lib/src/pay.dart:Gateway",
                "0.97",
                "constructor"
            ),
            // In an extension, a bare call reaches the type it is on...
            (
                "Method:shop/lib/src/cart.dart:LedgerTwice.twice",
                "Method:shop/lib/src/cart.dart:Ledger.record",
                "0.97",
                "self-method"
            ),
            // ... or the extension's own member.
            (
                "Method:shop/lib/src/cart.dart:LedgerTwice.twice",
                "Method:shop/lib/src/cart.dart:LedgerTwice.twiceMore",
                "0.98",
                "self-method"
            ),
            // A part sees its library's names.
            (
                "Method:shop/lib/src/cart_lines.dart:Line.book",
                "Class:shop/lib/src/cart.dart:Ledger",
                "0.97",
                "constructor"
            ),
            (
                "Method:shop/lib/src/pay.dart:Gateway._log",
                "Function:shop/lib/src/pay.dart:formatCents",
                "0.97",
                "same-file"
            ),
            (
                "Method:shop/lib/src/pay.dart:Gateway.charge",
                "Method:shop/lib/src/pay.dart:Gateway._log",
                "0.98",
                "self-method"
            ),
            // A named constructor.
            (
                "Method:shop/lib/src/pay.dart:Gateway.connect",
                "Method:shop/lib/src/pay.dart:Gateway.sandbox",
                "0.97",
                "class-member"
            ),
            // `: this()`.
            (
                "Method:shop/lib/src/pay.dart:Gateway.sandbox",
                "Class:shop/lib/src/pay.dart:Gateway",
                "0.97",
                "constructor"
            ),
            (
                "Method:shop/lib/src/pay.dart:Gateway.shared",
                "Class:shop/lib/src/pay.dart:Gateway",
                "0.97",
                "constructor"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Extends),
        owned(&[
            // A class extends its superclass and the mixins it applies; a mixin its `on` type.
            (
                "Class:shop/lib/src/cart.dart:Cart",
                "Class:shop/lib/src/base.dart:Base",
                "0.97",
                "heritage"
            ),
            (
                "Class:shop/lib/src/cart.dart:Cart",
                "Trait:shop/lib/src/base.dart:Audited",
                "0.97",
                "heritage"
            ),
            (
                "Trait:shop/lib/src/base.dart:Audited",
                "Class:shop/lib/src/base.dart:Base",
                "0.97",
                "heritage"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Implements),
        owned(&[(
            "Class:shop/lib/src/pay.dart:Gateway",
            "Class:shop/lib/src/base.dart:Charges",
            "0.97",
            "heritage"
        )])
    );
    // `package:shop/…` is the `lib/` folder of the folder `shop`; `dart:math` is no file.
    assert_eq!(
        edges(&g, EdgeKind::Imports),
        owned(&[
            (
                "File:shop/lib/shop.dart",
                "File:shop/lib/src/base.dart",
                "1.00",
                "import-resolved"
            ),
            (
                "File:shop/lib/shop.dart",
                "File:shop/lib/src/pay.dart",
                "1.00",
                "import-resolved"
            ),
            (
                "File:shop/lib/src/cart.dart",
                "File:shop/lib/shop.dart",
                "1.00",
                "import-resolved"
            ),
            (
                "File:shop/lib/src/cart.dart",
                "File:shop/lib/src/cart_lines.dart",
                "1.00",
                "import-resolved"
            ),
            (
                "File:shop/lib/src/cart.dart",
                "File:shop/lib/src/pay.dart",
                "1.00",
                "import-resolved"
            ),
            (
                "File:shop/lib/src/cart_lines.dart",
                "File:shop/lib/src/cart.dart",
                "1.00",
                "import-resolved"
            ),
            (
                "File:shop/lib/src/pay.dart",
                "File:shop/lib/src/base.dart",
                "1.00",
                "import-resolved"
            ),
        ])
    );
}

#[test]
fn dart_parts_of_a_named_library() {
    let g = graph(&[
        (
            "rpc/lib/rpc.dart",
            "library rpc.core;\n\nimport 'dart:async';\n\npart 'src/a.dart';\npart 'src/b.dart';\n",
        ),
        (
            "rpc/lib/src/a.dart",
            "part of rpc.core;\n\nclass Alpha {\n  void run() {\n    Beta().go();\n    helper();\n  }\n}\n",
        ),
        (
            "rpc/lib/src/b.dart",
            "part of rpc.core;\n\nclass Beta {\n  void go() {}\n}\n\nvoid helper() {}\n",
        ),
        (
            "rpc/test/a_test.dart",
            "import 'package:rpc/rpc.dart';\n\nvoid main() {\n  Alpha().run();\n}\n",
        ),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A part sees the other parts of its library.
            (
                "Method:rpc/lib/src/a.dart:Alpha.run",
                "Class:rpc/lib/src/b.dart:Beta",
                "0.97",
                "constructor"
            ),
            (
                "Method:rpc/lib/src/a.dart:Alpha.run",
                "Function:rpc/lib/src/b.dart:helper",
                "0.97",
                "same-file"
            ),
            (
                "Method:rpc/lib/src/a.dart:Alpha.run",
                "Method:rpc/lib/src/b.dart:Beta.go",
                "0.97",
                "receiver-type"
            ),
            // An importer of the library sees its parts' names.
            (
                "Function:rpc/test/a_test.dart:main",
                "Class:rpc/lib/src/a.dart:Alpha",
                "0.97",
                "constructor"
            ),
            (
                "Function:rpc/test/a_test.dart:main",
                "Method:rpc/lib/src/a.dart:Alpha.run",
                "0.97",
                "receiver-type"
            ),
        ])
    );
}
