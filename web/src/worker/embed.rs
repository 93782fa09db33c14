//! Embeddings in the worker: fetches the built-in model once (lazily, after a graph is ready),
//! then embeds the graph in steps, yielding between them so tool calls are answered meanwhile;
//! vectors restored with the snapshot are used as they are when every text is unchanged. When the
//! bridge offers an embeddings provider, its vectors are used instead (`provider.rs`).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

use super::pause;
use super::provider::{self, ProviderQueries};

use nexus_engine::QueryEmbedder;
use nexus_engine::embed::StaticModel;
use nexus_engine::embed::{VectorBuilder, VectorIndex, node_text, text_hash};
use nexus_engine::snapshot::SavedVectors;

/// The model file trunk copies into the site's root (from `model/`, written by setup).
pub const MODEL_URL: &str = "static-minilm.nxse";
/// Nodes the first step tokenizes; later steps are sized to take about `pause::STEP_MS`.
const FIRST_STEP_NODES: usize = 64;
/// Most nodes one step takes.
const MAX_STEP_NODES: usize = 20_000;
/// Progress is reported at most this often (the page redraws its bar on each report).
const PROGRESS_EVERY_MS: f64 = 200.0;

thread_local! {
    static MODEL: RefCell<Option<(Arc<StaticModel>, String)>> = const { RefCell::new(None) };
}

/// The name stored with vectors of the built-in model: a hash of its file, so vectors of another
/// model file are never mixed in.
fn model_name(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    bytes.hash(&mut h);
    format!("built-in:{:016x}", h.finish())
}

/// Texts sent to the provider per request.
const PROVIDER_BATCH: usize = 64;

/// The built-in model and its name, fetched and parsed on first use; an error says why there
/// is none.
pub async fn model() -> Result<(Arc<StaticModel>, String), String> {
    if let Some(model) = MODEL.with(|m| m.borrow().clone()) {
        return Ok(model);
    }
    let scope = super::runtime::scope().ok_or("not in a worker")?;
    let response: Response = JsFuture::from(scope.fetch_with_str(MODEL_URL))
        .await
        .map_err(|e| format!("fetching {MODEL_URL}: {e:?}"))?
        .dyn_into()
        .map_err(|_| "fetch gave no response".to_owned())?;
    if !response.ok() {
        return Err(format!(
            "{MODEL_URL}: HTTP {} (run scripts/setup.sh, then rebuild the UI)",
            response.status()
        ));
    }
    let buffer = JsFuture::from(
        response
            .array_buffer()
            .map_err(|e| format!("reading {MODEL_URL}: {e:?}"))?,
    )
    .await
    .map_err(|e| format!("reading {MODEL_URL}: {e:?}"))?;
    let bytes = Uint8Array::new(&buffer).to_vec();
    let model = (
        Arc::new(StaticModel::from_bytes(&bytes)?),
        model_name(&bytes),
    );
    MODEL.with(|m| *m.borrow_mut() = Some(model.clone()));
    Ok(model)
}

/// What an embedding run needs from the worker's state, borrowed one step at a time.
pub trait EmbedTarget {
    /// When the last tool call was answered (`Date.now()`): embedding waits for a pause in calls.
    fn last_call_ms(&self) -> f64;
    /// Runs `f` on the current graph and its sources if it is still the one with `generation`.
    fn with_graph<R>(
        &self,
        generation: f64,
        f: impl FnOnce(&nexus_engine::Graph, &nexus_engine::Sources) -> R,
    ) -> Option<R>;
    /// Attaches finished vectors, made by `source` (its name is stored with them), to the graph
    /// with `generation`, if it is still current; `queries` when they are a provider's.
    fn attach(
        &self,
        generation: f64,
        source: Source,
        vectors: VectorIndex,
        queries: Option<Arc<ProviderQueries>>,
    );
}

/// What made a graph's vectors and embeds its queries.
pub struct Source {
    /// Stored with the vectors: the built-in model's hash or `provider:MODEL`.
    pub name: String,
    pub embedder: Arc<dyn QueryEmbedder>,
}

/// What an embedding run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Done {
    /// Nodes with a vector.
    pub nodes: usize,
    /// Of those, vectors kept from before because their text is unchanged.
    pub reused: usize,
    /// The stored vectors were used as they are (nothing embedded, nothing to save).
    pub restored: bool,
}

/// Embeds the graph of `generation` step by step, reusing `previous` rows (vectors of the same
/// model) whose text is unchanged, or all of them without embedding when they were made for this
/// very graph and every text is unchanged; reports `(done, total)` through `progress`. Stops
/// quietly when the graph is replaced. Calls come first: steps of about `pause::STEP_MS`, one task
/// turn between them, none while calls keep coming (`pause::calls_pause`).
pub async fn embed_graph(
    target: Rc<impl EmbedTarget>,
    generation: f64,
    previous: Option<SavedVectors>,
    progress: impl Fn(usize, usize),
) -> Result<Done, String> {
    let (model, name) = model().await?;
    let previous = previous.filter(|p| p.model == name);
    let fits = match previous.as_ref().filter(|p| p.saved_ms == generation) {
        Some(saved) => target.with_graph(generation, |g, s| saved.vectors.matches_texts(g, s)),
        None => Some(false),
    };
    let previous = match (fits, previous) {
        (None, _) => return Ok(Done::default()),
        (Some(true), Some(saved)) => {
            let nodes = saved.vectors.len();
            let source = Source {
                name,
                embedder: model,
            };
            target.attach(generation, source, saved.vectors, None);
            return Ok(Done {
                nodes,
                reused: nodes,
                restored: true,
            });
        }
        (_, previous) => previous,
    };
    let mut builder = VectorBuilder::new(&model, previous.map(|p| p.vectors));
    let (mut nodes, mut reported) = (FIRST_STEP_NODES, f64::NEG_INFINITY);
    loop {
        pause::calls_pause(|| target.last_call_ms()).await;
        let started = pause::step_clock();
        let step = target.with_graph(generation, |graph, sources| {
            builder.step(graph, sources, &model, nodes)
        });
        let Some((done, total, finished)) = step else {
            return Ok(Done::default());
        };
        let ended = pause::step_clock();
        nodes = pause::next_step_units(nodes, ended - started, MAX_STEP_NODES);
        if finished {
            progress(done, total);
            break;
        }
        if ended - reported >= PROGRESS_EVERY_MS {
            progress(done, total);
            reported = ended;
        }
        pause::next_turn().await;
    }
    let (vectors, stats) = builder.finish();
    let source = Source {
        name,
        embedder: model,
    };
    target.attach(generation, source, vectors, None);
    Ok(Done {
        nodes: stats.embedded,
        reused: stats.reused,
        restored: false,
    })
}

/// Embeds the graph of `generation` with the bridge's provider, in batches (progress as for the
/// built-in model), reusing `previous` rows of the same provider model whose text is unchanged.
/// `Ok(None)` when the bridge offers no provider; an error (nothing attached) when it fails.
pub async fn embed_with_provider(
    target: Rc<impl EmbedTarget>,
    generation: f64,
    previous: Option<&SavedVectors>,
    progress: impl Fn(usize, usize),
) -> Result<Option<Done>, String> {
    let Some(model) = provider::model().await else {
        return Ok(None);
    };
    let name = format!("provider:{model}");
    let texts = target.with_graph(generation, |graph, sources| {
        (0..graph.node_count() as u32)
            .filter_map(|id| {
                let text = graph.node(id).and_then(|n| node_text(graph, &n, sources))?;
                Some((id, text_hash(&text), text))
            })
            .collect::<Vec<_>>()
    });
    let Some(texts) = texts else {
        return Ok(Some(Done::default()));
    };
    let previous = previous.filter(|p| p.model == name);
    let mut known: rustc_hash::FxHashMap<u64, Vec<f32>> = previous
        .map(|p| p.vectors.rows_by_text().collect())
        .unwrap_or_default();
    let missing: Vec<usize> = (0..texts.len())
        .filter(|&i| !known.contains_key(&texts[i].1))
        .collect();
    let reused = texts.len() - missing.len();
    let unchanged = missing.is_empty()
        && previous.is_some_and(|p| p.saved_ms == generation && p.vectors.len() == texts.len());
    for (done, batch) in missing.chunks(PROVIDER_BATCH).enumerate() {
        let input: Vec<String> = batch.iter().map(|&i| texts[i].2.clone()).collect();
        let vectors = provider::embed(&input).await?;
        for (&i, v) in batch.iter().zip(vectors) {
            known.insert(texts[i].1, v);
        }
        progress(
            reused + (done * PROVIDER_BATCH + batch.len()).min(missing.len()),
            texts.len(),
        );
    }
    let dims = known.values().next().map_or(0, Vec::len);
    let rows = texts
        .into_iter()
        .filter_map(|(id, hash, _)| Some((id, hash, known.get(&hash)?.clone())))
        .collect();
    let vectors = VectorIndex::from_vectors(dims, rows)?;
    let nodes = vectors.len();
    let queries = Arc::new(ProviderQueries::default());
    let source = Source {
        name,
        embedder: queries.clone(),
    };
    target.attach(generation, source, vectors, Some(queries));
    Ok(Some(Done {
        nodes,
        reused,
        restored: unchanged,
    }))
}
