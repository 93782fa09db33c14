#!/usr/bin/env bash
# Call-graph accuracy: indexes a corpus with a type-checker-based SCIP indexer (from npm, rustup, or
# for Go scripts/oracle/go_scip.go on Go's own type checker, for Java scripts/oracle/JavaScip.java
# on javac's attribution, for C scripts/oracle/c_scip.py on clang's, for C# scripts/oracle/cs_scip.py
# on the IL Mono's C# compiler emits, for PHP scripts/oracle/php_scip.py on Intelephense's, for
# Ruby scripts/oracle/ruby_scip.py on TypeProf's, for Zig scripts/oracle/zig_scip.py on the Zig
# compiler's LLVM IR, for Elixir scripts/oracle/elixir_scip.py on the Elixir compiler's tracer,
# for Scala scripts/oracle/scala_scip.py on scalac 2.11's typer) and compares Nexus's CALLS edges
# with it.
# Usage: scripts/accuracy.sh CORPUS [--examples N]
#   django    Python: Django 5.1.4 (framework, class-based views, ORM)
#   pydantic  Python: pydantic 2.10.6 (fully typed: overloads, TYPE_CHECKING, generics)
#   sphinx    Python: Sphinx 8.1.3 (plugin and mixin-heavy: extensions, domains, translators)
#   ts        TypeScript: @theia/core 1.55.0 (classes, dependency injection)
#   effect    TypeScript: effect 3.10.0 (functional: pipes, dual APIs, namespaces)
#   tokio     Rust: tokio 1.41.1, every feature on (rust-analyzer's SCIP output)
#   goldmark  Go: goldmark 1.5.4 (Markdown parser: 10 packages, interfaces, embedded structs)
#   yaml      Go: gopkg.in/yaml.v3 3.0.1 (one package, a C port: structs and plain functions)
#   toml      Go: BurntSushi/toml 1.2.0 (reflection-based decoder and encoder, a lexer)
#   lang3     Java: Apache Commons Lang 3.12.0 (static utility classes, builders, overloads)
#   collections  Java: Apache Commons Collections 4.2 (generic interfaces, decorators, inner
#             and anonymous classes, abstract bases)
#   jsoup     Java: jsoup 1.15.3 (HTML parser: state enums with constant bodies, a node tree,
#             visitors; its optional annotation dependency is missing, javac attributes the rest)
#   brotli    C: Brotli 1.1.0's c/ folder (a compression library: static inline helpers in
#             headers, header/implementation pairs, tables of function pointers)
#   cmark     C: cmark-gfm from cmarkgfm 2025.10.22 (a Markdown parser: a node tree, extensions
#             registered through structs of function pointers)
#   lua       C, held out (not looked at while writing the rules): Lua 5.4's interpreter from
#             lupa's sdist (macro-heavy: API macros, a VM dispatch)
#   crypto    C, held out: pycryptodome 4.4.0's src/ (many small extension modules built
#             separately, each with the same entry points; post-quantum reference code)
#   leveldb   C++: LevelDB from leveldb 0.201's sdist, with its bundled Snappy (a key-value
#             store: abstract interfaces with virtual methods, out-of-line methods, iterators)
#   marisa    C++: marisa-trie's C++ library from marisa-trie 1.2.1's sdist (a trie: class
#             templates, pimpl, namespaces nested two deep, many small classes)
#   clipper   C++, held out: Clipper from pyclipper 1.3.0.post6's sdist (polygon clipping: one
#             large file, a class hierarchy with virtual bases, free helpers)
#   kiwi      C++, held out: kiwisolver 1.4.7's sdist, its header-only solver and the Python
#             binding that calls it (templates and shared-data handles in headers)
#   newtonsoft  C#: Newtonsoft.Json 6.0.8 from its Debian source (a serializer: deep class
#             hierarchies with overrides, generics, extension methods on strings and types)
#   dbussharp C#, held out: dbus-sharp 0.8.1 from its Debian source (a protocol library:
#             message readers and writers, proxies built with Reflection.Emit, Mono's style)
#   commonmark  PHP: league/commonmark 2.3.9 from Debian's php-league-commonmark (a Markdown
#             parser: namespaces, interfaces, typed properties and parameters, small classes)
#   purifier  PHP, held out: HTML Purifier 4.11.0 from Debian's php-htmlpurifier (an HTML
#             filter: no namespaces, PEAR-style class names, types in doc comments, require)
#   phpparser PHP, held out: nikic/PHP-Parser 4.15.4 from Debian's php-parser (a parser: a
#             deep node class hierarchy, visitors, builders, a generated parser table)
#   thor      Ruby: Thor 1.2.1 from Debian's ruby-thor (a CLI framework: class methods through
#             `class << self` and included `ClassMethods`, reopened classes, mixins)
#   mustermann  Ruby: Mustermann 3.0.0 from Debian's ruby-mustermann (pattern types: class
#             hierarchies, `def self.new` factories, `attr_reader`s, an AST with visitors)
#   ttyprompt Ruby, learning: TTY::Prompt 0.23.1 from Debian's ruby-tty-prompt (console prompts:
#             a question class per kind, a prompt delegating to them, evaluators and converters)
#   liquid    Ruby, learning: Liquid 5.4.0 from Debian's ruby-liquid (templates: a tag class per
#             block, parse and render contexts, a lexer and parser, filters as module methods)
#   addressable  Ruby, learning: Addressable 2.8.1 from Debian's ruby-addressable (URIs and URI
#             templates: value objects with many accessors and `self.parse`-style class methods,
#             normalisation through module functions, an IDNA module)
#   rack      Ruby, held out: Rack 2.2.22 from Debian's ruby-rack (middleware classes, `call(env)`,
#             utility modules with `module_function`, autoload)
#   tzinfo    Ruby, held out: TZInfo 2.0.5 from Debian's ruby-tzinfo (time zones: class hierarchies
#             of zones and data sources, value classes, modules of class methods)
#   zigstd    Zig: the standard library of PyPI's ziglang 0.17.1 (namespace files, generic type
#             functions, file structs); the compiler judges the functions its `json` tests reach
#   aro       Zig, held out: Aro, the C compiler inside the same wheel (lib/compiler/aro: file
#             structs with `Self`, tagged unions, a parser and preprocessor); all its tests
#   resinator Zig, held out: resinator, the Windows resource compiler inside the same wheel
#             (lib/compiler/resinator: a lexer, parser and compiler of .rc files); the tests of
#             every file but `main.zig` and `preprocess.zig` (those import Aro as a module)
#   mix       Elixir: Mix from Elixir 1.14's Debian source (elixir-lang; build tool: tasks as
#             behaviour modules, aliases, imports, pipes, many remote calls)
#   exunit    Elixir, held out: ExUnit from the same source (test framework: macros, `quote`,
#             callbacks, a runner of processes)
#   scaladoc  Scala: Scaladoc from Scala 2.11.12's Debian source (src/scaladoc/scala/tools/nsc: the
#             compiler's doc tool; cake-pattern traits mixed into a model factory, comment parsers,
#             an HTML generator with XML literals)
#   repl      Scala: the REPL from the same source (src/repl: the interpreter loop, completion,
#             code wrapping; implicits, nested objects, `case` patterns over compiler trees)
#   scalap    Scala, learning: scalap from the same source (src/scalap: a class-file signature
#             decoder; a rules-and-combinators parser DSL of its own, case classes, pattern matching)
#   actors    Scala, held out: Scala Actors from the same source (src/actors: concurrency; traits
#             with self types, companion objects, reactions as partial functions, schedulers)
#   all       every corpus above, one after another
# Caches the indexers, corpora and indexes in $NEXUS_ACCURACY (default ~/.cache/nexus-accuracy).
set -euo pipefail
corpus=${1:?usage: scripts/accuracy.sh django|pydantic|sphinx|ts|effect|tokio|goldmark|yaml|toml|lang3|collections|jsoup|brotli|cmark|lua|crypto|leveldb|marisa|clipper|kiwi|newtonsoft|dbussharp|commonmark|purifier|phpparser|thor|mustermann|ttyprompt|liquid|addressable|rack|tzinfo|zigstd|aro|resinator|mix|exunit|scaladoc|repl|scalap|actors|all [--examples N]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$corpus" = all ]; then
  for one in django pydantic sphinx ts effect tokio goldmark yaml toml lang3 collections jsoup brotli cmark lua crypto leveldb marisa clipper kiwi newtonsoft dbussharp commonmark purifier phpparser thor mustermann ttyprompt liquid addressable rack tzinfo zigstd aro resinator mix exunit scaladoc repl scalap actors; do
    printf '\n===== %s\n' "$one"
    "$0" "$one" "$@"
  done
  exit 0
fi
cache=${NEXUS_ACCURACY:-$HOME/.cache/nexus-accuracy}
tools="$cache/tools"
mkdir -p "$tools"
case "$corpus" in goldmark|yaml|toml|lang3|collections|jsoup|brotli|cmark|lua|crypto|leveldb|marisa|clipper|kiwi|dbussharp|newtonsoft|commonmark|purifier|phpparser|thor|mustermann|ttyprompt|liquid|addressable|rack|tzinfo|zigstd|aro|resinator|mix|exunit|scaladoc|repl|scalap|actors) needs_npm=false ;; *) needs_npm=true ;; esac
if $needs_npm && { [ ! -x "$tools/node_modules/.bin/scip-python" ] \
  || [ ! -x "$tools/node_modules/.bin/scip-typescript" ]; }; then
  echo "installing the SCIP indexers into $tools" >&2
  [ -f "$tools/package.json" ] || (cd "$tools" && npm init -y >/dev/null)
  (cd "$tools" && npm install --no-audit --no-fund --silent \
    @sourcegraph/scip-python@0.6.6 @sourcegraph/scip-typescript@0.4.0 >&2)
fi
# A Debian source package's upstream tarball into the current folder: `apt-get source` where the
# machine lists deb-src entries (a fresh machine lists none), else the file from Debian's pool,
# checked against the SHA-256 its .dsc gives. Usage: debian_orig PACKAGE=VERSION FILE SHA256
debian_orig() {
  if ! apt-get source --download-only "$1" >&2 2>/dev/null; then
    local package=${1%%=*}
    curl -fsSL -o "$2" "https://deb.debian.org/debian/pool/main/${package:0:1}/$package/$2"
  fi
  echo "$3  $2" | sha256sum -c --quiet - >&2
}
# Indexes the TypeScript project in folder $1 (its tsconfig.json) into $2, once.
index_typescript() {
  if [ ! -s "$2" ]; then
    (cd "$1" && "$tools/node_modules/.bin/scip-typescript" index --no-progress-bar \
      --output "$2" >&2)
  fi
}
case "$corpus" in
  django)  # Python: Django 5.1.4, its django/ package (scip-python crashes on the test folders)
    root=$("$repo/../shared/corpora/fetch.sh" django 2>/dev/null || true)
    if [ -z "$root" ]; then
      root="$cache/Django-5.1.4"
      if [ ! -d "$root" ]; then
        (cd "$cache" && pip download --quiet --no-deps --no-binary :all: django==5.1.4 -d . >&2 \
          && tar xzf Django-5.1.4.tar.gz)
      fi
    fi
    index="$cache/django-5.1.4.scip"
    if [ ! -s "$index" ]; then
      (cd "$root" && "$tools/node_modules/.bin/scip-python" index . --project-name django \
        --project-version 5.1.4 --target-only django --output "$index" >&2)
    fi
    prefix=django/ ;;
  ts)  # TypeScript: @theia/core 1.55.0 ships its src/ folder (479 .ts/.tsx files)
    root="$cache/theia-core-1.55.0"
    if [ ! -d "$root/src" ]; then
      mkdir -p "$root"
      (cd "$cache" && npm pack --silent @theia/core@1.55.0 >/dev/null \
        && tar xzf theia-core-1.55.0.tgz -C "$root" --strip-components=1 package/src package/package.json)
      # The package ships no tsconfig; a plain one covering src/ (dependencies are not installed,
      # so calls into them are unresolved on both sides).
      cat > "$root/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2019",
    "module": "commonjs",
    "moduleResolution": "node",
    "jsx": "react",
    "experimentalDecorators": true,
    "emitDecoratorMetadata": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "strict": false,
    "lib": ["es2019", "dom"]
  },
  "include": ["src"]
}
JSON
    fi
    index="$cache/theia-core-1.55.0.scip"
    index_typescript "$root" "$index"
    prefix= ;;
  pydantic|sphinx)  # Python packages from their pure-Python wheels (the wheel holds the source)
    case "$corpus" in
      pydantic) package=pydantic version=2.10.6 ;;
      sphinx) package=sphinx version=8.1.3 ;;
    esac
    root="$cache/$package-$version"
    if [ ! -d "$root/$package" ]; then
      wheels=$(mktemp -d)
      pip download --quiet --no-deps --only-binary :all: "$package==$version" -d "$wheels" >&2
      mkdir -p "$root"
      python3 -m zipfile -e "$wheels"/*.whl "$root" >&2
      rm -rf "$wheels"
    fi
    index="$cache/$package-$version.scip"
    if [ ! -s "$index" ]; then
      (cd "$root" && "$tools/node_modules/.bin/scip-python" index . --project-name "$package" \
        --project-version "$version" --target-only "$package" --output "$index" >&2)
    fi
    prefix="$package/" ;;
  effect)  # TypeScript: the effect package's src/ folder, alone (its dist/ is compiled output)
    fetched=$("$repo/../shared/corpora/fetch.sh" effect)
    root="$cache/effect-3.10.0"
    if [ ! -d "$root/src" ]; then
      mkdir -p "$root"
      cp -r "$fetched/src" "$fetched/package.json" "$root/"
      cat > "$root/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "skipLibCheck": true,
    "exactOptionalPropertyTypes": true,
    "lib": ["es2022", "dom"]
  },
  "include": ["src"]
}
JSON
    fi
    index="$cache/effect-3.10.0.scip"
    index_typescript "$root" "$index"
    prefix= ;;
  tokio)  # Rust: tokio 1.41.1 from the registry, indexed by rust-analyzer with every feature on
    command -v rust-analyzer >/dev/null && rust-analyzer --version >/dev/null 2>&1 \
      || rustup component add rust-analyzer >&2
    fetched=$("$repo/../shared/corpora/fetch.sh" tokio)
    root="$cache/tokio-1.41.1"
    if [ ! -d "$root/src" ]; then
      mkdir -p "$root"
      cp -r "$fetched/src" "$fetched/Cargo.toml" "$root/"
      # The library alone: its tests, benches and examples are other crates' worth of code.
      sed -i '/^\[\[\(test\|bench\|example\)\]\]/,/^$/d' "$root/Cargo.toml"
    fi
    index="$cache/tokio-1.41.1.scip"
    if [ ! -s "$index" ]; then
      echo '{"cargo": {"features": "all"}, "cfg": {"setTest": false}}' > "$cache/rust-analyzer.json"
      (cd "$root" && rust-analyzer scip . --config-path "$cache/rust-analyzer.json" \
        --output "$index" >&2)
    fi
    prefix= ;;
  goldmark|yaml|toml)  # Go: a library from its Debian package, checked by go/types (scripts/oracle)
    case "$corpus" in
      goldmark) deb=golang-github-yuin-goldmark-dev import=github.com/yuin/goldmark version=1.5.4 ;;
      yaml) deb=golang-gopkg-yaml.v3-dev import=gopkg.in/yaml.v3 version=3.0.1 ;;
      toml) deb=golang-github-burntsushi-toml-dev import=github.com/BurntSushi/toml version=1.2.0 ;;
    esac
    missing=()
    command -v go >/dev/null || missing+=(golang-go)
    [ -d "/usr/share/gocode/src/$import" ] || missing+=("$deb")
    if [ ${#missing[@]} -gt 0 ]; then
      echo "installing ${missing[*]}" >&2
      apt-get install -y "${missing[@]}" >&2 || { apt-get update >&2 && apt-get install -y "${missing[@]}" >&2; }
    fi
    # The library's own files, without its tests (Go builds _test.go files only for `go test`),
    # in a GOPATH of its own so that both sides see the same files.
    gopath="$cache/go"
    root="$gopath/src/$import"
    if [ ! -d "$root" ]; then
      mkdir -p "$root"
      (cd "/usr/share/gocode/src/$import" \
        && find . -name '*.go' ! -name '*_test.go' -exec cp --parents {} "$root/" \;)
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/go_scip.go"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ]; then
      GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= go run "$oracle" \
        -root "$root" -importpath "$import" -version "$version" -output "$index" >&2
    fi
    prefix= ;;
  lang3|collections|jsoup)  # Java: a library's src/main/java from its Debian source, attributed by javac
    pool=http://deb.debian.org/debian/pool/main
    case "$corpus" in
      lang3) name=libcommons-lang3-java dir=libc version=3.12.0
        top=commons-lang-rel-commons-lang-3.12.0
        sha=f7c22574707611b63bae19ff17f59e24cdd32e2b0e61a50ec9b1b525fbc909d1 ;;
      collections) name=libcommons-collections4-java dir=libc version=4.2
        top=commons-collections-commons-collections-4.2
        sha=e6b25f22128d2b5e6181d9736f313103e079366013f853061aba16e8d4feb729 ;;
      jsoup) name=jsoup dir=j version=1.15.3 top=jsoup-jsoup-1.15.3
        sha=052511f0be47511f9b2a17d44fc1eccc4b5373e77cc5a3221e34b6af437e1e2e ;;
    esac
    if ! command -v javac >/dev/null; then
      echo "installing default-jdk-headless" >&2
      apt-get install -y default-jdk-headless >&2 \
        || { apt-get update >&2 && apt-get install -y default-jdk-headless >&2; }
    fi
    # The library alone (src/main/java), not its tests.
    root="$cache/$name-$version"
    if [ ! -d "$root" ]; then
      tarball="$cache/${name}_$version.orig.tar.xz"
      [ -s "$tarball" ] || curl -sSf -o "$tarball" "$pool/$dir/$name/${name}_$version.orig.tar.xz"
      echo "$sha  $tarball" | sha256sum -c --quiet - >&2
      mkdir -p "$root"
      tar xJf "$tarball" -C "$root" --strip-components=4 "$top/src/main/java"
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/JavaScip.java"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ]; then
      java "$oracle" -root "$root" -output "$index" >&2
    fi
    prefix= ;;
  brotli|cmark|lua|crypto|leveldb|marisa|clipper|kiwi)  # C and C++: a library's sources from a PyPI sdist, attributed by clang (libclang)
    if ! /usr/bin/python3 -c 'import clang.cindex; clang.cindex.Index.create()' 2>/dev/null; then
      echo "installing python3-clang-14" >&2
      apt-get install -y python3-clang-14 >&2 \
        || { apt-get update >&2 && apt-get install -y python3-clang-14 >&2; }
    fi
    case "$corpus" in
      brotli) package=brotli version=1.1.0 top=Brotli-1.1.0 ;;
      cmark) package=cmarkgfm version=2025.10.22 top=cmarkgfm-2025.10.22 ;;
      lua) package=lupa version=2.8 top=lupa-2.8 ;;
      crypto) package=pycryptodome version=4.4.0 top=pycryptodome-4.4.0 ;;
      leveldb) package=leveldb version=0.201 top=leveldb-0.201 ;;
      marisa) package=marisa-trie version=1.2.1 top=marisa_trie-1.2.1 ;;
      clipper) package=pyclipper version=1.3.0.post6 top=pyclipper-1.3.0.post6 ;;
      kiwi) package=kiwisolver version=1.4.7 top=kiwisolver-1.4.7 ;;
    esac
    case "$corpus" in leveldb|marisa|clipper|kiwi) lang=c++ ;; *) lang=c ;; esac
    root="$cache/$corpus-$version"
    if [ ! -d "$root" ]; then
      sdists="$cache/sdists"
      mkdir -p "$sdists"
      [ -s "$sdists/$top.tar.gz" ] || pip download --quiet --no-deps --no-binary :all: \
        "$package==$version" -d "$sdists" >&2
      unpacked=$(mktemp -d)
      tar xzf "$sdists/$top.tar.gz" -C "$unpacked"
      mkdir -p "$root"
      case "$corpus" in
        brotli) cp -r "$unpacked/$top/c/." "$root/" ;;
        # The library and its extensions, with the headers its build generates on Unix.
        cmark) cp -r "$unpacked/$top/third_party/cmark/src" "$unpacked/$top/third_party/cmark/extensions" "$root/"
          cp "$unpacked/$top/generated/unix/"*.h "$root/src/" ;;
        # Lua 5.4's sources (lupa bundles several Lua versions and LuaJIT; one is the corpus).
        lua) src=$(find "$unpacked/$top/third-party" -maxdepth 1 -type d -name 'lua54' | head -n 1)
          [ -n "$src" ] || { echo "lua54 not found in $top" >&2; exit 1; }
          cp -r "$src/." "$root/" ;;
        crypto) cp -r "$unpacked/$top/src/." "$root/" ;;
        # The library and the compression library it bundles, without their tests and benches.
        leveldb) cp -r "$unpacked/$top/leveldb" "$unpacked/$top/snappy" "$root/"
          find "$root" \( -name '*_test.cc' -o -name '*_unittest.cc' -o -name '*_bench*.cc' -o -name 'testutil.*' -o -name 'testharness.*' \) -delete ;;
        marisa) cp -r "$unpacked/$top/marisa-trie/lib" "$unpacked/$top/marisa-trie/include" "$root/" ;;
        clipper) cp "$unpacked/$top/src/clipper.cpp" "$unpacked/$top/src/clipper.hpp" "$root/" ;;
        kiwi) cp -r "$unpacked/$top/kiwi" "$unpacked/$top/py" "$root/" ;;
      esac
      rm -rf "$unpacked"
      find "$root" -type f ! -name '*.c' ! -name '*.h' ! -name '*.cc' ! -name '*.cpp' ! -name '*.hpp' -delete
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/c_scip.py"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ]; then
      # LevelDB picks its platform layer by a macro its build defines; marisa compiles its
      # argument checks (`MARISA_DEBUG_IF(…)`) only in a debug build, as Nexus reads them.
      defines=()
      case "$corpus" in
        leveldb) defines=(-define LEVELDB_PLATFORM_POSIX) ;;
        marisa) defines=(-define _DEBUG) ;;
      esac
      /usr/bin/python3 "$oracle" -root "$root" -output "$index" -lang "$lang" "${defines[@]}" >&2
    fi
    prefix= ;;
  dbussharp|newtonsoft)  # C#: a library's sources from its Debian source, bound by Mono's C# compiler
    pool=http://deb.debian.org/debian/pool/main
    case "$corpus" in
      dbussharp) name=dbus-sharp dir=d version=0.8.1 top=dbus-sharp-0.8.1/src strip=2
        sha=0866c001f2d6e01a6f1b4d080db08d25ba1422e34c7d03020e0e70f3de3a9859
        refs=(-ref Mono.Posix) ;;
      newtonsoft) name=newtonsoft-json dir=n version=6.0.8+dfsg
        top=newtonsoft-json-6.0.8/Src/Newtonsoft.Json strip=3
        sha=3b7c77da971bbe1c6fdbb5cbb634d106a86aa30c82647abd9b23d2f31be0c630
        refs=(-ref System.Runtime.Serialization -ref System.Xml -ref System.Xml.Linq
          -ref System.Data -ref System.Numerics -ref Microsoft.CSharp -ref System.Core) ;;
    esac
    debs=(mono-mcs libmono-cecil-cil libmono-posix4.0-cil libmono-system-runtime-serialization4.0-cil
      libmono-system-xml-linq4.0-cil libmono-system-data4.0-cil libmono-system-numerics4.0-cil
      libmono-microsoft-csharp4.0-cil libmono-system-core4.0-cil)
    if ! dpkg -s "${debs[@]}" >/dev/null 2>&1; then
      echo "installing Mono's C# compiler and Mono.Cecil" >&2
      apt-get install -y "${debs[@]}" >&2 || { apt-get update >&2 && apt-get install -y "${debs[@]}" >&2; }
    fi
    root="$cache/$corpus-$version"
    if [ ! -d "$root" ]; then
      tarball="$cache/${name}_$version.orig.tar.gz"
      [ -s "$tarball" ] || curl -sSf -o "$tarball" "$pool/$dir/$name/${name}_$version.orig.tar.gz"
      echo "$sha  $tarball" | sha256sum -c --quiet - >&2
      mkdir -p "$root"
      tar xzf "$tarball" -C "$root" --strip-components="$strip" "$top"
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/cs_scip.py"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ] || [ "$repo/scripts/oracle/CsIl.cs" -nt "$index" ]; then
      /usr/bin/python3 "$oracle" -root "$root" -output "$index" "${refs[@]}" >&2
    fi
    prefix= ;;
  commonmark|purifier|phpparser)  # PHP: Debian's packages of pure-PHP libraries, read by Intelephense
    case "$corpus" in
      commonmark) package=php-league-commonmark version=2.3.9 debian=2.3.9-1+deb12u1 folder=League/CommonMark ;;
      purifier) package=php-htmlpurifier version=4.11.0 debian=4.11.0-1 folder=. ;;
      phpparser) package=php-parser version=4.15.4 debian=4.15.4-1 folder=PhpParser ;;
    esac
    for needed in php:php-cli /usr/share/php/PhpParser/autoload.php:php-parser; do
      if ! command -v "${needed%%:*}" >/dev/null && [ ! -e "${needed%%:*}" ]; then
        echo "installing ${needed#*:} (Debian)" >&2
        apt-get install -y -q "${needed#*:}" >&2
      fi
    done
    if [ ! -s "$tools/node_modules/intelephense/lib/intelephense.js" ]; then
      echo "installing Intelephense into $tools" >&2
      [ -f "$tools/package.json" ] || (cd "$tools" && npm init -y >/dev/null)
      (cd "$tools" && npm install --no-audit --no-fund --silent intelephense@1.18.5 >&2)
    fi
    root="$cache/$corpus-$version"
    if [ ! -d "$root" ]; then
      unpacked=$(mktemp -d)
      (cd "$unpacked" && apt-get download "$package=$debian" >&2 && dpkg-deb -x ./*.deb x)
      mkdir -p "$root"
      cp -r "$unpacked/x/usr/share/php/$folder/." "$root/"
      rm -rf "$unpacked"
      find "$root" -type f ! -name '*.php' -delete
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/php_scip.py"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ]; then
      /usr/bin/python3 "$oracle" -root "$root" -output "$index" \
        -server "$tools/node_modules/intelephense/lib/intelephense.js" >&2
    fi
    prefix= ;;
  thor|mustermann|ttyprompt|liquid|addressable|rack|tzinfo)  # Ruby: Debian's packages of pure-Ruby libraries, read by TypeProf (Ruby 3.1's)
    gem=$corpus
    case "$corpus" in
      thor) package=ruby-thor version=1.2.1 debian=1.2.1-2 ;;
      mustermann) package=ruby-mustermann version=3.0.0 debian=3.0.0-2 ;;
      ttyprompt) package=ruby-tty-prompt version=0.23.1 debian=0.23.1-1 gem=tty-prompt ;;
      liquid) package=ruby-liquid version=5.4.0 debian=5.4.0-3 ;;
      addressable) package=ruby-addressable version=2.8.1 debian=2.8.1-1 ;;
      rack) package=ruby-rack version=2.2.22 debian=2.2.22-0+deb12u2 ;;
      tzinfo) package=ruby-tzinfo version=2.0.5 debian=2.0.5-1 ;;
    esac
    if ! command -v ruby >/dev/null; then
      echo "installing ruby (Debian; TypeProf comes with libruby3.1)" >&2
      apt-get install -y -q ruby >&2
    fi
    root="$cache/$corpus-$version"
    if [ ! -d "$root" ]; then
      unpacked=$(mktemp -d)
      (cd "$unpacked" && apt-get download "$package=$debian" >&2 && dpkg-deb -x ./*.deb x)
      mkdir -p "$root"
      cp -r "$unpacked"/x/usr/share/rubygems-integration/all/gems/"$gem-$version"/lib/. "$root/"
      rm -rf "$unpacked"
      find "$root" -type f ! -name '*.rb' -delete
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/ruby_scip.py"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ] \
      || [ "$repo/scripts/oracle/ruby_typeprof.rb" -nt "$index" ] \
      || [ "$repo/scripts/oracle/ruby_methods.rb" -nt "$index" ]; then
      /usr/bin/python3 "$oracle" -root "$root" -output "$index" >&2
    fi
    prefix= ;;
  zigstd|aro|resinator)  # Zig: sources shipped in PyPI's ziglang wheel, judged by that compiler's LLVM IR
    venv="$tools/zig-venv"
    if [ ! -x "$venv/bin/python" ]; then
      echo "installing ziglang and tree-sitter-zig into $venv" >&2
      python3 -m venv "$venv" >&2
      "$venv/bin/pip" install --quiet ziglang==0.17.1 tree-sitter==0.26.1 tree-sitter-zig==1.1.2 >&2
    fi
    lib=$("$venv/bin/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "lib"))')
    oracle="$repo/scripts/oracle/zig_scip.py"
    index="$cache/$corpus-0.17.1.scip"
    case "$corpus" in
      zigstd)
        root="$lib/std"
        run_oracle=(-entry std.zig -filter json -lib-dir "$lib") ;;
      aro)
        root="$lib/compiler/aro"
        # The modules Aro's build passes in: stand-ins with the values a default build gives.
        modules="$cache/aro-modules"
        mkdir -p "$modules"
        printf 'pub const debug_allocations = false;\npub const enable_tracy = false;\npub const enable_tracy_allocation = false;\npub const enable_tracy_callstack = false;\n' > "$modules/build_options.zig"
        printf 'pub const gcc_install_prefix = "";\npub const linker = "ld";\npub const rtlib = "compiler-rt";\npub const sysroot = "";\npub const unwindlib = "libunwind";\n' > "$modules/system_defaults.zig"
        run_oracle=(-entry aro.zig -module "build_options=$modules/build_options.zig" -module "system_defaults=$modules/system_defaults.zig") ;;
      resinator)
        # A copy without the two files that import Aro, and a root whose test reaches the others.
        root="$cache/resinator-0.17.1"
        if [ ! -d "$root" ]; then
          mkdir -p "$root"
          cp "$lib"/compiler/resinator/*.zig "$root/"
          rm "$root/main.zig" "$root/preprocess.zig"
          { printf 'test {\n'
            for file in "$root"/*.zig; do
              [ "$(basename "$file")" = all_tests.zig ] || printf '    _ = @import("%s");\n' "$(basename "$file")"
            done
            printf '}\n'; } > "$root/all_tests.zig"
        fi
        run_oracle=(-entry all_tests.zig) ;;
    esac
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ]; then
      "$venv/bin/python" "$oracle" -root "$root" -output "$index" "${run_oracle[@]}" >&2
    fi
    prefix= ;;
  mix|exunit)  # Elixir: libraries of Elixir's own source, compiled by Debian's elixir with a tracer
    app=$corpus
    [ "$corpus" = exunit ] && app=ex_unit
    version=1.14.0
    if ! command -v elixir >/dev/null; then
      echo "installing elixir (Debian)" >&2
      apt-get install -y -q --no-install-recommends elixir >&2
    fi
    root="$cache/$corpus-$version"
    if [ ! -d "$root" ]; then
      unpacked=$(mktemp -d)
      (cd "$unpacked" && debian_orig elixir-lang=1.14.0.dfsg-2 elixir-lang_1.14.0.dfsg.orig.tar.xz \
        3dfa724f36b90d1bc41b9626a8ea0c293255c3a21a4d608c576ce39e2a23e5c9 \
        && tar xf elixir-lang_1.14.0.dfsg.orig.tar.xz)
      mkdir -p "$root"
      cp -r "$unpacked"/elixir-$version/lib/$app/lib/. "$root/"
      rm -rf "$unpacked"
      find "$root" -type f ! -name '*.ex' -delete
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/elixir_scip.py"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ] \
      || [ "$repo/scripts/oracle/elixir_trace.exs" -nt "$index" ]; then
      /usr/bin/python3 "$oracle" -root "$root" -output "$index" >&2
    fi
    prefix= ;;
  scaladoc|repl|scalap|actors)  # Scala: parts of Scala 2.11.12's own source, bound by Debian's scalac 2.11 typer
    version=2.11.12
    if ! command -v scalac >/dev/null; then
      echo "installing scala (Debian)" >&2
      apt-get install -y -q scala >&2 || { apt-get update >&2 && apt-get install -y -q scala >&2; }
    fi
    case "$corpus" in
      scaladoc) folder=src/scaladoc/scala/tools/nsc ;;
      repl) folder=src/repl ;;
      scalap) folder=src/scalap ;;
      actors) folder=src/actors ;;
    esac
    root="$cache/$corpus-$version"
    if [ ! -d "$root" ]; then
      unpacked=$(mktemp -d)
      (cd "$unpacked" && debian_orig scala=2.11.12-5 scala_2.11.12.orig.tar.xz \
        b8db9faffd136d376a1885c04b2cced1b25fee5e61295c1c2a66bceaf99e7301 \
        && tar xJf scala_2.11.12.orig.tar.xz "scala-$version/$folder")
      mkdir -p "$root"
      cp -r "$unpacked/scala-$version/$folder/." "$root/"
      rm -rf "$unpacked"
      find "$root" -type f ! -name '*.scala' -delete
    fi
    index="$cache/$corpus-$version.scip"
    oracle="$repo/scripts/oracle/scala_scip.py"
    if [ ! -s "$index" ] || [ "$oracle" -nt "$index" ] \
      || [ "$repo/scripts/oracle/ScalaSites.scala" -nt "$index" ]; then
      # Scaladoc's JSON and HTML writers use the XML and parser-combinator modules Debian ships.
      /usr/bin/python3 "$oracle" -root "$root" -output "$index" -classes "$tools/scala-sites" \
        -cp /usr/share/scala-2.11/lib/scala-xml.jar \
        -cp /usr/share/scala-2.11/lib/scala-parser-combinators.jar >&2
    fi
    prefix= ;;
  *) echo "unknown corpus: $corpus (django | pydantic | sphinx | ts | effect | tokio | goldmark | yaml | toml | lang3 | collections | jsoup | brotli | cmark | lua | crypto | leveldb | marisa | clipper | kiwi | newtonsoft | dbussharp | commonmark | purifier | phpparser | thor | mustermann | ttyprompt | liquid | addressable | rack | tzinfo | zigstd | aro | resinator | mix | exunit | scaladoc | repl | scalap | actors | all)" >&2; exit 2 ;;
esac
cd "$repo"
cargo run --quiet --release -p nexus-accuracy --bin nexus-accuracy -- --scip "$index" --root "$root" --prefix "$prefix" "$@"
