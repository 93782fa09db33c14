//! The connection indicator: connected / reconnecting in N s, attempt k of 20 / offline,
//! with one Disconnect-or-Reconnect button. The countdown ticks twice a second.

use gloo_timers::callback::Interval;
use leptos::prelude::*;
use nexus_shared::reconnect::LinkState;

use crate::link::Link;
use crate::link::status::{describe, tone};

#[component]
pub fn Indicator(
    state: RwSignal<LinkState>,
    link: StoredValue<Link, LocalStorage>,
    max_attempts: u32,
) -> impl IntoView {
    let now = RwSignal::new(js_sys::Date::now() as u64);
    let ticker = StoredValue::new_local(Some(Interval::new(500, move || {
        now.set(js_sys::Date::now() as u64)
    })));
    on_cleanup(move || ticker.update_value(|t| drop(t.take())));
    let text = move || state.with(|s| describe(s, max_attempts, now.get()));
    let online = move || state.with(|s| matches!(s, LinkState::Connected));
    let toggle = move |_| {
        if online() {
            link.with_value(Link::disconnect);
        } else {
            link.with_value(Link::reconnect);
        }
    };
    view! {
        <div class="link" data-testid="link" data-state=move || state.with(tone)>
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
