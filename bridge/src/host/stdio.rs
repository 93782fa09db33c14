//! A hosted server's stdio, bounded: stdout lines longer than `MAX_STDOUT_LINE_BYTES` end the
//! transport with a recorded fault, stderr is logged in capped lines at a capped rate.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};

use crate::ratelimit::RateLimiter;

/// Longest stdout line (one JSON-RPC message) a hosted server may write. Above every result the
/// host passes on (`MAX_RESULT_BYTES`) and below rmcp's own cap, which would drop the line and
/// go on: here the server is stopped and marked failed instead.
pub const MAX_STDOUT_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Longest stderr line logged; the rest is counted, not kept.
pub const MAX_STDERR_LINE_BYTES: usize = 4 * 1024;
/// Stderr lines logged per second per server (a burst of as many); the others are counted and
/// the count logged with the next line that passes.
pub const STDERR_LINES_PER_SECOND: u32 = 50;
/// How long a closed server may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Why a server's transport was cut by the bridge (set once).
#[derive(Clone, Default)]
pub struct Fault(Arc<OnceLock<String>>);

impl Fault {
    pub fn set(&self, why: String) {
        let _ = self.0.set(why);
    }

    pub fn get(&self) -> Option<String> {
        self.0.get().cloned()
    }
}

/// Reads through to `inner` and fails (recording `fault`) once a line passes `max` bytes.
pub struct LineCap<R> {
    inner: R,
    max: usize,
    run: usize,
    fault: Fault,
}

impl<R> LineCap<R> {
    pub fn new(inner: R, max: usize, fault: Fault) -> Self {
        Self {
            inner,
            max,
            run: 0,
            fault,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineCap<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        std::task::ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        for &byte in &buf.filled()[before..] {
            if byte == b'\n' {
                this.run = 0;
            } else {
                this.run += 1;
                if this.run > this.max {
                    let why = format!(
                        "wrote a stdout line longer than {} bytes (the limit of one message); stopped",
                        this.max
                    );
                    this.fault.set(why.clone());
                    // A failed read hands out no bytes.
                    buf.set_filled(before);
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, why)));
                }
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// A child process speaking MCP on its stdio, its stdout bounded; the process is asked to exit
/// (stdin closed) when the session closes and killed if it does not, or when dropped.
pub struct ChildTransport {
    inner: AsyncRwTransport<RoleClient, LineCap<ChildStdout>, ChildStdin>,
    child: Child,
}

impl ChildTransport {
    /// Takes the child's stdin and stdout (both piped); `None` when one is missing.
    pub fn new(mut child: Child, fault: Fault) -> Option<Self> {
        let stdin = child.stdin.take()?;
        let stdout = child.stdout.take()?;
        let read = LineCap::new(stdout, MAX_STDOUT_LINE_BYTES, fault);
        Some(Self {
            inner: AsyncRwTransport::new(read, stdin),
            child,
        })
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing stdin waits for a write in progress, which a server that stopped reading
        // never lets finish: the grace covers it too.
        let closed = tokio::time::timeout(EXIT_GRACE, self.inner.close()).await;
        if closed.is_err()
            || tokio::time::timeout(EXIT_GRACE, self.child.wait())
                .await
                .is_err()
        {
            self.child.kill().await?;
        }
        closed.unwrap_or(Ok(()))
    }
}

/// Logs a server's stderr: each line cut at `MAX_STDERR_LINE_BYTES`, at most
/// `STDERR_LINES_PER_SECOND`; memory stays bounded however long a line is.
pub async fn log_stderr(server: String, stderr: ChildStderr) {
    let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, stderr);
    let mut line = Vec::with_capacity(256);
    let mut cut = 0usize;
    let mut log = StderrLog::new(server);
    loop {
        let available = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(available) => available,
        };
        let newline = available.iter().position(|&b| b == b'\n');
        let end = newline.unwrap_or(available.len());
        let room = MAX_STDERR_LINE_BYTES.saturating_sub(line.len()).min(end);
        line.extend_from_slice(&available[..room]);
        cut += end - room;
        let consumed = newline.map_or(end, |at| at + 1);
        reader.consume(consumed);
        if newline.is_some() {
            log.line(&line, cut, Instant::now());
            line.clear();
            cut = 0;
        }
    }
    if !line.is_empty() || cut > 0 {
        log.line(&line, cut, Instant::now());
    }
}

/// The rate-limited log of one server's stderr lines.
struct StderrLog {
    server: String,
    limiter: Option<RateLimiter>,
    skipped: u64,
}

impl StderrLog {
    fn new(server: String) -> Self {
        Self {
            server,
            limiter: None,
            skipped: 0,
        }
    }

    /// Logs `line` (with `cut` bytes left out of it) if the rate allows; true when it did.
    fn line(&mut self, line: &[u8], cut: usize, now: Instant) -> bool {
        let limiter = self
            .limiter
            .get_or_insert_with(|| RateLimiter::new(STDERR_LINES_PER_SECOND, now));
        if !limiter.try_take(now) {
            self.skipped += 1;
            return false;
        }
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches('\r');
        let cut_note = if cut > 0 {
            format!(" … ({cut} more bytes not logged)")
        } else {
            String::new()
        };
        if self.skipped > 0 {
            tracing::info!(
                server = %self.server,
                "stderr: {} lines not logged (over {STDERR_LINES_PER_SECOND} per second)",
                self.skipped
            );
            self.skipped = 0;
        }
        tracing::info!(server = %self.server, "stderr: {text}{cut_note}");
        true
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn lines_within_the_cap_pass_and_a_longer_one_fails_with_a_fault() {
        let fault = Fault::default();
        let input: &[u8] = b"0123\n456789\n";
        let mut ok = LineCap::new(input, 6, fault.clone());
        let mut out = Vec::new();
        ok.read_to_end(&mut out).await.unwrap();
        assert_eq!(out, input);
        assert_eq!(fault.get(), None);

        let input: &[u8] = b"0123\n4567890\n";
        let mut long = LineCap::new(input, 6, fault.clone());
        let err = long.read_to_end(&mut Vec::new()).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(fault.get().unwrap().contains("longer than 6 bytes"));
    }

    #[tokio::test]
    async fn the_cap_counts_across_reads() {
        let fault = Fault::default();
        let (mut writer, reader) = tokio::io::duplex(4);
        let task = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = writer.write_all(b"abcdefgh").await;
        });
        let mut capped = LineCap::new(reader, 6, fault.clone());
        assert!(capped.read_to_end(&mut Vec::new()).await.is_err());
        assert!(fault.get().is_some());
        let _ = task.await;
    }

    #[test]
    fn stderr_lines_are_rate_limited_and_the_skipped_are_counted() {
        let mut log = StderrLog::new("s".into());
        let t0 = Instant::now();
        let logged = (0..STDERR_LINES_PER_SECOND * 2)
            .filter(|_| log.line(b"x", 0, t0))
            .count();
        assert_eq!(logged, STDERR_LINES_PER_SECOND as usize);
        assert_eq!(log.skipped, u64::from(STDERR_LINES_PER_SECOND));
        assert!(log.line(b"x", 0, t0 + Duration::from_secs(1)));
        assert_eq!(log.skipped, 0);
    }
}
