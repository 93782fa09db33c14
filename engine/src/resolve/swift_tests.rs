//! Swift resolution fixtures: a package's modules (`Sources/<Target>/`) and `import`, implicit
//! `self`, `self.`/`super.`, `Type(…)`, `Type.f()`, `.init(…)`, typed properties, parameters,
//! locals, `if let`/`guard let`, return types, type aliases, extensions (members and conformances), protocol
//! extensions' default methods, calls through a protocol, and a superclass told from a protocol.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const SHAPE: &str = r#"protocol Shape {
    func area() -> Double
}

extension Shape {
    func describe() -> String { return String(area()) }
}

class Base {
    init() {}
    func run() {}
    func stop() {}
}
"#;

const CIRCLE: &str = r#"final class Circle: Base, Shape {
    let helper: Helper
    var r: Double

    init(r: Double) {
        self.r = r
        self.helper = Helper()
        super.init()
    }

    func area() -> Double { return r * r }

    override func run() {
        super.run()
        self.area()
        stop()
        helper.go()
        helper?.go()
        let h = Helper()
        h.go()
        let k: Helper = .init()
        k.go()
        Circle.make().area()
        if let z = makeHelper() { z.go() }
        guard let w = self.finder() else { return }
        w.tool()
    }

    func finder() -> Tool? { return nil }

    static func make() -> Circle { return Circle(r: 2) }
}
"#;

const SQUARE: &str = r#"struct Square {
    func area() -> Double { return 4 }
}

extension Square: Shape {}

extension Circle {
    func extra() {
        area()
        describe()
    }
}
"#;

const HELPER: &str = r#"struct Helper {
    func go() {}
    func tool() {}
}

func makeHelper() -> Helper? { return Helper() }

typealias Tool = Helper
"#;

const MAIN: &str = r#"import Shop

func main(s: Shape) {
    s.area()
    s.describe()
    let c = Circle(r: 1)
    c.extra()
    c.run()
}
"#;

const OTHER: &str = r#"struct Helper {
    func go() {}
}
"#;

#[test]
fn swift_calls_heritage_and_modules() {
    let g = graph(&[
        ("Sources/Shop/Shape.swift", SHAPE),
        ("Sources/Shop/Circle.swift", CIRCLE),
        ("Sources/Shop/Square.swift", SQUARE),
        ("Sources/Shop/Helper.swift", HELPER),
        ("Sources/App/main.swift", MAIN),
        ("Sources/Other/Helper.swift", OTHER),
    ]);
    let main = "Function:Sources/App/main.swift:main";
    let run = "Method:Sources/Shop/Circle.swift:Circle.run";
    let extra = "Method:Sources/Shop/Square.swift:Circle.extra";
    let helper = "Struct:Sources/Shop/Helper.swift:Helper";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `Circle(r: 1)` in another module the file imports.
            (
                main,
                "Class:Sources/Shop/Circle.swift:Circle",
                "0.97",
                "constructor"
            ),
            // `s.area()` where `s: Shape`: the requirement, and each conforming type's
            // implementation (one through an extension's conformance) as a candidate.
            (
                main,
                "Method:Sources/Shop/Shape.swift:Shape.area",
                "0.97",
                "receiver-type"
            ),
            (
                main,
                "Method:Sources/Shop/Circle.swift:Circle.area",
                "0.48",
                "ambiguous"
            ),
            (
                main,
                "Method:Sources/Shop/Square.swift:Square.area",
                "0.48",
                "ambiguous"
            ),
            // A protocol extension's default method.
            (
                main,
                "Method:Sources/Shop/Shape.swift:Shape.describe",
                "0.97",
                "receiver-type"
            ),
            // A method an extension in another file adds.
            (main, extra, "0.97", "receiver-type"),
            (main, run, "0.97", "receiver-type"),
            // `Helper()` is the module's own `Helper`, not another module's.
            (
                "Function:Sources/Shop/Helper.swift:makeHelper",
                helper,
                "0.97",
                "constructor"
            ),
            (
                "Method:Sources/Shop/Circle.swift:Circle.init",
                "Method:Sources/Shop/Shape.swift:Base.init",
                "0.95",
                "super-method"
            ),
            (
                "Method:Sources/Shop/Circle.swift:Circle.init",
                helper,
                "0.97",
                "constructor"
            ),
            (
                "Method:Sources/Shop/Circle.swift:Circle.make",
                "Class:Sources/Shop/Circle.swift:Circle",
                "0.97",
                "constructor"
            ),
            // A function of another file of the module.
            (
                run,
                "Function:Sources/Shop/Helper.swift:makeHelper",
                "0.97",
                "same-file"
            ),
            // `self.area()`, `area()`, `Circle.make().area()`.
            (
                run,
                "Method:Sources/Shop/Circle.swift:Circle.area",
                "0.98",
                "self-method"
            ),
            (
                run,
                "Method:Sources/Shop/Circle.swift:Circle.finder",
                "0.98",
                "self-method"
            ),
            (
                run,
                "Method:Sources/Shop/Circle.swift:Circle.make",
                "0.97",
                "class-member"
            ),
            // `helper.go()`, `helper?.go()`, `h`, `k: Helper = .init()`, `if let z`.
            (
                run,
                "Method:Sources/Shop/Helper.swift:Helper.go",
                "0.97",
                "receiver-type"
            ),
            // `guard let w = self.finder()`: its return type a `typealias` of another file.
            (
                run,
                "Method:Sources/Shop/Helper.swift:Helper.tool",
                "0.95",
                "receiver-type"
            ),
            (
                run,
                "Method:Sources/Shop/Shape.swift:Base.run",
                "0.95",
                "super-method"
            ),
            // Implicit `self` reaching the superclass.
            (
                run,
                "Method:Sources/Shop/Shape.swift:Base.stop",
                "0.95",
                "self-method"
            ),
            (run, helper, "0.97", "constructor"),
            (
                "Method:Sources/Shop/Shape.swift:Shape.describe",
                "Method:Sources/Shop/Shape.swift:Shape.area",
                "0.98",
                "self-method"
            ),
            // Implicit `self` in an extension written in another file than its type.
            (
                extra,
                "Method:Sources/Shop/Circle.swift:Circle.area",
                "0.98",
                "self-method"
            ),
            (
                extra,
                "Method:Sources/Shop/Shape.swift:Shape.describe",
                "0.95",
                "self-method"
            ),
        ])
    );
    let heritage: Vec<_> = edges(&g, EdgeKind::Extends)
        .into_iter()
        .map(|e| ("extends", e))
        .chain(
            edges(&g, EdgeKind::Implements)
                .into_iter()
                .map(|e| ("implements", e)),
        )
        .map(|(k, (a, b, _, _))| (k, a, b))
        .collect();
    assert_eq!(
        heritage,
        [
            // The first of `: Base, Shape` is a class: the superclass.
            (
                "extends",
                "Class:Sources/Shop/Circle.swift:Circle".to_owned(),
                "Class:Sources/Shop/Shape.swift:Base".to_owned()
            ),
            (
                "implements",
                "Class:Sources/Shop/Circle.swift:Circle".to_owned(),
                "Interface:Sources/Shop/Shape.swift:Shape".to_owned()
            ),
            // `extension Square: Shape {}` in its own file.
            (
                "implements",
                "Struct:Sources/Shop/Square.swift:Square".to_owned(),
                "Interface:Sources/Shop/Shape.swift:Shape".to_owned()
            ),
        ]
    );
}
