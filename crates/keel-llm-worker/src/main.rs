//! keel-llm-worker: keel's local GGUF model, in a process of its own.
//!
//! llama.cpp is C++ that can abort; running it here means an abort takes down this process,
//! never the runtime or its run state. keel (keel-model's `local` provider) starts the worker,
//! waits for its ready line, sends one JSON request per line and reads one JSON answer per
//! line. The lines are keel-worker-protocol's types, which keel-model reads with the same
//! definitions.
//!
//! The worker knows nothing about tools: keel sends the grammar (built from the offered tools'
//! JSON schemas), and the sampler only ever picks tokens the grammar allows, so the output is
//! always well formed. Sampling is greedy, so the same request gives the same answer.

use std::ffi::CString;
use std::io::{BufRead, Write};

use keel_worker_protocol::{Answer, DEFAULT_CONTEXT_WINDOW, Failure, FailureKind, Ready, Request};

// llama.cpp's C API, made safe: the crate's only unsafe code.
#[allow(unsafe_code)]
mod llama;

use llama::{Backend, Batch, Context, Model, Sampler, Token};

/// DRY's settings, as llama.cpp's server recommends them: the penalty grows as
/// `multiplier * base^(length - allowed_length)` over the last `window` tokens.
const DRY_MULTIPLIER: f32 = 0.8;
const DRY_BASE: f32 = 1.75;
const DRY_ALLOWED_LENGTH: i32 = 2;
const DRY_WINDOW: i32 = 256;
use serde_json::json;

struct Args {
    model: String,
    ctx: u32,
    threads: i32,
    /// `--bench`: measure instead of serving (see [`bench`]).
    bench: bool,
}

fn args() -> Result<Args, String> {
    let mut model = None;
    let mut ctx = DEFAULT_CONTEXT_WINDOW;
    let mut threads = std::thread::available_parallelism().map_or(2, |n| n.get() as i32);
    let mut bench = false;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => model = Some(value()?),
            "--ctx" => ctx = value()?.parse().map_err(|_| "--ctx must be a number")?,
            "--threads" => threads = value()?.parse().map_err(|_| "--threads must be a number")?,
            "--bench" => bench = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Args {
        model: model.ok_or("usage: keel-llm-worker --model PATH.gguf [--ctx N] [--threads N]")?,
        ctx,
        threads,
        bench,
    })
}

/// One line on stdout, flushed.
fn say(line: &impl serde::Serialize) {
    let mut out = std::io::stdout().lock();
    if let Ok(text) = serde_json::to_string(line) {
        let _ = writeln!(out, "{text}");
    }
    let _ = out.flush();
}

fn failure(kind: FailureKind, error: String) -> Failure {
    Failure { error, kind }
}

fn main() {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            say(&failure(FailureKind::BadRequest, e));
            std::process::exit(2);
        }
    };
    if let Err(e) = serve(&args) {
        say(&failure(FailureKind::Failed, e));
        std::process::exit(1);
    }
}

struct Worker<'m> {
    model: &'m Model<'m>,
    ctx: Context<'m>,
    /// The model's chat template, or the name of one llama.cpp knows.
    template: CString,
    n_ctx: usize,
    /// The tokens whose keys and values are in the cache, from position 0. A request that
    /// starts with them (the same conversation, one step on) only evaluates what is new.
    cached: Vec<Token>,
}

fn serve(args: &Args) -> Result<(), String> {
    let started = std::time::Instant::now();
    let backend = Backend::init().map_err(|e| format!("llama.cpp: {e}"))?;
    let model = Model::load(&backend, &args.model)
        .map_err(|e| format!("cannot load the model {}: {e}", args.model))?;
    let n_ctx = args.ctx.min(model.n_ctx_train()).max(256);
    let ctx = Context::new(&model, n_ctx, n_ctx, args.threads)
        .map_err(|e| format!("cannot create a context of {n_ctx} tokens: {e}"))?;
    // The model's own template; ChatML (what SmolLM2 uses) when it carries none.
    let template = model
        .chat_template()
        .unwrap_or_else(|| c"chatml".to_owned());
    if args.bench {
        return bench(&model, ctx, args, started.elapsed());
    }
    let mut worker = Worker {
        model: &model,
        ctx,
        template,
        n_ctx: n_ctx as usize,
        cached: Vec::new(),
    };
    say(&Ready {
        ready: true,
        n_ctx: Some(u64::from(n_ctx)),
        model: args.model.clone(),
    });
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("reading stdin: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Request>(&line) {
            Ok(request) => match worker.answer(&request) {
                Ok(answer) => say(&answer),
                Err(failed) => say(&failed),
            },
            Err(e) => say(&failure(
                FailureKind::BadRequest,
                format!("not a request: {e}"),
            )),
        }
    }
    Ok(())
}

impl Worker<'_> {
    fn answer(&mut self, request: &Request) -> Result<Answer, Failure> {
        self.generate(request).inspect_err(|_| {
            // Whatever the cache holds now is not known to match anything.
            self.cached.clear();
            self.ctx.clear_kv_cache();
        })
    }

    fn generate(&mut self, request: &Request) -> Result<Answer, Failure> {
        let failed = |e: String| failure(FailureKind::Failed, e);
        let chat = request
            .messages
            .iter()
            .map(|m| {
                Ok((
                    CString::new(m.role.clone())?,
                    CString::new(m.content.clone())?,
                ))
            })
            .collect::<Result<Vec<_>, std::ffi::NulError>>()
            .map_err(|e| {
                failure(
                    FailureKind::BadRequest,
                    format!("a message cannot be used: {e}"),
                )
            })?;
        let prompt = self
            .model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| failed(format!("chat template: {e}")))?;
        let tokens = self.model.tokenize(&prompt).map_err(failed)?;
        let max_tokens = request.max_tokens.max(1);
        if tokens.len() + max_tokens > self.n_ctx {
            return Err(failure(
                FailureKind::ContextOverflow,
                format!(
                    "the prompt is {} tokens and the answer may take {max_tokens}, but the \
                     context window is {} tokens",
                    tokens.len(),
                    self.n_ctx
                ),
            ));
        }
        // Reuse the cached prefix; at least the last prompt token is evaluated, for its logits.
        let common = self
            .cached
            .iter()
            .zip(&tokens)
            .take_while(|(a, b)| a == b)
            .count();
        let mut keep = common.min(tokens.len() - 1);
        if !self.ctx.truncate_kv_cache(keep as u32) {
            self.ctx.clear_kv_cache();
            keep = 0;
        }
        self.cached.truncate(keep);
        let mut batch = Batch::new(self.n_ctx);
        let last = tokens.len() - 1;
        for (i, token) in tokens.iter().enumerate().skip(keep) {
            batch.add(*token, i as i32, i == last).map_err(failed)?;
        }
        self.ctx
            .decode(&batch)
            .map_err(|e| failed(format!("decode: {e}")))?;
        self.cached.extend_from_slice(&tokens[keep..]);
        // A small model that greedy-decodes a list falls into a loop ("README.md, Cargo.toml,
        // README.md, …", entries it never read). DRY ("don't repeat yourself", llama.cpp's
        // sampler) lowers a token that would extend a run already written, and only once the
        // run is longer than two tokens — so ", " between entries and a JSON key the grammar
        // requires are not touched. Only the reply's own tokens count.
        let penalty = || {
            Sampler::dry(
                self.model,
                DRY_MULTIPLIER,
                DRY_BASE,
                DRY_ALLOWED_LENGTH,
                DRY_WINDOW,
                &["\n", ":", "\"", "*"],
            )
            .map_err(failed)
        };
        let mut samplers = Vec::new();
        if let Some(g) = &request.grammar {
            samplers.push(Sampler::grammar(self.model, g, "root").map_err(|e| {
                failure(
                    FailureKind::BadRequest,
                    format!("the grammar does not parse: {e}"),
                )
            })?);
        }
        samplers.push(penalty()?);
        samplers.push(Sampler::greedy().map_err(failed)?);
        let mut sampler = Sampler::chain(samplers).map_err(failed)?;
        let mut out: Vec<u8> = Vec::new();
        let mut position = tokens.len() as i32;
        let mut finished = false;
        for _ in 0..max_tokens {
            let token = sampler.sample(&mut self.ctx, batch.n_tokens() - 1);
            if self.model.is_eog(token) {
                finished = true;
                break;
            }
            out.extend(self.model.token_to_piece(token));
            batch.clear();
            batch.add(token, position, true).map_err(failed)?;
            position += 1;
            self.ctx
                .decode(&batch)
                .map_err(|e| failed(format!("decode: {e}")))?;
            self.cached.push(token);
        }
        Ok(Answer {
            text: String::from_utf8_lossy(&out).into_owned(),
            finished,
            prompt_tokens: Some(tokens.len() as u64),
            completion_tokens: Some((position as usize - tokens.len()) as u64),
            reused_tokens: Some(keep as u64),
        })
    }
}

/// `--bench`: the figures llama.cpp's own `llama-bench` reports, measured the same way on the
/// same file — prompt processing of 512 tokens in one batch (pp512) and generation of 128 tokens
/// one at a time (tg128), in tokens per second, each the mean of three runs — plus how long
/// the worker took to be ready. One JSON line.
fn bench(
    model: &Model<'_>,
    mut ctx: Context<'_>,
    args: &Args,
    start: std::time::Duration,
) -> Result<(), String> {
    let failed = |e: String| format!("bench: {e}");
    let token = model.bos();
    let runs = 3;
    let mut pp = Vec::new();
    let mut tg = Vec::new();
    for _ in 0..runs {
        ctx.clear_kv_cache();
        let mut batch = Batch::new(512);
        for i in 0..512 {
            batch.add(token, i, i == 511).map_err(failed)?;
        }
        let t = std::time::Instant::now();
        ctx.decode(&batch).map_err(failed)?;
        pp.push(512.0 / t.elapsed().as_secs_f64());
        ctx.clear_kv_cache();
        let t = std::time::Instant::now();
        for i in 0..128 {
            let mut one = Batch::new(1);
            one.add(token, i, true).map_err(failed)?;
            ctx.decode(&one).map_err(failed)?;
        }
        tg.push(128.0 / t.elapsed().as_secs_f64());
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // Not a protocol line: a report for a person (or a script) measuring the machine.
    say(&json!({
        "model": args.model,
        "threads": args.threads,
        "start_ms": start.as_millis(),
        "pp512_tokens_per_s": (mean(&pp) * 10.0).round() / 10.0,
        "tg128_tokens_per_s": (mean(&tg) * 10.0).round() / 10.0,
    }));
    Ok(())
}
