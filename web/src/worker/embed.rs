//! Embeddings in the worker: fetches the built-in model once (lazily, after a graph is ready),
//! then embeds the graph in steps, yielding between them so tool calls are answered meanwhile;
//! vectors restored with the snapshot are used as they are when every text is unchanged.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

use nexus_engine::embed::{StaticModel, VectorBuilder, VectorIndex};
use nexus_engine::snapshot::SavedVectors;

/// The model file trunk copies into the site's root (from `model/`, written by setup).
pub const MODEL_URL: &str = "static-minilm.nxse";
/// Nodes tokenized or embedded between two yields (a few milliseconds of work).
const STEP_NODES: usize = 1000;

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

/// The name of the loaded built-in model, if it was loaded.
pub fn model_id() -> Option<String> {
    MODEL.with(|m| m.borrow().as_ref().map(|(_, id)| id.clone()))
}

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
    /// Runs `f` on the current graph and its sources if it is still the one with `generation`.
    fn with_graph<R>(
        &self,
        generation: f64,
        f: impl FnOnce(&nexus_engine::Graph, &nexus_engine::Sources) -> R,
    ) -> Option<R>;
    /// Attaches finished vectors to the graph with `generation`, if it is still current.
    fn attach(&self, generation: f64, model: Arc<StaticModel>, vectors: VectorIndex);
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
/// quietly when the graph is replaced.
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
            target.attach(generation, model, saved.vectors);
            return Ok(Done {
                nodes,
                reused: nodes,
                restored: true,
            });
        }
        (_, previous) => previous,
    };
    let mut builder = VectorBuilder::new(&model, previous.map(|p| p.vectors));
    loop {
        let step = target.with_graph(generation, |graph, sources| {
            builder.step(graph, sources, &model, STEP_NODES)
        });
        let Some((done, total, finished)) = step else {
            return Ok(Done::default());
        };
        progress(done, total);
        if finished {
            break;
        }
        gloo_timers::future::TimeoutFuture::new(0).await;
    }
    let (vectors, stats) = builder.finish();
    target.attach(generation, model, vectors);
    Ok(Done {
        nodes: stats.embedded,
        reused: stats.reused,
        restored: false,
    })
}
