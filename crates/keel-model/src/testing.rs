//! A loopback HTTP server for tests of the OpenAI-compatible provider: real TCP, one canned
//! response per connection, every request recorded. Behind the `testing` feature, so only
//! tests link it.
//!
//! Every Chat Completions request the server records is held to [`crate::wire::check_body`]:
//! when the [`Server`] is dropped at the end of a test, a malformed one fails the test, naming
//! each violation, whether or not the test looked at the requests ([`check_seen`] asks
//! earlier). [`request_log`] reads the scripted model's request log (`KEEL_SCRIPT_LOG`) the
//! same way, for tests of the `keel` binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// A loopback server that answers each connection with the next canned response, verbatim.
pub struct Server {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

/// Serves `responses`, one per connection, in order, on 127.0.0.1.
pub fn serve(responses: Vec<Vec<u8>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let url = format!(
        "http://{}/v1",
        listener.local_addr().unwrap_or_else(|e| panic!("{e}"))
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for response in responses {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap_or_else(|e| panic!("{e}")));
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line.split(' ').nth(1).unwrap_or_default().to_string();
            let mut headers = Vec::new();
            let mut length = 0;
            loop {
                line.clear();
                let _ = reader.read_line(&mut line);
                let l = line.trim_end();
                if l.is_empty() {
                    break;
                }
                if let Some((k, v)) = l.split_once(':') {
                    let (k, v) = (k.trim().to_lowercase(), v.trim().to_string());
                    if k == "content-length" {
                        length = v.parse().unwrap_or(0);
                    }
                    headers.push((k, v));
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(Seen {
                    path,
                    headers,
                    body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                });
            let _ = stream.write_all(&response);
            let _ = stream.flush();
        }
    });
    Server { url, seen }
}

/// Whether every Chat Completions request `server` recorded is well formed; the error names
/// each malformed one and all its violations.
pub fn check_seen(server: &Server) -> Result<(), String> {
    let problems: Vec<String> = seen(server)
        .iter()
        .enumerate()
        .filter(|(_, s)| s.path.ends_with("/chat/completions"))
        .filter_map(|(i, s)| {
            crate::wire::check_body(&s.body)
                .err()
                .map(|e| format!("request {i} to {}: {e}", s.path))
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A test that already failed says why itself; a second panic would abort.
        if std::thread::panicking() {
            return;
        }
        if let Err(e) = check_seen(self) {
            panic!("the loopback server received a malformed request:\n{e}");
        }
    }
}

/// The requests the scripted model logged to `path` (`KEEL_SCRIPT_LOG`), one JSON object a
/// line (`{"messages", "tools": [names]}`), none if there is no log (nothing was asked);
/// panics, naming the line and every violation, if one is not well formed
/// ([`crate::wire::check_messages_and_tool_names`]).
pub fn request_log(path: &std::path::Path) -> Vec<Value> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => panic!("cannot read the request log {}: {e}", path.display()),
    };
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let value: Value = serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("{} line {}: not JSON ({e}): {line}", path.display(), i + 1)
            });
            let names: Option<Vec<&str>> = value["tools"]
                .as_array()
                .and_then(|t| t.iter().map(Value::as_str).collect());
            let names = names.unwrap_or_else(|| {
                panic!(
                    "{} line {}: tools is not a list of names",
                    path.display(),
                    i + 1
                )
            });
            if let Err(e) =
                crate::wire::check_messages_and_tool_names(value.get("messages"), &names)
            {
                panic!("{} line {}: {e}", path.display(), i + 1);
            }
            value
        })
        .collect()
}

pub fn seen(server: &Server) -> Vec<Seen> {
    server
        .seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

pub fn sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
    );
    for e in events {
        out.push_str(&format!("data: {e}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

pub fn http(status: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
