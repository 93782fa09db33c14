//! Ruby resolution fixtures: reopened classes and modules, constants through the nesting,
//! `require`/`require_relative`, receivers (`self`, typed locals, `@ivars`, `Const.m`, `Foo.new`),
//! `super`, mixins, inheritance, bare calls against locals, and what is left unresolved.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const BASE: &str = r#"module Shop
  class Base
    def initialize
      boot
    end

    def boot; end

    def save
      true
    end
  end

  module Totals
    def total
      subtotal
    end
  end
end
"#;

const LEDGER: &str = r#"module Shop
  class Ledger
    def record(line); end

    def self.open
      new
    end
  end
end
"#;

const CART: &str = r#"require "shop/base"
require_relative "ledger"

module Shop
  class Cart < Base
    include Totals
    attr_reader :items

    def initialize(owner)
      super()
      @ledger = Ledger.new
      @items = []
    end

    def subtotal
      items.size
    end

    def add(item)
      line = Line.new
      line.price
      @ledger.record(line)
      self.save
      helper
      Ledger.open
      Shop::Cart.create
      total
      puts item
      mystery
      unknown.frobnicate
      item.send(:save)
    end
  end
end

def helper
  Shop::Line.new.price
end
"#;

const REOPENED: &str = r#"module Shop
  class Cart
    def self.create
      Cart.new(nil)
    end
  end

  class Line
    def price
      1
    end
  end
end
"#;

#[test]
fn ruby_constants_receivers_mixins_and_reopened_classes() {
    let g = graph(&[
        ("lib/shop/base.rb", BASE),
        ("lib/shop/ledger.rb", LEDGER),
        ("lib/shop/cart.rb", CART),
        ("lib/shop/cart_ext.rb", REOPENED),
    ]);
    let add = "Method:lib/shop/cart.rb:Shop.Cart.add";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A bare call is a method of `self`.
            (
                "Method:lib/shop/base.rb:Shop.Base.initialize",
                "Method:lib/shop/base.rb:Shop.Base.boot",
                "0.98",
                "self-method"
            ),
            // `new` in a class method builds the class: its `initialize`.
            (
                "Method:lib/shop/ledger.rb:Shop.Ledger.self.open",
                "Class:lib/shop/ledger.rb:Shop.Ledger",
                "0.97",
                "constructor"
            ),
            // `super()` reaches the parent's method of the same name.
            (
                "Method:lib/shop/cart.rb:Shop.Cart.initialize",
                "Method:lib/shop/base.rb:Shop.Base.initialize",
                "0.95",
                "super-method"
            ),
            // `Ledger.new` found through the nesting (`Shop::Ledger`), no `initialize`: the class.
            (
                "Method:lib/shop/cart.rb:Shop.Cart.initialize",
                "Class:lib/shop/ledger.rb:Shop.Ledger",
                "0.97",
                "constructor"
            ),
            // `attr_reader :items` made the method a bare call reaches.
            (
                "Method:lib/shop/cart.rb:Shop.Cart.subtotal",
                "Method:lib/shop/cart.rb:Shop.Cart.items",
                "0.98",
                "self-method"
            ),
            // A module's bare call: a method of a class mixing it in, a candidate only.
            (
                "Method:lib/shop/base.rb:Shop.Totals.total",
                "Method:lib/shop/cart.rb:Shop.Cart.subtotal",
                "0.33",
                "ambiguous"
            ),
            // `Line.new` in another file's part of `Shop`: the class (no `initialize`).
            (
                add,
                "Class:lib/shop/cart_ext.rb:Shop.Line",
                "0.97",
                "constructor"
            ),
            // `line = Line.new; line.price`.
            (
                add,
                "Method:lib/shop/cart_ext.rb:Shop.Line.price",
                "0.97",
                "receiver-type"
            ),
            // `@ledger = Ledger.new` in `initialize`.
            (
                add,
                "Method:lib/shop/ledger.rb:Shop.Ledger.record",
                "0.95",
                "attribute-type"
            ),
            // `self.save`: inherited.
            (
                add,
                "Method:lib/shop/base.rb:Shop.Base.save",
                "0.95",
                "self-method"
            ),
            // A top-level `def`: callable anywhere.
            (add, "Function:lib/shop/cart.rb:helper", "0.97", "same-file"),
            (
                add,
                "Method:lib/shop/ledger.rb:Shop.Ledger.self.open",
                "0.97",
                "class-member"
            ),
            // `Shop::Cart.create`: a method of the reopened part of the class.
            (
                add,
                "Method:lib/shop/cart_ext.rb:Shop.Cart.self.create",
                "0.97",
                "class-member"
            ),
            // A method of an included module.
            (
                add,
                "Method:lib/shop/base.rb:Shop.Totals.total",
                "0.95",
                "self-method"
            ),
            // `Cart.new(nil)` in the reopened part: `initialize` of the first part.
            (
                "Method:lib/shop/cart_ext.rb:Shop.Cart.self.create",
                "Method:lib/shop/cart.rb:Shop.Cart.initialize",
                "0.97",
                "class-member"
            ),
            // `Shop::Line.new.price` at the top level.
            (
                "Function:lib/shop/cart.rb:helper",
                "Class:lib/shop/cart_ext.rb:Shop.Line",
                "0.97",
                "constructor"
            ),
            (
                "Function:lib/shop/cart.rb:helper",
                "Method:lib/shop/cart_ext.rb:Shop.Line.price",
                "0.97",
                "receiver-type"
            ),
        ])
    );
    let imports = edges(&g, EdgeKind::Imports);
    for target in ["File:lib/shop/base.rb", "File:lib/shop/ledger.rb"] {
        assert!(
            imports
                .iter()
                .any(|(from, to, ..)| from == "File:lib/shop/cart.rb" && to == target),
            "{target}: {imports:?}"
        );
    }
    let heritage: Vec<_> = g
        .edges()
        .iter()
        .filter(|e| matches!(e.kind, EdgeKind::Extends | EdgeKind::Implements))
        .filter_map(|e| Some((g.node(e.from)?.stable_id(), g.node(e.to)?.stable_id())))
        .collect();
    for (from, to) in [
        (
            "Class:lib/shop/cart.rb:Shop.Cart",
            "Class:lib/shop/base.rb:Shop.Base",
        ),
        (
            "Class:lib/shop/cart.rb:Shop.Cart",
            "Trait:lib/shop/base.rb:Shop.Totals",
        ),
    ] {
        assert!(
            heritage.iter().any(|(a, b)| a == from && b == to),
            "{from} -> {to}: {heritage:?}"
        );
    }
}

const CONCERN: &str = r##"module Tool
  module Base
    def self.included(base)
      base.extend ClassMethods
    end

    module ClassMethods
      def option(name); end
    end

    def initialize(args); end
  end

  class Runner
    include Base

    def self.start(args)
      option :verbose
      new(args).run
      self.class.describe
    end

    def self.describe; end

    def run
      "#{label(1)}"
      self.class.new([]).run
    end

    def label(n); n; end
  end
end
"##;

#[test]
fn ruby_class_methods_of_mixins_self_class_and_interpolations() {
    let g = graph(&[("lib/tool.rb", CONCERN)]);
    let start = "Method:lib/tool.rb:Tool.Runner.self.start";
    let run = "Method:lib/tool.rb:Tool.Runner.run";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `base.extend ClassMethods` in `included`: the class methods of an includer.
            (
                start,
                "Method:lib/tool.rb:Tool.Base.ClassMethods.option",
                "0.95",
                "self-method"
            ),
            // `new(args)` builds the class: `initialize` from the included module.
            (
                start,
                "Method:lib/tool.rb:Tool.Base.initialize",
                "0.95",
                "class-member"
            ),
            // `new(args).run`: a method of the instance.
            (start, run, "0.97", "receiver-type"),
            (
                start,
                "Method:lib/tool.rb:Tool.Runner.self.describe",
                "0.97",
                "class-member"
            ),
            // A call inside a string's interpolation.
            (
                run,
                "Method:lib/tool.rb:Tool.Runner.label",
                "0.98",
                "self-method"
            ),
            // `self.class.new([])` and its `.run`.
            (
                run,
                "Method:lib/tool.rb:Tool.Base.initialize",
                "0.95",
                "class-member"
            ),
            (run, run, "0.97", "receiver-type"),
        ])
    );
}

const OVERRIDES: &str = r##"class Shape
  attr_reader :name

  def describe
    "#{name} #{area}"
  end

  def area; 0; end

  def sides; 0; end

  def count
    self.sides
  end
end

class Square < Shape
  def area; 4; end
end

class Tile < Square
  def sides; 4; end
end

module Steps
  def run
    step
  end

  def step; end
end

class Job
  include Steps

  def step; end
end
"##;

#[test]
fn ruby_self_calls_reach_subclass_overrides_as_candidates() {
    let g = graph(&[("lib/shapes.rb", OVERRIDES)]);
    let describe = "Method:lib/shapes.rb:Shape.describe";
    let count = "Method:lib/shapes.rb:Shape.count";
    let run = "Method:lib/shapes.rb:Steps.run";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // No subclass defines `name`: the class's own method, sure.
            (
                describe,
                "Method:lib/shapes.rb:Shape.name",
                "0.98",
                "self-method"
            ),
            // `self` may be a `Square`: its `area` is a candidate and `Shape#area` less sure.
            (
                describe,
                "Method:lib/shapes.rb:Shape.area",
                "0.95",
                "self-method"
            ),
            (
                describe,
                "Method:lib/shapes.rb:Square.area",
                "0.48",
                "ambiguous"
            ),
            // `self.sides` too, through a subclass of a subclass.
            (
                count,
                "Method:lib/shapes.rb:Shape.sides",
                "0.95",
                "self-method"
            ),
            (
                count,
                "Method:lib/shapes.rb:Tile.sides",
                "0.48",
                "ambiguous"
            ),
            // In a module, a class mixing it in may define the name again.
            (
                run,
                "Method:lib/shapes.rb:Steps.step",
                "0.95",
                "self-method"
            ),
            (run, "Method:lib/shapes.rb:Job.step", "0.48", "ambiguous"),
        ])
    );
}

const REDEFINED_CALLERS: &str = r##"class Action
  def invoke
    report
  end

  def revoke
    report
  end

  def report; end
end

class Inject < Action
  def revoke
    report
  end

  def report; end
end

class Copy < Action
  def invoke
    super
  end

  def report; end
end
"##;

#[test]
fn ruby_subclasses_redefining_the_caller_are_not_self_there() {
    let g = graph(&[("lib/actions.rb", REDEFINED_CALLERS)]);
    let invoke = "Method:lib/actions.rb:Action.invoke";
    let report = "Method:lib/actions.rb:Action.report";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `Inject` inherits `invoke` and `Copy` reaches it through `super`: both may be
            // `self` there, so `Action#report` is less sure, and of two overrides neither is a
            // candidate.
            (invoke, report, "0.95", "self-method"),
            (
                "Method:lib/actions.rb:Copy.invoke",
                invoke,
                "0.95",
                "super-method"
            ),
            // `Inject` defines `revoke` again without `super`: `Action#revoke` never runs on
            // an `Inject`, so only `Copy` may be `self`: its lone override is a candidate.
            (
                "Method:lib/actions.rb:Action.revoke",
                report,
                "0.95",
                "self-method"
            ),
            (
                "Method:lib/actions.rb:Action.revoke",
                "Method:lib/actions.rb:Copy.report",
                "0.48",
                "ambiguous"
            ),
            (
                "Method:lib/actions.rb:Inject.revoke",
                "Method:lib/actions.rb:Inject.report",
                "0.98",
                "self-method"
            ),
        ])
    );
}

const SINGLETON_ATTRIBUTES: &str = r##"class Registry
  class << self
    attr_reader :entries
    alias_method :all, :entries

    def names
      all
    end
  end

  attr_reader :entries

  def size
    entries
  end
end

class Local < Registry
  def count
    size
  end
end
"##;

#[test]
fn ruby_attributes_and_aliases_in_class_self_are_class_methods() {
    let g = graph(&[("lib/registry.rb", SINGLETON_ATTRIBUTES)]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `all` made in `class << self` is the class's: reached from a class method.
            (
                "Method:lib/registry.rb:Registry.self.names",
                "Method:lib/registry.rb:Registry.self.all",
                "0.98",
                "self-method"
            ),
            // The instance's `entries`, not the class object's.
            (
                "Method:lib/registry.rb:Registry.size",
                "Method:lib/registry.rb:Registry.entries",
                "0.98",
                "self-method"
            ),
            (
                "Method:lib/registry.rb:Local.count",
                "Method:lib/registry.rb:Registry.size",
                "0.95",
                "self-method"
            ),
        ])
    );
}

const CHAINS: &str = r##"class Report
  def render; end
  def print; end
  def mail; end

  def self.build
    new
  end
end

class Screen
  def self.report_class
    Report
  end

  def report
    Report.new
  end

  def built
    Report.build.render
  end

  def returned
    report.print
  end

  def nested
    Screen.new.report.mail
  end

  def class_value
    self.class.report_class.new
  end

  def class_method_of_class_value
    Screen.report_class.build
  end

  def unknown
    factory.new
  end
end
"##;

#[test]
fn ruby_chained_receivers_through_what_methods_return() {
    let g = graph(&[("lib/screen.rb", CHAINS)]);
    let m = |name: &str| format!("Method:lib/screen.rb:Screen.{name}");
    let report_class = "Method:lib/screen.rb:Screen.self.report_class";
    let build = "Method:lib/screen.rb:Report.self.build";
    let report = "Class:lib/screen.rb:Report";
    let expected = [
        // `new` in a class method builds its class.
        (build.to_owned(), report, "0.97", "constructor"),
        (m("report"), report, "0.97", "constructor"),
        // `Report.build.render`, `report.print`, `Screen.new.report.mail`: through the
        // instance each returns.
        (m("built"), build, "0.97", "class-member"),
        (
            m("built"),
            "Method:lib/screen.rb:Report.render",
            "0.95",
            "return-type",
        ),
        (
            m("returned"),
            "Method:lib/screen.rb:Screen.report",
            "0.98",
            "self-method",
        ),
        (
            m("returned"),
            "Method:lib/screen.rb:Report.print",
            "0.95",
            "return-type",
        ),
        (
            m("nested"),
            "Class:lib/screen.rb:Screen",
            "0.97",
            "constructor",
        ),
        (
            m("nested"),
            "Method:lib/screen.rb:Screen.report",
            "0.97",
            "receiver-type",
        ),
        (
            m("nested"),
            "Method:lib/screen.rb:Report.mail",
            "0.95",
            "return-type",
        ),
        // `report_class` returns the class itself: `.new` builds a `Report`, `.build` is
        // its class method.
        (m("class_value"), report_class, "0.97", "class-member"),
        (m("class_value"), report, "0.95", "constructor"),
        (
            m("class_method_of_class_value"),
            report_class,
            "0.97",
            "class-member",
        ),
        (
            m("class_method_of_class_value"),
            build,
            "0.95",
            "return-type",
        ),
        // `factory.new` on what nothing says is a class: no edge.
    ];
    let expected: Vec<(&str, &str, &str, &'static str)> = expected
        .iter()
        .map(|(a, b, c, r)| (a.as_str(), *b, *c, *r))
        .collect();
    assert_eq!(edges(&g, EdgeKind::Calls), owned(&expected));
}

const BUILT_CLASSES: &str = r##"class Shape
  def area; end
end

module Geo
  Point = Struct.new(:x, :y) do
    def norm
      x
    end
  end

  Square = Class.new(Shape) do
    def side; end
  end

  def self.measure
    Point.new(1, 2).norm
    sq = Square.new
    sq.side
    sq.area
  end
end
"##;

#[test]
fn ruby_struct_new_and_class_new_make_classes() {
    let g = graph(&[("lib/geo.rb", BUILT_CLASSES)]);
    let measure = "Method:lib/geo.rb:Geo.self.measure";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A `Struct`'s member is a method of its instances.
            (
                "Method:lib/geo.rb:Geo.Point.norm",
                "Method:lib/geo.rb:Geo.Point.x",
                "0.98",
                "self-method"
            ),
            (measure, "Class:lib/geo.rb:Geo.Point", "0.97", "constructor"),
            (
                measure,
                "Method:lib/geo.rb:Geo.Point.norm",
                "0.97",
                "receiver-type"
            ),
            (
                measure,
                "Class:lib/geo.rb:Geo.Square",
                "0.97",
                "constructor"
            ),
            (
                measure,
                "Method:lib/geo.rb:Geo.Square.side",
                "0.97",
                "receiver-type"
            ),
            // `Class.new(Shape)`: `Shape` is its base.
            (
                measure,
                "Method:lib/geo.rb:Shape.area",
                "0.95",
                "receiver-type"
            ),
        ])
    );
}

const INCLUDED_HOOK: &str = r##"module Output
  def say; end
end

module Input
  def ask; end
end

module Core
  def self.included(base)
    base.send :include, Output
    base.include(Input)
  end
end

class App
  include Core

  def run
    say
    ask
  end
end
"##;

#[test]
fn ruby_modules_an_included_hook_mixes_in_are_the_includers() {
    let g = graph(&[("lib/app.rb", INCLUDED_HOOK)]);
    let run = "Method:lib/app.rb:App.run";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (run, "Method:lib/app.rb:Output.say", "0.95", "self-method"),
            (run, "Method:lib/app.rb:Input.ask", "0.95", "self-method"),
        ])
    );
}

const HASH_VALUES: &str = r##"class Settings
  def root; end
  def dir; end
  def key; end

  def shared
    { :root => root, dir: dir, key => 1 }
  end
end
"##;

#[test]
fn ruby_names_in_hash_pairs_are_calls() {
    let g = graph(&[("lib/settings.rb", HASH_VALUES)]);
    let shared = "Method:lib/settings.rb:Settings.shared";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                shared,
                "Method:lib/settings.rb:Settings.root",
                "0.98",
                "self-method"
            ),
            (
                shared,
                "Method:lib/settings.rb:Settings.dir",
                "0.98",
                "self-method"
            ),
            (
                shared,
                "Method:lib/settings.rb:Settings.key",
                "0.98",
                "self-method"
            ),
        ])
    );
}

const DEFINED_METHODS: &str = r##"class Page
  def render; end

  define_method(:show) do |name|
    render
    name.size
  end

  def self.title; end

  class << self
    define_method(:heading) { title }
  end

  def draw
    show("x")
  end
end
"##;

#[test]
fn ruby_define_method_with_a_literal_name_is_a_method() {
    let g = graph(&[("lib/page.rb", DEFINED_METHODS)]);
    let show = "Method:lib/page.rb:Page.show";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // The block is the method's body: `self` is an instance there.
            (
                show,
                "Method:lib/page.rb:Page.render",
                "0.98",
                "self-method"
            ),
            (
                "Method:lib/page.rb:Page.self.heading",
                "Method:lib/page.rb:Page.self.title",
                "0.98",
                "self-method"
            ),
            ("Method:lib/page.rb:Page.draw", show, "0.98", "self-method"),
        ])
    );
}

const CLASS_LOCALS: &str = r##"class Command
  def initialize(name); end
  def self.parse; end
end

class Runner
  def run(kind)
    klass = Command
    klass.new("x")
    klass.parse
    other = Command
    other = kind
    other.parse
    kind = Command
    kind.new("y")
  end
end
"##;

#[test]
fn ruby_locals_holding_a_class_call_its_class_methods() {
    let g = graph(&[("lib/runner.rb", CLASS_LOCALS)]);
    let run = "Method:lib/runner.rb:Runner.run";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `klass` only ever holds `Command`; `other` and the parameter `kind` hold more.
            (
                run,
                "Method:lib/runner.rb:Command.initialize",
                "0.97",
                "class-member"
            ),
            (
                run,
                "Method:lib/runner.rb:Command.self.parse",
                "0.97",
                "class-member"
            ),
        ])
    );
}

const NAMED_LIKE_CLASSES: &str = r##"module Tpl
  class ParseContext
    def line_number; 1; end
  end

  class Tokenizer
    def advance; end
  end

  class Lexer
    def advance; end
  end

  module Shell
    def say; end
  end

  class Body
    def parse(tokenizer, parse_context, shell)
      tokenizer.advance
      parse_context.line_number
      parse_context.missing
      shell.say
    end

    def lex(lexer_state)
      lexer_state.advance
    end
  end
end
"##;

#[test]
fn ruby_receivers_named_like_a_class_call_its_methods() {
    let g = graph(&[("lib/tpl.rb", NAMED_LIKE_CLASSES)]);
    let parse = "Method:lib/tpl.rb:Tpl.Body.parse";
    let lex = "Method:lib/tpl.rb:Tpl.Body.lex";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `tokenizer` and `parse_context` name classes `Tokenizer` and `ParseContext` in
            // the nesting; `advance` on `lexer_state` (no class `LexerState`) stays two candidates,
            // `missing` is no method of `ParseContext`, and `Shell` is a module.
            (
                parse,
                "Method:lib/tpl.rb:Tpl.Tokenizer.advance",
                "0.95",
                "receiver-type"
            ),
            (
                parse,
                "Method:lib/tpl.rb:Tpl.ParseContext.line_number",
                "0.95",
                "receiver-type"
            ),
            (
                lex,
                "Method:lib/tpl.rb:Tpl.Tokenizer.advance",
                "0.49",
                "ambiguous"
            ),
            (
                lex,
                "Method:lib/tpl.rb:Tpl.Lexer.advance",
                "0.49",
                "ambiguous"
            ),
            (
                parse,
                "Method:lib/tpl.rb:Tpl.Shell.say",
                "0.95",
                "unique-global-name"
            ),
        ])
    );
}

const SHARED_NAMES: &str = r##"class Pipe
  def flush; end
  def drain; end
end

class Socket
  def flush; end
  def drain; end
end

class Buffer
  def flush; end
end

class Writer
  def finish(sink)
    sink.flush
    sink.drain
  end
end
"##;

/// A method found by its name alone on a receiver of unknown type: one of two candidates sits in
/// the pair band (0.49), one of three or more in its own lower band (0.40).
#[test]
fn ruby_names_among_two_or_several_candidates_have_their_own_bands() {
    let g = graph(&[("lib/io.rb", SHARED_NAMES)]);
    let finish = "Method:lib/io.rb:Writer.finish";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (finish, "Method:lib/io.rb:Pipe.flush", "0.40", "ambiguous"),
            (finish, "Method:lib/io.rb:Socket.flush", "0.40", "ambiguous"),
            (finish, "Method:lib/io.rb:Buffer.flush", "0.40", "ambiguous"),
            (finish, "Method:lib/io.rb:Pipe.drain", "0.49", "ambiguous"),
            (finish, "Method:lib/io.rb:Socket.drain", "0.49", "ambiguous"),
        ])
    );
}

const FROM_THE_TOP: &str = r##"module Cli
  class Basic
    def readline; end
  end

  class Readline < Basic
    def readline
      ::Readline.readline
      Readline.edit
    end

    def self.edit; end
  end
end
"##;

/// `::Readline` names a top-level constant: not the class nested in `Cli` under that name (the
/// library outside the project is meant), while `Readline` written in the nesting is that class.
#[test]
fn ruby_constants_written_from_the_top_are_top_level() {
    let g = graph(&[("lib/cli.rb", FROM_THE_TOP)]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[(
            "Method:lib/cli.rb:Cli.Readline.readline",
            "Method:lib/cli.rb:Cli.Readline.self.edit",
            "0.97",
            "class-member"
        )])
    );
}

const MIXED_BODY: &str = r#"module Tpl
  class Body
    def render(out)
      render_node(out)
    end

    def render_node(out); end

    def tick; end
  end
end
"#;

const MIXED_HOOKS: &str = r#"module Tpl
  module Timing
    def render_node(out)
      super
    end
  end
  Body.prepend(Timing)

  module Counting
    def count; end
  end
  Body.include(Counting)
end
"#;

const MIXED_PAGE: &str = r#"module Tpl
  class Page
    def show(body = default_body, step: next_step)
      body.count
      @body = Body.new
      @body.render_node(step)
      @body.send(:tick)
      @body.label = 1
    end

    def label; end

    def default_body; end

    def next_step; end
  end
end
"#;

/// `Body.prepend(Timing)` written outside the class puts `Timing` before `Body`: its
/// `render_node` is what `Body`'s own call and a `Body` value's reach (a module's `super`
/// depends on the class mixing it in: no edge); `Body.include(Counting)` makes `count` a method
/// of `Body`; `send(:tick)` calls `tick`; a parameter's default value calls a method; the
/// attribute assigned in `@body.label = 1` is no bare call of `Page#label`.
#[test]
fn ruby_mixins_named_from_outside_sends_and_default_values() {
    let g = graph(&[
        ("lib/body.rb", MIXED_BODY),
        ("lib/hooks.rb", MIXED_HOOKS),
        ("lib/page.rb", MIXED_PAGE),
    ]);
    let show = "Method:lib/page.rb:Tpl.Page.show";
    let timed = "Method:lib/hooks.rb:Tpl.Timing.render_node";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Method:lib/body.rb:Tpl.Body.render",
                timed,
                "0.95",
                "self-method"
            ),
            (
                show,
                "Method:lib/page.rb:Tpl.Page.default_body",
                "0.98",
                "self-method"
            ),
            (
                show,
                "Method:lib/page.rb:Tpl.Page.next_step",
                "0.98",
                "self-method"
            ),
            (
                show,
                "Method:lib/hooks.rb:Tpl.Counting.count",
                "0.95",
                "receiver-type"
            ),
            (show, "Class:lib/body.rb:Tpl.Body", "0.97", "constructor"),
            (show, timed, "0.95", "attribute-type"),
            (
                show,
                "Method:lib/body.rb:Tpl.Body.tick",
                "0.95",
                "attribute-type"
            ),
        ])
    );
    assert!(
        edges(&g, EdgeKind::Implements)
            .iter()
            .any(|e| e.0.ends_with("Tpl.Body") && e.1.ends_with("Tpl.Counting"))
    );
}

const FLOW: &str = r#"class String
  def shout; end
end

class Report
  def render; end
  def mail; end
end

class Memo
  def shout; end
  def render; end
  def mail; end
end

class Builder
  attr_reader :title, :report

  def initialize
    @title = "draft"
    @report = make
    @either = "x"
  end

  def reset
    @either = make
  end

  def make
    return Report.new if ready?
    Report.new
  end

  def ready?; end

  def chosen
    if ready?
      Report.new
    else
      Report.new
    end
  end

  def kept
    report = Report.new
    report
  end

  def mixed
    return "x" if ready?
    Report.new
  end

  def on_literal
    "name".shout
  end

  def on_literal_local
    label = "name"
    label.shout
  end

  def on_reader
    title.shout
  end

  def on_ivar_literal
    @title.shout
  end

  def on_call_result
    r = make
    r.render
  end

  def on_branches
    chosen.mail
  end

  def on_returned_local
    k = kept
    k.render
  end

  def on_ivar_call
    @report.mail
  end

  def on_reader_of_call
    report.render
  end

  def on_disagreeing_returns
    m = mixed
    m.mail
  end

  def on_reassigned
    v = "a"
    v = make
    v.shout
  end

  def on_parameter(given)
    given = "b"
    given.shout
  end

  def on_disagreeing_ivar
    @either.shout
  end
end
"#;

#[test]
fn ruby_types_flow_through_literals_call_results_and_returns() {
    let g = graph(&[("lib/flow.rb", FLOW)]);
    let m = |name: &str| format!("Method:lib/flow.rb:Builder.{name}");
    let shout = || "Method:lib/flow.rb:String.shout".to_owned();
    let render = || "Method:lib/flow.rb:Report.render".to_owned();
    let mail = || "Method:lib/flow.rb:Report.mail".to_owned();
    let report = || "Class:lib/flow.rb:Report".to_owned();
    let expected = [
        (m("initialize"), m("make"), "0.98", "self-method"),
        (m("reset"), m("make"), "0.98", "self-method"),
        (m("make"), report(), "0.97", "constructor"),
        (m("make"), m("ready?"), "0.98", "self-method"),
        (m("chosen"), report(), "0.97", "constructor"),
        (m("chosen"), m("ready?"), "0.98", "self-method"),
        (m("kept"), report(), "0.97", "constructor"),
        (m("mixed"), report(), "0.97", "constructor"),
        (m("mixed"), m("ready?"), "0.98", "self-method"),
        // A literal, or a local, `@x` or `attr_reader` holding one: the project's reopened
        // `String`.
        (m("on_literal"), shout(), "0.97", "receiver-type"),
        (m("on_literal_local"), shout(), "0.97", "receiver-type"),
        (m("on_reader"), m("title"), "0.98", "self-method"),
        (m("on_reader"), shout(), "0.95", "return-type"),
        (m("on_ivar_literal"), shout(), "0.95", "attribute-type"),
        // A call's result: every return of `make` (`return Report.new if …`, the last line),
        // both branches of `chosen`'s last `if`, the local `kept` returns, `@report = make`.
        (m("on_call_result"), m("make"), "0.98", "self-method"),
        (m("on_call_result"), render(), "0.95", "receiver-type"),
        (m("on_branches"), m("chosen"), "0.98", "self-method"),
        (m("on_branches"), mail(), "0.95", "return-type"),
        (m("on_returned_local"), m("kept"), "0.98", "self-method"),
        (m("on_returned_local"), render(), "0.95", "receiver-type"),
        (m("on_ivar_call"), mail(), "0.95", "attribute-type"),
        // An `attr_reader` of that `@report`.
        (m("on_reader_of_call"), m("report"), "0.98", "self-method"),
        (m("on_reader_of_call"), render(), "0.95", "return-type"),
        // Returns, assignments to a local or to `@x` that disagree, and a parameter assigned
        // a literal, type nothing: the name's two methods are candidates.
        (
            m("on_disagreeing_returns"),
            m("mixed"),
            "0.98",
            "self-method",
        ),
        (m("on_disagreeing_returns"), mail(), "0.49", "ambiguous"),
        (
            m("on_disagreeing_returns"),
            "Method:lib/flow.rb:Memo.mail".to_owned(),
            "0.49",
            "ambiguous",
        ),
        (m("on_reassigned"), m("make"), "0.98", "self-method"),
        (m("on_reassigned"), shout(), "0.49", "ambiguous"),
        (
            m("on_reassigned"),
            "Method:lib/flow.rb:Memo.shout".to_owned(),
            "0.49",
            "ambiguous",
        ),
        (m("on_parameter"), shout(), "0.49", "ambiguous"),
        (
            m("on_parameter"),
            "Method:lib/flow.rb:Memo.shout".to_owned(),
            "0.49",
            "ambiguous",
        ),
        (m("on_disagreeing_ivar"), shout(), "0.49", "ambiguous"),
        (
            m("on_disagreeing_ivar"),
            "Method:lib/flow.rb:Memo.shout".to_owned(),
            "0.49",
            "ambiguous",
        ),
    ];
    let expected: Vec<(&str, &str, &str, &'static str)> = expected
        .iter()
        .map(|(a, b, c, r)| (a.as_str(), b.as_str(), *c, *r))
        .collect();
    assert_eq!(edges(&g, EdgeKind::Calls), owned(&expected));
}

const NAMED_LIKE_IVARS: &str = r##"module Tpl
  class Tokenizer
    def advance; end
  end

  class Lexer
    def advance; end
  end

  class Body
    def initialize(tokenizer, source)
      @tokenizer = tokenizer
      @lexer = Lexer.new
      @source = source
    end

    def step
      @tokenizer.advance
    end

    def lex
      @lexer.advance
    end

    def read
      @source.advance
    end
  end
end
"##;

#[test]
fn ruby_instance_variables_named_like_a_class_call_its_methods() {
    let g = graph(&[("lib/tpl.rb", NAMED_LIKE_IVARS)]);
    let body = |name: &str| format!("Method:lib/tpl.rb:Tpl.Body.{name}");
    let tokenizer = "Method:lib/tpl.rb:Tpl.Tokenizer.advance";
    let lexer = "Method:lib/tpl.rb:Tpl.Lexer.advance";
    let (init, step, lex, read) = (body("initialize"), body("step"), body("lex"), body("read"));
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                init.as_str(),
                "Class:lib/tpl.rb:Tpl.Lexer",
                "0.97",
                "constructor"
            ),
            // `@tokenizer` of unknown type names class `Tokenizer`; `@lexer`'s assigned
            // `Lexer` decides over its name; `@source` names no class: two candidates.
            (step.as_str(), tokenizer, "0.95", "receiver-type"),
            (lex.as_str(), lexer, "0.95", "attribute-type"),
            (read.as_str(), tokenizer, "0.49", "ambiguous"),
            (read.as_str(), lexer, "0.49", "ambiguous"),
        ])
    );
}

const NARROWED_RETURNS: &str = r#"class Uri
  def self.parse(given)
    return nil unless given
    return given.dup if given.kind_of?(self)
    new
  end

  def self.wrap(given)
    given.is_a?(Uri) ? given : Uri.new
  end

  def self.loose(given)
    return given if given.respond_to?(:normalize)
    new
  end

  def normalize; end
end

class Path
  def normalize; end
end

class Client
  def fetch
    Uri.parse("x").normalize
  end

  def wrapped
    Uri.wrap("x").normalize
  end

  def guessed
    Uri.loose("x").normalize
  end
end
"#;

#[test]
fn ruby_a_returned_local_tested_for_a_class_is_of_that_class() {
    let g = graph(&[("lib/uri.rb", NARROWED_RETURNS)]);
    let uri = |name: &str| format!("Method:lib/uri.rb:Uri.{name}");
    let client = |name: &str| format!("Method:lib/uri.rb:Client.{name}");
    let path = "Method:lib/uri.rb:Path.normalize";
    let class = "Class:lib/uri.rb:Uri";
    let expected = [
        (uri("self.parse"), class.to_owned(), "0.97", "constructor"),
        (uri("self.wrap"), class.to_owned(), "0.97", "constructor"),
        (uri("self.loose"), class.to_owned(), "0.97", "constructor"),
        // `return given.dup if given.kind_of?(self)` beside `new`, and `given` in the branch
        // of `?:` testing `given.is_a?(Uri)` beside `Uri.new`: both return a `Uri`.
        (client("fetch"), uri("self.parse"), "0.97", "class-member"),
        (client("fetch"), uri("normalize"), "0.95", "return-type"),
        (client("wrapped"), uri("self.wrap"), "0.97", "class-member"),
        (client("wrapped"), uri("normalize"), "0.95", "return-type"),
        // A condition that tests no class types nothing: two candidates.
        (client("guessed"), uri("self.loose"), "0.97", "class-member"),
        (client("guessed"), uri("normalize"), "0.49", "ambiguous"),
        (client("guessed"), path.to_owned(), "0.49", "ambiguous"),
    ];
    let expected: Vec<(&str, &str, &str, &'static str)> = expected
        .iter()
        .map(|(a, b, c, r)| (a.as_str(), b.as_str(), *c, *r))
        .collect();
    assert_eq!(edges(&g, EdgeKind::Calls), owned(&expected));
}

const RETURNED_CALLS: &str = r#"class Context
  def new_body
    Body.new
  end
end

class Body
  def render; end
end

class Other
  def render; end
end

class Doc
  attr_reader :context

  def initialize
    @context = Context.new
  end

  def body
    context.new_body
  end

  def either(flag)
    return Other.new if flag
    context.new_body
  end

  def show
    body.render
  end

  def guess
    either(true).render
  end
end
"#;

#[test]
fn ruby_a_method_returning_a_call_returns_what_the_call_returns() {
    let g = graph(&[("lib/doc.rb", RETURNED_CALLS)]);
    let doc = |name: &str| format!("Method:lib/doc.rb:Doc.{name}");
    let new_body = "Method:lib/doc.rb:Context.new_body".to_owned();
    let render = "Method:lib/doc.rb:Body.render".to_owned();
    let other = "Method:lib/doc.rb:Other.render".to_owned();
    let class = |name: &str| format!("Class:lib/doc.rb:{name}");
    let expected = [
        (
            "Method:lib/doc.rb:Context.new_body".to_owned(),
            class("Body"),
            "0.97",
            "constructor",
        ),
        (doc("initialize"), class("Context"), "0.97", "constructor"),
        (doc("body"), doc("context"), "0.98", "self-method"),
        (doc("body"), new_body.clone(), "0.95", "return-type"),
        (doc("either"), class("Other"), "0.97", "constructor"),
        (doc("either"), doc("context"), "0.98", "self-method"),
        (doc("either"), new_body.clone(), "0.95", "return-type"),
        // `body`'s one returned value is `context.new_body`'s result: a `Body`.
        (doc("show"), doc("body"), "0.98", "self-method"),
        (doc("show"), render.clone(), "0.95", "return-type"),
        // `either` returns an `Other` or that call's result: two candidates.
        (doc("guess"), doc("either"), "0.98", "self-method"),
        (doc("guess"), render.clone(), "0.49", "ambiguous"),
        (doc("guess"), other.clone(), "0.49", "ambiguous"),
    ];
    let expected: Vec<(&str, &str, &str, &'static str)> = expected
        .iter()
        .map(|(a, b, c, r)| (a.as_str(), b.as_str(), *c, *r))
        .collect();
    assert_eq!(edges(&g, EdgeKind::Calls), owned(&expected));
}

const SUPER_THROUGH_MODULES: &str = r#"module Aligned
  def realign(t)
    t
  end
end

module Logged
  def realign(t)
    t
  end
end

class Rule
  def initialize; end

  def realign(t)
    t
  end

  def reset; end
end

class Weekly < Rule
  include Logged
  include Aligned

  def initialize
    super()
  end

  def realign(t)
    super
  end

  def reset
    super
  end
end

class Plain < Rule
  def realign(t)
    super
  end
end

class Monthly < Rule
  include Logged
  include Aligned
end

class Planner
  def plan
    Monthly.new.realign(1)
  end
end
"#;

const SUPER_REOPENED: &str = r#"module Mounted
  def initialize
    @mounted = true
  end
end

class Weekly
  include Mounted
end
"#;

#[test]
fn ruby_methods_and_super_look_in_included_modules_before_the_superclass() {
    let g = graph(&[
        ("lib/rules.rb", SUPER_THROUGH_MODULES),
        ("lib/weekly_mount.rb", SUPER_REOPENED),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // The module included last answers first; a name no module defines goes on to the
            // superclass; a class with no module goes straight to it; a module included in
            // another part of the class (another file) is above the class too.
            (
                "Method:lib/rules.rb:Weekly.realign",
                "Method:lib/rules.rb:Aligned.realign",
                "0.95",
                "super-method"
            ),
            (
                "Method:lib/rules.rb:Weekly.reset",
                "Method:lib/rules.rb:Rule.reset",
                "0.95",
                "super-method"
            ),
            (
                "Method:lib/rules.rb:Plain.realign",
                "Method:lib/rules.rb:Rule.realign",
                "0.95",
                "super-method"
            ),
            // A method the class does not define is looked up the same way.
            (
                "Method:lib/rules.rb:Planner.plan",
                "Method:lib/rules.rb:Rule.initialize",
                "0.95",
                "class-member"
            ),
            (
                "Method:lib/rules.rb:Planner.plan",
                "Method:lib/rules.rb:Aligned.realign",
                "0.95",
                "receiver-type"
            ),
            (
                "Method:lib/rules.rb:Weekly.initialize",
                "Method:lib/weekly_mount.rb:Mounted.initialize",
                "0.95",
                "super-method"
            ),
        ])
    );
}

const NAMED_LIKE_FAMILY: &str = r#"class Rule
  def next_time(t)
    t
  end

  def to_s
    "rule"
  end
end

class SingleRule < Rule
  def next_time(t)
    t
  end
end

class RepeatRule < Rule
  def next_time(t)
    t
  end
end

class Schedule
  def upcoming(rules, t)
    rules.map do |rule|
      rule.next_time(t)
      rule.to_s
    end
  end
end
"#;

#[test]
fn ruby_receivers_named_like_an_overridden_class_are_candidates() {
    let g = graph(&[("lib/schedule.rb", NAMED_LIKE_FAMILY)]);
    let upcoming = "Method:lib/schedule.rb:Schedule.upcoming";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `rule` names class `Rule`, but its subclasses define `next_time` again: the object
            // may be any of them, so each `next_time` is a candidate; `to_s` no subclass
            // redefines stays the class's own, sure.
            (
                upcoming,
                "Method:lib/schedule.rb:Rule.next_time",
                "0.47",
                "receiver-type"
            ),
            (
                upcoming,
                "Method:lib/schedule.rb:SingleRule.next_time",
                "0.47",
                "ambiguous"
            ),
            (
                upcoming,
                "Method:lib/schedule.rb:RepeatRule.next_time",
                "0.47",
                "ambiguous"
            ),
            (
                upcoming,
                "Method:lib/schedule.rb:Rule.to_s",
                "0.95",
                "receiver-type"
            ),
        ])
    );
}

const BUILT_IVARS: &str = r#"class Disk
  def write(data); end
end

class Cloud
  def write(data); end
end

class Store
  def initialize(backend)
    @main = Disk.new
    @spare = Disk.new
  end

  def use_cloud!
    @main = Cloud.new
  end

  def swap(other)
    @spare = other
    @spare = nil
  end

  def save(data)
    @main.write(data)
  end

  def keep(data)
    @spare.write(data)
  end
end
"#;

#[test]
fn ruby_instance_variables_built_of_two_classes_have_neither() {
    let g = graph(&[("lib/store.rb", BUILT_IVARS)]);
    let save = "Method:lib/store.rb:Store.save";
    let keep = "Method:lib/store.rb:Store.keep";
    let calls: std::collections::BTreeSet<_> = edges(&g, EdgeKind::Calls)
        .into_iter()
        .filter(|e| e.0 == save || e.0 == keep)
        .collect();
    // `@main` is built a `Disk` in one method and a `Cloud` in another: no class is sure (it
    // was `Disk` at 0.95, the first assignment), so `save` reaches no `write` here. `@spare` is
    // built a `Disk` and otherwise assigned only values of unknown type or `nil`: a `Disk`.
    assert_eq!(
        calls,
        owned(&[(
            keep,
            "Method:lib/store.rb:Disk.write",
            "0.95",
            "attribute-type"
        )])
    );
}

const FACTORY_METHODS: &str = r#"class Plain
  def parse; end
end

class Json
  def parse; end
end

class Yaml
  def parse; end
end

class Source
  def load
    data = fetch
    data.parse
  end

  def fetch
    Plain.new
  end
end

class Remote < Source
  def fetch
    Json.new
  end
end

class Local < Source
  def fetch
    Yaml.new
  end
end

class Fixed
  def load
    data = fetch
    data.parse
  end

  def fetch
    Plain.new
  end
end
"#;

#[test]
fn ruby_self_calls_subclasses_redefine_return_no_sure_type() {
    let g = graph(&[("lib/source.rb", FACTORY_METHODS)]);
    let parse: std::collections::BTreeSet<_> = edges(&g, EdgeKind::Calls)
        .into_iter()
        .filter(|e| e.1.ends_with(".parse") && e.2.as_str() >= "0.50")
        .collect();
    // `Source#fetch` builds a `Plain`, but `Remote` and `Local` redefine `fetch`: `self` may be
    // either, so `data` has no sure type there. `Fixed#fetch` no subclass redefines: `Plain`.
    assert_eq!(
        parse,
        owned(&[(
            "Method:lib/source.rb:Fixed.load",
            "Method:lib/source.rb:Plain.parse",
            "0.95",
            "receiver-type"
        )])
    );
}

const PARAMETER_STORE: &str = r#"class Archive
  def entry(name); end
end

class Index
  include Shared
  def entry(name); end
  def listing; end
end

module Browsing
  def browser
    Browser.new(self)
  end
end

module Shared
  def viewer
    Viewer.new(self)
  end
end

class Catalog
  include Browsing
  include Shared
  def listing; end
end

class Browser
  def initialize(owner)
    @owner = owner
  end

  def first
    @owner.listing
  end
end

class Viewer
  def initialize(owner)
    @owner = owner
  end

  def first
    @owner.listing
  end
end

class Mapper
  def initialize(box)
    @box = box
  end

  def lookup(name)
    @box.entry(name)
  end

  def both(src, name)
    src.entry(name)
  end

  def defaulted(src = Archive.new)
    src.entry(:a)
  end

  def splatted(src)
    src.entry(:a)
  end

  def keyed(name, src:)
    src.entry(name)
  end

  def reassigned(src)
    src = src.dup
    src.entry(:a)
  end

  def unknown(src)
    src.entry(:a)
  end

  def shadowed(src, list)
    list.each { |src| src.entry(:a) }
  end
end
"#;

const PARAMETER_CALLERS: &str = r#"class App
  def run(args, given)
    box = Archive.new
    mapper = Mapper.new(box)
    mapper.both(Archive.new, :a)
    mapper.both(Index.new, :b)
    mapper.defaulted(Archive.new)
    mapper.splatted(Archive.new)
    mapper.splatted(*args)
    mapper.keyed(:a, src: Index.new)
    mapper.reassigned(Archive.new)
    mapper.unknown(Archive.new)
    mapper.unknown(given)
    mapper.shadowed(Archive.new, args)
  end
end
"#;

#[test]
fn ruby_parameters_have_the_class_every_caller_passes() {
    let g = graph(&[
        ("lib/store.rb", PARAMETER_STORE),
        ("lib/app.rb", PARAMETER_CALLERS),
    ]);
    let entry: std::collections::BTreeSet<_> = edges(&g, EdgeKind::Calls)
        .into_iter()
        .filter(|e| {
            (e.1.ends_with(".entry") || e.1.ends_with(".listing")) && e.2.as_str() >= "0.50"
        })
        .collect();
    // `Mapper.new(box)` in another file passes an `Archive` (a local built of it): `@box = box`
    // holds one; `keyed`'s `src:` is given an `Index`. `both` is passed an `Archive` and an
    // `Index`, `defaulted` has a default value, `splatted` a caller's splat, `reassigned`
    // assigns its parameter, `unknown` a caller's value of unknown class, `shadowed` a block
    // parameter of the same name: none is typed.
    // `self` in `Browsing`, which one class alone includes, is a `Catalog`; in `Shared`, which
    // two include, it is neither.
    assert_eq!(
        entry,
        owned(&[
            (
                "Method:lib/store.rb:Browser.first",
                "Method:lib/store.rb:Catalog.listing",
                "0.95",
                "attribute-type"
            ),
            (
                "Method:lib/store.rb:Mapper.lookup",
                "Method:lib/store.rb:Archive.entry",
                "0.95",
                "attribute-type"
            ),
            (
                "Method:lib/store.rb:Mapper.keyed",
                "Method:lib/store.rb:Index.entry",
                "0.95",
                "receiver-type"
            ),
        ])
    );
}
