//! The connection indicator: connected / reconnecting in N s, attempt k of 20 / offline,
//! with one Disconnect-or-Reconnect button. The countdown ticks twice a second.

use gloo_timers::callback::Interval;
use leptos::prelude::*;
use nexus_shared::reconnect::LinkState;

use crate::link::Link;
use crate::link::status::{describe, impostor_words, tone};

#[component]
pub fn Indicator(
    state: RwSignal<LinkState>,
    /// The port whose holder could not prove it is the hub, while that is the last word.
    impostor: RwSignal<Option<u16>>,
    link: StoredValue<Link, LocalStorage>,
    max_attempts: u32,
) -> impl IntoView {
    let now = RwSignal::new(js_sys::Date::now() as u64);
    let ticker = StoredValue::new_local(Some(Interval::new(500, move || {
        now.set(js_sys::Date::now() as u64)
    })));
    on_cleanup(move || ticker.update_value(|t| drop(t.take())));
    let text = move || {
        let words = state.with(|s| describe(s, max_attempts, now.get()));
        match impostor.get() {
            Some(port) => format!("{}; {words}", impostor_words(port)),
            None => words,
        }
    };
    let online = move || state.with(|s| matches!(s, LinkState::Connected));
    let toggle = move |_| {
        if online() {
            link.with_value(Link::disconnect);
        } else {
            link.with_value(Link::reconnect);
        }
    };
    view! {
        <div class="link" data-testid="link" data-state=move || if impostor.get().is_some() { "off" } else { state.with(tone) } data-impostor=move || impostor.get().map(|p| p.to_string())>
            <span class="dot"></span>
            <span class="link-text" data-testid="link-text">{text}</span>
            <button
                data-testid=move || if online() { "disconnect" } else { "reconnect" }
                on:click=toggle
            >
                {move || if online() { "Disconnect" } else { "Reconnect" }}
            </button>
        </div>
    }
}

/// The MCP client configuration that starts this bridge, for Claude Desktop and the like.
pub fn mcp_snippet(command: &str) -> String {
    let config = serde_json::json!({"mcpServers": {"nexus": {"command": command}}});
    serde_json::to_string_pretty(&config).unwrap_or_default()
}

/// Asks the bridge that served the page for its binary's absolute path.
async fn bridge_command() -> Result<String, String> {
    let value = super::load::fetch_json("/api/bridge")
        .await?
        .ok_or("this bridge does not name its binary")?;
    value["command"]
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| "the bridge did not name its binary".to_owned())
}

/// The connection panel: the link's state in full and the configuration agents need.
#[component]
pub fn ConnectionPanel(
    state: RwSignal<LinkState>,
    impostor: RwSignal<Option<u16>>,
    link: StoredValue<Link, LocalStorage>,
    max_attempts: u32,
) -> impl IntoView {
    let snippet = RwSignal::new(None::<Result<String, String>>);
    wasm_bindgen_futures::spawn_local(async move {
        snippet.set(Some(bridge_command().await.map(|c| mcp_snippet(&c))));
    });
    let copied = RwSignal::new(false);
    let copy = move |_| {
        if let (Some(Ok(text)), Some(window)) = (snippet.get_untracked(), web_sys::window()) {
            let _ = window.navigator().clipboard().write_text(&text);
            copied.set(true);
        }
    };
    view! {
        <div class="connection" data-testid="connection">
            <Indicator state=state impostor=impostor link=link max_attempts=max_attempts />
            <p class="muted">"Agents reach this tab through the bridge: add it to your MCP client's configuration (Claude Desktop: claude_desktop_config.json)."</p>
            {move || match snippet.get() {
                None => view! { <p class="muted">"…"</p> }.into_any(),
                Some(Err(message)) => view! { <p class="error">{format!("cannot ask the bridge for its path: {message}")}</p> }.into_any(),
                Some(Ok(text)) => view! {
                    <pre class="snippet" data-testid="mcp-snippet">{text}</pre>
                    <button data-testid="copy-snippet" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
                }.into_any(),
            }}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_names_the_bridge_binary() {
        let text = mcp_snippet("/opt/nexus/nexus-bridge");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["mcpServers"]["nexus"]["command"],
            "/opt/nexus/nexus-bridge"
        );
    }
}
