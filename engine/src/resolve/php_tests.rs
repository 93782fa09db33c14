//! PHP resolution fixtures: namespaces and `use` imports (aliases, grouped, functions), the
//! global fallback of functions, receivers (`$this`, `self::`, `static::`, `parent::`, `T::`,
//! typed variables, parameters, properties, promoted properties, return types), traits,
//! inheritance, interfaces and `require`.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const GATEWAY: &str = r#"<?php
namespace App\Pay;

interface Charges { public function charge(int $cents): bool; }

class Gateway implements Charges
{
    public static function connect(): static { return new static(); }
    public function charge(int $cents): bool { return $this->log($cents); }
    private function log(int $cents): bool { return format_cents($cents) !== ''; }
}

function format_cents(int $cents): string { return (string) $cents; }
"#;

const HELPERS: &str = r#"<?php
function format_cents($cents) { return 'global'; }
function slugify($text) { return strtolower($text); }
"#;

const BASE: &str = r#"<?php
namespace App\Shop;

abstract class Base
{
    public function __construct() { $this->boot(); }
    protected function boot() {}
    public function save() { return true; }
}

trait Discounts
{
    public function discount(): int { return $this->rate(); }
    abstract protected function rate(): int;
}
"#;

const CART: &str = r#"<?php
namespace App\Shop;

use App\Pay\Gateway;
use App\Pay\{Charges, Gateway as Pay};
use function App\Pay\format_cents;

require_once __DIR__ . '/../helpers.php';

class Cart extends Base
{
    use Discounts;

    /** @var Gateway */
    private $gateway;

    public function __construct(private Ledger $ledger, Charges $charges)
    {
        parent::__construct();
        $this->gateway = Gateway::connect();
    }

    protected function rate(): int { return 5; }

    public function checkout(Gateway $gateway)
    {
        $gateway->charge($this->discount());
        $this->gateway->charge(1);
        $this->ledger->record();
        $pay = Pay::connect();
        $pay->charge(2);
        $other = new Cart(new Ledger(), $gateway);
        $other->save();
        self::tax();
        static::tax();
        format_cents(3);
        slugify('x');
        strlen('x');
        \App\Pay\format_cents(4);
        $unknown->mystery();
        return $this->save();
    }

    public static function tax() { return 1; }
}

class Ledger { public function record() {} }
"#;

#[test]
fn php_namespaces_imports_receivers_and_traits() {
    let g = graph(&[
        ("src/Pay/Gateway.php", GATEWAY),
        ("src/helpers.php", HELPERS),
        ("src/Shop/Base.php", BASE),
        ("src/Shop/Cart.php", CART),
    ]);
    let cart = "Method:src/Shop/Cart.php:Cart.checkout";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Method:src/Pay/Gateway.php:Gateway.charge",
                "Method:src/Pay/Gateway.php:Gateway.log",
                "0.98",
                "self-method"
            ),
            // `new static()`: the class the method is in.
            (
                "Method:src/Pay/Gateway.php:Gateway.connect",
                "Class:src/Pay/Gateway.php:Gateway",
                "0.97",
                "constructor"
            ),
            // Inside namespace `App\Pay`, its own `format_cents` before the global one.
            (
                "Method:src/Pay/Gateway.php:Gateway.log",
                "Function:src/Pay/Gateway.php:format_cents",
                "0.97",
                "same-file"
            ),
            (
                "Method:src/Shop/Base.php:Base.__construct",
                "Method:src/Shop/Base.php:Base.boot",
                "0.98",
                "self-method"
            ),
            // `$this` in a trait: the trait's own (abstract) method, as a static reader names it.
            (
                "Method:src/Shop/Base.php:Discounts.discount",
                "Method:src/Shop/Base.php:Discounts.rate",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/Shop/Cart.php:Cart.__construct",
                "Method:src/Pay/Gateway.php:Gateway.connect",
                "0.97",
                "class-member"
            ),
            // `parent::__construct()`.
            (
                "Method:src/Shop/Cart.php:Cart.__construct",
                "Method:src/Shop/Base.php:Base.__construct",
                "0.95",
                "super-method"
            ),
            (cart, "Class:src/Shop/Cart.php:Cart", "0.97", "constructor"),
            (
                cart,
                "Class:src/Shop/Cart.php:Ledger",
                "0.97",
                "constructor"
            ),
            // `use function` and the fully qualified `\App\Pay\format_cents`.
            (
                cart,
                "Function:src/Pay/Gateway.php:format_cents",
                "0.97",
                "import-resolved"
            ),
            // Not in `App\Shop`: the global namespace's (the required file's).
            (
                cart,
                "Function:src/helpers.php:slugify",
                "0.97",
                "import-resolved"
            ),
            // The typed parameter, the `@var` property and `Pay::connect()`'s `static`.
            (
                cart,
                "Method:src/Pay/Gateway.php:Gateway.charge",
                "0.97",
                "receiver-type"
            ),
            // `Pay::connect()` through the alias.
            (
                cart,
                "Method:src/Pay/Gateway.php:Gateway.connect",
                "0.97",
                "class-member"
            ),
            // `$other->save()` and `$this->save()`: inherited.
            (
                cart,
                "Method:src/Shop/Base.php:Base.save",
                "0.95",
                "receiver-type"
            ),
            // A used trait's method is the class's.
            (
                cart,
                "Method:src/Shop/Base.php:Discounts.discount",
                "0.95",
                "self-method"
            ),
            // `self::tax()` and `static::tax()`.
            (
                cart,
                "Method:src/Shop/Cart.php:Cart.tax",
                "0.98",
                "self-method"
            ),
            // The promoted constructor property `private Ledger $ledger`.
            (
                cart,
                "Method:src/Shop/Cart.php:Ledger.record",
                "0.95",
                "attribute-type"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Implements),
        owned(&[
            (
                "Class:src/Pay/Gateway.php:Gateway",
                "Interface:src/Pay/Gateway.php:Charges",
                "0.97",
                "heritage"
            ),
            (
                "Class:src/Shop/Cart.php:Cart",
                "Trait:src/Shop/Base.php:Discounts",
                "0.97",
                "heritage"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Extends),
        owned(&[(
            "Class:src/Shop/Cart.php:Cart",
            "Class:src/Shop/Base.php:Base",
            "0.97",
            "heritage"
        )])
    );
    // `use` lines and the `require_once` of a path from `__DIR__`.
    assert_eq!(
        edges(&g, EdgeKind::Imports),
        owned(&[
            (
                "File:src/Shop/Cart.php",
                "File:src/Pay/Gateway.php",
                "1.00",
                "import-resolved"
            ),
            (
                "File:src/Shop/Cart.php",
                "File:src/helpers.php",
                "1.00",
                "import-resolved"
            ),
        ])
    );
}

/// A class name the file's namespace and `use` lines do not find is no project class, even
/// when the project has exactly one class of that name elsewhere; a function of another
/// namespace is not called by its bare name.
#[test]
fn php_names_outside_the_namespace_are_no_guesses() {
    let g = graph(&[
        (
            "lib/Other.php",
            "<?php\nnamespace Lib;\nclass Exception { public static function wrap() {} }\nfunction helper() {}\n",
        ),
        (
            "app/Main.php",
            "<?php\nnamespace App;\nfunction run() { \\Exception::wrap(); Exception::wrap(); helper(); \\Lib\\helper(); }\n",
        ),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[(
            "Function:app/Main.php:run",
            "Function:lib/Other.php:helper",
            "0.97",
            "import-resolved"
        )])
    );
}

/// Elements of doc-typed collections, `instanceof` narrowing (in the branch, after an early
/// exit) and a variable assigned again: each call reaches its receiver's own method.
#[test]
fn php_elements_narrowing_and_flow() {
    let g = graph(&[
        (
            "src/Nodes.php",
            "<?php\nnamespace N;\nclass Node { public function walk() {} }\nclass Text extends Node { public function literal() {} public function raw() {} }\nclass Image extends Node { public function title() {} public function alt() {} }\n",
        ),
        (
            "src/Render.php",
            r#"<?php
namespace N;
class Render
{
    /** @var array<int, Node> */
    private array $nodes = [];

    public function run(Node $node)
    {
        foreach ($this->nodes as $child) {
            $child->walk();
        }
        if ($node instanceof Text) {
            $node->raw();
        }
        if (!$node instanceof Image) {
            return;
        }
        $node->alt();
        $x = new Text();
        $x->literal();
        $x = new Image();
        $x->title();
    }
}
"#,
        ),
    ]);
    let run = "Method:src/Render.php:Render.run";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (run, "Class:src/Nodes.php:Image", "0.97", "constructor"),
            (run, "Class:src/Nodes.php:Text", "0.97", "constructor"),
            (
                run,
                "Method:src/Nodes.php:Node.walk",
                "0.95",
                "receiver-type"
            ),
            (
                run,
                "Method:src/Nodes.php:Text.literal",
                "0.97",
                "receiver-type"
            ),
            (
                run,
                "Method:src/Nodes.php:Image.title",
                "0.97",
                "receiver-type"
            ),
            // Typed by the narrowing: without it, only a guess by the unique name (0.95).
            (
                run,
                "Method:src/Nodes.php:Text.raw",
                "0.97",
                "receiver-type"
            ),
            (
                run,
                "Method:src/Nodes.php:Image.alt",
                "0.97",
                "receiver-type"
            ),
        ])
    );
}

#[test]
fn php_names_and_namespaces_match_without_regard_to_case() {
    let g = graph(&[
        (
            "src/Text.php",
            r#"<?php
namespace App\Text;

class Slug
{
    public static function make(string $s): string { return self::clean($s); }
    private static function clean(string $s): string { return $s; }
    public function render(): string { return $this->RENDERED(); }
    public function rendered(): string { return ''; }
}

function trim_all(string $s): string { return $s; }
"#,
        ),
        (
            "src/Page.php",
            r#"<?php
namespace App\Pages;

use APP\TEXT\slug;

class Page
{
    public function title(string $s): string
    {
        $slug = new SLUG();
        $slug->Render();
        \app\text\TRIM_ALL($s);
        \App\Text\Missing::make($s);
        return Slug::MAKE($s);
    }

    public function copy($page): string
    {
        return $page->TITLE('');
    }
}
"#,
        ),
    ]);
    let title = "Method:src/Page.php:Page.title";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Method:src/Text.php:Slug.make",
                "Method:src/Text.php:Slug.clean",
                "0.98",
                "self-method"
            ),
            // `$this->RENDERED()` is `rendered`.
            (
                "Method:src/Text.php:Slug.render",
                "Method:src/Text.php:Slug.rendered",
                "0.98",
                "self-method"
            ),
            // A variable is no class name: `$page` is not typed `Page` (no edge from `copy`).
            // `use APP\TEXT\slug;` names class `App\Text\Slug`, `SLUG` is it, and
            // `\app\text\TRIM_ALL` the function `trim_all`; no class `Missing` exists.
            (title, "Class:src/Text.php:Slug", "0.97", "constructor"),
            (
                title,
                "Method:src/Text.php:Slug.render",
                "0.97",
                "receiver-type"
            ),
            (
                title,
                "Function:src/Text.php:trim_all",
                "0.97",
                "import-resolved"
            ),
            (
                title,
                "Method:src/Text.php:Slug.make",
                "0.97",
                "class-member"
            ),
        ])
    );
}
