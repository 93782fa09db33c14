//! Zig resolution fixtures: `@import`ed files (whole, by name, through an alias), package
//! imports left outside, containers as namespaces, methods through typed receivers (`self`,
//! annotated, initialised, returned, fields), generic types, `@call` and `usingnamespace`.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const LEDGER: &str = r#"const std = @import("std");

pub const Ledger = struct {
    const Self = @This();
    count: usize,

    pub fn init() Self {
        return Self{ .count = 0 };
    }

    pub fn record(self: *Self, cents: u64) void {
        self.count += bump(cents);
    }

    fn bump(cents: u64) usize {
        return @intCast(cents);
    }
};

pub fn format(cents: u64) []const u8 {
    _ = cents;
    return "";
}

pub fn List(comptime T: type) type {
    return struct {
        items: []T,

        pub fn init() @This() {
            return .{ .items = &.{} };
        }

        pub fn append(self: *@This(), item: T) void {
            _ = self;
            _ = item;
        }
    };
}
"#;

const CART: &str = r#"const std = @import("std");
const ledger = @import("ledger.zig");
const Ledger = ledger.Ledger;
const List = @import("ledger.zig").List;
const shop = @import("shop");
const assert = std.debug.assert;
pub usingnamespace @import("util.zig");

pub const Cart = struct {
    ledger: Ledger,
    lines: List(u64),

    pub fn create() Cart {
        var cart = Cart{ .ledger = Ledger.init(), .lines = List(u64).init() };
        cart.lines.append(1);
        return cart;
    }

    pub fn checkout(self: *Cart, cents: u64) !void {
        self.ledger.record(cents);
        var book = Ledger.init();
        book.record(cents);
        const other: Ledger = Ledger.init();
        _ = other;
        _ = ledger.format(cents);
        try self.total();
        _ = @call(.auto, taxed, .{cents});
        std.debug.print("{d}\n", .{cents});
        const items = std.ArrayList(u64).init(std.heap.page_allocator);
        items.append(cents);
        slugify();
        shop.open();
        assert(cents > 0);
        apply(slugify);
    }

    fn apply(hook: *const fn () void) void {
        hook();
    }

    fn total(self: *Cart) !void {
        _ = self;
        clamp();
    }

    fn taxed(cents: u64) u64 {
        return cents;
    }
};

test "checkout records" {
    var cart = Cart.create();
    try cart.checkout(5);
}
"#;

const UTIL: &str = r#"pub fn slugify() void {}

pub fn clamp() void {}

pub fn hook() void {}
"#;

const SHOP: &str = r#"pub fn open() void {}
"#;

const TEST: &str = "Function:src/cart.zig:test \"checkout records\"";

#[test]
fn zig_imports_containers_receivers_and_generic_types() {
    let g = graph(&[
        ("src/ledger.zig", LEDGER),
        ("src/cart.zig", CART),
        ("src/util.zig", UTIL),
        ("src/shop.zig", SHOP),
    ]);
    // `std.debug.print`, `std.ArrayList(u64).init`, what the list holds and `assert` (`const
    // assert = std.debug.assert`) reach nothing: `std` is a package, no project file.
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A test block is a definition (compiled by `zig test` only).
            (
                TEST,
                "Method:src/cart.zig:Cart.checkout",
                "0.95",
                "receiver-type"
            ),
            (
                TEST,
                "Method:src/cart.zig:Cart.create",
                "0.97",
                "class-member"
            ),
            // `ledger.format` through the file's alias.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Function:src/ledger.zig:format",
                "0.97",
                "import-resolved"
            ),
            // `@import("shop")`: the module root `shop.zig` above the importer.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Function:src/shop.zig:open",
                "0.97",
                "import-resolved"
            ),
            // `apply(slugify)` calls `apply`; inside it `hook()` is its parameter, not
            // `util.zig`'s `hook`.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Method:src/cart.zig:Cart.apply",
                "0.97",
                "same-file"
            ),
            // `usingnamespace @import("util.zig")` brings `slugify` and `clamp` in.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Function:src/util.zig:slugify",
                "0.97",
                "import-resolved"
            ),
            (
                "Method:src/cart.zig:Cart.total",
                "Function:src/util.zig:clamp",
                "0.97",
                "import-resolved"
            ),
            // `@call(.auto, taxed, …)`: a declaration of the container, in scope.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Method:src/cart.zig:Cart.taxed",
                "0.97",
                "same-file"
            ),
            // `try self.total()` where `self: *Cart`.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Method:src/cart.zig:Cart.total",
                "0.97",
                "receiver-type"
            ),
            // `Ledger.init()` where `const Ledger = ledger.Ledger`.
            (
                "Method:src/cart.zig:Cart.checkout",
                "Method:src/ledger.zig:Ledger.init",
                "0.97",
                "class-member"
            ),
            // `self.ledger.record` (a field of `Cart`) and `book.record` (`book` from
            // `Ledger.init()`, which returns `Self`: `Ledger`).
            (
                "Method:src/cart.zig:Cart.checkout",
                "Method:src/ledger.zig:Ledger.record",
                "0.95",
                "attribute-type"
            ),
            (
                "Method:src/cart.zig:Cart.create",
                "Method:src/ledger.zig:Ledger.init",
                "0.97",
                "class-member"
            ),
            // A generic type: `List(u64)` is a call of the type function, `List(u64).init()` and
            // `cart.lines.append` methods of the struct it returns.
            (
                "Method:src/cart.zig:Cart.create",
                "Struct:src/ledger.zig:List",
                "0.97",
                "constructor"
            ),
            (
                "Method:src/cart.zig:Cart.create",
                "Method:src/ledger.zig:List.init",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/cart.zig:Cart.create",
                "Method:src/ledger.zig:List.append",
                "0.95",
                "attribute-type"
            ),
            // The field type `List(u64)` calls the type function at compile time.
            (
                "Struct:src/cart.zig:Cart",
                "Struct:src/ledger.zig:List",
                "0.97",
                "constructor"
            ),
            // A bare name inside a container: its own declaration.
            (
                "Method:src/ledger.zig:Ledger.record",
                "Method:src/ledger.zig:Ledger.bump",
                "0.97",
                "same-file"
            ),
        ])
    );
}

const STACK: &str = r#"const std = @import("std");
const Stack = @This();

items: [8]u8,
len: usize,

pub fn init() Stack {
    return .{ .items = undefined, .len = 0 };
}

pub fn push(self: *Stack, x: u8) void {
    self.items[self.len] = x;
    self.grow();
}

fn grow(self: *Stack) void {
    _ = self;
}
"#;

const MAIN: &str = r#"const Stack = @import("Stack.zig");
const tools = @import("tools.zig");

pub fn main() void {
    var s = Stack.init();
    s.push(1);
    tools.run(&s);
}
"#;

const TOOLS: &str = r#"const Stack = @import("Stack.zig");

pub fn run(s: *Stack) void {
    s.push(2);
}
"#;

#[test]
fn zig_files_with_fields_are_structs_named_as_the_file() {
    let g = graph(&[
        ("src/Stack.zig", STACK),
        ("src/main.zig", MAIN),
        ("src/tools.zig", TOOLS),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `Stack.init()`: the file's struct, bound by the import.
            (
                "Function:src/main.zig:main",
                "Method:src/Stack.zig:Stack.init",
                "0.97",
                "class-member"
            ),
            // `s.push` where `s` holds what `init` returns (`Stack`, the file).
            (
                "Function:src/main.zig:main",
                "Method:src/Stack.zig:Stack.push",
                "0.95",
                "receiver-type"
            ),
            // `tools.run`: a file without fields is a namespace.
            (
                "Function:src/main.zig:main",
                "Function:src/tools.zig:run",
                "0.97",
                "import-resolved"
            ),
            // A parameter typed `*Stack`.
            (
                "Function:src/tools.zig:run",
                "Method:src/Stack.zig:Stack.push",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/Stack.zig:Stack.push",
                "Method:src/Stack.zig:Stack.grow",
                "0.97",
                "receiver-type"
            ),
        ])
    );
}

const STD_ROOT: &str = r#"pub const mem = @import("mem.zig");
"#;

const MEM: &str = r#"const mem = @This();

pub const Allocator = @import("mem/Allocator.zig");
"#;

const ALLOCATOR: &str = r#"const Allocator = @This();

ptr: *anyopaque,

pub fn free(self: Allocator, memory: []u8) void {
    _ = self;
    _ = memory;
}
"#;

const POOL: &str = r#"const std = @import("std.zig");
const mem = std.mem;
const Allocator = mem.Allocator;

pub const Node = struct {
    next: ?*Node,

    pub fn init() Node {
        return .{ .next = null };
    }

    pub fn visit(self: *Node) void {
        _ = self;
    }
};

pub const Event = union(enum) {
    node: Node,
    none: void,
};

pub const Pool = struct {
    head: ?*Node,
    nodes: []Node,
    gpa: Allocator,

    pub fn create() !Pool {
        return .empty();
    }

    fn empty() Pool {
        return .{ .head = null, .nodes = &.{}, .gpa = undefined };
    }

    pub fn walk(self: *Pool, event: Event) void {
        const first: Node = .init();
        _ = first;
        if (self.head) |head| head.visit();
        for (self.nodes) |*node| node.visit();
        switch (event) {
            .node => |n| n.visit(),
            .none => {},
        }
        self.gpa.free(&.{});
    }
};

pub fn release(gpa: Allocator) void {
    gpa.free(&.{});
}

pub fn reset(ok: bool) void {
    const m = std.mem;
    const fresh: Node = if (ok) .init() else .{ .next = null };
    _ = fresh;
    m.Allocator.free(undefined, &.{});
}
"#;

#[test]
fn zig_decl_literals_payloads_and_types_through_import_chains() {
    let g = graph(&[
        ("lib/std.zig", STD_ROOT),
        ("lib/mem.zig", MEM),
        ("lib/mem/Allocator.zig", ALLOCATOR),
        ("lib/pool.zig", POOL),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `return .empty()` in a function returning `!Pool`: `Pool.empty`.
            (
                "Method:lib/pool.zig:Pool.create",
                "Method:lib/pool.zig:Pool.empty",
                "0.97",
                "class-member"
            ),
            // `const first: Node = .init()`.
            (
                "Method:lib/pool.zig:Pool.walk",
                "Method:lib/pool.zig:Node.init",
                "0.97",
                "class-member"
            ),
            // `if (self.head) |head|`, `for (self.nodes) |*node|` and `.node => |n|` in
            // `switch (event)`: each payload holds a `Node`.
            (
                "Method:lib/pool.zig:Pool.walk",
                "Method:lib/pool.zig:Node.visit",
                "0.95",
                "receiver-type"
            ),
            // A field and a parameter typed `Allocator`, where `const Allocator = mem.Allocator`
            // and `const mem = std.mem`: `std.mem.Allocator`, the file struct of
            // `mem/Allocator.zig` through two re-exports, `mem.zig` a struct and a namespace.
            (
                "Method:lib/pool.zig:Pool.walk",
                "Method:lib/mem/Allocator.zig:Allocator.free",
                "0.95",
                "attribute-type"
            ),
            (
                "Function:lib/pool.zig:release",
                "Method:lib/mem/Allocator.zig:Allocator.free",
                "0.97",
                "receiver-type"
            ),
            // `if (ok) .init() else …` where the declaration says `Node`.
            (
                "Function:lib/pool.zig:reset",
                "Method:lib/pool.zig:Node.init",
                "0.97",
                "class-member"
            ),
            // `m.Allocator.free` after the function's own `const m = std.mem;`.
            (
                "Function:lib/pool.zig:reset",
                "Method:lib/mem/Allocator.zig:Allocator.free",
                "0.97",
                "class-member"
            ),
        ])
    );
}

const ALIGNED: &str = r#"pub fn Aligned(comptime T: type, comptime alignment: ?u29) type {
    return struct {
        items: []T,

        pub fn init() @This() {
            return .{ .items = &.{} };
        }

        pub fn append(self: *@This(), item: T) void {
            _ = self;
            _ = item;
        }
    };
}
"#;

const LIST: &str = r#"const aligned = @import("aligned.zig");

pub fn List(comptime T: type) type {
    return aligned.Aligned(T, null);
}

fn fill() void {
    var list = List(u8).init();
    list.append(1);
}

const Holder = struct {
    list: List(u8),

    fn reset(h: *Holder) void {
        h.list = .init();
    }
};
"#;

/// A type function returning another type function's instance (`return aligned.Aligned(T,
/// null);`) is that type: `List(u8).init()` and a value of it reach the other's methods; a
/// decl literal assigned to a field (`h.list = .init()`) is a declaration of the field's type.
#[test]
fn zig_type_functions_returning_instances_and_assigned_decl_literals() {
    let g = graph(&[("src/aligned.zig", ALIGNED), ("src/list.zig", LIST)]);
    let calls = edges(&g, EdgeKind::Calls);
    let fill: std::collections::BTreeSet<&str> = calls
        .iter()
        .filter(|e| e.0 == "Function:src/list.zig:fill")
        .map(|e| e.1.as_str())
        .collect();
    assert!(
        fill.contains("Method:src/aligned.zig:Aligned.init"),
        "{fill:?}"
    );
    assert!(
        fill.contains("Method:src/aligned.zig:Aligned.append"),
        "{fill:?}"
    );
    assert!(
        calls
            .iter()
            .any(|e| e.0 == "Method:src/list.zig:Holder.reset"
                && e.1 == "Method:src/aligned.zig:Aligned.init"),
        "{calls:?}"
    );
}

const CLOCK: &str = r#"pub const Clock = enum {
    real,

    pub fn now(clock: Clock) u64 {
        _ = clock;
        return 0;
    }

    pub const Timestamp = struct {
        raw: u64,
        clock: Clock,

        pub fn now(clock: Clock) Timestamp {
            return .{ .raw = clock.now(), .clock = clock };
        }

        pub fn untilNow(timestamp: Timestamp) u64 {
            const now_ts = Clock.Timestamp.now(timestamp.clock);
            return now_ts.raw;
        }

        pub fn throughAField() void {
            _ = Clock.Timestamp.raw.now();
        }
    };
};

pub const Timestamp = struct {
    nanoseconds: u64,

    pub fn now(clock: Clock) Timestamp {
        return .{ .nanoseconds = clock.now() };
    }
};
"#;

/// A path through containers declared inside containers (`Clock.Timestamp.now()`, where
/// `Timestamp` is declared in `Clock` and a top-level `Timestamp` has a `now` too) reaches the
/// innermost container's member, in a namespace file and in a file that is a struct; a path
/// through a field on the way names no container.
#[test]
fn zig_paths_through_nested_containers() {
    let as_struct = format!("userdata: ?*anyopaque,\n\n{CLOCK}");
    for (path, source, prefix) in [
        ("src/io.zig", CLOCK, "Method:src/io.zig:"),
        ("src/Io.zig", as_struct.as_str(), "Method:src/Io.zig:Io."),
    ] {
        let g = graph(&[(path, source)]);
        let calls = edges(&g, EdgeKind::Calls);
        let from = |caller: &str| -> Vec<(String, String)> {
            calls
                .iter()
                .filter(|e| e.0 == format!("{prefix}{caller}"))
                .map(|e| (e.1.clone(), e.2.clone()))
                .collect()
        };
        assert_eq!(
            from("Clock.Timestamp.untilNow"),
            vec![(format!("{prefix}Clock.Timestamp.now"), "0.97".to_owned())]
        );
        assert!(
            from("Clock.Timestamp.throughAField")
                .iter()
                .all(|(_, confidence)| confidence.parse::<f32>().is_ok_and(|c| c < 0.5)),
            "{calls:?}"
        );
    }
}

const IO: &str = r#"userdata: ?*anyopaque,

pub const Limit = enum(usize) {
    unlimited = 0,
    _,

    pub fn limited(n: usize) Limit {
        return @enumFromInt(n);
    }
};
"#;

const EXPECTED: &str = r#"const Io = @import("Io.zig");

const Group = struct {
    id: u32,

    pub fn fromGroup(id: u32) Group {
        return .{ .id = id };
    }

    pub fn init() Group {
        return .{ .id = 0 };
    }
};

const Span = struct {
    pub fn empty() Span {
        return .{};
    }
};

const Entry = struct {
    group: Group,
    span: Span,

    pub fn add(self: *Entry, group: Group) void {
        self.group = group;
    }
};

const Table = struct {
    entry: Entry,
};

pub fn register(group: Group, span: Span) void {
    _ = group;
    _ = span;
}

pub fn stream(limit: Io.Limit) void {
    _ = limit;
}

pub fn pick(value: anytype) void {
    _ = value;
}

fn arguments(entry: *Entry) void {
    register(.fromGroup(1), .empty());
    entry.add(.init());
    Entry.add(entry, .fromGroup(2));
    stream(.limited(1));
}

fn anyValue() void {
    pick(.init());
}

fn literals() void {
    const entry = Entry{ .group = .init(), .span = .empty() };
    const table: Table = .{ .entry = .{ .group = .fromGroup(3), .span = try .empty() } };
    _ = entry;
    _ = table;
}

fn untyped() void {
    const loose = .{ .group = .init(), .span = .empty() };
    _ = loose;
}
"#;

/// A decl literal is a declaration of the type expected where it is written: the parameter it
/// fills at a call surely resolved (a method called on a value takes it first; a parameter
/// typed by a container declared in a file that is a struct, `Io.Limit`), the field it
/// initialises in a struct literal of a written type or in an anonymous literal of an expected
/// type (nested); an `anytype` parameter or an untyped literal expects no type (no edge).
#[test]
fn zig_decl_literals_typed_by_parameters_and_fields() {
    let g = graph(&[("src/entry.zig", EXPECTED), ("src/Io.zig", IO)]);
    let calls = edges(&g, EdgeKind::Calls);
    let from = |caller: &str| -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = calls
            .iter()
            .filter(|e| e.0 == format!("Function:src/entry.zig:{caller}"))
            .filter(|e| e.2.parse::<f32>().is_ok_and(|c| c >= 0.5))
            .map(|e| (e.1.clone(), e.2.clone()))
            .collect();
        found.sort();
        found
    };
    let method = |name: &str| (format!("Method:src/entry.zig:{name}"), "0.97".to_owned());
    let field = |name: &str| (format!("Method:src/entry.zig:{name}"), "0.95".to_owned());
    let function = |name: &str| (format!("Function:src/entry.zig:{name}"), "0.97".to_owned());
    assert_eq!(
        from("arguments"),
        vec![
            function("register"),
            function("stream"),
            (
                "Method:src/Io.zig:Io.Limit.limited".to_owned(),
                "0.97".to_owned()
            ),
            method("Entry.add"),
            method("Group.fromGroup"),
            method("Group.init"),
            method("Span.empty"),
        ],
        "{calls:?}"
    );
    assert_eq!(from("anyValue"), vec![function("pick")], "{calls:?}");
    assert_eq!(
        from("literals"),
        vec![
            field("Group.fromGroup"),
            field("Group.init"),
            field("Span.empty")
        ],
        "{calls:?}"
    );
    assert_eq!(from("untyped"), vec![], "{calls:?}");
}

const MANAGED: &str = r#"const aligned = @import("aligned.zig");

pub fn Managed(comptime T: type) type {
    comptime assertType(T);
    if (@sizeOf(T) == 0) {
        return aligned.Aligned(T, null);
    }
    return aligned.Aligned(T, null);
}

pub fn Either(comptime T: type) type {
    if (@sizeOf(T) == 0) return aligned.Aligned(T, null);
    return Other(T);
}

pub fn Other(comptime T: type) type {
    return struct {
        pub fn append(self: *@This(), item: T) void {
            _ = self;
            _ = item;
        }
    };
}

fn assertType(comptime T: type) void {
    _ = T;
}

pub const Bytes = Managed(u8);
pub const Mixed = Either(u8);
"#;

const USER: &str = r#"const managed = @import("managed.zig");
const Bytes = managed.Bytes;

fn fill(bytes: *Bytes) void {
    bytes.append(1);
}

fn fresh() void {
    var bytes = managed.Bytes.init();
    bytes.append(2);
}

fn mixed(values: *managed.Mixed) void {
    values.append(3);
}
"#;

/// A type function every `return` of which gives the same other type function's instance
/// (through `if` and a `comptime` statement) is that type, and a file-level `const Bytes =
/// Managed(u8);` names it (imported, or through its file); one returning two different types
/// is no type, so a value of its alias reaches no method surely.
#[test]
fn zig_type_functions_through_every_return_and_their_aliases() {
    let g = graph(&[
        ("src/aligned.zig", ALIGNED),
        ("src/managed.zig", MANAGED),
        ("src/user.zig", USER),
    ]);
    let calls = edges(&g, EdgeKind::Calls);
    let from = |caller: &str| -> Vec<String> {
        let mut found: Vec<String> = calls
            .iter()
            .filter(|e| e.0 == format!("Function:src/user.zig:{caller}"))
            .filter(|e| e.2.parse::<f32>().is_ok_and(|c| c >= 0.5))
            .map(|e| e.1.clone())
            .collect();
        found.sort();
        found
    };
    assert_eq!(
        from("fill"),
        vec!["Method:src/aligned.zig:Aligned.append"],
        "{calls:?}"
    );
    assert_eq!(
        from("fresh"),
        vec![
            "Method:src/aligned.zig:Aligned.append",
            "Method:src/aligned.zig:Aligned.init"
        ],
        "{calls:?}"
    );
    assert_eq!(from("mixed"), Vec::<String>::new(), "{calls:?}");
}

const GENERIC: &str = r#"pub fn insertion(a: usize, b: usize, context: anytype) void {
    _ = context.lessThan(a, b);
    context.swap(a, b);
}

pub fn forward(a: usize, b: usize, context: anytype) void {
    insertion(a, b, context);
}

pub fn single(ctx: anytype) void {
    _ = ctx.hash();
    ctx.missing();
}

pub fn partial(ctx: anytype) void {
    _ = ctx.hash();
}

pub fn Map(comptime K: type, comptime Context: type) type {
    return struct {
        key: K,

        pub fn hashOf(self: *@This(), c: Context) u32 {
            _ = self;
            return c.hash();
        }
    };
}

pub fn make(comptime T: type) T {
    return T.init();
}
"#;

const CALLERS: &str = r#"const sort = @import("sort.zig");

const Items = struct {
    pub fn init() Items {
        return .{};
    }
    pub fn lessThan(self: Items, a: usize, b: usize) bool {
        _ = self;
        return a < b;
    }
    pub fn swap(self: Items, a: usize, b: usize) void {
        _ = self;
        _ = a;
        _ = b;
    }
    pub fn hash(self: Items) u32 {
        _ = self;
        return 0;
    }
};

const Names = struct {
    pub fn lessThan(self: *const Names, a: usize, b: usize) bool {
        _ = self;
        return a < b;
    }
};

const ItemMap = sort.Map(u8, Items);

fn run(unknown: u32) void {
    const items = Items{};
    const names: Names = .{};
    sort.insertion(0, 1, items);
    sort.forward(0, 1, &names);
    sort.single(Items{});
    sort.partial(items);
    sort.partial(unknown);
    _ = sort.make(Items);
}
"#;

/// `anytype` and `comptime T: type` parameters are of the types their callers pass: one type
/// every caller passes is the parameter's type (`single`, `make`'s `T`, `Map`'s `Context`
/// through a file-level instance); several types (`insertion`, `Items` and a `Names` forwarded
/// through `forward`) give one edge per type that has the method (`Names` has no `swap`),
/// below the sure bands, and so does a type some callers pass beside a value of unknown type
/// (`partial`). A method no caller's type has (`missing`) is none of them.
#[test]
fn zig_parameters_typed_by_their_callers() {
    let g = graph(&[("src/sort.zig", GENERIC), ("src/user.zig", CALLERS)]);
    let calls: std::collections::BTreeSet<_> = edges(&g, EdgeKind::Calls)
        .into_iter()
        .filter(|e| e.0.starts_with("Function:src/sort.zig") || e.0.contains("hashOf"))
        .filter(|e| !e.1.starts_with("Function:src/sort.zig"))
        .collect();
    let several = format!("{:.2}", super::zig::CALLER_TYPES);
    assert_eq!(
        calls,
        owned(&[
            (
                "Function:src/sort.zig:insertion",
                "Method:src/user.zig:Items.lessThan",
                &several,
                "receiver-type"
            ),
            (
                "Function:src/sort.zig:insertion",
                "Method:src/user.zig:Items.swap",
                &several,
                "receiver-type"
            ),
            (
                "Function:src/sort.zig:insertion",
                "Method:src/user.zig:Names.lessThan",
                &several,
                "receiver-type"
            ),
            (
                "Function:src/sort.zig:single",
                "Method:src/user.zig:Items.hash",
                "0.95",
                "receiver-type"
            ),
            (
                "Function:src/sort.zig:partial",
                "Method:src/user.zig:Items.hash",
                &several,
                "receiver-type"
            ),
            (
                "Method:src/sort.zig:Map.hashOf",
                "Method:src/user.zig:Items.hash",
                "0.95",
                "receiver-type"
            ),
            (
                "Function:src/sort.zig:make",
                "Method:src/user.zig:Items.init",
                "0.95",
                "receiver-type"
            ),
        ])
    );
}

const LISTS: &str = r#"pub fn List(comptime T: type) type {
    return struct {
        pub fn append(self: *@This(), item: T) void {
            _ = self;
            _ = item;
        }
    };
}

pub fn Queue(comptime T: type) type {
    return struct {
        pub fn append(self: *@This(), item: T) void {
            _ = self;
            _ = item;
        }
    };
}
"#;

const HOLDERS: &str = r#"const lists = @import("lists.zig");

pub fn Table(comptime K: type) type {
    return struct {
        const Entries = lists.List(K);
        entries: Entries,

        pub fn add(self: *@This(), key: K) void {
            self.entries.append(key);
        }
    };
}

const First = struct {
    const Items = lists.List(u8);
    items: Items,

    pub fn add(self: *First) void {
        self.items.append(1);
    }
};

const Second = struct {
    const Items = lists.Queue(u8);
    items: Items,

    pub fn add(self: *Second) void {
        self.items.append(2);
    }
};
"#;

/// A container's `const Entries = lists.List(K);` is a type alias like a file's (a field of
/// that type reaches the instance's methods); a name two containers of one file alias to
/// different calls (`Items`) is no alias, so neither field is typed by it.
#[test]
fn zig_container_level_aliases_of_type_function_instances() {
    let g = graph(&[("src/lists.zig", LISTS), ("src/holders.zig", HOLDERS)]);
    let calls: std::collections::BTreeSet<_> = edges(&g, EdgeKind::Calls)
        .into_iter()
        .filter(|e| e.0.starts_with("Method:src/holders.zig") && e.2.as_str() >= "0.50")
        .collect();
    assert_eq!(
        calls,
        owned(&[(
            "Method:src/holders.zig:Table.add",
            "Method:src/lists.zig:List.append",
            "0.95",
            "attribute-type"
        )])
    );
}
