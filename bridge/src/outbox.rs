//! A socket's outgoing queue on the hub, bounded at `MAX_QUEUED_FRAMES`: a socket that falls that
//! far behind is marked dropped and its session ends, so a slow reader cannot grow memory.

use nexus_shared::Frame;
use nexus_shared::limits::MAX_QUEUED_FRAMES;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_util::sync::CancellationToken;

/// Sends frames to one connected socket; clones share the queue.
#[derive(Clone, Debug)]
pub struct FrameSender {
    tx: mpsc::Sender<Frame>,
    dropped: CancellationToken,
}

/// The frame was not queued: the socket is closing, or it fell too far behind and is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotQueued;

/// A socket's queue: the sender the hub keeps, the receiver its writer drains.
pub fn channel() -> (FrameSender, mpsc::Receiver<Frame>) {
    let (tx, rx) = mpsc::channel(MAX_QUEUED_FRAMES);
    let dropped = CancellationToken::new();
    (FrameSender { tx, dropped }, rx)
}

impl FrameSender {
    /// Queues `frame` without waiting. A full queue marks the socket dropped.
    pub fn send(&self, frame: Frame) -> Result<(), NotQueued> {
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
