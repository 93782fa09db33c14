//! The Swift extractor's facts on hand-written sources: definitions, the module, imports,
//! extensions, calls with their receivers and bindings.

use crate::extract::Extractor;
use crate::extract::test_facts::{calls_in, member};
use crate::facts::*;
use crate::graph::NodeKind;
use crate::lang::Lang;

fn extract(path: &str, source: &str) -> FileFacts {
    Extractor::default().extract(path, Lang::Swift, source)
}

const SOURCE: &str = r#"import Foundation
@testable import ShopCore

/// Something with an area.
protocol Shape: AnyObject, Named {
    func area() -> Double
    var name: String { get }
}

extension Shape {
    func describe() -> String { return name }
}

class Base {
    init() {}
    func run() {}
}

final class Circle: Base, Shape {
    static let shared = Circle(r: 1)
    var r: Double
    let helper: Helper = Helper()
    var name: String { "c" }
    lazy var other = Helper()
    init(r: Double) { self.r = r; super.init() }
    convenience init() { self.init(r: 0) }
    deinit { cleanup() }
    func area() -> Double { return r * r }
    override func run() {
        super.run()
        self.area()
        area()
        helper.go(x: 1)
        helper?.go(x: 1)
        helper!.go(x: 1)
        let h = Helper()
        h.go { x in print(x) }
        let k: Helper = .init()
        let s: Store = .make()
        Circle.make()
        Circle.shared.area()
        Helper.init().go(x: 2)
        if let z = maybe() { z.go() }
        guard let w = try? self.find() as? Helper else { return }
        w.go()
        cache[key].go()
        table[0]
    }
    class func make() -> Circle? { Circle(r: 2) }
    subscript(i: Int) -> Int { return i }
    struct Inner { func f() {} }
    typealias Alias = Helper
}

struct Helper {
    func go(x: Int) {}
}

enum Kind: String, Codable {
    case a, b(Int)
    func label() -> String { "" }
}

actor Store {
    func save() async throws {}
}

extension Circle: Equatable, Hashable {
    func extra() { extra2() }
    var twice: Double { r * 2 }
}

extension Remote {
    func ping() {}
}

func topLevel(s: Shape, c: Circle?) -> Helper {
    s.area()
    c?.run()
    return Helper()
}
"#;

#[test]
fn types_members_extensions_and_the_module() {
    let f = extract("Sources/Shop/Shapes.swift", SOURCE);
    assert_eq!(f.package.as_deref(), Some("Shop"));
    let defs: Vec<(&str, NodeKind)> = f
        .defs
        .iter()
        .map(|d| (d.qualified.as_str(), d.kind))
        .collect();
    assert_eq!(
        defs,
        [
            ("Shape", NodeKind::Interface),
            ("Shape.area", NodeKind::Method),
            ("Shape.name", NodeKind::Method),
            ("Shape.describe", NodeKind::Method),
            ("Base", NodeKind::Class),
            ("Base.init", NodeKind::Method),
            ("Base.run", NodeKind::Method),
            ("Circle", NodeKind::Class),
            ("Circle.shared", NodeKind::Method),
            ("Circle.r", NodeKind::Method),
            ("Circle.helper", NodeKind::Method),
            ("Circle.name", NodeKind::Method),
            ("Circle.other", NodeKind::Method),
            ("Circle.init", NodeKind::Method),
            ("Circle.init", NodeKind::Method),
            ("Circle.deinit", NodeKind::Method),
            ("Circle.area", NodeKind::Method),
            ("Circle.run", NodeKind::Method),
            ("Circle.make", NodeKind::Method),
            ("Circle.subscript", NodeKind::Method),
            ("Circle.Inner", NodeKind::Struct),
            ("Circle.Inner.f", NodeKind::Method),
            ("Helper", NodeKind::Struct),
            ("Helper.go", NodeKind::Method),
            ("Kind", NodeKind::Enum),
            ("Kind.label", NodeKind::Method),
            ("Store", NodeKind::Class),
            ("Store.save", NodeKind::Method),
            ("Circle.extra", NodeKind::Method),
            ("Circle.twice", NodeKind::Method),
            ("Remote.ping", NodeKind::Method),
            ("topLevel", NodeKind::Function),
        ]
    );
    let def = |q: &str| f.defs.iter().find(|d| d.qualified == q).unwrap();
    // Extension members in the file of their type are that type's; others wait for the resolver.
    assert_eq!(def("Shape.describe").parent, Some(0));
    assert_eq!(def("Circle.extra").parent, Some(7));
    assert_eq!(def("Remote.ping").parent, None);
    assert_eq!(def("Shape").extends, ["AnyObject", "Named"]);
    assert_eq!(def("Shape").doc, "Something with an area.");
    assert_eq!(def("Circle").extends, ["Base"]);
    assert_eq!(def("Circle").implements, ["Shape"]);
    assert_eq!(def("Kind").implements, ["String", "Codable"]);
    assert!(def("Kind").extends.is_empty());
    assert_eq!(def("Circle.make").returns, "Circle");
    assert_eq!(def("Circle.area").returns, "Double");
    assert_eq!(def("Circle.helper").returns, "Helper");
    assert_eq!(def("Circle.other").returns, "Helper");
    assert_eq!(def("Circle.shared").returns, "Circle");
    assert_eq!(
        f.conformances,
        [(
            "Circle".to_owned(),
            vec!["Equatable".to_owned(), "Hashable".to_owned()],
            68
        )]
    );
    let imports: Vec<(&str, bool)> = f
        .imports
        .iter()
        .map(|i| (i.module.as_str(), i.wildcard))
        .collect();
    assert_eq!(imports, [("Foundation", true), ("ShopCore", true)]);
    assert_eq!(
        f.type_aliases,
        [("Alias".to_owned(), vec!["Helper".to_owned()])]
    );
    assert!(
        f.attr_bindings
            .contains(&(7, "helper".into(), "Helper".into()))
    );
}

#[test]
fn calls_with_receivers_constructors_and_bindings() {
    let f = extract("Sources/Shop/Shapes.swift", SOURCE);
    let calls = calls_in(&f, "Circle.run");
    for expected in [
        member(Receiver::Super, "run"),
        member(Receiver::SelfRef, "area"),
        Callee::Name("area".into()),
        member(Receiver::Name("helper".into()), "go"),
        Callee::Name("Helper".into()),
        member(Receiver::Name("h".into()), "go"),
        Callee::Name("print".into()),
        Callee::New("Helper".into()),
        member(Receiver::Name("Store".into()), "make"),
        member(Receiver::Name("Circle".into()), "make"),
        member(Receiver::Path("Circle.shared".into()), "area"),
        member(Receiver::Call("Helper".into()), "go"),
        Callee::Name("maybe".into()),
        member(Receiver::Name("z".into()), "go"),
        member(Receiver::Name("w".into()), "go"),
    ] {
        assert!(
            calls.contains(&expected),
            "missing {expected:?} in {calls:#?}"
        );
    }
    // `helper.go`, `helper?.go` and `helper!.go` are one receiver.
    let on_helper = calls
        .iter()
        .filter(|c| **c == member(Receiver::Name("helper".into()), "go"))
        .count();
    assert_eq!(on_helper, 3);
    // A subscript is no call, and its result no known receiver.
    assert!(
        !calls
            .iter()
            .any(|c| matches!(c, Callee::Name(n) if n == "cache" || n == "table"))
    );
    assert!(!calls.contains(&member(Receiver::Call("cache".into()), "go")));
    let inits: Vec<Callee> = f
        .calls
        .iter()
        .filter(|c| {
            c.caller
                .is_some_and(|d| f.defs[d as usize].qualified == "Circle.init")
        })
        .map(|c| c.callee.clone())
        .collect();
    assert!(
        inits.contains(&member(Receiver::Super, "init")),
        "{inits:?}"
    );
    assert!(
        inits.contains(&member(Receiver::SelfRef, "init")),
        "{inits:?}"
    );
    assert_eq!(
        calls_in(&f, "Circle.deinit"),
        [Callee::Name("cleanup".into())]
    );
    assert_eq!(
        calls_in(&f, "Circle.extra"),
        [Callee::Name("extra2".into())]
    );
    assert_eq!(
        calls_in(&f, "Circle.shared"),
        [Callee::Name("Circle".into())]
    );
    let run = f
        .defs
        .iter()
        .position(|d| d.qualified == "Circle.run")
        .map(|i| i as u32);
    for (var, ty) in [
        ("h", "Helper"),
        ("k", "Helper"),
        ("s", "Store"),
        ("w", "Helper"),
    ] {
        assert!(
            f.bindings.contains(&Binding {
                scope: run,
                var: var.into(),
                type_name: ty.into()
            }),
            "{var}: {:?}",
            f.bindings
        );
    }
    assert!(f.call_bindings.contains(&CallBinding {
        scope: run,
        var: "z".into(),
        callee: Callee::Name("maybe".into()),
    }));
    let top = f
        .defs
        .iter()
        .position(|d| d.name == "topLevel")
        .map(|i| i as u32);
    for (var, ty) in [("s", "Shape"), ("c", "Circle")] {
        assert!(f.bindings.contains(&Binding {
            scope: top,
            var: var.into(),
            type_name: ty.into()
        }));
    }
    assert_eq!(
        calls_in(&f, "topLevel"),
        [
            member(Receiver::Name("s".into()), "area"),
            member(Receiver::Name("c".into()), "run"),
            Callee::Name("Helper".into()),
        ]
    );
}

#[test]
fn modules_are_package_targets_else_the_project() {
    let module = |path: &str| extract(path, "").package;
    assert_eq!(module("Sources/Shop/A.swift").as_deref(), Some("Shop"));
    assert_eq!(
        module("pkg/Sources/Shop/Sub/A.swift").as_deref(),
        Some("Shop")
    );
    assert_eq!(
        module("Tests/ShopTests/A.swift").as_deref(),
        Some("ShopTests")
    );
    assert_eq!(module("ios/Core/A.swift").as_deref(), Some(""));
    assert_eq!(module("Sources/A.swift").as_deref(), Some(""));
}

#[test]
fn odd_input_does_not_panic() {
    for source in [
        "",
        "class",
        "extension { func }",
        "class A: { init( { self.init( } }",
        "let x: = .init(\nfunc f() { a?.b!.c?(); .x(); super.init; }",
        "guard let = else {}\nif let a = , let b = c() {}",
    ] {
        let _ = extract("a.swift", source);
    }
}
