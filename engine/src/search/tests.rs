use super::*;
use crate::ingest::{SourceFile, index};

fn graph() -> Graph {
    let files = vec![
        SourceFile {
            path: "shop/cart.py".into(),
            bytes: b"class ShoppingCart:\n    \"\"\"Holds items before checkout.\"\"\"\n    def add_item(self, item):\n        pass\n    def checkout(self):\n        pass\n".to_vec(),
        },
        SourceFile { path: "shop/payment.py".into(), bytes: b"def charge_card(card):\n    pass\n\ndef refund(card):\n    pass\n".to_vec() },
        SourceFile { path: "util/checkout_helpers.py".into(), bytes: b"def format_total(x):\n    pass\n".to_vec() },
    ];
    index("t", files, &|| 0.0, &mut |_, _, _| true).unwrap().0
}

fn top(g: &Graph, idx: &SearchIndex, q: &str) -> Vec<String> {
    idx.search(q, &|_| true)
        .iter()
        .take(3)
        .map(|h| g.node(h.node).unwrap().stable_id())
        .collect()
}

#[test]
fn ranking_prefers_exact_names_then_parts_then_paths() {
    let g = graph();
    let idx = SearchIndex::build(&g);
    assert_eq!(
        top(&g, &idx, "checkout")[0],
        "Method:shop/cart.py:ShoppingCart.checkout"
    );
    assert_eq!(
        top(&g, &idx, "charge card")[0],
        "Function:shop/payment.py:charge_card"
    );
    assert_eq!(
        top(&g, &idx, "ShoppingCart")[0],
        "Class:shop/cart.py:ShoppingCart"
    );
    assert!(top(&g, &idx, "checkout").contains(&"File:util/checkout_helpers.py".to_owned()));
}

#[test]
fn prefixes_typos_and_docs_match() {
    let g = graph();
    let idx = SearchIndex::build(&g);
    assert_eq!(top(&g, &idx, "refu")[0], "Function:shop/payment.py:refund");
    assert_eq!(
        top(&g, &idx, "refnud")[0],
        "Function:shop/payment.py:refund"
    );
    assert_eq!(
        top(&g, &idx, "before")[0],
        "Class:shop/cart.py:ShoppingCart"
    );
    assert!(idx.search("zzzz qqqq", &|_| true).is_empty());
    assert!(idx.search("", &|_| true).is_empty());
}

#[test]
fn modes_fuse_keyword_and_vector_ranks_and_tests_rank_below_code() {
    use crate::embed::{StaticModel, VectorIndex, model_bytes};
    use crate::ingest::index_with_sources;
    let files = vec![
        SourceFile {
            path: "auth/hashers.py".into(),
            bytes: b"def make_password(raw):\n    return digest(raw)\n".to_vec(),
        },
        SourceFile {
            path: "auth/tests/test_hashers.py".into(),
            bytes: b"def test_make_password():\n    make_password('x')\n".to_vec(),
        },
        SourceFile {
            path: "pages.py".into(),
            bytes: b"def paginate(items):\n    return items\n".to_vec(),
        },
    ];
    let (g, _, sources) = index_with_sources("t", files, &|| 0.0, &mut |_, _, _| true).unwrap();
    let mut idx = SearchIndex::build(&g);
    assert!(idx.ranked("hash", Mode::Semantic, &|_| true).is_none());
    let first = |idx: &SearchIndex, q: &str, mode: Mode| {
        let hits = idx.ranked(q, mode, &|_| true).unwrap();
        g.node(hits[0].node).unwrap().stable_id()
    };
    let make = "Function:auth/hashers.py:make_password";
    assert_eq!(first(&idx, "make password", Mode::Hybrid), make);
    assert_eq!(
        first(&idx, "test make password", Mode::Keyword),
        "Function:auth/tests/test_hashers.py:test_make_password"
    );
    // Not about tests: every production hit comes before every test hit.
    let hits = idx
        .ranked("make password", Mode::Keyword, &|_| true)
        .unwrap();
    let tests: Vec<bool> = hits.iter().map(|h| idx.is_test(h.node)).collect();
    assert!(
        tests.contains(&true) && tests.windows(2).all(|w| w[0] <= w[1]),
        "{tests:?}"
    );
    let model = StaticModel::from_bytes(&model_bytes(&[
        ("make", vec![0, 10, 0]),
        ("password", vec![100, 0, 0]),
        ("secret", vec![90, 10, 0]),
        ("digest", vec![80, 0, 10]),
        ("items", vec![0, 0, 100]),
    ]))
    .unwrap();
    let (vectors, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
    idx.attach_embeddings(Arc::new(model), vectors);
    assert!(idx.search("secret", &|_| true).is_empty());
    for mode in [Mode::Semantic, Mode::Hybrid] {
        let top = first(&idx, "secret", mode);
        assert!(top.contains(":auth/hashers.py"), "{mode:?}: {top}");
    }
    let hit = |node: u32| Hit { node, score: 1.0 };
    let (first, second) = ([hit(1), hit(2)], [hit(2), hit(3)]);
    let fused = fuse(&[(&first, 1.0), (&second, 1.0)]);
    let order: Vec<u32> = fused.iter().map(|h| h.node).collect();
    assert_eq!(order, [2, 1, 3]);
    let k = RRF_K;
    assert!((fused[0].score - (1.0 / (k + 2.0) + 1.0 / (k + 1.0))).abs() < 1e-12);
    // A heavier ranking's head beats a lighter one's.
    let fused = fuse(&[(&first, 1.0), (&second, 3.0)]);
    let order: Vec<u32> = fused.iter().map(|h| h.node).collect();
    assert_eq!(order, [2, 3, 1]);
}

#[test]
fn the_name_match_ranks_names_whose_tokens_are_near_the_query() {
    use crate::embed::{StaticModel, VectorIndex, model_bytes};
    use crate::ingest::index_with_sources;
    let files = vec![SourceFile {
        path: "app.py".into(),
        bytes:
            b"def make_password(raw):\n    return raw\n\ndef paginate(items):\n    return items\n"
                .to_vec(),
    }];
    let (g, _, sources) = index_with_sources("t", files, &|| 0.0, &mut |_, _, _| true).unwrap();
    let model = StaticModel::from_bytes(&model_bytes(&[
        ("make", vec![0, 10, 0]),
        ("password", vec![100, 0, 0]),
        ("secret", vec![90, 10, 0]),
        ("paginate", vec![0, 0, 100]),
    ]))
    .unwrap();
    let (vectors, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
    let mut idx = SearchIndex::build(&g);
    idx.attach_embeddings(Arc::new(model), vectors);
    let sem = idx.semantic.as_ref().unwrap();
    let id = |name: &str| g.nodes_named(name)[0];
    let candidates = [
        Hit {
            node: id("paginate"),
            score: 2.0,
        },
        Hit {
            node: id("make_password"),
            score: 1.0,
        },
        Hit {
            node: id("paginate"),
            score: 0.5,
        },
    ];
    let ranked = idx.name_match(sem, "secret", candidates.iter());
    assert_eq!(ranked.len(), 2, "each candidate once: {ranked:?}");
    assert_eq!(ranked[0].node, id("make_password"));
    assert!(ranked[0].score > 0.9 && ranked[1].score < 0.1, "{ranked:?}");
    assert!(idx.name_match(sem, "zzz", candidates.iter()).is_empty());
}

#[test]
fn one_edit_distance() {
    assert!(within_one_edit("refund", "refnud"));
    assert!(within_one_edit("refund", "refunds"));
    assert!(within_one_edit("refund", "rfund"));
    assert!(within_one_edit("refund", "refand"));
    assert!(!within_one_edit("refund", "rexxnd"));
}

#[cfg(not(target_arch = "wasm32"))]
mod rebuilt {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::ingest::index_workspace;
    use crate::workspace::FileChange;

    /// Files with a few versions each: docstrings, signatures and bodies that change, a file that
    /// defines the same function twice (equal keys), a test file, names other files call (so
    /// summaries elsewhere change), and files in folders that come and go.
    const PROJECT: &[(&str, &[&str])] = &[
        (
            "shop/cart.py",
            &[
                "from shop.pricing import total\n\nclass Cart:\n    \"\"\"Holds items.\"\"\"\n    def checkout(self):\n        return total(self)\n",
                "from shop.pricing import total, tax\n\nclass Cart:\n    \"\"\"Holds items before checkout.\"\"\"\n    def checkout(self, card):\n        return tax(total(self))\n\n    def addItem(self, x):\n        self.checkout(x)\n",
                "class Cart:\n    def checkout(self):\n        pass\n",
            ],
        ),
        (
            "shop/pricing.py",
            &[
                "def total(cart):\n    return 1\n\ndef tax(x):\n    return total(x)\n",
                "def total(cart):\n    return 2\n\ndef total(cart):\n    return 2\n\ndef discount(c):\n    \"\"\"Ω off.\"\"\"\n    return total(c)\n",
            ],
        ),
        (
            "shop/tests/test_cart.py",
            &[
                "from shop.cart import Cart\n\ndef test_checkout():\n    Cart().checkout()\n",
                "def test_nothing():\n    pass\n",
            ],
        ),
        (
            "web/app.ts",
            &[
                "import { render } from './view';\nexport class App {\n  /** Starts it. */\n  run(): void { render(); }\n}\n",
                "export function main(): number { return 1; }\n",
            ],
        ),
        (
            "web/view.ts",
            &[
                "export function render(): void {}\n",
                "export function render(x: number): void { paint(x); }\nfunction paint(x: number) {}\n",
            ],
        ),
        (
            "a_first.py",
            &[
                "def early():\n    pass\n",
                "def early():\n    return late()\n",
            ],
        ),
    ];

    #[derive(Debug, Clone)]
    enum Step {
        /// Write version `v` of file `f` (modulo their counts).
        Write(usize, usize),
        Remove(usize),
        /// Move file `f` into another folder.
        Rename(usize),
        /// Describe node `n` (modulo the node count): its doc is replaced in place.
        Describe(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..8usize, 0..4usize).prop_map(|(f, v)| Step::Write(f, v)),
            1 => (0..8usize).prop_map(Step::Remove),
            1 => (0..8usize).prop_map(Step::Rename),
            1 => (0..64usize).prop_map(Step::Describe),
        ]
    }

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.to_owned(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    /// Runs `steps` from the first versions, `batch` steps at a time; after each batch the index
    /// made from the previous one must equal a fresh one.
    fn run(steps: &[Step], batch: usize) {
        let files: BTreeMap<&str, &str> = PROJECT.iter().map(|(p, v)| (*p, v[0])).collect();
        let all = files.iter().map(|(p, t)| file(p, t)).collect();
        let (mut graph, _, mut ws) =
            index_workspace("p", all, &|| 0.0, &mut |_, _, _| true).expect("never cancelled");
        let mut index = SearchIndex::build(&graph);
        let mut present: Vec<String> = files.keys().map(|p| (*p).to_owned()).collect();
        for chunk in steps.chunks(batch.max(1)) {
            let mut changes = Vec::new();
            for step in chunk {
                match *step {
                    Step::Write(f, v) => {
                        let (path, versions) = PROJECT[f % PROJECT.len()];
                        changes.push(FileChange::Write(file(path, versions[v % versions.len()])));
                        present.push(path.to_owned());
                    }
                    Step::Remove(f) => {
                        if !present.is_empty() {
                            let path = present.remove(f % present.len());
                            changes.push(FileChange::Remove(path));
                        }
                    }
                    Step::Rename(f) => {
                        let (path, versions) = PROJECT[f % PROJECT.len()];
                        changes.push(FileChange::Remove(path.to_owned()));
                        let moved = format!("moved/{path}");
                        changes.push(FileChange::Write(file(&moved, versions[0])));
                        present.push(moved);
                    }
                    Step::Describe(n) => {
                        let id = (n % graph.node_count().max(1)) as u32;
                        graph.set_doc(id, &format!("Described: step {n} of fooBar"));
                    }
                }
            }
            if let (Some((new, _)), _) = ws
                .apply(changes, &|| 0.0, &mut |_, _, _| true)
                .expect("never cancelled")
            {
                graph = new;
            }
            index = SearchIndex::rebuilt(index, &graph);
            index.assert_same(&SearchIndex::build(&graph));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn an_index_made_from_the_previous_one_equals_a_fresh_one(
            steps in prop::collection::vec(step(), 1..12),
            batch in 1..4usize,
        ) {
            run(&steps, batch);
        }
    }

    #[test]
    fn every_file_edited_removed_moved_and_described() {
        let mut steps = Vec::new();
        for f in 0..PROJECT.len() {
            steps.extend([
                Step::Write(f, 1),
                Step::Describe(f * 7),
                Step::Remove(f),
                Step::Write(f, 2),
                Step::Rename(f),
            ]);
        }
        run(&steps, 1);
        run(&steps, 4);
    }

    #[test]
    fn a_described_node_is_found_by_its_new_doc_only() {
        let files = PROJECT.iter().map(|(p, v)| file(p, v[0])).collect();
        let (graph, _, _) =
            index_workspace("p", files, &|| 0.0, &mut |_, _, _| true).expect("never cancelled");
        let index = SearchIndex::build(&graph);
        let mut described = graph.clone();
        let cart = graph.find_id("Class:shop/cart.py:Cart").expect("indexed");
        described.set_doc(cart, "A basket of zebras");
        let again = SearchIndex::rebuilt(index, &described);
        again.assert_same(&SearchIndex::build(&described));
        assert_eq!(again.search("zebras", &|_| true)[0].node, cart);
        assert!(
            again.search("holds", &|_| true).is_empty(),
            "the old doc's terms are gone"
        );
    }

    #[test]
    fn an_index_of_another_project_is_a_valid_start() {
        let (graph, _, _) = index_workspace(
            "p",
            PROJECT.iter().map(|(p, v)| file(p, v[1])).collect(),
            &|| 0.0,
            &mut |_, _, _| true,
        )
        .expect("never cancelled");
        let other = SearchIndex::build(&super::graph());
        SearchIndex::rebuilt(other, &graph).assert_same(&SearchIndex::build(&graph));
        SearchIndex::rebuilt(SearchIndex::build(&graph), &Graph::default())
            .assert_same(&SearchIndex::default());
    }
}

/// The pruned head of a ranking is the exhaustive ranking's head, hit for hit and score for
/// score (to the bit), on random projects whose words are shared by many nodes.
#[cfg(not(target_arch = "wasm32"))]
mod head {
    use proptest::prelude::*;

    use super::*;
    use crate::search::top::Tuning;

    const WORDS: &[&str] = &[
        "cart", "card", "charge", "total", "item", "items", "check", "checkout", "run", "runner",
        "step", "service", "helper", "order",
    ];

    /// A Python file: classes and functions named from `WORDS`, some with docstrings.
    fn source(defs: &[(usize, usize, bool, usize)]) -> String {
        let mut text = String::new();
        for &(a, b, class, doc) in defs {
            let (a, b) = (WORDS[a % WORDS.len()], WORDS[b % WORDS.len()]);
            let doc = format!("    \"\"\"{} the {}.\"\"\"\n", WORDS[doc % WORDS.len()], a);
            if class {
                let camel = |w: &str| format!("{}{}", w[..1].to_uppercase(), &w[1..]);
                text.push_str(&format!(
                    "class {}{}:\n{doc}    def {b}(self):\n        pass\n\n",
                    camel(a),
                    camel(b)
                ));
            } else {
                text.push_str(&format!("def {a}_{b}(x):\n{doc}    return x\n\n"));
            }
        }
        text
    }

    fn project() -> impl Strategy<Value = Vec<(String, String)>> {
        let def = (0..20usize, 0..20usize, any::<bool>(), 0..20usize);
        let file = (
            0..6usize,
            0..30usize,
            any::<bool>(),
            prop::collection::vec(def, 1..8),
        );
        prop::collection::vec(file, 1..30).prop_map(|files| {
            files
                .into_iter()
                .map(|(folder, name, test, defs)| {
                    let path = if test {
                        format!("pkg{folder}/tests/test_{name}.py")
                    } else {
                        format!("pkg{folder}/{}_{name}.py", WORDS[name % WORDS.len()])
                    };
                    (path, source(&defs))
                })
                .collect()
        })
    }

    /// A query: one to three words, some cut to a prefix or mistyped, or a whole name.
    fn query() -> impl Strategy<Value = String> {
        let word = (0..20usize, 0..4usize).prop_map(|(w, how)| {
            let w = WORDS[w % WORDS.len()];
            match how {
                0 => w[..3].to_owned(),
                1 => format!("{w}x"),
                _ => w.to_owned(),
            }
        });
        prop_oneof![
            3 => prop::collection::vec(word, 1..4).prop_map(|w| w.join(" ")),
            1 => (0..20usize, 0..20usize)
                .prop_map(|(a, b)| format!("{}_{}", WORDS[a % WORDS.len()], WORDS[b % WORDS.len()])),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn the_pruned_head_is_the_exhaustive_head(
            files in project(),
            queries in prop::collection::vec(query(), 1..6),
            k in 1..16usize,
            short in 0..6usize,
            production_first in any::<bool>(),
            modulus in 1..4u32,
        ) {
            let files = files
                .into_iter()
                .map(|(path, text)| SourceFile { path, bytes: text.into_bytes() })
                .collect();
            let graph = index("p", files, &|| 0.0, &mut |_, _, _| true).expect("never cancelled").0;
            let idx = SearchIndex::build(&graph);
            let filter = |node: u32| node % modulus != 1;
            let tuning = Tuning { short, exhaustive: 0 };
            for q in &queries {
                let mut want = idx.search(q, &filter);
                if production_first {
                    idx.partition_tests(&mut want);
                }
                want.truncate(k);
                let scorers = idx.scorers(q);
                let got = idx.top(&scorers, idx.exact(q), &filter, k, production_first, tuning);
                let bits = |hits: &[Hit]| -> Vec<(u32, u64)> {
                    hits.iter().map(|h| (h.node, h.score.to_bits())).collect()
                };
                prop_assert_eq!(bits(&got), bits(&want), "query {:?}", q);
            }
        }
    }

    #[test]
    fn a_ranking_head_is_the_whole_ranking_cut() {
        let graph = super::graph();
        let idx = SearchIndex::build(&graph);
        for q in ["checkout", "card", "charge card", "ShoppingCart"] {
            let all = idx.ranked(q, Mode::Keyword, &|_| true).unwrap();
            let head = idx.ranked_top(q, Mode::Keyword, &|_| true, 1).unwrap();
            assert_eq!(head.hits.first(), all.first(), "{q}");
            assert!(head.whole, "a small query is scored whole: {q}");
            assert_eq!(
                idx.search_top(q, &|_| true, 2),
                all[..all.len().min(2)],
                "{q}"
            );
        }
    }
}
