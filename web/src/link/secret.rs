//! The browser's secret: taken once from the page's address (`?token=…`), kept in this origin's
//! localStorage and removed from the address; sent in `Hello` and as `X-Nexus-Token` on `/api/*`.

use std::cell::OnceCell;

use wasm_bindgen::JsValue;

/// The localStorage key of the secret.
const KEY: &str = "nexus-token";
/// The header `/api/*` requests carry it in.
pub const HEADER: &str = "X-Nexus-Token";

thread_local! {
    static SECRET: OnceCell<Option<String>> = const { OnceCell::new() };
}

/// The secret, read once per page (see [`load`]).
pub fn get() -> Option<String> {
    SECRET.with(|cell| cell.get_or_init(load).clone())
}

/// The secret: the one in the address (kept, then removed from the address), else the kept one.
fn load() -> Option<String> {
    let window = web_sys::window()?;
    let storage = window.local_storage().ok().flatten();
    let location = window.location();
    let search = location.search().unwrap_or_default();
    let from_address = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_owned);
    if let Some(token) = from_address {
        if let Some(storage) = &storage {
            let _ = storage.set_item(KEY, &token);
        }
        // The address bar, history and bookmarks never keep the secret.
        let path = location.pathname().unwrap_or_else(|_| "/".into());
        let hash = location.hash().unwrap_or_default();
        if let Ok(history) = window.history() {
            let _ =
                history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{hash}")));
        }
        return Some(token);
    }
    storage?.get_item(KEY).ok().flatten()
}
