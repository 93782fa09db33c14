//! C# resolution fixtures: namespaces and `using`s, receivers typed by declaration, `var`,
//! return types and properties, partial classes across files, extension methods, inheritance.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const MONEY: &str = r#"namespace Shop.Core
{
    public class Money
    {
        public Money Add(Money other) { return this; }
        public override string ToString() { return Format(); }
        string Format() { return ""; }
    }
}
"#;

const EXT: &str = r#"namespace Shop.Core;

public static class MoneyExtensions
{
    public static Money Twice(this Money m) => m.Add(m);
    public static int Words(this string s) => 0;
}
"#;

const CART_A: &str = r#"using Shop.Core;

namespace Shop
{
    public partial class Cart : CartBase, ICart
    {
        private Money total;
        public Money Total { get; set; }
        public Cart() : base() { }
        public Money Sum() => total.Add(total);
    }
}
"#;

const CART_B: &str = r#"using System;
using Shop.Core;
using M = Shop.Core.Money;

namespace Shop
{
    public partial class Cart
    {
        public void Checkout(string label)
        {
            var sum = Sum();
            sum.Twice();
            label.Words();
            Total.Add(sum);
            this.Sum().Add(sum);
            var m = new M();
            m.Add(m);
            Console.WriteLine(label);
            label.Trim();
            Reset();
        }
    }

    public abstract class CartBase
    {
        public CartBase() { }
        protected void Reset() { }
    }

    public interface ICart { Money Sum(); }
}
"#;

#[test]
fn csharp_partial_classes_extensions_and_receivers() {
    let g = graph(&[
        ("src/Core/Money.cs", MONEY),
        ("src/Core/MoneyExtensions.cs", EXT),
        ("src/Cart.cs", CART_A),
        ("src/Cart.Checkout.cs", CART_B),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // `ToString()` calls a method of its own class without `this`.
            (
                "Method:src/Core/Money.cs:Money.ToString",
                "Method:src/Core/Money.cs:Money.Format",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/Core/MoneyExtensions.cs:MoneyExtensions.Twice",
                "Method:src/Core/Money.cs:Money.Add",
                "0.97",
                "receiver-type"
            ),
            // `: base()` constructs the base class.
            (
                "Method:src/Cart.cs:Cart.Cart",
                "Class:src/Cart.Checkout.cs:CartBase",
                "0.97",
                "constructor"
            ),
            // A field's declared type.
            (
                "Method:src/Cart.cs:Cart.Sum",
                "Method:src/Core/Money.cs:Money.Add",
                "0.95",
                "attribute-type"
            ),
            // `Sum()` is declared in the other part of the partial class.
            (
                "Method:src/Cart.Checkout.cs:Cart.Checkout",
                "Method:src/Cart.cs:Cart.Sum",
                "0.98",
                "self-method"
            ),
            // `sum.Twice()` (a `var` holding what `Sum()` returns: as sure as a return type)
            // and `label.Words()` on a `string`: extension methods.
            (
                "Method:src/Cart.Checkout.cs:Cart.Checkout",
                "Method:src/Core/MoneyExtensions.cs:MoneyExtensions.Twice",
                "0.95",
                "receiver-type"
            ),
            (
                "Method:src/Cart.Checkout.cs:Cart.Checkout",
                "Method:src/Core/MoneyExtensions.cs:MoneyExtensions.Words",
                "0.97",
                "receiver-type"
            ),
            // Through a property, a return type and an alias (`using M = …`).
            (
                "Method:src/Cart.Checkout.cs:Cart.Checkout",
                "Method:src/Core/Money.cs:Money.Add",
                "0.97",
                "receiver-type"
            ),
            (
                "Method:src/Cart.Checkout.cs:Cart.Checkout",
                "Class:src/Core/Money.cs:Money",
                "0.97",
                "constructor"
            ),
            // An inherited method, called without `this`.
            (
                "Method:src/Cart.Checkout.cs:Cart.Checkout",
                "Method:src/Cart.Checkout.cs:CartBase.Reset",
                "0.95",
                "self-method"
            ),
        ])
    );
    // Both parts are one class to its bases.
    let heritage = edges(&g, EdgeKind::Extends);
    assert!(
        heritage
            .iter()
            .any(|(from, to, ..)| from == "Class:src/Cart.cs:Cart"
                && to == "Class:src/Cart.Checkout.cs:CartBase"),
        "{heritage:?}"
    );
    let implements = edges(&g, EdgeKind::Implements);
    assert!(
        implements
            .iter()
            .any(|(_, to, ..)| to == "Interface:src/Cart.Checkout.cs:ICart"),
        "{implements:?}"
    );
}

const WRITER: &str = r#"namespace Json
{
    public abstract class Writer
    {
        public virtual void WriteNull() { }
        public abstract void WriteValue(int v);
    }

    public class TextWriter : Writer
    {
        public override void WriteNull() { }
        public override void WriteValue(int v) { WriteNull(); }
    }

    public class Stream : Writer
    {
        public override void WriteNull() { }
        public void WriteNull(int depth) { }
        public override void WriteValue(int v) { WriteNull(v); }
    }

    public class Tracer
    {
        private TextWriter inner;
        public void Trace() { inner.WriteValue(1); "a {0}".FormatWith(1); "b".Trim(); string.Join(",", "c"); }
    }

    public static class StringUtils
    {
        public static string FormatWith(this string format, object a) => format;
        public static string FormatWith(this string format, object a, object b) => format;
        public static string Trim(this int n) => "";
    }
}
"#;

#[test]
fn csharp_calls_name_the_overridden_method_and_literals_reach_extensions() {
    let g = graph(&[("src/Json/Writer.cs", WRITER)]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // A call reaching an `override` names the virtual or abstract method it overrides.
            (
                "Method:src/Json/Writer.cs:TextWriter.WriteValue",
                "Method:src/Json/Writer.cs:Writer.WriteNull",
                "0.98",
                "self-method"
            ),
            // …unless its class has an overload of the name that overrides nothing.
            (
                "Method:src/Json/Writer.cs:Stream.WriteValue",
                "Method:src/Json/Writer.cs:Stream.WriteNull",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/Json/Writer.cs:Tracer.Trace",
                "Method:src/Json/Writer.cs:Writer.WriteValue",
                "0.95",
                "attribute-type"
            ),
            // An extension method of `string` on a literal, one of two overloads of one class;
            // `"b".Trim()` is the string's own (the project's `Trim` extends `int`), and
            // `string.Join` is no project method.
            (
                "Method:src/Json/Writer.cs:Tracer.Trace",
                "Method:src/Json/Writer.cs:StringUtils.FormatWith",
                "0.97",
                "receiver-type"
            ),
        ])
    );
}

const GLOBAL_USINGS: &str = r#"global using Shop.Core;
global using Fmt = Shop.Text.Formatter;
using Shop.Text;
"#;

const CORE: &str = r#"namespace Shop.Core
{
    public class Money
    {
        public Money Add(Money other) { return this; }
        public static Money Zero() { return new Money(); }
    }
}
"#;

const TEXT: &str = r#"namespace Shop.Text
{
    public static class Formatter
    {
        public static string Show(int x) { return ""; }
    }
    public static class Padding
    {
        public static string Pad(string s) { return s; }
    }
}

namespace Shop.Legacy
{
    public static class Formatter
    {
        public static string Show(int x) { return ""; }
    }
}
"#;

const ORDER: &str = r#"namespace Shop.Orders
{
    public class Order
    {
        private Money total;
        public void Close()
        {
            total.Add(Money.Zero());
            Fmt.Show(1);
            Padding.Pad("");
        }
    }
}
"#;

#[test]
fn csharp_global_usings_hold_in_every_file() {
    let g = graph(&[
        ("src/GlobalUsings.cs", GLOBAL_USINGS),
        ("src/Core/Money.cs", CORE),
        ("src/Text/Formatter.cs", TEXT),
        ("src/Orders/Order.cs", ORDER),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Method:src/Core/Money.cs:Money.Zero",
                "Class:src/Core/Money.cs:Money",
                "0.97",
                "constructor"
            ),
            // `Money` is found through `global using Shop.Core;` of another file, and `Fmt`
            // through its `global using` alias (not `Shop.Legacy`'s `Formatter`); a plain
            // `using` there (`Shop.Text`) holds in its own file only: `Padding` is found by
            // its unique name alone.
            (
                "Method:src/Orders/Order.cs:Order.Close",
                "Method:src/Core/Money.cs:Money.Add",
                "0.95",
                "attribute-type"
            ),
            (
                "Method:src/Orders/Order.cs:Order.Close",
                "Method:src/Core/Money.cs:Money.Zero",
                "0.97",
                "class-member"
            ),
            (
                "Method:src/Orders/Order.cs:Order.Close",
                "Method:src/Text/Formatter.cs:Formatter.Show",
                "0.97",
                "class-member"
            ),
            (
                "Method:src/Orders/Order.cs:Order.Close",
                "Method:src/Text/Formatter.cs:Padding.Pad",
                "0.95",
                "unique-global-name"
            ),
        ])
    );
}
