//! C resolution fixtures: `#include`s to project headers, calls to functions defined in another
//! file (through their header's prototype), `static` functions, macros and function pointers.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const UTIL_H: &str = r#"#ifndef UTIL_H
#define UTIL_H
#include <stddef.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))
struct ops { int (*run)(int); };
int add(int a, int b);
static inline int clamp(int x) { return x < 0 ? 0 : x; }
#endif
"#;

const UTIL_C: &str = r#"#include "util.h"
static int helper(int x) { return clamp(x); }
int add(int a, int b) { return helper(a) + b; }
"#;

const MAIN_C: &str = r#"#include <stdio.h>
#include "lib/util.h"
static int helper(int x) { return x; }
int main(int argc, char **argv) {
  struct ops o;
  int (*cb)(int) = helper;
  printf("%d", add(1, 2));
  o.run(clamp(argc));
  cb(MAX(1, 2));
  return helper(argc);
}
"#;

#[test]
fn c_includes_prototypes_statics_macros_and_function_pointers() {
    let g = graph(&[
        ("src/lib/util.h", UTIL_H),
        ("src/lib/util.c", UTIL_C),
        ("src/main.c", MAIN_C),
    ]);
    // The prototype is no definition: `add` is one function, its definition's.
    assert!(g.find_id("Function:src/lib/util.h:add").is_none());
    assert_eq!(
        edges(&g, EdgeKind::Imports),
        owned(&[
            (
                "File:src/lib/util.c",
                "File:src/lib/util.h",
                "1.00",
                "import-resolved"
            ),
            (
                "File:src/main.c",
                "File:src/lib/util.h",
                "1.00",
                "import-resolved"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // The header's `static inline` function, seen through the include.
            (
                "Function:src/lib/util.c:helper",
                "Function:src/lib/util.h:clamp",
                "0.97",
                "import-resolved"
            ),
            // A `static` function of the file, never the other file's of the same name.
            (
                "Function:src/lib/util.c:add",
                "Function:src/lib/util.c:helper",
                "0.97",
                "same-file"
            ),
            (
                "Function:src/main.c:main",
                "Function:src/main.c:helper",
                "0.97",
                "same-file"
            ),
            // Declared in the header, defined in another file: the one definition project-wide.
            (
                "Function:src/main.c:main",
                "Function:src/lib/util.c:add",
                "0.95",
                "unique-global-name"
            ),
            (
                "Function:src/main.c:main",
                "Function:src/lib/util.h:clamp",
                "0.97",
                "import-resolved"
            ),
            // `printf` (outside the project), `o.run` and `cb` (function pointers) and `MAX`
            // (a macro) are no edges.
        ])
    );
}

#[test]
fn c_static_functions_are_never_called_from_another_file() {
    let g = graph(&[
        (
            "a.c",
            "static void tick(void) {}\nvoid run(void) { tick(); }\n",
        ),
        ("b.c", "void go(void) { tick(); }\n"),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[("Function:a.c:run", "Function:a.c:tick", "0.97", "same-file")])
    );
}

#[test]
fn c_headers_reach_through_other_headers_and_include_cycles_end() {
    let g = graph(&[
        (
            "inc/api.h",
            "#include \"impl/inline.h\"\n#include \"api.h\"\n",
        ),
        (
            "inc/impl/inline.h",
            "#include \"../api.h\"\nstatic inline int twice(int x) { return x * 2; }\n",
        ),
        (
            "src/use.c",
            "#include <api.h>\nint go(void) { return twice(2); }\n",
        ),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[(
            "Function:src/use.c:go",
            "Function:inc/impl/inline.h:twice",
            "0.97",
            "import-resolved"
        )])
    );
}

#[test]
fn c_a_name_two_headers_define_is_the_one_nearest_in_include_order_not_path_order() {
    let pick = "static inline int pick(void) { return 1; }\n";
    let g = graph(&[
        ("a_far.h", "#include \"deep.h\"\n"),
        ("deep.h", pick),
        (
            "use.c",
            "#include \"a_far.h\"\n#include \"z_near.h\"\nint go(void) { return pick(); }\n",
        ),
        (
            "only.c",
            "#include \"z_near.h\"\nint one(void) { return pick(); }\n",
        ),
        ("z_near.h", pick),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Function:only.c:one",
                "Function:z_near.h:pick",
                "0.97",
                "import-resolved"
            ),
            (
                "Function:use.c:go",
                "Function:z_near.h:pick",
                "0.97",
                "import-resolved"
            ),
        ])
    );
}
