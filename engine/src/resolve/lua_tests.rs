//! Lua resolution fixtures: `require` of `a.b` (`a/b.lua`, `a/b/init.lua`, under `lua/`),
//! module tables, `M.f`/`M:f`/`self`, instances typed by `setmetatable`, `__index` inheritance,
//! string-call sugar, locals that hide functions, and what is left unresolved.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const BASE: &str = r#"local Base = {}
Base.__index = Base

function Base.new(name)
  local self = setmetatable({}, Base)
  self:init(name)
  return self
end

function Base:init(name)
  self.name = name
end

function Base:save()
  return true
end

return Base
"#;

const CART: &str = r#"local Base = require("shop.base")
local util = require "shop.util"

local Cart = setmetatable({}, {__index = Base})
Cart.__index = Cart

local function total(item)
  return item
end

function Cart.new()
  local o = setmetatable({}, Cart)
  return o
end

function Cart:add(item)
  self:save()
  local line = util.line(item)
  util.log"added"
  util.log{ item = item }
  local helper = function() return 1 end
  helper()
  total(item)
  later(item)
  item:frobnicate()
  print(item)
end

local function later(item)
  return item
end

Cart.reset = function(self)
  self.items = {}
end

return Cart
"#;

const UTIL: &str = r#"local M = {
  log = function(msg) return msg end,
}

function M.line(item)
  return M.log(item)
end

return M
"#;

const MAIN: &str = r#"local Cart = require("shop.cart")

local function run(total)
  local cart = Cart.new()
  cart:add(1)
  cart:reset()
  cart:save()
  total()
end

run()
"#;

#[test]
fn lua_modules_tables_methods_and_instances() {
    let g = graph(&[
        ("lua/shop/base.lua", BASE),
        ("lua/shop/cart.lua", CART),
        ("lua/shop/util/init.lua", UTIL),
        ("bin/main.lua", MAIN),
    ]);
    let run = "Function:bin/main.lua:run";
    let add = "Method:lua/shop/cart.lua:Cart.add";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            ("File:bin/main.lua", run, "0.97", "same-file"),
            // `Cart.new()` through `local Cart = require(…)`: the table `cart.lua` returns.
            (
                run,
                "Method:lua/shop/cart.lua:Cart.new",
                "0.97",
                "class-member"
            ),
            // `cart` holds what `Cart.new` returns: `setmetatable(o, Cart)` is a `Cart`.
            (run, add, "0.95", "receiver-type"),
            (
                run,
                "Method:lua/shop/cart.lua:Cart.reset",
                "0.95",
                "receiver-type"
            ),
            // `Cart`'s metatable indexes `Base`: inherited.
            (
                run,
                "Method:lua/shop/base.lua:Base.save",
                "0.95",
                "receiver-type"
            ),
            // `self` is the object `setmetatable({}, Base)` made in `Base.new`.
            (
                "Method:lua/shop/base.lua:Base.new",
                "Method:lua/shop/base.lua:Base.init",
                "0.98",
                "self-method"
            ),
            (
                add,
                "Method:lua/shop/base.lua:Base.save",
                "0.95",
                "self-method"
            ),
            // `util` is `shop/util/init.lua`'s table `M`: `util.line(…)`, `util.log"…"`,
            // `util.log{…}`.
            (
                add,
                "Method:lua/shop/util/init.lua:M.line",
                "0.97",
                "class-member"
            ),
            (
                add,
                "Method:lua/shop/util/init.lua:M.log",
                "0.97",
                "class-member"
            ),
            (
                add,
                "Function:lua/shop/cart.lua:Cart.add.helper",
                "0.98",
                "local-scope"
            ),
            // A local function declared above; `later` below is a global there: no edge.
            (add, "Function:lua/shop/cart.lua:total", "0.97", "same-file"),
            (
                "Method:lua/shop/util/init.lua:M.line",
                "Method:lua/shop/util/init.lua:M.log",
                "0.97",
                "class-member"
            ),
        ])
    );
    let imports = edges(&g, EdgeKind::Imports);
    for (from, to) in [
        ("File:lua/shop/cart.lua", "File:lua/shop/base.lua"),
        ("File:lua/shop/cart.lua", "File:lua/shop/util/init.lua"),
        ("File:bin/main.lua", "File:lua/shop/cart.lua"),
    ] {
        assert!(
            imports.iter().any(|(a, b, ..)| a == from && b == to),
            "{from} -> {to}: {imports:?}"
        );
    }
    let extends = edges(&g, EdgeKind::Extends);
    assert!(
        extends
            .iter()
            .any(|(a, b, ..)| a == "Class:lua/shop/cart.lua:Cart"
                && b == "Class:lua/shop/base.lua:Base"),
        "{extends:?}"
    );
}

/// A call on a value of unknown type finds a method by its name only: a candidate, never
/// followed; a local variable's value called by name is no function of the project.
#[test]
fn lua_unknown_receivers_are_candidates_and_locals_hide_names() {
    let g = graph(&[
        (
            "a.lua",
            "local A = {}\nfunction A:draw() end\nfunction A.size() end\nreturn A\n",
        ),
        (
            "b.lua",
            "local A = require 'a'\nlocal function size() end\nlocal function go(shape, size)\n  shape:draw()\n  size()\nend\nfunction A.extra() size() end\ngo()\n",
        ),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            ("File:b.lua", "Function:b.lua:go", "0.97", "same-file"),
            // `function A.extra` adds to the required module's table: no definition here, its
            // code is the file's.
            ("File:b.lua", "Function:b.lua:size", "0.97", "same-file"),
            (
                "Function:b.lua:go",
                "Method:a.lua:A.draw",
                "0.48",
                "unique-global-name"
            ),
        ])
    );
}
