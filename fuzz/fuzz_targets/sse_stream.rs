//! The SSE stream of a Chat Completions server (keel-model's `openai::read_stream`): the bytes
//! of a streamed answer, as keel reads them off the socket, into one model reply.
//!
//! Beyond never panicking: the text handed to the terminal as it streams is exactly the
//! reply's text; every proposed call has a name and an id, and arguments that are a JSON
//! value; and CRLF line ends read as LF ones do.
#![no_main]

use keel_model::openai::read_stream;
use keel_model::{ModelError, ModelReply};
use libfuzzer_sys::fuzz_target;

fn read(bytes: &[u8]) -> (Result<ModelReply, ModelError>, String) {
    let mut streamed = String::new();
    let reply = read_stream(bytes, &mut |t| streamed.push_str(t), "http://fuzz", None);
    (reply, streamed)
}

fuzz_target!(|data: &[u8]| {
    let (reply, streamed) = read(data);
    if let Ok(reply) = &reply {
        assert_eq!(reply.text, streamed);
        for call in &reply.tool_calls {
            assert!(!call.name.is_empty() && !call.id.is_empty(), "{call:?}");
        }
    }
    if !data.contains(&b'\r') {
        let crlf: Vec<u8> = data
            .split(|&b| b == b'\n')
            .collect::<Vec<_>>()
            .join(&b"\r\n"[..]);
        let (again, _) = read(&crlf);
        match (&reply, &again) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(_), Err(_)) => {}
            _ => panic!("LF read {reply:?}, CRLF read {again:?}"),
        }
    }
});
