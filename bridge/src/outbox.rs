//! A socket's outgoing queue on the hub (frames to tabs and peers, messages to chat pages), bounded
//! at `MAX_QUEUED_FRAMES`: a socket that falls that far behind is dropped, its memory bounded.

use nexus_shared::Frame;
use nexus_shared::limits::MAX_QUEUED_FRAMES;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_util::sync::CancellationToken;

/// Sends messages to one connected socket; clones share the queue.
pub struct Outbox<T> {
    tx: mpsc::Sender<T>,
    dropped: CancellationToken,
}

/// A tab's or peer's queue of frames.
pub type FrameSender = Outbox<Frame>;

impl<T> Clone for Outbox<T> {
    fn clone(&self) -> Self {
        Outbox {
            tx: self.tx.clone(),
            dropped: self.dropped.clone(),
        }
    }
}

impl<T> std::fmt::Debug for Outbox<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox")
            .field("room", &self.tx.capacity())
            .field("dropped", &self.dropped.is_cancelled())
            .finish()
    }
}

/// The frame was not queued: the socket is closing, or it fell too far behind and is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotQueued;

/// A socket's queue: the sender the hub keeps, the receiver its writer drains.
pub fn channel<T>() -> (Outbox<T>, mpsc::Receiver<T>) {
    let (tx, rx) = mpsc::channel(MAX_QUEUED_FRAMES);
    let dropped = CancellationToken::new();
    (Outbox { tx, dropped }, rx)
}

impl<T> Outbox<T> {
    /// Queues `frame` without waiting. A full queue marks the socket dropped.
    pub fn send(&self, frame: T) -> Result<(), NotQueued> {
        match self.tx.try_send(frame) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                if !self.dropped.is_cancelled() {
                    tracing::warn!(
                        limit = MAX_QUEUED_FRAMES,
                        "a socket stopped reading its frames; dropping it"
                    );
                }
                self.dropped.cancel();
                Err(NotQueued)
            }
            Err(TrySendError::Closed(_)) => Err(NotQueued),
        }
    }

    /// True while a quarter of the queue is free. A session reads its socket's next frame only
    /// then, so a client's own answers slow its sending down instead of filling the queue; what
    /// others send to a socket that stops reading still fills it, and it is dropped.
    pub fn has_room(&self) -> bool {
        self.tx.capacity() >= MAX_QUEUED_FRAMES / 4
    }

    /// Resolves once the socket's writer is gone.
    pub async fn closed(&self) {
        self.tx.closed().await
    }

    /// Cancelled once the socket fell `MAX_QUEUED_FRAMES` behind: its session must end.
    pub fn dropped(&self) -> CancellationToken {
        self.dropped.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_that_falls_behind_is_dropped_not_buffered() {
        let (tx, mut rx) = channel();
        assert!(tx.has_room());
        let ping = |nonce| Frame::Ping { nonce };
        for nonce in 0..MAX_QUEUED_FRAMES as u64 {
            assert_eq!(tx.send(ping(nonce)), Ok(()));
        }
        assert!(!tx.dropped().is_cancelled());
        assert!(
            !tx.has_room(),
            "a full queue stops the socket's own reading"
        );
        assert_eq!(tx.send(ping(0)), Err(NotQueued));
        assert!(tx.dropped().is_cancelled(), "the session is told to end");
        assert_eq!(rx.try_recv().ok(), Some(ping(0)));
        drop(rx);
        assert_eq!(tx.send(ping(1)), Err(NotQueued));
    }
}
