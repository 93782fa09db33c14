//! C++ resolution fixtures: header/implementation pairs (a class in a header, its methods out of
//! line), receivers (`obj.f()`, `p->f()`, `this->f()`, fields, smart pointers), namespaces,
//! inheritance and overloads.

use std::collections::BTreeSet;

use crate::graph::{EdgeKind, Graph};
use crate::ingest::fixture_graph as graph;

/// Every edge of one kind as (from id, to id, confidence, reason).
fn edges(g: &Graph, kind: EdgeKind) -> BTreeSet<(String, String, String, &'static str)> {
    g.edges()
        .iter()
        .filter(|e| e.kind == kind)
        .filter_map(|e| {
            Some((
                g.node(e.from)?.stable_id(),
                g.node(e.to)?.stable_id(),
                format!("{:.2}", e.confidence),
                e.reason.as_str(),
            ))
        })
        .collect()
}

fn owned(
    expected: &[(&str, &str, &str, &'static str)],
) -> BTreeSet<(String, String, String, &'static str)> {
    expected
        .iter()
        .map(|(a, b, c, r)| (a.to_string(), b.to_string(), c.to_string(), *r))
        .collect()
}

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
    let calls = edges(&g, EdgeKind::Calls);
    for e in &calls {
        eprintln!("{e:?}");
    }
}
