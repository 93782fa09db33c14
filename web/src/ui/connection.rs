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

/// The configuration of an HTTP client: `/mcp`'s address and the bearer token's place (the page
/// never holds the token itself).
pub fn http_snippet(url: &str, token_file: &str) -> String {
    let config = serde_json::json!({"mcpServers": {"nexus": {
        "type": "http",
        "url": url,
        "headers": {"Authorization": format!("Bearer <the contents of {token_file}>")},
    }}});
    serde_json::to_string_pretty(&config).unwrap_or_default()
}

/// The two snippets: the stdio command, and HTTP when the bridge serves `/mcp`.
#[derive(Clone)]
struct Snippets {
    stdio: String,
    http: Option<String>,
}

/// Asks the bridge that served the page for its binary's absolute path and its `/mcp` address.
async fn bridge_snippets() -> Result<Snippets, String> {
    let value = super::load::fetch_json("/api/bridge")
        .await?
        .ok_or("this bridge does not name its binary")?;
    let command = value["command"]
        .as_str()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| "the bridge did not name its binary".to_owned())?;
    let http = match (value["mcp_url"].as_str(), value["mcp_token_file"].as_str()) {
        (Some(url), Some(file)) if !url.is_empty() && !file.is_empty() => {
            Some(http_snippet(url, file))
        }
        _ => None,
    };
    Ok(Snippets {
        stdio: mcp_snippet(command),
        http,
    })
}

/// The connection panel: the link's state in full and the configuration agents need.
#[component]
pub fn ConnectionPanel(
    state: RwSignal<LinkState>,
    impostor: RwSignal<Option<u16>>,
    link: StoredValue<Link, LocalStorage>,
    max_attempts: u32,
) -> impl IntoView {
    let snippets = RwSignal::new(None::<Result<Snippets, String>>);
    wasm_bindgen_futures::spawn_local(async move {
        snippets.set(Some(bridge_snippets().await));
    });
    let copied = RwSignal::new(None::<&'static str>);
    let copy = move |which: &'static str| {
        let text = match (snippets.get_untracked(), which) {
            (Some(Ok(snippets)), "stdio") => Some(snippets.stdio),
            (Some(Ok(snippets)), _) => snippets.http,
            _ => None,
        };
        if let (Some(text), Some(window)) = (text, web_sys::window()) {
            let _ = window.navigator().clipboard().write_text(&text);
            copied.set(Some(which));
        }
    };
    let label = move |which: &'static str| {
        if copied.get() == Some(which) {
            "Copied"
        } else {
            "Copy"
        }
    };
    view! {
        <div class="connection" data-testid="connection">
            <Indicator state=state impostor=impostor link=link max_attempts=max_attempts />
            <p class="muted">"Agents reach this tab through the bridge: add it to your MCP client's configuration (Claude Desktop: claude_desktop_config.json)."</p>
            {move || match snippets.get() {
                None => view! { <p class="muted">"…"</p> }.into_any(),
                Some(Err(message)) => view! { <p class="error">{format!("cannot ask the bridge for its path: {message}")}</p> }.into_any(),
                Some(Ok(Snippets { stdio, http })) => view! {
                    <pre class="snippet" data-testid="mcp-snippet">{stdio}</pre>
                    <button data-testid="copy-snippet" on:click=move |_| copy("stdio")>{move || label("stdio")}</button>
                    {http.map(|http| view! {
                        <p class="muted">"Clients that speak Streamable HTTP (IDEs, remote agents) connect to the hub instead, with the bearer token from the file named below (created 0600 for you; never share it)."</p>
                        <pre class="snippet" data-testid="mcp-http-snippet">{http}</pre>
                        <button data-testid="copy-http-snippet" on:click=move |_| copy("http")>{move || label("http")}</button>
                    })}
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

    #[test]
    fn the_http_snippet_names_the_address_and_the_token_file_not_a_token() {
        let text = http_snippet(
            "http://127.0.0.1:54319/mcp",
            "/home/u/.local/share/nexus/mcp-token",
        );
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let nexus = &value["mcpServers"]["nexus"];
        assert_eq!(nexus["type"], "http");
        assert_eq!(nexus["url"], "http://127.0.0.1:54319/mcp");
        assert_eq!(
            nexus["headers"]["Authorization"],
            "Bearer <the contents of /home/u/.local/share/nexus/mcp-token>"
        );
    }
}
