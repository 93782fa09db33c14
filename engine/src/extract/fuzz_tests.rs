//! Property tests: every extractor and the whole pipeline survive arbitrary and mangled input
//! (random text, truncated and spliced real code, invalid UTF-8) without panicking.

use proptest::prelude::*;

use super::Extractor;
use crate::ingest::{SourceFile, index};
use crate::lang::Lang;

const SEEDS: [(&str, &str); 20] = [
    (
        "a.py",
        "class A(B):\n    def f(self, x: C = D()):\n        from .m import n as o\n        return self.g(x).h[0](*a, **k)\n",
    ),
    (
        "a.js",
        "import d, { a as b } from './x';\nexport class A extends B { m() { return new C(this.x).y?.(z); } }\nconst f = async () => await g();\n",
    ),
    (
        "a.ts",
        "export interface I<T> extends J { f(): T }\nexport default class A implements I<number> { private x: Y = new Y(); f() { return super.f() } }\n",
    ),
    (
        "a.tsx",
        "export const App = () => <div onClick={() => go(1)}>{items.map(i => <Item key={i} />)}</div>;\n",
    ),
    (
        "a.rs",
        "use crate::{a::b, c as d};\nimpl<T: X> Tr for S<T> { fn f(&self) -> u8 { Self::g(self.h.i()) } }\nmod m { pub fn n() {} }\n",
    ),
    (
        "a.go",
        "package p\nimport (\n\tq \"x/y\"\n)\nfunc (r *R) F(s S) { t := &T{}; t.G(q.H()) }\n",
    ),
    (
        "A.java",
        "package p;\nimport a.b.*;\npublic class A extends B implements C { D e; void f(G g) { g.h(new I<J>()); super.k(); } }\n",
    ),
    (
        "a.c",
        "#include \"a.h\"\n#define M(x) f(x)\ntypedef struct { int (*g)(int); } S;\nstatic int (*h(int k))(int) { S s; return s.g(M(k)) ? f(k) : 0; }\n",
    ),
    (
        "a.cc",
        "#include <memory>\nnamespace n { class A : public B<int> { void f(std::unique_ptr<C> c) { c->g(); this->h(); A::k(); } }; }\nint A::m() const { return n::f<int>(x.y().z); }\n",
    ),
    (
        "A.cs",
        "using static a.B;\nnamespace n;\npublic partial class A : B<int>, IC { D E { get; } A() : base(1) { } static int F(this G g) => g?.H<I>().J(\"k\".L(), new M()); }\n",
    ),
    (
        "a.php",
        "<p><?= $t ?></p><?php\nnamespace N;\nuse A\\{B, C as D};\nclass E extends F implements G { use H; public function __construct(private I $i) {} function f(J $j): static { $j->k(); self::l(); parent::m(); \\N\\n(); return new static; } }\n",
    ),
    (
        "a.rb",
        "require_relative 'b'\nmodule M\n  class A < ::B::C\n    include D\n    attr_accessor :e\n    alias f e\n    def self.g(h, *i, k: 1, &l) = h&.m(i)\n    class << self\n      def n; super; @o = P.new; @o.q; r x: 1 end\n    end\n  end\nend\n",
    ),
    (
        "a.swift",
        "import A\nextension B: C where D: E { func f<G>(_ g: G?) -> H { g?.i!.j { $0.k() }; return .init(l: super.m()) } }\nfinal class N: O, P { init() { self.init(q: Q()) } subscript(r: Int) -> S { T.u() } }\n",
    ),
    (
        "a.kt",
        "package n\nimport a.B as C\nopen class A(val d: D) : B<Int>(d), I {\n  companion object { fun e() = A(D()) }\n  constructor() : this(D())\n  fun f(g: G?): H = g?.h()!!.let { it.k() }.run { l() }\n}\nfun A.m() = f(null)\n",
    ),
    (
        "a.zig",
        "const a = @import(\"b.zig\");\nconst C = a.C;\npub usingnamespace @import(\"d.zig\");\npub const E = struct {\n    const Self = @This();\n    f: ?*C,\n    pub fn g(self: *Self) !Self { try self.f.?.h(); return @call(.auto, i, .{}); }\n};\nfn L(comptime T: type) type { return struct { m: []T, fn n(s: *@This()) void { s.o(); } }; }\ntest \"p\" { var q = E{ .f = null }; _ = q.g() catch unreachable; }\n",
    ),
    (
        "a.dart",
        "import 'package:a/b.dart' as c show D;\npart 'e.dart';\nabstract class A<T> extends B with M implements I {\n  A.named(this.d) : super(1);\n  factory A() = C<T>.x;\n  int get g => d?.h()!.k(new L(), const M.n())..o()..p = 1;\n}\nextension X on String { int q() => r(); }\nmixin M on B { void s() { super.s(); t<int>(); } }\n",
    ),
    (
        "a.ex",
        "defmodule A.B do\n  alias C.{D, E}, as: F\n  import G, only: [h: 1]\n  use I\n  @behaviour J\n  defstruct k: 1\n  @doc \"l\"\n  def m(%__MODULE__{} = n, o \\\\ 2) when is_map(n), do: n |> D.p(o) |> q() |> (&r/1).()\n  defp q(x), do: &E.s/2\n  defmodule T, do: :ets.new(:u, [])\n  defimpl V, for: W do\n    quote do: def x, do: unquote(y)\n  end\nend\n",
    ),
    (
        "a.scala",
        "package n\npackage o\nimport a.{B => C, _}\ncase class A(d: D) extends B[Int](d) with I {\n  def this() = this(new D)\n  def f(g: G): H = g.h(1)(2).k map { _.l } ++ super.m\n}\nobject A { def apply(): A = new A(D()) }\nextension (x: A) def n = x f 1\nimplicit class P(q: Q) { val r = q.s }\n",
    ),
    (
        "a.lua",
        "local B = require('b.c')\nlocal A = setmetatable({ f = function(s) return s:g() end }, {__index = B})\nfunction A.h.i:j(...) local o = setmetatable({}, A); return o end\nA.k = function() l\"x\" m{1} end\nreturn A\n",
    ),
    (
        "a.sh",
        ". \"$(dirname \"$0\")/b.sh\"\nD=\"${BASH_SOURCE%/*}\"\nsource \"$D/c.sh\"\nfunction f { g | h && $(i \"$1\") || j; }\nk() ( if l; then m <<EOF\n$(n)\nEOF\nfi )\n",
    ),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn extractors_never_panic_on_random_text(text in "\\PC{0,400}", lang in 0usize..SEEDS.len()) {
        let mut extractor = Extractor::default();
        let (path, _) = SEEDS[lang];
        let lang = Lang::of_path(path).unwrap_or(Lang::Python);
        let _ = extractor.extract(path, lang, &text);
    }

    #[test]
    fn extractors_never_panic_on_mangled_code(lang in 0usize..SEEDS.len(), cut in 0usize..200, splice in "[(){}\\[\\]:;,.=<>\"'`\\\\ \n\t a-zA-Z0-9]{0,40}") {
        let (path, code) = SEEDS[lang];
        let cut = cut.min(code.len());
        let cut = (0..=cut).rev().find(|i| code.is_char_boundary(*i)).unwrap_or(0);
        let mangled = format!("{}{}{}", &code[..cut], splice, &code[cut..]);
        let lang = Lang::of_path(path).unwrap_or(Lang::Python);
        let facts = Extractor::default().extract(path, lang, &mangled);
        prop_assert!(facts.defs.iter().all(|d| d.start_line <= d.end_line));
    }

    #[test]
    fn the_pipeline_never_panics_on_arbitrary_files(
        files in prop::collection::vec((0usize..SEEDS.len(), prop::collection::vec(any::<u8>(), 0..300)), 0..8)
    ) {
        let files: Vec<SourceFile> = files
            .into_iter()
            .enumerate()
            .map(|(i, (lang, bytes))| SourceFile { path: format!("d{i}/{}", SEEDS[lang].0), bytes })
            .collect();
        let result = index("fuzz", files, &|| 0.0, &mut |_, _, _| true);
        prop_assert!(result.is_ok());
    }
}
