//! The graph model: nodes with dense `u32` ids and typed edges carrying confidence and reason.
//! Stable ids have the form `Kind:path:qualified.name`, which agents pass back in later calls.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    Folder,
    File,
    Module,
    Class,
    Interface,
    Struct,
    Enum,
    Trait,
    Function,
    Method,
    Community,
    Process,
}

impl NodeKind {
    pub const ALL: [NodeKind; 12] = [
        NodeKind::Folder,
        NodeKind::File,
        NodeKind::Module,
        NodeKind::Class,
        NodeKind::Interface,
        NodeKind::Struct,
        NodeKind::Enum,
        NodeKind::Trait,
        NodeKind::Function,
        NodeKind::Method,
        NodeKind::Community,
        NodeKind::Process,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Folder => "Folder",
            NodeKind::File => "File",
            NodeKind::Module => "Module",
            NodeKind::Class => "Class",
            NodeKind::Interface => "Interface",
            NodeKind::Struct => "Struct",
            NodeKind::Enum => "Enum",
            NodeKind::Trait => "Trait",
            NodeKind::Function => "Function",
            NodeKind::Method => "Method",
            NodeKind::Community => "Community",
            NodeKind::Process => "Process",
        }
    }

    /// Kinds that stand for code a caller can depend on.
    pub fn is_symbol(self) -> bool {
        !matches!(
            self,
            NodeKind::Folder | NodeKind::File | NodeKind::Community | NodeKind::Process
        )
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    Contains,
    Defines,
    Imports,
    Calls,
    Extends,
    Implements,
    MemberOf,
    StepInProcess,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 8] = [
        EdgeKind::Contains,
        EdgeKind::Defines,
        EdgeKind::Imports,
        EdgeKind::Calls,
        EdgeKind::Extends,
        EdgeKind::Implements,
        EdgeKind::MemberOf,
        EdgeKind::StepInProcess,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Contains => "CONTAINS",
            EdgeKind::Defines => "DEFINES",
            EdgeKind::Imports => "IMPORTS",
            EdgeKind::Calls => "CALLS",
            EdgeKind::Extends => "EXTENDS",
            EdgeKind::Implements => "IMPLEMENTS",
            EdgeKind::MemberOf => "MEMBER_OF",
            EdgeKind::StepInProcess => "STEP_IN_PROCESS",
        }
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub name: String,
    /// Dotted path inside the file, e.g. `Cart.add`; the file path for files and folders.
    pub qualified: String,
    pub file: String,
    pub start_line: u32,
    pub end_line: u32,
}

impl Node {
    /// The stable id agents use: `Kind:path:qualified.name`.
    pub fn id(&self) -> String {
        match self.kind {
            NodeKind::Folder | NodeKind::File => format!("{}:{}", self.kind, self.file),
            _ => format!("{}:{}:{}", self.kind, self.file, self.qualified),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub kind: EdgeKind,
    /// How sure the resolver is, in 0..=1.
    pub confidence: f32,
    /// Why the edge exists, e.g. `import-resolved`, `same-file`, `receiver-type`.
    pub reason: &'static str,
}

/// A whole code graph for one project.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Graph {
    pub project: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl Graph {
    pub fn new(project: impl Into<String>) -> Self {
        Self {
            project: project.into(),
            ..Self::default()
        }
    }

    pub fn add_node(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    pub fn add_edge(
        &mut self,
        from: u32,
        to: u32,
        kind: EdgeKind,
        confidence: f32,
        reason: &'static str,
    ) {
        self.edges.push(Edge {
            from,
            to,
            kind,
            confidence,
            reason,
        });
    }

    pub fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.get(id as usize)
    }

    pub fn count_nodes(&self, kind: NodeKind) -> usize {
        self.nodes.iter().filter(|n| n.kind == kind).count()
    }

    pub fn count_edges(&self, kind: EdgeKind) -> usize {
        self.edges.iter().filter(|e| e.kind == kind).count()
    }

    pub fn file_count(&self) -> usize {
        self.count_nodes(NodeKind::File)
    }

    /// Incoming edges of one kind per node.
    pub fn in_degree(&self, kind: EdgeKind) -> Vec<u32> {
        let mut degree = vec![0u32; self.nodes.len()];
        for edge in self.edges.iter().filter(|e| e.kind == kind) {
            if let Some(d) = degree.get_mut(edge.to as usize) {
                *d += 1;
            }
        }
        degree
    }

    /// Outgoing edges of one kind per node.
    pub fn out_degree(&self, kind: EdgeKind) -> Vec<u32> {
        let mut degree = vec![0u32; self.nodes.len()];
        for edge in self.edges.iter().filter(|e| e.kind == kind) {
            if let Some(d) = degree.get_mut(edge.from as usize) {
                *d += 1;
            }
        }
        degree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_kind_path_qualified_name() {
        let method = Node {
            kind: NodeKind::Method,
            name: "add".into(),
            qualified: "Cart.add".into(),
            file: "shop/cart.py".into(),
            start_line: 3,
            end_line: 9,
        };
        assert_eq!(method.id(), "Method:shop/cart.py:Cart.add");
        let file = Node {
            kind: NodeKind::File,
            qualified: "shop/cart.py".into(),
            name: "cart.py".into(),
            ..method
        };
        assert_eq!(file.id(), "File:shop/cart.py");
    }

    #[test]
    fn degrees_count_only_the_asked_kind() {
        let mut g = Graph::new("t");
        let a = g.add_node(Node {
            kind: NodeKind::Function,
            name: "a".into(),
            qualified: "a".into(),
            file: "x.py".into(),
            start_line: 1,
            end_line: 2,
        });
        let b = g.add_node(Node {
            name: "b".into(),
            qualified: "b".into(),
            ..g.nodes[0].clone()
        });
        g.add_edge(a, b, EdgeKind::Calls, 0.9, "same-file");
        g.add_edge(a, b, EdgeKind::Imports, 0.9, "import");
        assert_eq!(g.in_degree(EdgeKind::Calls), [0, 1]);
        assert_eq!(g.out_degree(EdgeKind::Calls), [1, 0]);
    }
}
