//! The HTTP client of every provider the bridge holds a key for (the chat LLM, embeddings): it
//! follows no redirect (a key header must never reach another address), and bodies are read capped.

use std::time::Duration;

/// Most of an error answer read (its text goes into one error message).
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// A client that never follows redirects: a 3xx comes back as the answer (an error naming it).
pub fn client(timeout: Option<Duration>) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none());
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder.build().unwrap_or_else(|err| {
        tracing::error!("cannot build the providers' HTTP client: {err}");
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default()
    })
}

/// The first `limit` bytes of `response`'s body (the rest is never read), and whether there was
/// more. A read error ends the body where it broke.
pub async fn read_capped(mut response: reqwest::Response, limit: usize) -> (Vec<u8>, bool) {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = limit - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    return (body, true);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) | Err(_) => return (body, false),
        }
    }
}

/// The start of an error answer's text (at most `MAX_ERROR_BODY_BYTES` read, `chars` kept), with
/// a note when the answer is a redirect, which is never followed.
pub async fn error_text(response: reqwest::Response, chars: usize) -> String {
    let redirect = response.status().is_redirection().then(|| {
        let to = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("?")
            .chars()
            .take(200)
            .collect::<String>();
        format!("a redirect to {to}, not followed (the key stays with the configured address; configure the final one) ")
    });
    let (body, _) = read_capped(response, MAX_ERROR_BODY_BYTES).await;
    let text: String = String::from_utf8_lossy(&body).chars().take(chars).collect();
    format!("{}{text}", redirect.unwrap_or_default())
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::{Arc, Mutex};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// Requests (their head) a test server received.
    pub(crate) type Heard = Arc<Mutex<Vec<String>>>;

    /// An HTTP/1.1 server on a free port answering every request with `answer` (whole, raw),
    /// closing after each; returns its URL and what it heard.
    pub(crate) async fn serve(
        answer: impl Fn(&str) -> Vec<u8> + Send + Sync + 'static,
    ) -> (String, Heard) {
        // As `main` does before any client is built.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let heard: Heard = Arc::default();
        let log = heard.clone();
        let answer = Arc::new(answer);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let log = log.clone();
                let answer = answer.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match socket.read(&mut byte).await {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let head = String::from_utf8_lossy(&head).into_owned();
                    let reply = answer(&head);
                    log.lock().unwrap().push(head);
                    let _ = socket.write_all(&reply).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        (url, heard)
    }

    /// A `307` to `target`.
    pub(crate) fn redirect_to(target: String) -> impl Fn(&str) -> Vec<u8> + Send + Sync + 'static {
        move |_| {
            format!("HTTP/1.1 307 Temporary Redirect\r\nlocation: {target}/stolen\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .into_bytes()
        }
    }

    #[tokio::test]
    async fn a_redirect_is_not_followed_and_says_so() {
        let (target, target_heard) =
            serve(|_| b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_vec()).await;
        let (url, heard) = serve(redirect_to(target)).await;
        let response = client(None)
            .post(format!("{url}/v1/messages"))
            .header("x-api-key", "sk-secret-key")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 307);
        let text = error_text(response, 300).await;
        assert!(text.contains("a redirect to http://127.0.0.1:"), "{text}");
        assert!(text.contains("not followed"), "{text}");
        assert_eq!(heard.lock().unwrap().len(), 1);
        assert!(
            target_heard.lock().unwrap().is_empty(),
            "the redirect was followed"
        );
    }

    #[tokio::test]
    async fn an_endless_error_body_is_read_only_up_to_the_cap() {
        let (url, _) = serve(|_| {
            let mut reply =
                b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 10485760\r\n\r\n".to_vec();
            reply.extend(std::iter::repeat_n(b'e', 10 * 1024 * 1024));
            reply
        })
        .await;
        let response = client(None).get(&url).send().await.unwrap();
        let (body, more) = read_capped(response, MAX_ERROR_BODY_BYTES).await;
        assert_eq!(body.len(), MAX_ERROR_BODY_BYTES);
        assert!(more);
    }
}
