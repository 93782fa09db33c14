//! The built-in sample graph: a tiny Python shop, shown before any repository is loaded.
//! It is hand-built (not parsed) and labelled as a sample everywhere it appears.

use super::graph::{EdgeKind, Graph, GraphBuilder, NewNode, NodeKind, Reason};

/// The built-in sample's project name.
pub const SAMPLE_PROJECT: &str = "sample-shop";

/// The files of `examples/sample-shop`, built in so that "Load the sample" indexes real code.
pub fn sample_sources() -> Vec<(&'static str, &'static str)> {
    macro_rules! file {
        ($path:literal) => {
            (
                $path,
                include_str!(concat!("../../examples/sample-shop/", $path)),
            )
        };
    }
    vec![
        file!("README.md"),
        file!("shop/__init__.py"),
        file!("shop/app.py"),
        file!("shop/cart.py"),
        file!("shop/payment.py"),
        file!("shop/pricing.py"),
        file!("tests/test_cart.py"),
    ]
}

struct Builder {
    graph: GraphBuilder,
}

impl Builder {
    fn node(&mut self, kind: NodeKind, file: &str, qualified: &str, lines: (u32, u32)) -> u32 {
        let name = match kind {
            NodeKind::Folder | NodeKind::File => file.rsplit('/').next().unwrap_or(file),
            _ => qualified.rsplit('.').next().unwrap_or(qualified),
        };
        self.graph.add_node(NewNode {
            kind,
            name,
            qualified,
            file,
            start_line: lines.0,
            end_line: lines.1,
            signature: "",
            doc: "",
            exported: true,
        })
    }

    fn file(&mut self, folder: u32, path: &str, lines: u32) -> u32 {
        let file = self.node(NodeKind::File, path, path, (1, lines));
        self.graph
            .add_edge(folder, file, EdgeKind::Contains, 1.0, Reason::Structure);
        file
    }

    fn symbol(
        &mut self,
        file: u32,
        path: &str,
        kind: NodeKind,
        qualified: &str,
        lines: (u32, u32),
    ) -> u32 {
        let symbol = self.node(kind, path, qualified, lines);
        self.graph
            .add_edge(file, symbol, EdgeKind::Defines, 1.0, Reason::Definition);
        symbol
    }
}

/// Builds the sample graph: 1 folder, 3 files, 7 symbols and their edges.
pub fn sample_graph() -> Graph {
    let mut b = Builder {
        graph: GraphBuilder::new(SAMPLE_PROJECT),
    };
    let shop = b.node(NodeKind::Folder, "shop", "shop", (0, 0));
    let app = b.file(shop, "shop/app.py", 30);
    let cart = b.file(shop, "shop/cart.py", 40);
    let pay = b.file(shop, "shop/payment.py", 25);

    let main = b.symbol(app, "shop/app.py", NodeKind::Function, "main", (5, 20));
    let cart_class = b.symbol(cart, "shop/cart.py", NodeKind::Class, "Cart", (3, 38));
    let add = b.symbol(cart, "shop/cart.py", NodeKind::Method, "Cart.add", (8, 15));
    let total = b.symbol(
        cart,
        "shop/cart.py",
        NodeKind::Method,
        "Cart.total",
        (17, 24),
    );
    let checkout = b.symbol(
        cart,
        "shop/cart.py",
        NodeKind::Method,
        "Cart.checkout",
        (26, 38),
    );
    let charge = b.symbol(
        pay,
        "shop/payment.py",
        NodeKind::Function,
        "charge",
        (4, 18),
    );
    let validate = b.symbol(
        pay,
        "shop/payment.py",
        NodeKind::Function,
        "validate_card",
        (20, 25),
    );

    let g = &mut b.graph;
    for method in [add, total, checkout] {
        g.add_edge(method, cart_class, EdgeKind::MemberOf, 1.0, Reason::Member);
    }
    g.add_edge(app, cart, EdgeKind::Imports, 1.0, Reason::ImportResolved);
    g.add_edge(cart, pay, EdgeKind::Imports, 1.0, Reason::ImportResolved);
    g.add_edge(main, cart_class, EdgeKind::Calls, 0.9, Reason::Constructor);
    g.add_edge(main, add, EdgeKind::Calls, 0.9, Reason::ReceiverType);
    g.add_edge(main, checkout, EdgeKind::Calls, 0.9, Reason::ReceiverType);
    g.add_edge(checkout, total, EdgeKind::Calls, 0.95, Reason::SelfMethod);
    g.add_edge(
        checkout,
        charge,
        EdgeKind::Calls,
        0.9,
        Reason::ImportResolved,
    );
    g.add_edge(charge, validate, EdgeKind::Calls, 0.85, Reason::SameFile);
    crate::summary::summarize(b.graph.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_has_files_symbols_and_calls() {
        let g = sample_graph();
        assert_eq!(g.file_count(), 3);
        assert_eq!(g.count_edges(EdgeKind::Calls), 6);
        assert!(g.find_id("Method:shop/cart.py:Cart.checkout").is_some());
        assert!(
            g.edges()
                .iter()
                .all(|e| (0.0..=1.0).contains(&e.confidence))
        );
    }
}
