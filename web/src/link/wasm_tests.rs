//! Browser tests of the link: real WebSocket, real timers, against the flap server
//! (`tests/src/bin/flap_server.rs`), which goes away and comes back.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use nexus_shared::reconnect::{LinkState, ReconnectPolicy};
use nexus_shared::{ErrorCode, Outcome, ToolError};
use wasm_bindgen_test::*;

use super::{Link, LinkConfig};

wasm_bindgen_test_configure!(run_in_browser);

/// The secret `flap-server` proves (`tests/src/bin/flap_server.rs`).
const FLAP_SECRET: &str = "f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9";

fn flap_url() -> String {
    option_env!("NEXUS_FLAP_URL")
        .unwrap_or("ws://127.0.0.1:54398/ws")
        .to_owned()
}

#[wasm_bindgen_test]
async fn timers_fire_in_order() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let (a, b) = (log.clone(), log.clone());
    let _late = gloo_timers::callback::Timeout::new(60, move || a.borrow_mut().push("late"));
    let _early = gloo_timers::callback::Timeout::new(10, move || b.borrow_mut().push("early"));
    TimeoutFuture::new(150).await;
    assert_eq!(*log.borrow(), ["early", "late"]);
}

/// Waits until `pred` holds for the recorded states, or fails after `ms`.
async fn wait_for(
    states: &Rc<RefCell<Vec<LinkState>>>,
    ms: u32,
    what: &str,
    pred: impl Fn(&[LinkState]) -> bool,
) {
    let mut waited = 0;
    while !pred(&states.borrow()) {
        assert!(
            waited < ms,
            "timed out waiting for {what}; states: {:?}",
            states.borrow()
        );
        TimeoutFuture::new(25).await;
        waited += 25;
    }
}

/// A link to the flap server proving with `secrets`, counting the calls it answers.
fn flap_link(secrets: Vec<String>) -> (Link, Rc<RefCell<u32>>) {
    let answered = Rc::new(RefCell::new(0));
    let count = answered.clone();
    let link = Link::new(
        LinkConfig {
            url: flap_url(),
            agent: "wasm-test".into(),
            secrets,
            policy: ReconnectPolicy::default(),
        },
        Rc::new(move |_, _, _, reply| {
            *count.borrow_mut() += 1;
            reply(Outcome::Err(ToolError::new(
                ErrorCode::NotImplemented,
                "test",
            )));
            Box::new(|| {})
        }),
    );
    (link, answered)
}

#[wasm_bindgen_test]
async fn a_server_that_cannot_prove_the_secret_gets_nothing() {
    let (link, answered) = flap_link(vec!["0".repeat(64)]);
    let states = Rc::new(RefCell::new(Vec::new()));
    let sink = states.clone();
    link.on_status(move |s| sink.borrow_mut().push(s.clone()));
    link.start();
    let port = super::port_of(&flap_url());
    let mut waited = 0;
    while link.impostor().is_none() {
        assert!(
            waited < 15_000,
            "the impostor was never named: {:?}",
            states.borrow()
        );
        TimeoutFuture::new(25).await;
        waited += 25;
    }
    assert_eq!(link.impostor(), Some(port));
    assert!(
        !states.borrow().contains(&LinkState::Connected),
        "{:?}",
        states.borrow()
    );
    // The server sent a `Call` right after its failed proof: it was not answered.
    assert_eq!(*answered.borrow(), 0);
    link.disconnect();
}

#[wasm_bindgen_test]
async fn link_reconnects_when_the_server_goes_away_and_comes_back() {
    // The right secret second: the hub's proof is checked against each kept secret.
    let (link, answered) = flap_link(vec!["0".repeat(64), FLAP_SECRET.to_owned()]);
    let states = Rc::new(RefCell::new(Vec::new()));
    let sink = states.clone();
    link.on_status(move |s| sink.borrow_mut().push(s.clone()));
    link.start();

    let connected = |s: &[LinkState]| s.iter().filter(|s| **s == LinkState::Connected).count();
    wait_for(&states, 15_000, "first connection", |s| connected(s) >= 1).await;
    wait_for(&states, 15_000, "the server to go away", |s| {
        matches!(s.last(), Some(LinkState::Waiting { .. }))
    })
    .await;
    wait_for(&states, 20_000, "reconnection", |s| connected(s) >= 2).await;

    let seen = states.borrow().clone();
    let waits: Vec<u32> = seen
        .iter()
        .filter_map(|s| match s {
            LinkState::Waiting { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect();
    assert!(
        waits.first() == Some(&1),
        "first wait is attempt 1: {seen:?}"
    );
    assert!(
        waits.windows(2).all(|w| w[1] == w[0] + 1 || w[1] == 1),
        "attempts count up: {waits:?}"
    );

    // Each cycle's `Call` came before its Welcome: never answered.
    assert_eq!(*answered.borrow(), 0);
    assert_eq!(link.impostor(), None);
    link.disconnect();
    assert_eq!(
        link.state(),
        LinkState::Offline(nexus_shared::reconnect::OfflineReason::UserStopped)
    );
}
