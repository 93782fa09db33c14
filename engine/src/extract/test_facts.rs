//! Helpers the extractors' tests share: a member call's callee, and the calls one definition
//! makes, read from a file's facts.

use crate::facts::{Callee, FileFacts, Receiver};

/// `receiver.name(…)` as the extractors record it.
pub(crate) fn member(receiver: Receiver, name: &str) -> Callee {
    Callee::Member {
        receiver,
        name: name.into(),
    }
}

/// The callees of the calls made by the definition named `caller` (qualified), in order.
pub(crate) fn calls_in(f: &FileFacts, caller: &str) -> Vec<Callee> {
    let idx = f.defs.iter().position(|d| d.qualified == caller);
    f.calls
        .iter()
        .filter(|c| c.caller.map(|d| d as usize) == idx)
        .map(|c| c.callee.clone())
        .collect()
}
