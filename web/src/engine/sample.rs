//! The built-in sample graph: a tiny Python shop, shown before any repository is loaded.
//! It is hand-built (not parsed) and labelled as a sample everywhere it appears.

use super::graph::{EdgeKind, Graph, Node, NodeKind};

pub const SAMPLE_PROJECT: &str = "sample-shop";

struct Builder {
    graph: Graph,
}

impl Builder {
    fn node(&mut self, kind: NodeKind, file: &str, qualified: &str, lines: (u32, u32)) -> u32 {
        let name = match kind {
            NodeKind::Folder | NodeKind::File => file.rsplit('/').next().unwrap_or(file),
            _ => qualified.rsplit('.').next().unwrap_or(qualified),
        };
        self.graph.add_node(Node {
            kind,
            name: name.to_owned(),
            qualified: qualified.to_owned(),
            file: file.to_owned(),
            start_line: lines.0,
            end_line: lines.1,
        })
    }

    fn file(&mut self, folder: u32, path: &str, lines: u32) -> u32 {
        let file = self.node(NodeKind::File, path, path, (1, lines));
        self.graph
            .add_edge(folder, file, EdgeKind::Contains, 1.0, "folder");
        file
    }

    fn symbol(&mut self, file: u32, kind: NodeKind, qualified: &str, lines: (u32, u32)) -> u32 {
        let path = self.graph.nodes[file as usize].file.clone();
        let symbol = self.node(kind, &path, qualified, lines);
        self.graph
            .add_edge(file, symbol, EdgeKind::Defines, 1.0, "definition");
        symbol
    }
}

/// Builds the sample graph: 1 folder, 3 files, 7 symbols and their edges.
pub fn sample_graph() -> Graph {
    let mut b = Builder {
        graph: Graph::new(SAMPLE_PROJECT),
    };
    let shop = b.node(NodeKind::Folder, "shop", "shop", (0, 0));
    let app = b.file(shop, "shop/app.py", 30);
    let cart = b.file(shop, "shop/cart.py", 40);
    let pay = b.file(shop, "shop/payment.py", 25);

    let main = b.symbol(app, NodeKind::Function, "main", (5, 20));
    let cart_class = b.symbol(cart, NodeKind::Class, "Cart", (3, 38));
    let add = b.symbol(cart, NodeKind::Method, "Cart.add", (8, 15));
    let total = b.symbol(cart, NodeKind::Method, "Cart.total", (17, 24));
    let checkout = b.symbol(cart, NodeKind::Method, "Cart.checkout", (26, 38));
    let charge = b.symbol(pay, NodeKind::Function, "charge", (4, 18));
    let validate = b.symbol(pay, NodeKind::Function, "validate_card", (20, 25));

    let g = &mut b.graph;
    for method in [add, total, checkout] {
        g.add_edge(
            method,
            cart_class,
            EdgeKind::MemberOf,
            1.0,
            "method-of-class",
        );
    }
    g.add_edge(app, cart, EdgeKind::Imports, 1.0, "import-resolved");
    g.add_edge(cart, pay, EdgeKind::Imports, 1.0, "import-resolved");
    g.add_edge(main, cart_class, EdgeKind::Calls, 0.9, "constructor");
    g.add_edge(main, add, EdgeKind::Calls, 0.9, "receiver-type");
    g.add_edge(main, checkout, EdgeKind::Calls, 0.9, "receiver-type");
    g.add_edge(checkout, total, EdgeKind::Calls, 0.9, "self-method");
    g.add_edge(checkout, charge, EdgeKind::Calls, 0.9, "import-resolved");
    g.add_edge(charge, validate, EdgeKind::Calls, 0.85, "same-file");
    b.graph
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_has_files_symbols_and_calls() {
        let g = sample_graph();
        assert_eq!(g.file_count(), 3);
        assert_eq!(g.count_edges(EdgeKind::Calls), 6);
        let ids: Vec<String> = g.nodes.iter().map(|n| n.id()).collect();
        assert!(ids.contains(&"Method:shop/cart.py:Cart.checkout".to_owned()));
        assert!(g.edges.iter().all(|e| (0.0..=1.0).contains(&e.confidence)));
    }
}
