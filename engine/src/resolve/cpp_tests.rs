//! C++ resolution fixtures: header/implementation pairs (a class in a header, its methods out of
//! line), receivers (`obj.f()`, `p->f()`, `this->f()`, fields, smart pointers), namespaces,
//! inheritance and overloads.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const BITS_H: &str = r#"#pragma once
namespace store {
class Bits {
 public:
  int size() const { return n_; }
  int rank(int i) const;
 private:
  int n_;
};
}  // namespace store
"#;

const BITS_CC: &str = r#"#include "store/bits.h"
namespace store {
int Bits::rank(int i) const { return i < size() ? i : 0; }
}  // namespace store
"#;

const TRIE_H: &str = r#"#pragma once
#include <memory>
#include "store/bits.h"
namespace store {
class Node;
class Trie {
 public:
  int size() const;
  int lookup(int key);
 private:
  Bits bits_;
  std::unique_ptr<Node> root_;
};
}  // namespace store
"#;

const TRIE_CC: &str = r#"#include "store/trie.h"
#include <string>
namespace store {
class Node {
 public:
  virtual ~Node() {}
  virtual int find(int key) const { return key; }
};
class Leaf : public Node {
 public:
  int find(int key) const override { return key + 1; }
};
namespace {
int clamp(int x) { return x < 0 ? 0 : x; }
}
int Trie::size() const { return bits_.size(); }
int Trie::lookup(int key) {
  std::string name;
  name.size();
  Bits local;
  Leaf* leaf = new Leaf();
  leaf->find(key);
  this->size();
  root_->find(key);
  root_.reset();
  return clamp(bits_.rank(local.rank(key)));
}
}  // namespace store
"#;

#[test]
fn cpp_classes_in_headers_methods_out_of_line_and_receivers() {
    let g = graph(&[
        ("src/store/bits.h", BITS_H),
        ("src/store/bits.cc", BITS_CC),
        ("src/store/trie.h", TRIE_H),
        ("src/store/trie.cc", TRIE_CC),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // An out-of-line method calls an inline one of its class without `this`.
            (
                "Method:src/store/bits.cc:Bits.rank",
                "Method:src/store/bits.h:Bits.size",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/store/trie.cc:Trie.lookup",
                "Class:src/store/trie.cc:Leaf",
                "0.97",
                "constructor"
            ),
            // A function of an anonymous namespace, in its own file.
            (
                "Method:src/store/trie.cc:Trie.lookup",
                "Function:src/store/trie.cc:clamp",
                "0.97",
                "same-file"
            ),
            // `local.rank(…)` and the field's `bits_.rank(…)`: the definition out of line.
            (
                "Method:src/store/trie.cc:Trie.lookup",
                "Method:src/store/bits.cc:Bits.rank",
                "0.97",
                "receiver-type"
            ),
            // `leaf->find(…)` through `Leaf*`: the override.
            (
                "Method:src/store/trie.cc:Trie.lookup",
                "Method:src/store/trie.cc:Leaf.find",
                "0.97",
                "receiver-type"
            ),
            // `root_->find(…)` through `std::unique_ptr<Node>`; `root_.reset()` is the
            // standard library's, as `name.size()` on a `std::string` is: no edge.
            (
                "Method:src/store/trie.cc:Trie.lookup",
                "Method:src/store/trie.cc:Node.find",
                "0.95",
                "attribute-type"
            ),
            (
                "Method:src/store/trie.cc:Trie.lookup",
                "Method:src/store/trie.cc:Trie.size",
                "0.98",
                "self-method"
            ),
            (
                "Method:src/store/trie.cc:Trie.size",
                "Method:src/store/bits.h:Bits.size",
                "0.95",
                "attribute-type"
            ),
        ])
    );
    // An out-of-line method is a member of its class, declared in another file.
    assert!(edges(&g, EdgeKind::MemberOf).contains(&(
        "Method:src/store/bits.cc:Bits.rank".to_owned(),
        "Class:src/store/bits.h:Bits".to_owned(),
        "1.00".to_owned(),
        "member"
    )));
}

const SHAPES_H: &str = r#"#pragma once
namespace geo {
int twice(int x);
class Base {
 public:
  virtual int area() const { return 0; }
  int describe() const { return area(); }
};
class Square : public Base {
 public:
  int area() const override { return 4; }
};
class Codec {
 public:
  int encode(int x) const { return x; }
  int encode(const char* s) const;
};
}  // namespace geo
"#;

const SHAPES_CC: &str = r#"#include "shapes.h"
int geo::twice(int x) { return x * 2; }
namespace geo {
int Codec::encode(const char* s) const { return twice(1); }
}
"#;

const MAIN_CC: &str = r#"#include "shapes.h"
using namespace geo;
int main() {
  Square sq;
  sq.describe();
  geo::twice(2);
  Codec c;
  return c.encode(3);
}
"#;

#[test]
fn cpp_namespaces_inheritance_and_overloads_in_two_files() {
    let g = graph(&[
        ("shapes.h", SHAPES_H),
        ("shapes.cc", SHAPES_CC),
        ("main.cc", MAIN_CC),
    ]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            // The call a base class's method makes names the base's method (clang's static
            // target), never a guess at an override.
            (
                "Method:shapes.h:Base.describe",
                "Method:shapes.h:Base.area",
                "0.98",
                "self-method"
            ),
            // `geo::twice` defined out of line is a function of the namespace: a name of its
            // file, and elsewhere the one definition of its name.
            (
                "Method:shapes.cc:Codec.encode",
                "Method:shapes.cc:geo.twice",
                "0.97",
                "same-file"
            ),
            (
                "Function:main.cc:main",
                "Method:shapes.cc:geo.twice",
                "0.95",
                "unique-global-name"
            ),
            // Inherited from the base class.
            (
                "Function:main.cc:main",
                "Method:shapes.h:Base.describe",
                "0.95",
                "receiver-type"
            ),
            // Overloads defined in two files: which one is called is not weighed.
            (
                "Function:main.cc:main",
                "Method:shapes.h:Codec.encode",
                "0.48",
                "ambiguous"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Extends),
        owned(&[(
            "Class:shapes.h:Square",
            "Class:shapes.h:Base",
            "0.97",
            "heritage"
        )])
    );
}

const OUTER_H: &str = r#"#pragma once
namespace db {
class Table {
 public:
  class Cursor {
   public:
    bool next();
    int row() const;
  };
  Cursor scan();
};
}  // namespace db
"#;

const OUTER_CC: &str = r#"#include "outer.h"
namespace db {
bool Table::Cursor::next() { return row() > 0; }
int Table::Cursor::row() const { return 1; }
Table::Cursor Table::scan() {
  Cursor c;
  c.next();
  return c;
}
}  // namespace db
"#;

#[test]
fn cpp_methods_of_a_nested_class_defined_out_of_line() {
    let g = graph(&[("outer.h", OUTER_H), ("outer.cc", OUTER_CC)]);
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            (
                "Method:outer.cc:Table.Cursor.next",
                "Method:outer.cc:Table.Cursor.row",
                "0.98",
                "self-method"
            ),
            (
                "Method:outer.cc:Table.scan",
                "Method:outer.cc:Table.Cursor.next",
                "0.97",
                "receiver-type"
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::MemberOf)
            .into_iter()
            .filter(|(from, to, ..)| from.starts_with("Method:outer.cc") && to.starts_with("Class:"))
            .collect::<std::collections::BTreeSet<_>>(),
        owned(&[
            (
                "Method:outer.cc:Table.Cursor.next",
                "Class:outer.h:Table.Cursor",
                "1.00",
                "member"
            ),
            (
                "Method:outer.cc:Table.Cursor.row",
                "Class:outer.h:Table.Cursor",
                "1.00",
                "member"
            ),
            (
                "Method:outer.cc:Table.scan",
                "Class:outer.h:Table",
                "1.00",
                "member"
            ),
        ])
    );
}
