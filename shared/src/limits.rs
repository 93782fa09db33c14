//! Limits every process enforces on the wire, as named constants.
//! They are part of the protocol: both ends use the same numbers, and tests pin them.

/// Version of the wire protocol; a `Hello` with another version is rejected.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest frame (one WebSocket text message) accepted, in bytes.
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// Default port of the hub on the loopback interface.
pub const DEFAULT_PORT: u16 = 54319;

/// Time a new socket has to send its `Hello` before the hub closes it.
pub const HELLO_TIMEOUT_MS: u64 = 5_000;

/// Interval between heartbeats; a socket silent for two intervals is considered dead.
pub const HEARTBEAT_INTERVAL_MS: u64 = 10_000;

/// Default deadline of one relayed tool call.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 30_000;
