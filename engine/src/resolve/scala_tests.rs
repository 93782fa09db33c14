//! Scala resolution fixtures: chained package clauses, package objects, imports (by name,
//! renamed, wildcard, relative to the package), companions (`Foo.f()`, `Foo(…)` → `apply`),
//! `new`, receivers (`this`, `super`, typed vals, parameters, members, return types),
//! paren-less and infix calls, traits mixed in, extension methods and implicit classes.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const GATEWAY: &str = r#"package shop
package pay

trait Charges {
  def charge(cents: Int): Boolean
}

class Gateway extends Charges {
  override def charge(cents: Int): Boolean = log(cents)

  private def log(cents: Int): Boolean = formatCents(cents).nonEmpty
}

object Gateway {
  def connect(): Gateway = new Gateway()
}
"#;

const PAY_PACKAGE: &str = r#"package shop

package object pay {
  def formatCents(cents: Int): String = cents.toString
}
"#;

const BASE: &str = r#"package shop

abstract class Base {
  boot()

  protected def boot(): Unit = ()

  def save(): Boolean = true

  def size: Int = 0
}

object Registry {
  def register(cart: Cart): Unit = ()
}

trait Audited {
  def audit(): Unit = ()
}
"#;

const CART: &str = r#"package shop

import shop.pay.Gateway
import shop.pay.{Gateway => Pay, Charges}
import pay._

type Book = Ledger

class Cart(val ledger: Ledger, charges: Charges) extends Base with Audited {
  private val gateway: Gateway = Gateway.connect()
  lazy val backup = new Gateway

  def this(ledger: Ledger) = this(ledger, new Gateway())

  override def boot(): Unit = super.boot()

  def checkout(card: Gateway): Boolean = {
    card.charge(1)
    gateway.charge(3)
    this.ledger.record()
    ledger.record()
    val pay = Pay.connect()
    pay.charge(4)
    val other = new Cart(new Ledger())
    other.save()
    other.size
    Registry.register(this)
    formatCents(5)
    tax()
    audit()
    other.total()
    Ledger().twice
    val book: Book = Ledger()
    book.record()
    val money = Money(3)
    money add money
    Money.zero.add(money)
    unknown.mystery()
    this.save()
  }
}

object Cart {
  def tax(): Int = 1
}

case class Money(cents: Int) {
  def add(other: Money): Money = Money(cents + other.cents)
}

object Money {
  val zero: Money = new Money(0)
  def apply(cents: Int): Money = new Money(cents)
}

class Ledger {
  def record(): Unit = ()
}

object Ledger {
  def apply(): Ledger = new Ledger
}

extension (cart: Cart)
  def total(): Int = Cart.tax() + cart.size

implicit class RichLedger(ledger: Ledger) {
  def twice: Unit = ledger.record()
}
"#;

fn project() -> crate::graph::Graph {
    graph(&[
        ("src/main/scala/shop/pay/Gateway.scala", GATEWAY),
        ("src/main/scala/shop/pay/package.scala", PAY_PACKAGE),
        ("src/main/scala/shop/Base.scala", BASE),
        ("src/main/scala/shop/Cart.scala", CART),
    ])
}

#[test]
fn scala_packages_imports_receivers_companions_and_extensions() {
    let g = project();
    // `unknown.mystery()` reaches nothing.
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A statement in a class body runs as it is built.
            (
                "Class:src/main/scala/shop/Base.scala:Base",
                "Method:src/main/scala/shop/Base.scala:Base.boot",
                "0.98",
                "self-method"
            ),
            // The extension's receiver parameter is typed; `Cart.tax()` is the companion's.
            (
                "Function:src/main/scala/shop/Cart.scala:total",
                "Method:src/main/scala/shop/Base.scala:Base.size",
                "0.95",
                "receiver-type"
            ),
            (
                "Function:src/main/scala/shop/Cart.scala:total",
                "Method:src/main/scala/shop/Cart.scala:Cart.tax",
                "0.97",
                "class-member"
            ),
            // `def this(…) = this(…, new Gateway())`.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.Cart",
                "Class:src/main/scala/shop/Cart.scala:Cart",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.Cart",
                "Class:src/main/scala/shop/pay/Gateway.scala:Gateway",
                "0.97",
                "constructor"
            ),
            // `new Gateway` without parentheses, in a lazy val.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.backup",
                "Class:src/main/scala/shop/pay/Gateway.scala:Gateway",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.boot",
                "Method:src/main/scala/shop/Base.scala:Base.boot",
                "0.95",
                "super-method"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Class:src/main/scala/shop/Cart.scala:Cart",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Class:src/main/scala/shop/Cart.scala:Ledger",
                "0.97",
                "constructor"
            ),
            // `other.total()`: an extension method, below members found by type.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Function:src/main/scala/shop/Cart.scala:total",
                "0.90",
                "receiver-type"
            ),
            // `import pay._` in package `shop` is `shop.pay`, whose package object defines it.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Function:src/main/scala/shop/pay/package.scala:formatCents",
                "0.97",
                "import-resolved"
            ),
            // A trait mixed in: its member is the class's.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Base.scala:Audited.audit",
                "0.95",
                "self-method"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Base.scala:Base.save",
                "0.95",
                "receiver-type"
            ),
            // `other.size`: a paren-less def is called.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Base.scala:Base.size",
                "0.95",
                "receiver-type"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Base.scala:Registry.register",
                "0.97",
                "class-member"
            ),
            // `gateway.charge(3)`: the member val read bare is a paren-less call (uniform access).
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Cart.gateway",
                "0.98",
                "self-method"
            ),
            // The companion object's member is the class's own.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Cart.tax",
                "0.98",
                "self-method"
            ),
            // `Ledger()` and `Money(3)`: the companions' `apply`.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Ledger.apply",
                "0.97",
                "receiver-type"
            ),
            // `ledger.record()` (a class parameter) and `book.record()` (through the type alias).
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Ledger.record",
                "0.97",
                "receiver-type"
            ),
            // `money add money` (infix) and `Money.zero.add(money)` (a companion's val).
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Money.add",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Money.apply",
                "0.97",
                "receiver-type"
            ),
            // `Ledger().twice`: an implicit class's method.
            // `Money.zero.add(…)`: the paren-less access inside the chain is a call.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:Money.zero",
                "0.97",
                "class-member"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/Cart.scala:RichLedger.twice",
                "0.90",
                "receiver-type"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.charge",
                "0.97",
                "receiver-type"
            ),
            // `Pay.connect()`: renamed in the import.
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.checkout",
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.connect",
                "0.97",
                "class-member"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Cart.gateway",
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.connect",
                "0.97",
                "class-member"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Ledger.apply",
                "Class:src/main/scala/shop/Cart.scala:Ledger",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Money.add",
                "Method:src/main/scala/shop/Cart.scala:Money.apply",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Money.apply",
                "Class:src/main/scala/shop/Cart.scala:Money",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:Money.zero",
                "Class:src/main/scala/shop/Cart.scala:Money",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/main/scala/shop/Cart.scala:RichLedger.twice",
                "Method:src/main/scala/shop/Cart.scala:Ledger.record",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.charge",
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.log",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.connect",
                "Class:src/main/scala/shop/pay/Gateway.scala:Gateway",
                "0.97",
                "constructor"
            ),
            // Another file of the package.
            (
                "Method:src/main/scala/shop/pay/Gateway.scala:Gateway.log",
                "Function:src/main/scala/shop/pay/package.scala:formatCents",
                "0.97",
                "same-file"
            ),
        ])
    );
    // A class extends its superclass and implements the traits it mixes in.
    assert_eq!(
        edges(&g, EdgeKind::Extends),
        owned(&[
            (
                "Class:src/main/scala/shop/Cart.scala:Book",
                "Class:src/main/scala/shop/Cart.scala:Ledger",
                "0.97",
                "heritage"
            ),
            (
                "Class:src/main/scala/shop/Cart.scala:Cart",
                "Class:src/main/scala/shop/Base.scala:Base",
                "0.97",
                "heritage"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Implements),
        owned(&[
            (
                "Class:src/main/scala/shop/Cart.scala:Cart",
                "Trait:src/main/scala/shop/Base.scala:Audited",
                "0.97",
                "heritage"
            ),
            (
                "Class:src/main/scala/shop/pay/Gateway.scala:Gateway",
                "Trait:src/main/scala/shop/pay/Gateway.scala:Charges",
                "0.97",
                "heritage"
            ),
        ])
    );
}

const READER: &str = r#"package text

class Reader(input: String, start: Int) {
  private var offset = start
  def char: Char = input.charAt(offset)
  def peek: Char = char
  def mark: Int = offset
  def atEnd: Boolean = offset >= input.length
  def rest: Reader = new Reader(input, offset + 1)
  def skip(): Unit = offset += 1
  def isLetter: Boolean = char.isLetter

  def word(limit: Int): String = {
    val peek = 'x'
    if (atEnd || !isLetter) ""
    else {
      skip()
      s"$mark$peek" + (rest.rest.char max peek) + limit
    }
  }

  def scan(items: List[Reader], start: Int): Int =
    items.map(mark => mark.atEnd).size + items.count { case peek: Reader => peek.isLetter } + start
}
"#;

/// Bare paren-less names call the `def` they name (`atEnd`, `!isLetter`, `$mark` inside a
/// string, `char.isLetter`'s receiver) unless a scope binds the name (a local `val`, a
/// parameter, a lambda's parameter, a pattern's variable); a paren-less access inside a chain
/// or before an infix operator is a call too (`rest.rest`, `rest.rest.char max peek`).
#[test]
fn scala_bare_and_chained_parenless_calls() {
    let g = graph(&[("src/main/scala/text/Reader.scala", READER)]);
    let calls = edges(&g, EdgeKind::Calls);
    let from = |caller: &str| -> std::collections::BTreeSet<String> {
        let caller = format!("Method:src/main/scala/text/Reader.scala:Reader.{caller}");
        calls
            .iter()
            .filter(|e| e.0 == caller)
            .filter_map(|e| e.1.rsplit(':').next().map(str::to_owned))
            .collect()
    };
    let names = |list: &[&str]| -> std::collections::BTreeSet<String> {
        list.iter().map(|n| n.to_string()).collect()
    };
    assert_eq!(from("peek"), names(&["Reader.char"]));
    assert_eq!(from("isLetter"), names(&["Reader.char"]));
    // The local `val peek` hides the method; `rest` is called bare, then as `rest.rest`'s
    // member, whose result's `char` is called before `max`.
    assert_eq!(
        from("word"),
        names(&[
            "Reader.atEnd",
            "Reader.char",
            "Reader.isLetter",
            "Reader.mark",
            "Reader.rest",
            "Reader.skip",
        ])
    );
    // A lambda's parameter (`mark`) and a pattern's variable (`peek`) hide the methods.
    let scan = from("scan");
    assert!(!scan.contains("Reader.mark"), "{scan:?}");
    assert!(!scan.contains("Reader.peek"), "{scan:?}");
}

const UTIL_PACKAGE: &str = r#"package site

package object util {
  def title: String = "util"
}
"#;

const PAGE: &str = r#"package site

import util._

abstract class Page {
  protected def title: String
  def render(): String = title + heading
  def heading: String = {
    def title = "local"
    title
  }
}
"#;

/// A bare name is a member of the enclosing class (own or inherited) before a name a wildcard
/// import brings; a local `def` of that name comes first.
#[test]
fn scala_class_members_come_before_wildcard_imports() {
    let g = graph(&[
        ("src/main/scala/site/util/package.scala", UTIL_PACKAGE),
        ("src/main/scala/site/Page.scala", PAGE),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    let from = |caller: &str| -> std::collections::BTreeSet<String> {
        let caller = format!("Method:src/main/scala/site/Page.scala:Page.{caller}");
        calls
            .iter()
            .filter(|e| e.0 == caller)
            .map(|e| e.1.clone())
            .collect()
    };
    let set = |list: &[&str]| -> std::collections::BTreeSet<String> {
        list.iter().map(|n| n.to_string()).collect()
    };
    assert_eq!(
        from("render"),
        set(&[
            "Method:src/main/scala/site/Page.scala:Page.heading",
            "Method:src/main/scala/site/Page.scala:Page.title",
        ])
    );
    assert_eq!(
        from("heading"),
        set(&["Function:src/main/scala/site/Page.scala:Page.heading.title"])
    );
    // Nothing reaches the imported function the class's member hides.
    assert!(
        !calls
            .iter()
            .any(|e| e.1 == "Function:src/main/scala/site/util/package.scala:title")
    );
}

const SHAPES: &str = r#"package draw

trait Shape {
  def area(): Int
}

class Circle extends Shape {
  def area(): Int = 3
  def radius(): Int = 1
  def diameter(): Int = 2
  def perimeter(): Int = 6
  def center(): Int = 0
}

class Square extends Shape {
  def area(): Int = 4
  def side(): Int = 2
}

trait Logging {
  def log(line: String): Unit = ()
}

trait Canvas { self: Logging with Sized =>
  def paint(shapes: List[Shape], circles: Seq[Circle]): Unit = {
    log("paint")
    self.width()
    shapes foreach {
      case c: Circle => c.radius()
      case c: Square => c.side()
      case _ => ()
    }
    circles.foreach(c => c.diameter())
    circles.filter(_.area() > 0).map(_.perimeter())
    for (s <- circles) s.center()
  }
}

trait Sized {
  def width(): Int = 0
}
"#;

/// `case c: T =>` types `c` in its clause (the same name typed anew in the next one); a self
/// type (`self: A with B =>`) makes `A`'s and `B`'s members callable bare and on `self`; a
/// lambda's parameter (`c =>`, `_`) and a `for` generator's variable hold an element of the
/// collection, also through `filter`.
#[test]
fn scala_pattern_types_self_types_and_element_lambdas() {
    let g = graph(&[("src/main/scala/draw/Shapes.scala", SHAPES)]);
    let calls = edges(&g, EdgeKind::Calls);
    let paint: std::collections::BTreeSet<(String, String)> = calls
        .iter()
        .filter(|e| e.0 == "Method:src/main/scala/draw/Shapes.scala:Canvas.paint")
        .map(|e| (e.1.rsplit(':').next().unwrap_or("").to_owned(), e.2.clone()))
        .collect();
    let expected: std::collections::BTreeSet<(String, String)> = [
        ("Circle.area", "0.95"),
        ("Circle.center", "0.95"),
        ("Circle.diameter", "0.95"),
        ("Circle.perimeter", "0.95"),
        ("Circle.radius", "0.97"),
        ("Logging.log", "0.95"),
        ("Sized.width", "0.95"),
        ("Square.side", "0.97"),
    ]
    .iter()
    .map(|(n, c)| (n.to_string(), c.to_string()))
    .collect();
    assert_eq!(paint, expected);
    // A self type is no base: no heritage edge.
    assert!(
        edges(&g, EdgeKind::Implements)
            .iter()
            .chain(&edges(&g, EdgeKind::Extends))
            .all(|e| !e.0.ends_with(":Canvas"))
    );
}

const INDEX: &str = r#"package site
package doc

trait Index {
  def letters: List[String]
  def hasDeprecated: Boolean
}
"#;

const HTML_PAGE: &str = r#"package site
package doc
package html

class Page(index: doc.Index) {
  def render(): Boolean = index.hasDeprecated
}

trait Entry {
  def title: String = ""
}

abstract class Node {
  def entry: Entry
  def name = entry.title
}

class Writer(val page: Page) {
  def write(): Unit = {
    import page._
    render()
  }
}
"#;

/// A dotted type is read relative to the enclosing packages (`doc.Index` in `site.doc.html`);
/// a paren-less member `def entry: Entry` types a bare `entry.title`; `import page._` brings
/// the members of a value's type as bare names.
#[test]
fn scala_package_relative_types_parenless_members_and_value_imports() {
    let g = graph(&[
        ("src/main/scala/site/doc/Index.scala", INDEX),
        ("src/main/scala/site/doc/html/Page.scala", HTML_PAGE),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    let reached = |caller: &str, callee: &str| {
        calls.iter().any(|e| {
            e.0 == format!("Method:src/main/scala/site/doc/html/Page.scala:{caller}")
                && e.1.ends_with(callee)
        })
    };
    assert!(reached("Page.render", ":Index.hasDeprecated"), "{calls:?}");
    assert!(reached("Node.name", ":Entry.title"), "{calls:?}");
    assert!(reached("Writer.write", ":Page.render"), "{calls:?}");
}

const REPL_CONFIG: &str = r#"package shell

trait Config {
  def isDebug: Boolean = false
}
"#;

const SHELL_PACKAGE: &str = r#"package tools

package object shell extends Config {
  def trace(msg: String): String = msg
}
"#;

const SESSION: &str = r#"package tools
package shell

class Engine {
  def trace(msg: String): String = msg
}

class Session(val engine: Engine) {
  import engine.{ trace }

  def run(): Unit = {
    if (isDebug) trace("run")
  }
}
"#;

/// A member of a base of the package object is a name of the package (`isDebug`); a name a
/// value's import names (`import engine.{ trace }`) comes before the package's own `trace`.
#[test]
fn scala_package_object_bases_and_explicit_value_imports() {
    let g = graph(&[
        ("src/main/scala/tools/shell/Config.scala", REPL_CONFIG),
        ("src/main/scala/tools/shell/package.scala", SHELL_PACKAGE),
        ("src/main/scala/tools/shell/Session.scala", SESSION),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    let run: std::collections::BTreeSet<String> = calls
        .iter()
        .filter(|e| e.0 == "Method:src/main/scala/tools/shell/Session.scala:Session.run")
        .map(|e| e.1.clone())
        .collect();
    assert_eq!(
        run,
        [
            "Method:src/main/scala/tools/shell/Config.scala:Config.isDebug",
            "Method:src/main/scala/tools/shell/Session.scala:Engine.trace",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    );
}

const COMPLETIONS: &str = r#"package tools

trait Completer {
  def words(level: Int): List[String] = Nil
}

class MemberCompleter(prefix: String) extends Completer {
  override def words(level: Int): List[String] = List(prefix)
}

object MemberCompleter {
  def upgraded(prefix: String): MemberCompleter = new MemberCompleter(prefix) {
    override def words(level: Int): List[String] = super.words(level) ++ Nil
  }
}

class Shell extends Completer {
  override def words(level: Int): List[String] = super.words(level)
}
"#;

/// `super` in the body of an anonymous class (`new MemberCompleter(…) { … }`) is the class it
/// extends, not the parent of the type around it; elsewhere it is the enclosing type's parent.
#[test]
fn scala_super_in_an_anonymous_class_is_the_class_it_extends() {
    let g = graph(&[("src/main/scala/tools/Completion.scala", COMPLETIONS)]);
    let calls = edges(&g, EdgeKind::Calls);
    let from = |caller: &str| -> Vec<String> {
        calls
            .iter()
            .filter(|e| e.0 == caller && e.1.ends_with(".words"))
            .map(|e| e.1.clone())
            .collect()
    };
    let anonymous: Vec<String> = calls
        .iter()
        .filter(|e| {
            e.0.ends_with(".words")
                && e.0 != "Method:src/main/scala/tools/Completion.scala:Shell.words"
                && e.1.ends_with(".words")
        })
        .map(|e| e.1.clone())
        .collect();
    assert_eq!(
        anonymous,
        ["Method:src/main/scala/tools/Completion.scala:MemberCompleter.words"]
    );
    assert_eq!(
        from("Method:src/main/scala/tools/Completion.scala:Shell.words"),
        ["Method:src/main/scala/tools/Completion.scala:Completer.words"]
    );
}

const ELEMENT_ACCESSORS: &str = r#"package doc

trait Entity {
  def name: String
  def isClass: Boolean
}

class Node(val tpl: Option[Entity], val kids: List[Entity]) {
  def label: String = if (tpl.isDefined) tpl.get.name else ""
  def first: Boolean = kids.head.isClass
}

object Show {
  def show(node: Node): String = node.tpl.get.name
  def prefixes: List[String] = Nil
  def all(): Unit = for (p <- prefixes) println(p)
}
"#;

/// `opt.get` of an `Option[T]` member and `xs.head` of a `List[T]` one are a `T`: the member
/// after them is `T`'s (through `this` or a typed parameter). A `for` generator's source
/// (`p <- prefixes`) calls a paren-less member; its pattern does not.
#[test]
fn scala_element_accessors_of_collection_members_and_generator_sources() {
    let g = graph(&[("src/doc/Node.scala", ELEMENT_ACCESSORS)]);
    let file = "src/doc/Node.scala";
    let name = format!("Method:{file}:Entity.name");
    let is_class = format!("Method:{file}:Entity.isClass");
    let calls = edges(&g, EdgeKind::Calls);
    let reached = |caller: &str| -> Vec<(String, String)> {
        calls
            .iter()
            .filter(|e| e.0 == format!("Method:{file}:{caller}"))
            .map(|e| (e.1.clone(), e.2.clone()))
            .collect()
    };
    assert!(reached("Node.label").contains(&(name.clone(), "0.95".to_owned())));
    assert!(reached("Node.first").contains(&(is_class, "0.95".to_owned())));
    assert!(reached("Show.show").contains(&(name, "0.95".to_owned())));
    assert_eq!(
        reached("Show.all"),
        [(format!("Method:{file}:Show.prefixes"), "0.98".to_owned())]
    );
}
