//! The browser's secret and this hub run's api token. The secret is taken once from the page's
//! address (`?token=…`), which is then cleaned; it never leaves the page: the tab proves it knows
//! it (`nexus_shared::proof`). The api token arrives inside a proven session, for `/api/*`.
//!
//! A secret in the address that differs from the kept one is only a candidate: it replaces the
//! kept one only once a hub proved it knows it, so a link to `/?token=<anything>` cannot
//! silently swap the secret the tab trusts.

use std::cell::RefCell;

use wasm_bindgen::JsValue;

/// The localStorage key of the secret.
const KEY: &str = "nexus-token";
/// The sessionStorage key of a secret from the address not yet proved by a hub.
const CANDIDATE_KEY: &str = "nexus-token-candidate";
/// The sessionStorage key of the api token of the hub run this tab last proved.
const API_KEY: &str = "nexus-api-token";
/// The header `/api/*` requests carry the api token in.
pub const HEADER: &str = "X-Nexus-Token";

thread_local! {
    static LOADED: RefCell<Option<Secrets>> = const { RefCell::new(None) };
}

/// The secrets this tab may prove with, read once per page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Secrets {
    /// Kept in localStorage: proved by a hub before, or the first one this origin saw.
    kept: Option<String>,
    /// From the address, different from the kept one, not yet proved by a hub.
    candidate: Option<String>,
}

fn local() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

fn loaded() -> Secrets {
    LOADED.with(|cell| cell.borrow_mut().get_or_insert_with(load).clone())
}

/// True when the tab has any secret to prove (else the page asks for the link).
pub fn present() -> bool {
    let secrets = loaded();
    secrets.kept.is_some() || secrets.candidate.is_some()
}

/// The secrets to check the hub's proof against: the candidate first, then the kept one.
pub fn keys() -> Vec<String> {
    let secrets = loaded();
    secrets.candidate.into_iter().chain(secrets.kept).collect()
}

/// A hub proved it knows `secret`: it becomes the kept one (a proved candidate replaces the old;
/// a candidate the hub did not prove is dropped).
pub fn proved(secret: &str) {
    LOADED.with(|cell| {
        let mut cell = cell.borrow_mut();
        let secrets = cell.get_or_insert_with(load);
        if secrets.candidate.take().is_some()
            && let Some(storage) = session()
        {
            let _ = storage.remove_item(CANDIDATE_KEY);
        }
        if secrets.kept.as_deref() != Some(secret) {
            secrets.kept = Some(secret.to_owned());
            if let Some(storage) = local() {
                let _ = storage.set_item(KEY, secret);
            }
        }
    });
}

/// The secrets: the kept one, and the one in the address (then cleaned from it) as a candidate
/// when it differs, or as the kept one when none was kept.
fn load() -> Secrets {
    let Some(window) = web_sys::window() else {
        return Secrets::default();
    };
    let kept = local().and_then(|s| s.get_item(KEY).ok().flatten());
    let location = window.location();
    let search = location.search().unwrap_or_default();
    let from_address = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_owned);
    if from_address.is_some() {
        // The address bar, history and bookmarks never keep the secret.
        let path = location.pathname().unwrap_or_else(|_| "/".into());
        let hash = location.hash().unwrap_or_default();
        if let Ok(history) = window.history() {
            let _ =
                history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{hash}")));
        }
    }
    let stored_candidate = session().and_then(|s| s.get_item(CANDIDATE_KEY).ok().flatten());
    let secrets = arrange(kept, from_address.or(stored_candidate));
    if let (Some(candidate), Some(storage)) = (&secrets.candidate, session()) {
        let _ = storage.set_item(CANDIDATE_KEY, candidate);
    }
    if let (Some(kept), Some(storage)) = (&secrets.kept, local()) {
        let _ = storage.set_item(KEY, kept);
    }
    secrets
}

/// Where a secret from the address goes: kept when nothing was kept, a candidate when it differs
/// from the kept one, nowhere when it is the kept one.
fn arrange(kept: Option<String>, from_address: Option<String>) -> Secrets {
    match (kept, from_address) {
        (None, address) => Secrets {
            kept: address,
            candidate: None,
        },
        (Some(kept), Some(address)) if address != kept => Secrets {
            kept: Some(kept),
            candidate: Some(address),
        },
        (kept, _) => Secrets {
            kept,
            candidate: None,
        },
    }
}

/// The api token of the hub run this tab proved last, if any.
pub fn api_token() -> Option<String> {
    session()?.get_item(API_KEY).ok().flatten()
}

/// Forgets the api token: a new socket may reach another hub run, whose token comes with its
/// Welcome.
pub fn clear_api_token() {
    if let Some(storage) = session() {
        let _ = storage.remove_item(API_KEY);
    }
}

/// Keeps the api token a proven hub handed over (per tab: sessionStorage).
pub fn set_api_token(token: &str) {
    if let Some(storage) = session() {
        let _ = storage.set_item(API_KEY, token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_secret_never_silently_replaces_the_kept_one() {
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        assert_eq!(
            arrange(None, Some(a.clone())),
            Secrets {
                kept: Some(a.clone()),
                candidate: None
            }
        );
        assert_eq!(
            arrange(Some(a.clone()), Some(b.clone())),
            Secrets {
                kept: Some(a.clone()),
                candidate: Some(b)
            }
        );
        assert_eq!(
            arrange(Some(a.clone()), Some(a.clone())),
            Secrets {
                kept: Some(a.clone()),
                candidate: None
            }
        );
        assert_eq!(arrange(None, None), Secrets::default());
    }
}
