//! Elixir resolution fixtures: modules by full name through aliases (`alias A.{B, C}`, `as:`,
//! nested modules, `__MODULE__`), local, imported, remote and piped calls by name/arity, `use`,
//! protocols, behaviours, captures and structs as references, and what is left unresolved.

use super::fixture_edges::{edges, owned};
use crate::graph::{EdgeKind, NodeKind};
use crate::ingest::fixture_graph as graph;

const CART: &str = r#"defmodule Shop.Cart do
  @moduledoc "A cart of items."
  alias Shop.{Ledger, Pricing}
  alias Shop.Tax, as: T
  import Shop.Format, only: [money: 1]
  require Logger
  use Shop.Base

  @behaviour Shop.Store

  defstruct items: []

  @doc "Puts an item in."
  @impl true
  def put(cart, item) do
    cart
    |> add(item)
    |> Ledger.record()

    Pricing.total(cart.items)
    T.rate()
    money(1)
    other(1)
    __MODULE__.size(cart)
    :ets.new(:x, [])
    Enum.map(cart.items, &price/1)
    Enum.each(cart.items, &Ledger.record/1)
    Logger.info("put")
    missing(cart)
    %Shop.Cart{}
  end

  def add(cart, item), do: %{cart | items: [item | cart.items]}

  def size(%__MODULE__{items: items}), do: length(items)
  def size(_), do: 0

  defp price(item, rate \\ 1), do: item * rate

  defmodule Line do
    def new(x), do: x
  end

  def line(x), do: Line.new(x)
  def short(x), do: price(x)
end
"#;

const SHOP: &str = r#"defmodule Shop.Ledger do
  def record(entry), do: entry
end

defmodule Shop.Pricing do
  def total(items), do: Enum.sum(items)
end

defmodule Shop.Tax do
  def rate, do: 2
end

defmodule Shop.Format do
  def money(x), do: x
  def other(x), do: x
  def require(files, opts), do: {files, opts}
  def load(x), do: require(x, [])
end

defmodule Shop.Base do
  defmacro __using__(_opts) do
    quote do
      import Shop.Format
      def helper, do: money(1)
    end
  end
end

defprotocol Shop.Sized do
  def size(t)
end

defimpl Shop.Sized, for: Shop.Cart do
  def size(cart), do: Shop.Cart.size(cart)
end

defmodule Shop.Store do
  @callback put(term, term) :: term
  @callback run(term) :: term
  defdelegate record(entry), to: Shop.Ledger
  def run(x, opts \\ []), do: {x, opts}
  def go(x), do: run(x)
end
"#;

#[test]
fn elixir_calls_by_module_and_arity_through_aliases_imports_and_pipes() {
    let g = graph(&[("lib/shop/cart.ex", CART), ("lib/shop.ex", SHOP)]);
    let put = "Function:lib/shop/cart.ex:Shop.Cart.put/2";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `cart |> add(item)`: a local call of arity 2.
            (
                put,
                "Function:lib/shop/cart.ex:Shop.Cart.add/2",
                "0.98",
                "self-method"
            ),
            // `… |> Ledger.record()` through `alias Shop.{Ledger, Pricing}`.
            (
                put,
                "Function:lib/shop.ex:Shop.Ledger.record/1",
                "0.97",
                "class-member"
            ),
            (
                put,
                "Function:lib/shop.ex:Shop.Pricing.total/1",
                "0.97",
                "class-member"
            ),
            // `alias Shop.Tax, as: T`.
            (
                put,
                "Function:lib/shop.ex:Shop.Tax.rate/0",
                "0.97",
                "class-member"
            ),
            // `import Shop.Format, only: [money: 1]`: `money/1` only (`other/1` is not imported).
            (
                put,
                "Function:lib/shop.ex:Shop.Format.money/1",
                "0.97",
                "import-resolved"
            ),
            // `__MODULE__.size(cart)`: both clauses are one function.
            (
                put,
                "Function:lib/shop/cart.ex:Shop.Cart.size/1",
                "0.97",
                "class-member"
            ),
            // `use Shop.Base` calls its `__using__/1`.
            (
                "Struct:lib/shop/cart.ex:Shop.Cart",
                "Function:lib/shop.ex:Shop.Base.__using__/1",
                "0.97",
                "class-member"
            ),
            // A nested module's name is an alias in its parent.
            (
                "Function:lib/shop/cart.ex:Shop.Cart.line/1",
                "Function:lib/shop/cart.ex:Shop.Cart.Line.new/1",
                "0.97",
                "class-member"
            ),
            // `price(x)` leaves out a default argument: `price/2`, less surely.
            (
                "Function:lib/shop/cart.ex:Shop.Cart.short/1",
                "Function:lib/shop/cart.ex:Shop.Cart.price/2",
                "0.92",
                "self-method"
            ),
            (
                "Function:lib/shop.ex:Shop.Sized.Shop.Cart.size/1",
                "Function:lib/shop/cart.ex:Shop.Cart.size/1",
                "0.97",
                "class-member"
            ),
            // A function named as a directive, called with arguments that are no module.
            (
                "Function:lib/shop.ex:Shop.Format.load/1",
                "Function:lib/shop.ex:Shop.Format.require/2",
                "0.98",
                "self-method"
            ),
            // `run(x)` is `run/2` with its default, not the `@callback run(term)`.
            (
                "Function:lib/shop.ex:Shop.Store.go/1",
                "Function:lib/shop.ex:Shop.Store.run/2",
                "0.92",
                "self-method"
            ),
            // `defdelegate record(entry), to: Shop.Ledger`.
            (
                "Function:lib/shop.ex:Shop.Store.record/1",
                "Function:lib/shop.ex:Shop.Ledger.record/1",
                "0.97",
                "class-member"
            ),
        ])
    );
}

#[test]
fn elixir_protocols_behaviours_structs_and_captures() {
    let g = graph(&[("lib/shop/cart.ex", CART), ("lib/shop.ex", SHOP)]);
    assert_eq!(
        edges(&g, EdgeKind::Implements),
        owned(&[
            (
                "Module:lib/shop.ex:Shop.Sized.Shop.Cart",
                "Interface:lib/shop.ex:Shop.Sized",
                "0.97",
                "heritage"
            ),
            (
                "Struct:lib/shop/cart.ex:Shop.Cart",
                "Module:lib/shop.ex:Shop.Store",
                "0.97",
                "heritage"
            ),
        ])
    );
    let refs: Vec<String> = g
        .references()
        .iter()
        .filter_map(|r| {
            Some(format!(
                "{} -{}:{}-> {}",
                g.node(r.from)?.stable_id(),
                r.kind.as_str(),
                r.line,
                g.node(r.to)?.stable_id()
            ))
        })
        .collect();
    let put = "Function:lib/shop/cart.ex:Shop.Cart.put/2";
    for expected in [
        // `&price/1` reaches `price/2` (a default argument); `&Ledger.record/1` through the alias.
        format!("{put} -value:26-> Function:lib/shop/cart.ex:Shop.Cart.price/2"),
        format!("{put} -value:27-> Function:lib/shop.ex:Shop.Ledger.record/1"),
        // `%Shop.Cart{}` names the struct.
        format!("{put} -type:30-> Struct:lib/shop/cart.ex:Shop.Cart"),
    ] {
        assert!(refs.contains(&expected), "{expected} not in {refs:#?}");
    }
    assert!(
        g.edges().iter().any(|e| e.kind == EdgeKind::Imports
            && g.node(e.from)
                .is_some_and(|n| n.file() == "lib/shop/cart.ex")
            && g.node(e.to).is_some_and(|n| n.file() == "lib/shop.ex")),
        "alias/import/use of modules in lib/shop.ex import that file"
    );
}

#[test]
fn elixir_definitions_are_modules_and_functions_by_arity() {
    let g = graph(&[("lib/shop/cart.ex", CART), ("lib/shop.ex", SHOP)]);
    let ids: Vec<String> = g
        .nodes()
        .filter(|n| !matches!(n.kind(), NodeKind::File | NodeKind::Folder))
        .map(|n| n.stable_id())
        .collect();
    for id in [
        "Struct:lib/shop/cart.ex:Shop.Cart",
        "Module:lib/shop/cart.ex:Shop.Cart.Line",
        "Function:lib/shop/cart.ex:Shop.Cart.size/1",
        "Function:lib/shop/cart.ex:Shop.Cart.price/2",
        "Interface:lib/shop.ex:Shop.Sized",
        "Function:lib/shop.ex:Shop.Sized.size/1",
        "Module:lib/shop.ex:Shop.Sized.Shop.Cart",
        "Function:lib/shop.ex:Shop.Store.put/2",
        "Function:lib/shop.ex:Shop.Tax.rate/0",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} not in {ids:#?}");
    }
    let doc = |id: &str| {
        g.find_id(id)
            .and_then(|n| g.node(n))
            .map(|n| n.doc().to_owned())
    };
    assert_eq!(
        doc("Function:lib/shop/cart.ex:Shop.Cart.put/2").as_deref(),
        Some("Puts an item in.")
    );
    assert_eq!(
        doc("Struct:lib/shop/cart.ex:Shop.Cart").as_deref(),
        Some("A cart of items.")
    );
    // Two clauses, one definition; nothing defined inside `quote`.
    assert_eq!(ids.iter().filter(|i| i.ends_with(".size/1")).count(), 3);
    assert!(!ids.iter().any(|i| i.contains("helper")));
}
