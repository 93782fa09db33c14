use proptest::prelude::*;

use super::*;
use crate::graph::Graph;
use crate::ingest::{SourceFile, index_with_sources};

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.to_owned(),
        bytes: text.as_bytes().to_vec(),
    }
}

fn full(files: &BTreeMap<String, String>) -> (Graph, Sources) {
    let files = files.iter().map(|(p, t)| file(p, t)).collect();
    let (graph, _, sources) = index_with_sources("p", files, &|| 0.0, &mut |_, _, _| true)
        .expect("indexing is never cancelled here");
    (graph, sources)
}

fn start(files: &BTreeMap<String, String>) -> (Workspace, Graph) {
    let filtered = ingest::filter_files(files.iter().map(|(p, t)| file(p, t)).collect(), &|| 0.0);
    let mut filtered = filtered;
    let parsed = ingest::parse_files(std::mem::take(&mut filtered.to_parse));
    let (graph, _, ws) =
        ingest::finish_workspace("p", filtered, parsed, &|| 0.0, &mut |_, _, _| true)
            .expect("indexing is never cancelled here");
    (ws, graph)
}

/// Applies changes as a live update does: up to the edges, then the layers. The graph of edges
/// has no communities or processes yet, and adding them keeps every node's id.
fn apply(ws: &mut Workspace, changes: Vec<FileChange>) -> (Option<Graph>, Applied) {
    apply_after(ws, changes, None)
}

/// [`apply`], the graph of edges carrying the summaries of `before` (as the worker does) until
/// the layers write them afresh.
fn apply_after(
    ws: &mut Workspace,
    changes: Vec<FileChange>,
    before: Option<&Graph>,
) -> (Option<Graph>, Applied) {
    let (edges, applied) = ws
        .apply_edges(changes, &|| 0.0, &mut |_, _, _| true)
        .expect("never cancelled here");
    let graph = edges.map(|(mut edges, _, layers)| {
        assert!(edges.communities.is_empty() && edges.processes.is_empty());
        if let Some(before) = before {
            crate::summary::carry_summaries(before, &mut edges);
        }
        let ids: Vec<String> = edges.nodes().map(|n| n.stable_id()).collect();
        let (graph, _) = layers.add_to(edges, &|| 0.0);
        let kept: Vec<String> = graph
            .nodes()
            .take(ids.len())
            .map(|n| n.stable_id())
            .collect();
        assert_eq!(kept, ids, "the layers renumbered a node");
        graph
    });
    (graph, applied)
}

/// Asserts that the incremental graph and texts equal a full index of `files`.
fn assert_same(ws: &Workspace, graph: &Graph, files: &BTreeMap<String, String>) {
    let (expected, sources) = full(files);
    let (got, want) = (graph.canonical_dump(), expected.canonical_dump());
    if got != want {
        let missing: Vec<&String> = want.iter().filter(|l| !got.contains(l)).collect();
        let extra: Vec<&String> = got.iter().filter(|l| !want.contains(l)).collect();
        let first = got.iter().zip(&want).position(|(a, b)| a != b);
        panic!(
            "incremental graph differs from a full index\nmissing: {missing:#?}\nextra: {extra:#?}\nlengths {} {}, first difference {:?}",
            got.len(),
            want.len(),
            first.map(|i| (&got[i], &want[i]))
        );
    }
    assert_eq!(ws.sources(), &sources);
    assert_eq!(ws.stats().files_parsed, expected.file_count());
}

/// Small projects, one per language, each file with a few versions: cross-file imports, calls,
/// inheritance, and versions that add, rename or drop the names others use.
fn projects() -> Vec<Vec<(&'static str, Vec<&'static str>)>> {
    vec![
        vec![
            (
                "shop/cart.py",
                vec![
                    "from shop.pricing import total\n\nclass Cart:\n    def checkout(self):\n        return total(self)\n",
                    "from shop.pricing import total, tax\n\nclass Cart(Base):\n    def checkout(self):\n        return tax(total(self))\n\n    def add(self, x):\n        self.checkout()\n",
                    "from shop.pricing import *\n\nclass Cart:\n    def checkout(self):\n        return discount(self)\n",
                ],
            ),
            (
                "shop/pricing.py",
                vec![
                    "def total(cart):\n    return 1\n\ndef tax(x):\n    return total(x)\n",
                    "def total(cart):\n    return 2\n\ndef discount(c):\n    return total(c)\n",
                    "class Base:\n    def checkout(self):\n        pass\n\ndef total(cart):\n    return tax(cart)\n\ndef tax(x):\n    return x\n",
                ],
            ),
            (
                "shop/app.py",
                vec![
                    "from shop.cart import Cart\n\ndef main():\n    Cart().checkout()\n",
                    "import shop.cart\n\ndef main():\n    c = shop.cart.Cart()\n    c.add(1)\n",
                ],
            ),
            (".gitignore", vec!["*.log\n", "shop/app.py\n"]),
            ("README.md", vec!["# shop\n", "# shop v2\n"]),
        ],
        vec![
            (
                "src/a.ts",
                vec![
                    "import { B } from './b';\nexport class A extends B {\n  run(): void { this.go(); }\n}\n",
                    "import { B, helper } from './b';\nexport class A {\n  run(): void { helper(); new B().go(); }\n}\n",
                ],
            ),
            (
                "src/b.ts",
                vec![
                    "export class B {\n  go(): void {}\n}\nexport function helper(): number { return 1; }\n",
                    "export class B {\n  go(): void { helper(); }\n  stop(): void {}\n}\nfunction helper(): number { return 2; }\n",
                ],
            ),
            (
                "src/c.js",
                vec![
                    "import { A } from './a';\nfunction start() { new A().run(); }\n",
                    "const { helper } = require('./b');\nfunction start() { helper(); }\n",
                ],
            ),
        ],
        vec![
            (
                "src/lib.rs",
                vec![
                    "mod shapes;\nuse shapes::Circle;\npub fn area() -> f64 { Circle::new().area() }\n",
                    "mod shapes;\npub fn area() -> f64 { shapes::unit().area() }\n",
                ],
            ),
            (
                "src/shapes.rs",
                vec![
                    "pub struct Circle;\nimpl Circle {\n    pub fn new() -> Circle { Circle }\n    pub fn area(&self) -> f64 { 1.0 }\n}\n",
                    "pub struct Circle;\nimpl Circle {\n    pub fn area(&self) -> f64 { 2.0 }\n}\npub fn unit() -> Circle { Circle }\n",
                ],
            ),
        ],
        vec![
            (
                "main.go",
                vec![
                    "package main\n\nfunc main() {\n\ts := NewServer()\n\ts.Run()\n}\n",
                    "package main\n\nfunc main() {\n\tRun()\n}\n",
                ],
            ),
            (
                "server.go",
                vec![
                    "package main\n\ntype Server struct{}\n\nfunc NewServer() *Server { return &Server{} }\n\nfunc (s *Server) Run() {}\n",
                    "package main\n\nfunc Run() {}\n",
                ],
            ),
        ],
        // A receiver typed through a return type and a base class in a file the caller never
        // names: a change there moves the caller's edge.
        vec![
            (
                "base.py",
                vec![
                    "class Base:\n    def run(self):\n        pass\n",
                    "class Base:\n    def stop(self):\n        pass\n",
                    "class Base:\n    def run(self):\n        pass\n\n    def stop(self):\n        pass\n",
                ],
            ),
            (
                "shapes.py",
                vec![
                    "from base import Base\n\nclass Circle(Base):\n    pass\n\ndef make() -> Circle:\n    return Circle()\n",
                    "from base import Base\n\nclass Circle(Base):\n    def run(self):\n        pass\n\ndef make() -> Circle:\n    return Circle()\n",
                    "class Circle:\n    def stop(self):\n        pass\n\ndef make():\n    return Circle()\n",
                ],
            ),
            (
                "app.py",
                vec![
                    "from shapes import make\n\ndef main():\n    make().run()\n",
                    "import shapes\n\ndef main():\n    x = shapes.make()\n    x.stop()\n    x.run()\n",
                ],
            ),
            (
                "tools.py",
                vec![
                    "def run():\n    pass\n",
                    "def stop():\n    pass\n\ndef make():\n    pass\n",
                ],
            ),
        ],
        vec![
            (
                "src/main/java/a/App.java",
                vec![
                    "package a;\nimport a.util.Helper;\nclass App {\n  void run() { Helper.help(); }\n}\n",
                    "package a;\nclass App extends Base {\n  void run() { stop(); }\n}\n",
                ],
            ),
            (
                "src/main/java/a/Base.java",
                vec!["package a;\nclass Base {\n  void stop() {}\n}\n"],
            ),
            (
                "src/main/java/a/util/Helper.java",
                vec![
                    "package a.util;\npublic class Helper {\n  public static void help() {}\n}\n",
                    "package a.util;\npublic class Helper {\n  public static void help() { other(); }\n  static void other() {}\n}\n",
                ],
            ),
        ],
        vec![
            (
                "src/Shop/Cart.cs",
                vec![
                    "using Shop.Util;\nnamespace Shop {\npublic partial class Cart : Base {\n  void Run() { Helper.Help(); Total(); }\n}\n}\n",
                    "namespace Shop;\npublic partial class Cart {\n  void Run() { var m = new Money(); m.Twice(); Stop(); }\n}\n",
                ],
            ),
            (
                "src/Shop/Cart.Total.cs",
                vec![
                    "namespace Shop {\npublic partial class Cart {\n  int Total() { return 0; }\n}\npublic class Base { protected void Stop() {} }\npublic class Money { }\n}\n",
                    "namespace Shop {\npublic partial class Cart : Base {\n  int Total() { return Twice(); }\n  int Twice() { return 1; }\n}\npublic class Base { protected void Stop() {} }\npublic class Money { }\n}\n",
                ],
            ),
            (
                "src/Shop/Util/Helper.cs",
                vec![
                    "namespace Shop.Util {\npublic static class Helper {\n  public static void Help() {}\n  public static int Twice(this Shop.Money m) => 2;\n}\n}\n",
                    "namespace Shop.Util;\npublic static class Helper {\n  public static void Help() { Other(); }\n  static void Other() {}\n}\n",
                ],
            ),
        ],
        vec![
            (
                "src/App.php",
                vec![
                    "<?php\nnamespace App;\nuse App\\Util\\Helper;\nclass App extends Base {\n  use Greets;\n  function run(Helper $h) { $h->help(); $this->stop(); $this->greet(); helper(); }\n}\n",
                    "<?php\nnamespace App;\nclass App extends Base {\n  function run() { Util\\Helper::make()->help(); stop(); }\n}\n",
                    "<?php\nnamespace App;\nrequire_once __DIR__ . '/functions.php';\nclass App { function run() { helper(); (new Base())->stop(); } }\n",
                ],
            ),
            (
                "src/Base.php",
                vec![
                    "<?php\nnamespace App;\nclass Base {\n  function stop() {}\n}\ntrait Greets { function greet() { $this->stop(); } }\n",
                    "<?php\nnamespace App;\nclass Base {\n  function stop() { helper(); }\n}\nfunction helper() {}\n",
                ],
            ),
            (
                "src/Util/Helper.php",
                vec![
                    "<?php\nnamespace App\\Util;\nclass Helper {\n  static function make(): self { return new self(); }\n  function help() {}\n}\n",
                    "<?php\nnamespace App\\Util;\nclass Helper {\n  static function make(): static { return new static; }\n  function help() { \\App\\helper(); }\n}\n",
                ],
            ),
            (
                "src/functions.php",
                vec![
                    "<?php\nfunction helper() {}\n",
                    "<?php\nfunction helper() { return (new App\\Base())->stop(); }\n",
                ],
            ),
        ],
        // Ruby: a class reopened in another file, constants through the nesting, mixins,
        // `require`, typed locals and instance variables, top-level functions, parameters
        // typed by their callers in other files.
        vec![
            (
                "lib/shop/cart.rb",
                vec![
                    "require \"shop/base\"\nmodule Shop\n  class Cart < Base\n    include Totals\n    def run\n      stop\n      total\n      helper\n    end\n  end\nend\n",
                    "module Shop\n  class Cart\n    def initialize\n      @money = Money.new\n    end\n    def run\n      @money.twice\n      m = Money.new\n      m.twice\n      Shop::Cart.make\n    end\n  end\nend\n",
                ],
            ),
            (
                "lib/shop/cart_ext.rb",
                vec![
                    "module Shop\n  class Cart\n    def self.make\n      new\n    end\n    def stop; end\n  end\nend\n",
                    "module Shop\n  class Cart < Base\n    def total\n      twice\n    end\n  end\n  class Money\n    def twice; end\n  end\nend\n",
                    "module Shop\n  class Pack\n    def initialize(box)\n      @box = box\n    end\n    def run\n      @box.twice\n      pass(Money.new)\n    end\n    def pass(m)\n      m.twice\n    end\n  end\nend\n",
                ],
            ),
            (
                "lib/shop/base.rb",
                vec![
                    "module Shop\n  class Base\n    def stop; end\n  end\n  module Totals\n    def total; twice; end\n  end\n  class Money\n    def twice; end\n  end\nend\n",
                    "module Shop\n  class Base\n    def initialize; stop; end\n  end\nend\ndef helper\n  Shop::Base.new\nend\n",
                ],
            ),
            (
                "lib/helpers.rb",
                vec![
                    "def helper; end\n",
                    "require_relative \"shop/cart\"\ndef helper\n  Shop::Cart.new.run\nend\n",
                    "def helper\n  Shop::Pack.new(Shop::Money.new)\nend\n",
                ],
            ),
        ],
        // Swift: a module's files see each other, extensions in other files add methods and
        // conformances, calls through a protocol reach its implementers.
        vec![
            (
                "Sources/App/App.swift",
                vec![
                    "import Core\nfinal class App: Base {\n  func run(s: Shape) { s.area(); stop(); let h = Helper(); h.help() }\n}\n",
                    "import Core\nfinal class App {\n  func run() { Helper.make().help(); extra() }\n}\n",
                    "final class App: Shape {\n  func area() -> Int { 1 }\n  func run() { self.area(); helper() }\n}\n",
                ],
            ),
            (
                "Sources/App/App+Extra.swift",
                vec![
                    "extension App {\n  func extra() { run() }\n}\n",
                    "extension App: Shape {\n  func area() -> Int { stop(); return 2 }\n}\n",
                ],
            ),
            (
                "Sources/Core/Shape.swift",
                vec![
                    "protocol Shape {\n  func area() -> Int\n}\nclass Base {\n  func stop() {}\n}\n",
                    "protocol Shape {\n  func area() -> Int\n}\nextension Shape {\n  func stop() { area() }\n}\nclass Base {}\n",
                ],
            ),
            (
                "Sources/Core/Helper.swift",
                vec![
                    "struct Helper {\n  static func make() -> Helper { Helper() }\n  func help() {}\n}\nfunc helper() {}\n",
                    "struct Helper {\n  func help() { helper() }\n}\nextension Helper: Shape {\n  func area() -> Int { 3 }\n}\nfunc helper() {}\n",
                ],
            ),
        ],
        vec![
            (
                "src/main/kotlin/a/App.kt",
                vec![
                    "package a\nimport a.util.Helper\nclass App : Base() {\n    fun run(m: Money) {\n        Helper.help()\n        stop()\n        m.twice()\n    }\n}\n",
                    "package a\nimport a.util.*\nclass App {\n    fun run() {\n        Helper.create().help()\n        Base().stop()\n    }\n}\n",
                ],
            ),
            (
                "src/main/kotlin/a/Base.kt",
                vec![
                    "package a\nopen class Base {\n    fun stop() {}\n}\nclass Money\n",
                    "package a\nopen class Base {\n    fun stop() { twice(Money()) }\n}\nclass Money\nfun twice(m: Money) = 2\n",
                ],
            ),
            (
                "src/main/kotlin/a/util/Helper.kt",
                vec![
                    "package a.util\nimport a.Money\nobject Helper {\n    fun help() {}\n}\nfun Money.twice() = 2\n",
                    "package a.util\nclass Helper {\n    fun help() { other() }\n    companion object {\n        fun create() = Helper()\n        fun help() {}\n    }\n}\nfun other() {}\n",
                ],
            ),
        ],
        // Zig: files `@import` each other whole, by name and through an alias; methods through
        // typed receivers and generic types; `usingnamespace` brings a file's names in; a decl
        // literal typed by another file's parameter; a type alias of another file's instance; an
        // `anytype` parameter typed by a caller in another file.
        vec![
            (
                "src/main.zig",
                vec![
                    "const cart = @import(\"cart.zig\");\nconst Cart = cart.Cart;\nconst list = @import(\"util/list.zig\");\npub fn main() void {\n    var c = Cart.init();\n    c.total();\n    cart.helper();\n    cart.pay(.init());\n    list.visit(c);\n}\n",
                    "const Cart = @import(\"cart.zig\").Cart;\nusingnamespace @import(\"util/list.zig\");\npub fn main() void {\n    const c: Cart = Cart.init();\n    c.total();\n    helper();\n}\n",
                ],
            ),
            (
                "src/cart.zig",
                vec![
                    "const List = @import(\"util/list.zig\").List;\npub const Cart = struct {\n    const Self = @This();\n    lines: List(u8),\n    pub fn init() Self {\n        return Self{ .lines = List(u8).init() };\n    }\n    pub fn total(self: *Self) void {\n        self.lines.append(1);\n    }\n};\npub fn helper() void {}\npub fn pay(c: Cart) void {\n    _ = c;\n}\nconst Bytes = @import(\"util/list.zig\").Bytes;\npub fn fill(b: *Bytes) void {\n    b.append(2);\n}\n",
                    "pub const Cart = struct {\n    pub fn init() Cart {\n        return .{};\n    }\n    pub fn total(self: Cart) void {\n        _ = self;\n        helper();\n    }\n};\nfn helper() void {}\npub fn pay(n: u8) void {\n    _ = n;\n}\n",
                ],
            ),
            (
                "src/util/list.zig",
                vec![
                    "pub fn List(comptime T: type) type {\n    return struct {\n        items: []T,\n        pub fn init() @This() {\n            return .{ .items = &.{} };\n        }\n        pub fn append(self: *@This(), x: T) void {\n            _ = self;\n            _ = x;\n        }\n    };\n}\npub const Bytes = List(u8);\npub fn visit(ctx: anytype) void {\n    ctx.total();\n}\n",
                    "pub fn helper() void {}\npub fn List(comptime T: type) type {\n    return struct {\n        pub fn init() @This() {\n            return .{};\n        }\n    };\n}\n",
                ],
            ),
        ],
        vec![
            (
                "lib/app.dart",
                vec![
                    "import 'package:shop/src/base.dart';\nimport 'src/helper.dart' as h;\nclass App extends Base {\n  void run(Money m) {\n    h.helper();\n    stop();\n    m.twice();\n  }\n}\n",
                    "import 'src/base.dart';\nimport 'package:shop/src/helper.dart';\nclass App {\n  void run() {\n    Helper.make().help();\n    Base()..stop();\n  }\n}\n",
                ],
            ),
            (
                "lib/src/base.dart",
                vec![
                    "class Base {\n  void stop() {}\n}\nclass Money {}\n",
                    "export 'helper.dart';\nclass Base {\n  void stop() { twice(Money()); }\n}\nclass Money {}\nint twice(Money m) => 2;\n",
                ],
            ),
            (
                "lib/src/helper.dart",
                vec![
                    "import 'base.dart';\nclass Helper {\n  void help() {}\n}\nvoid helper() {}\nextension Twice on Money {\n  int twice() => 2;\n}\n",
                    "class Helper {\n  static Helper make() => Helper();\n  void help() { helper(); }\n}\nvoid helper() {}\n",
                ],
            ),
        ],
        // Elixir: modules by full name through aliases, imports, `use`, a protocol and its
        // implementation, a behaviour, functions by arity moving between modules and files.
        vec![
            (
                "lib/shop/cart.ex",
                vec![
                    "defmodule Shop.Cart do\n  alias Shop.{Money, Base}\n  import Shop.Base\n  use Shop.Base\n  @behaviour Shop.Store\n  defstruct items: []\n  def run(c) do\n    c |> add(1) |> Money.twice()\n    stop(c)\n    %Shop.Cart{}\n  end\n  def add(c, x), do: [x | c]\nend\n",
                    "defmodule Shop.Cart do\n  alias Shop.Money, as: M\n  def run(c) do\n    M.twice(c)\n    Shop.Base.stop(c)\n    Enum.map(c, &add/1)\n  end\n  def add(c, x \\\\ 1), do: [x | c]\nend\n",
                ],
            ),
            (
                "lib/shop/base.ex",
                vec![
                    "defmodule Shop.Base do\n  defmacro __using__(_), do: nil\n  def stop(c), do: c\nend\ndefmodule Shop.Money do\n  def twice(x), do: x\nend\n",
                    "defmodule Shop.Base do\n  def stop(c), do: Shop.Money.twice(c)\n  def stop(c, _), do: c\nend\n",
                ],
            ),
            (
                "lib/shop/money.ex",
                vec![
                    "defmodule Shop.Money do\n  def twice(x), do: x * 2\nend\ndefprotocol Shop.Sized do\n  def size(t)\nend\n",
                    "defimpl Shop.Sized, for: Shop.Cart do\n  def size(c), do: Shop.Cart.add(c, 1)\nend\ndefmodule Shop.Store do\n  @callback run(term) :: term\nend\n",
                ],
            ),
        ],
        // Scala: package mates, companions' `apply`, traits mixed in, extension methods and
        // imports relative to the package.
        vec![
            (
                "src/main/scala/a/App.scala",
                vec![
                    "package a\nimport util.Helper\nclass App extends Base with Named {\n  def run(m: Money): Unit = {\n    Helper.help()\n    stop()\n    m.twice\n    name()\n  }\n}\n",
                    "package a\nimport a.util._\nclass App {\n  def run(): Unit = {\n    Helper.create().help()\n    new Base().stop()\n    Money(2).twice\n  }\n}\n",
                ],
            ),
            (
                "src/main/scala/a/Base.scala",
                vec![
                    "package a\nclass Base {\n  def stop(): Unit = ()\n}\ntrait Named {\n  def name(): String = \"a\"\n}\ncase class Money(n: Int)\n",
                    "package a\nclass Base {\n  def stop(): Unit = twice(Money(1))\n}\ncase class Money(n: Int)\nobject Money {\n  def apply(n: Int): Money = new Money(n)\n}\ndef twice(m: Money): Int = 2\n",
                ],
            ),
            (
                "src/main/scala/a/util/Helper.scala",
                vec![
                    "package a\npackage util\nobject Helper {\n  def help(): Unit = ()\n}\nextension (m: Money) def twice: Int = 2\n",
                    "package a.util\nclass Helper {\n  def help(): Unit = other()\n}\nobject Helper {\n  def create(): Helper = new Helper()\n  def help(): Unit = ()\n}\ndef other(): Unit = ()\n",
                ],
            ),
        ],
        // Lua: `require` of a module's returned table, methods through `self` and typed
        // locals, `__index` inheritance.
        vec![
            (
                "lua/app/main.lua",
                vec![
                    "local Shop = require(\"app.shop\")\nlocal function run()\n  local s = Shop.new()\n  s:stop()\n  s:total()\nend\nrun()\n",
                    "local Shop = require \"app.shop\"\nlocal Base = require \"app.base\"\nShop.new():total()\nBase.helper()\n",
                ],
            ),
            (
                "lua/app/shop.lua",
                vec![
                    "local Base = require(\"app.base\")\nlocal Shop = setmetatable({}, {__index = Base})\nShop.__index = Shop\nfunction Shop.new()\n  return setmetatable({}, Shop)\nend\nfunction Shop:total() self:stop() end\nreturn Shop\n",
                    "local Shop = {}\nfunction Shop.new() return Shop end\nfunction Shop:stop() end\nreturn Shop\n",
                ],
            ),
            (
                "lua/app/base.lua",
                vec![
                    "local Base = {}\nfunction Base:stop() end\nfunction Base.helper() end\nreturn Base\n",
                    "local M = {}\nfunction M:stop() M.helper() end\nfunction M.helper() end\nreturn M\n",
                ],
            ),
            (
                "lua/app/base/init.lua",
                vec![
                    "local M = {}\nfunction M.helper() end\nreturn M\n",
                    "return {}\n",
                ],
            ),
        ],
        // Bash: functions of the script and of the files it sources, directly or through
        // another sourced file.
        vec![
            (
                "bin/build.sh",
                vec![
                    ". \"$(dirname \"$0\")/lib/common.sh\"\nbuild() { log x | count; helper; }\nbuild\n",
                    "source lib/common.sh\nbuild() { log x; }\nlog() { :; }\nbuild\n",
                ],
            ),
            (
                "bin/lib/common.sh",
                vec![
                    "source \"${BASH_SOURCE%/*}/log.sh\"\ncount() { wc -l; }\n",
                    "log() { echo \"$@\"; }\nhelper() { log; }\n",
                ],
            ),
            (
                "bin/lib/log.sh",
                vec![
                    "log() { echo \"$@\"; }\n",
                    "log() { count; }\ncount() { :; }\n",
                ],
            ),
        ],
        // C: a name found through the includes is the nearest header defining it, and headers
        // gain and lose definitions and includes.
        vec![
            (
                "inc/a.h",
                vec![
                    "#include \"b.h\"\n",
                    "#include \"b.h\"\nstatic inline int pick(void) { return 2; }\n",
                ],
            ),
            (
                "inc/b.h",
                vec![
                    "static inline int pick(void) { return 1; }\nint run(void);\n",
                    "int run(void);\n",
                ],
            ),
            (
                "src/main.c",
                vec![
                    "#include \"../inc/a.h\"\nint main(void) { return pick() + run(); }\n",
                    "#include <b.h>\n#include <a.h>\nint main(void) { return pick(); }\n",
                ],
            ),
            (
                "src/run.c",
                vec![
                    "#include \"../inc/b.h\"\nint run(void) { return pick(); }\n",
                    "int run(void) { return 0; }\n",
                ],
            ),
        ],
    ]
}

/// One step of an edit sequence.
#[derive(Debug, Clone)]
enum Step {
    /// Write version `v` of file `f` (modulo their counts).
    Write(usize, usize),
    Remove(usize),
    /// Move file `f` to a new name in the same folder.
    Rename(usize),
    /// Write the same bytes again.
    Touch(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..8usize, 0..4usize).prop_map(|(f, v)| Step::Write(f, v)),
        1 => (0..8usize).prop_map(Step::Remove),
        1 => (0..8usize).prop_map(Step::Rename),
        1 => (0..8usize).prop_map(Step::Touch),
    ]
}

/// Runs `steps` on project `p`, a batch of `batch` steps at a time, checking the incremental
/// graph against a full index after every batch.
fn run(p: usize, steps: &[Step], batch: usize) {
    let project = &projects()[p];
    let mut files: BTreeMap<String, String> = project
        .iter()
        .map(|(path, versions)| ((*path).to_owned(), versions[0].to_owned()))
        .collect();
    let (mut ws, first) = start(&files);
    assert_same(&ws, &first, &files);
    let mut graph = first;
    for chunk in steps.chunks(batch.max(1)) {
        let mut changes = Vec::new();
        for step in chunk {
            match *step {
                Step::Write(f, v) => {
                    let (path, versions) = &project[f % project.len()];
                    let text = versions[v % versions.len()];
                    files.insert((*path).to_owned(), text.to_owned());
                    changes.push(FileChange::Write(file(path, text)));
                }
                Step::Remove(f) => {
                    let path = project[f % project.len()].0;
                    files.remove(path);
                    changes.push(FileChange::Remove(path.to_owned()));
                }
                Step::Rename(f) => {
                    let path = project[f % project.len()].0;
                    if let Some(text) = files.remove(path) {
                        let renamed = match path.rsplit_once('.') {
                            Some((stem, ext)) => format!("{stem}_moved.{ext}"),
                            None => format!("{path}_moved"),
                        };
                        changes.push(FileChange::Remove(path.to_owned()));
                        changes.push(FileChange::Write(file(&renamed, &text)));
                        files.insert(renamed, text);
                    }
                }
                Step::Touch(f) => {
                    let path = project[f % project.len()].0;
                    if let Some(text) = files.get(path) {
                        changes.push(FileChange::Write(file(path, text)));
                    }
                }
            }
        }
        // A rules change makes a watcher rescan: files the old rules hid come back as written.
        if changes.iter().any(|c| ingest::is_gitignore(c.path())) {
            changes.extend(files.iter().map(|(p, t)| FileChange::Write(file(p, t))));
        }
        if let (Some(new), _) = apply_after(&mut ws, changes, Some(&graph)) {
            graph = new;
        }
        assert_same(&ws, &graph, &files);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_edit_sequence_gives_the_graph_of_a_full_index(
        p in 0..projects().len(),
        steps in prop::collection::vec(step(), 1..12),
        batch in 1..4usize,
    ) {
        run(p, &steps, batch);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Each file's calls resolve alike whichever files were resolved before it: what
    /// re-resolving only some files after a change needs.
    #[test]
    fn calls_resolve_alike_in_any_file_order(
        p in 0..projects().len(),
        versions in prop::collection::vec(0..4usize, 8),
        keys in prop::collection::vec(any::<u32>(), 8),
    ) {
        let project = &projects()[p];
        let files: BTreeMap<String, String> = project
            .iter()
            .zip(&versions)
            .map(|((path, texts), &v)| ((*path).to_owned(), texts[v % texts.len()].to_owned()))
            .collect();
        let (ws, _) = start(&files);
        let facts = ws.facts();
        let dump = |order: &[usize]| {
            let mut lines = crate::resolve::build_graph_calls_in("p", facts, order)
                .0
                .canonical_dump();
            lines.sort();
            lines
        };
        let forward: Vec<usize> = (0..facts.len()).collect();
        let mut shuffled = forward.clone();
        shuffled.sort_by_key(|&i| keys.get(i).copied().unwrap_or(0));
        prop_assert_eq!(dump(&forward), dump(&shuffled));
    }
}

#[test]
fn every_project_survives_each_file_edited_removed_and_restored() {
    for p in 0..projects().len() {
        let n = projects()[p].len();
        let mut steps = Vec::new();
        for f in 0..n {
            steps.extend([
                Step::Write(f, 1),
                Step::Remove(f),
                Step::Write(f, 2),
                Step::Rename(f),
            ]);
        }
        run(p, &steps, 1);
        run(p, &steps, 3);
    }
}

#[test]
fn a_change_resolves_again_only_the_files_that_read_what_it_changed() {
    let mut files: BTreeMap<String, String> = [
        ("a.py", "def f():\n    return 1\n"),
        (
            "b.py",
            "from a import f\n\ndef g():\n    return f() + later()\n",
        ),
        ("c.py", "def h():\n    return 2\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_owned(), t.to_owned()))
    .collect();
    let (mut ws, _) = start(&files);
    let mut edit = |ws: &mut Workspace, path: &str, text: &str| {
        files.insert(path.to_owned(), text.to_owned());
        let (graph, applied) = apply(ws, vec![FileChange::Write(file(path, text))]);
        assert_same(ws, &graph.expect("the graph changed"), &files);
        applied.resolved
    };
    // A definition no other file names: the edited file alone.
    assert_eq!(
        edit(
            &mut ws,
            "c.py",
            "def h():\n    return 2\n\ndef k():\n    return h()\n"
        ),
        1
    );
    // A file another calls into: both.
    assert_eq!(
        edit(
            &mut ws,
            "a.py",
            "def f():\n    return 3\n\ndef e():\n    pass\n"
        ),
        2
    );
    // A new definition of a name another file looks up project-wide: that file too.
    assert_eq!(
        edit(
            &mut ws,
            "c.py",
            "def h():\n    return 2\n\ndef later():\n    pass\n"
        ),
        2
    );
}

#[test]
fn a_save_of_the_same_bytes_rebuilds_nothing() {
    let files: BTreeMap<String, String> = [("a.py", "def f():\n    return 1\n")]
        .into_iter()
        .map(|(p, t)| (p.to_owned(), t.to_owned()))
        .collect();
    let (mut ws, _) = start(&files);
    let (graph, applied) = apply(
        &mut ws,
        vec![FileChange::Write(file("a.py", "def f():\n    return 1\n"))],
    );
    assert!(graph.is_none());
    assert_eq!((applied.unchanged, applied.rebuilt), (1, false));
    let (graph, applied) = apply(&mut ws, vec![FileChange::Write(file("notes.md", "hi"))]);
    assert!(graph.is_none(), "a text that is not code changes no graph");
    assert_eq!(applied.texts, 1);
    assert_eq!(ws.sources().get("notes.md").as_deref(), Some("hi"));
}

#[test]
fn a_file_that_becomes_a_secret_or_too_large_leaves_the_graph() {
    let mut files: BTreeMap<String, String> = [
        ("a.py", "from b import g\n\ndef f():\n    return g()\n"),
        ("b.py", "def g():\n    return 1\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_owned(), t.to_owned()))
    .collect();
    let (mut ws, _) = start(&files);
    // Renamed to `.env`: the watcher reports the old path gone and the new one written.
    let text = files.remove("b.py").unwrap_or_default();
    let (graph, _) = apply(
        &mut ws,
        vec![
            FileChange::Remove("b.py".into()),
            FileChange::Write(file(".env", &text)),
        ],
    );
    let graph = graph.expect("the graph changed");
    assert!(graph.find_id("Function:b.py:g").is_none());
    assert!(!ws.sources().contains_key(".env"), "a secret is never kept");
    files.insert(".env".into(), text);
    assert_same(&ws, &graph, &files);

    let huge = format!(
        "def f():\n    return 1\n{}",
        "# pad\n".repeat(DEFAULT_MAX_FILE_BYTES / 6 + 1)
    );
    let (graph, _) = apply(&mut ws, vec![FileChange::Write(file("a.py", &huge))]);
    let graph = graph.expect("the graph changed");
    assert!(graph.find_id("Function:a.py:f").is_none());
    assert!(!ws.sources().contains_key("a.py"));
    assert_eq!(ws.stats().skipped_large, 1);
}

#[test]
fn snapshot_parts_bring_the_same_workspace_back() {
    let files: BTreeMap<String, String> = projects()[2]
        .iter()
        .map(|(p, v)| ((*p).to_owned(), v[0].to_owned()))
        .collect();
    let (ws, graph) = start(&files);
    let bytes = postcard::to_allocvec(&ws.parts()).expect("encodes");
    let parts: WorkspaceParts = postcard::from_bytes(&bytes).expect("decodes");
    let mut back = Workspace::from_parts("p", parts, ws.sources().clone()).expect("agrees");
    assert_eq!(
        back.hashes().collect::<Vec<_>>(),
        ws.hashes().collect::<Vec<_>>()
    );
    let (again, _) = apply(&mut back, vec![FileChange::Remove("src/shapes.rs".into())]);
    let mut files = files;
    files.remove("src/shapes.rs");
    assert_same(&back, &again.expect("changed"), &files);
    assert!(graph.find_id("Struct:src/shapes.rs:Circle").is_some());

    let parts: WorkspaceParts = postcard::from_bytes(&bytes).expect("decodes");
    assert!(
        Workspace::from_parts("p", parts, Sources::new()).is_none(),
        "facts without their texts are refused"
    );
}

#[test]
fn a_listing_of_the_files_now_names_what_changed_since() {
    let files: BTreeMap<String, String> = [
        ("a.py", "def f(): pass\n"),
        ("b.md", "hi"),
        ("c.py", "x = 1\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_owned(), t.to_owned()))
    .collect();
    let (ws, _) = start(&files);
    let hex = |t: &str| format!("{:016x}", content_hash(t.as_bytes()));
    let listing = vec![
        ("a.py".to_owned(), hex("def f(): pass\n")),
        ("b.md".to_owned(), hex("changed")),
        ("d.py".to_owned(), hex("new")),
        ("e.py".to_owned(), "not hex".to_owned()),
    ];
    let (changed, removed) = ws.stale(&listing);
    assert_eq!(changed, ["b.md", "d.py", "e.py"]);
    assert_eq!(removed, ["c.py"]);
}
