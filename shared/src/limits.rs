//! Limits every process enforces on the wire, as named constants.
//! They are part of the protocol: both ends use the same numbers, and tests pin them.

/// Version of the wire protocol; a `Hello` with another version is rejected. Version 2: the
/// mutual proof of the secret (`proof.rs`) replaced the secret in `Hello`.
pub const PROTOCOL_VERSION: u32 = 2;

/// Largest message a socket may send before both sides proved themselves (`Hello`, `Prove`,
/// chat `hello`/`prove`); a larger one ends the socket.
pub const MAX_HANDSHAKE_BYTES: usize = 4 * 1024;

/// Sockets (`/ws` and `/chat` together) that may be open at once before they proved the secret;
/// one more is refused with 503 before the upgrade.
pub const MAX_UNAUTHENTICATED_SOCKETS: usize = 32;

/// Frames the hub may hold for one socket that has not read them yet; a socket that falls this
/// far behind is dropped (its calls fail as for any lost link), so a slow reader cannot grow
/// the hub's memory.
pub const MAX_QUEUED_FRAMES: usize = 4096;

/// Largest frame (one WebSocket text message) accepted, in bytes. A call whose frame would be
/// larger fails with `TOO_LARGE` before it is sent; a larger incoming message ends its socket.
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// Calls one caller (a peer bridge, or the hub's own agent) may have in flight at the hub.
/// One more is answered at once with `RATE_LIMITED`.
pub const MAX_PENDING_CALLS_PER_PEER: usize = 256;

/// Frames one socket may send per second, sustained; a burst of one second's worth is allowed.
/// A `Call` over the rate is answered with `RATE_LIMITED`; other frames are read more slowly,
/// so nothing else is dropped and a flooding socket only slows itself. Above what the hub relays
/// (≈8,000 calls/s with 8 peers on 2 cores, release build) and far above what agents ask.
pub const MAX_FRAMES_PER_SECOND: u32 = 10_000;

/// Default port of the hub on the loopback interface.
pub const DEFAULT_PORT: u16 = 54319;

/// Time a new socket has to send its `Hello` before the hub closes it.
pub const HELLO_TIMEOUT_MS: u64 = 5_000;

/// Interval between heartbeats; a socket that has not answered a `Ping` for two intervals is
/// considered dead (it stopped reading, or its process hangs).
pub const HEARTBEAT_INTERVAL_MS: u64 = 10_000;

/// Default deadline of one relayed call of a quick tool.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 30_000;

/// Default deadline of one relayed call of a heavy tool (graph walks, queries, plans).
pub const DEFAULT_HEAVY_CALL_TIMEOUT_MS: u64 = 120_000;

/// Longest a call waits before it is relayed while the tab is behind the `--repo` folder: the
/// watcher holds unflushed changes, or the tab has not applied the last batch sent. After this
/// the call goes anyway (the tab notes the files still pending).
pub const STALE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

// Relations between the limits, checked when the crate compiles.
// A caller may fill its pending window in one burst without meeting the rate limit.
const _: () = assert!(MAX_PENDING_CALLS_PER_PEER as u64 <= MAX_FRAMES_PER_SECOND as u64);
const _: () = assert!(DEFAULT_HEAVY_CALL_TIMEOUT_MS > DEFAULT_CALL_TIMEOUT_MS);
const _: () = assert!(HELLO_TIMEOUT_MS < 2 * HEARTBEAT_INTERVAL_MS);
// A caller's whole pending window fits in a socket's queue with room for progress frames.
const _: () = assert!(MAX_PENDING_CALLS_PER_PEER * 4 <= MAX_QUEUED_FRAMES);
const _: () = assert!(MAX_HANDSHAKE_BYTES < MAX_FRAME_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_values() {
        assert_eq!(MAX_FRAME_BYTES, 1_048_576);
        assert_eq!(MAX_PENDING_CALLS_PER_PEER, 256);
        assert_eq!(MAX_FRAMES_PER_SECOND, 10_000);
        assert_eq!(PROTOCOL_VERSION, 2);
        assert_eq!(MAX_HANDSHAKE_BYTES, 4096);
        assert_eq!(MAX_UNAUTHENTICATED_SOCKETS, 32);
        assert_eq!(MAX_QUEUED_FRAMES, 4096);
        assert_eq!(HEARTBEAT_INTERVAL_MS, 10_000);
        assert_eq!(STALE_WAIT.as_millis(), 2_000);
    }
}
