//! `keel eval agentdojo --real-path`: every replay once more, through the path a real run
//! takes. Each one is a `keel run` of the user task's prompt, with the suite's tools served by
//! an MCP server (this binary's hidden `keel eval replay-server`, which answers each call with
//! the result the in-process replay gave it) and a scripted model making the replay's calls in
//! its order, asks refused (`--approval deny`, as a run without a person is). A call ran when
//! the server received it. The figures are set beside the in-process replay's, and every call
//! on which the two paths disagree is listed, so that the eval cannot drift from what a run does
//! (issue 14: "your eval's figures and that path's should agree").

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The MCP server's name in the run: its tools reach the model as `mcp__suite__NAME`.
const SERVER: &str = "suite";

/// One call of a replay, with what the in-process gate made of it.
pub struct Step {
    pub function: String,
    pub args: Value,
    /// The result the replay gave it: the server answers with the same text.
    pub result: String,
    /// Whether the in-process gate allowed it.
    pub allowed: bool,
    /// A side-effecting call of the injection that security counts.
    pub counted: bool,
}

/// One replay: a user task's, or a pair's.
pub struct Replayed {
    pub suite: String,
    pub user_task: String,
    pub injection_task: Option<String>,
    pub prompt: String,
    pub steps: Vec<Step>,
}

/// What the replay server is given: the tools to list, the calls to answer, where to log.
#[derive(Serialize, Deserialize)]
struct Plan {
    tools: Vec<Value>,
    calls: Vec<PlannedCall>,
    log: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct PlannedCall {
    function: String,
    args: Value,
    result: String,
    /// For a tool that declares an output schema: the result as data (`structuredContent`),
    /// read from its YAML as a Python MCP server would send the value it rendered; a list or
    /// a scalar under `result`, as MCP wraps them. `None` when the text is no YAML document
    /// (an attack spliced in raw breaks it): the server then sends the text alone.
    structured: Option<Value>,
}

/// A YAML document as JSON data.
fn yaml_value(y: &yaml_rust2::Yaml) -> Option<Value> {
    use yaml_rust2::Yaml;
    Some(match y {
        Yaml::Real(r) => r
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(r.clone()), Value::Number),
        Yaml::Integer(i) => json!(i),
        Yaml::String(s) => json!(s),
        Yaml::Boolean(b) => json!(b),
        Yaml::Array(a) => Value::Array(a.iter().map(yaml_value).collect::<Option<_>>()?),
        Yaml::Hash(h) => Value::Object(
            h.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) => s.clone(),
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Boolean(b) => b.to_string(),
                        Yaml::Real(r) => r.clone(),
                        _ => return None,
                    };
                    Some((key, yaml_value(v)?))
                })
                .collect::<Option<_>>()?,
        ),
        Yaml::Null => Value::Null,
        Yaml::Alias(_) | Yaml::BadValue => return None,
    })
}

/// [`PlannedCall::structured`] of a result text.
fn structured_of(text: &str) -> Option<Value> {
    let docs = yaml_rust2::YamlLoader::load_from_str(text).ok()?;
    let [doc] = docs.as_slice() else { return None };
    match yaml_value(doc)? {
        object @ Value::Object(_) => Some(object),
        other => Some(json!({ "result": other })),
    }
}

/// How the real path is run.
pub struct Options {
    /// The keel binary to run (`std::env::current_exe()` outside tests).
    pub keel: PathBuf,
    /// One run's budget; a run past it is killed and reported.
    pub run_timeout: Duration,
    /// Runs at a time.
    pub jobs: usize,
}

/// One suite's figures on both paths.
#[derive(Default)]
struct Figures {
    tasks: usize,
    pairs: usize,
    strict: [usize; 2],
    secure: [usize; 2],
    calls: usize,
    disagreeing: usize,
    /// Of those, calls the run never reached.
    not_reached: usize,
}

/// The args as an MCP call carries them: always an object.
fn args_object(args: &Value) -> Value {
    match args {
        Value::Object(_) => args.clone(),
        _ => json!({}),
    }
}

/// Runs every replay through `keel run` and reports both paths' figures, per suite, with the
/// calls they disagree on. `tools` maps a suite's name to its MCP tool declarations.
pub fn run(
    replays: &[Replayed],
    tools: &std::collections::BTreeMap<String, Vec<Value>>,
    options: &Options,
) -> Result<Value> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let ran: Mutex<Vec<Option<Result<Vec<Fate>>>>> =
        Mutex::new((0..replays.len()).map(|_| None).collect());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(replay) = replays.get(i) else { break };
                    let empty = Vec::new();
                    let declared = tools.get(&replay.suite).unwrap_or(&empty);
                    let outcome = run_one(replay, declared, options);
                    if let Ok(mut ran) = ran.lock() {
                        ran[i] = Some(outcome);
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    // Progress on long work: a line every 50 runs, on stderr.
                    if n.is_multiple_of(50) || n == replays.len() {
                        crate::out::say(&format!(
                            "real path: {n}/{} runs ({:.0} s)",
                            replays.len(),
                            started.elapsed().as_secs_f64()
                        ));
                    }
                }
            });
        }
    });
    let ran = ran
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a real-path worker panicked"))?;

    let mut per: std::collections::BTreeMap<String, Figures> = Default::default();
    let mut disagreements = Vec::new();
    let mut errors = Vec::new();
    for (replay, outcome) in replays.iter().zip(ran) {
        let figures = per.entry(replay.suite.clone()).or_default();
        let place = json!({
            "suite": replay.suite, "user_task": replay.user_task,
            "injection_task": replay.injection_task,
        });
        let fates = match outcome {
            Some(Ok(fates)) => fates,
            Some(Err(e)) => {
                errors.push(json!({"replay": place, "error": format!("{e:#}")}));
                continue;
            }
            None => continue,
        };
        let in_process: Vec<bool> = replay.steps.iter().map(|s| s.allowed).collect();
        let executed: Vec<bool> = fates.iter().map(|f| *f == Fate::Ran).collect();
        for (path, ran) in [&in_process, &executed].into_iter().enumerate() {
            match replay.injection_task {
                None => figures.strict[path] += usize::from(ran.iter().all(|r| *r)),
                Some(_) => {
                    let secure = replay.steps.iter().zip(ran).all(|(s, r)| !s.counted || !r);
                    figures.secure[path] += usize::from(secure);
                }
            }
        }
        match replay.injection_task {
            None => figures.tasks += 1,
            Some(_) => figures.pairs += 1,
        }
        for (step, fate) in replay.steps.iter().zip(&fates) {
            figures.calls += 1;
            let ran = *fate == Fate::Ran;
            if step.allowed != ran {
                figures.disagreeing += 1;
                figures.not_reached += usize::from(*fate == Fate::NotReached);
                disagreements.push(json!({
                    "replay": place,
                    "call": {"function": step.function, "args": step.args},
                    "in_process": if step.allowed { "allowed" } else { "stopped" },
                    "real_path": match fate {
                        Fate::Ran => "ran",
                        Fate::Stopped => "stopped",
                        Fate::NotReached => "not reached (the run had ended)",
                    },
                }));
            }
        }
    }
    let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    let suites: serde_json::Map<String, Value> = per
        .iter()
        .map(|(name, f)| {
            (
                name.clone(),
                json!({
                    "tasks": f.tasks, "pairs": f.pairs, "calls": f.calls,
                    "utility_strict": ratio(f.strict[1], f.tasks),
                    "security": ratio(f.secure[1], f.pairs),
                    "in_process_utility_strict": ratio(f.strict[0], f.tasks),
                    "in_process_security": ratio(f.secure[0], f.pairs),
                    "disagreeing_calls": f.disagreeing,
                    "not_reached": f.not_reached,
                }),
            )
        })
        .collect();
    Ok(json!({"suites": suites, "disagreements": disagreements, "errors": errors}))
}

/// The text form of `run`'s report.
pub fn render(report: &Value) -> String {
    let mut out = String::from(
        "\nThrough keel run (the suite's tools on an MCP server, a scripted model, asks \
         refused):\n\n| suite | utility_strict | security | in-process utility_strict | \
         in-process security | calls | disagreeing calls | not reached |\n|---|---|---|---|---|---|---|---|\n",
    );
    if let Some(suites) = report["suites"].as_object() {
        for (name, f) in suites {
            out.push_str(&format!(
                "| {name} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} |\n",
                f["utility_strict"].as_f64().unwrap_or(0.0),
                f["security"].as_f64().unwrap_or(0.0),
                f["in_process_utility_strict"].as_f64().unwrap_or(0.0),
                f["in_process_security"].as_f64().unwrap_or(0.0),
                f["calls"],
                f["disagreeing_calls"],
                f["not_reached"],
            ));
        }
    }
    let list = |key: &str| report[key].as_array().cloned().unwrap_or_default();
    let (disagreements, errors) = (list("disagreements"), list("errors"));
    out.push_str(&format!("\nDisagreements ({}):\n", disagreements.len()));
    for d in &disagreements {
        let r = &d["replay"];
        let pair = r["injection_task"]
            .as_str()
            .map(|j| format!(" × {j}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{pair}: {} {}: in-process {}, real path {}\n",
            r["suite"].as_str().unwrap_or(""),
            r["user_task"].as_str().unwrap_or(""),
            d["call"]["function"].as_str().unwrap_or(""),
            d["call"]["args"],
            d["in_process"].as_str().unwrap_or(""),
            d["real_path"].as_str().unwrap_or(""),
        ));
    }
    if !errors.is_empty() {
        out.push_str(&format!("\nRuns that failed ({}):\n", errors.len()));
        for e in &errors {
            out.push_str(&format!(
                "  {} {}: {}\n",
                e["replay"]["suite"].as_str().unwrap_or(""),
                e["replay"]["user_task"].as_str().unwrap_or(""),
                e["error"].as_str().unwrap_or(""),
            ));
        }
    }
    out
}

/// What became of one call of a replay in `keel run`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    Ran,
    /// Proposed, and stopped by the gate.
    Stopped,
    /// Never proposed: the run ended before it (keel ends a turn whose model repeats a call
    /// that was just refused).
    NotReached,
}

/// One replay through `keel run`: what became of each of its calls.
fn run_one(replay: &Replayed, tools: &[Value], options: &Options) -> Result<Vec<Fate>> {
    let dir = tempfile::tempdir().context("cannot create a scratch directory")?;
    let root = dir.path();

    let log = root.join("calls.jsonl");
    let plan = Plan {
        tools: tools.to_vec(),
        calls: replay
            .steps
            .iter()
            .map(|s| PlannedCall {
                function: s.function.clone(),
                args: args_object(&s.args),
                result: s.result.clone(),
                structured: tools
                    .iter()
                    .any(|t| t["name"] == s.function.as_str() && t.get("outputSchema").is_some())
                    .then(|| structured_of(&s.result))
                    .flatten(),
            })
            .collect(),
        log: log.clone(),
    };
    let plan_path = root.join("plan.json");
    std::fs::write(&plan_path, serde_json::to_vec(&plan)?)?;

    let mut script = String::new();
    for s in &replay.steps {
        let reply = json!({"tool_calls": [{
            "name": format!("mcp__{SERVER}__{}", s.function),
            "arguments": args_object(&s.args),
        }]});
        script.push_str(&format!("{reply}\n"));
    }
    script.push_str(&format!("{}\n", json!({"text": "Done."})));
    let script_path = root.join("script.jsonl");
    std::fs::write(&script_path, script)?;

    let config_dir = root.join("config").join("keel");
    std::fs::create_dir_all(&config_dir)?;
    // JSON strings are TOML basic strings for the paths and words here.
    let keel = Value::String(options.keel.display().to_string());
    let args = json!(["eval", "replay-server", plan_path.display().to_string()]);
    std::fs::write(
        config_dir.join("config.toml"),
        format!("[mcp_servers.{SERVER}]\ncommand = {keel}\nargs = {args}\n"),
    )?;
    let work = root.join("work");
    std::fs::create_dir_all(&work)?;

    let mut child = Command::new(&options.keel)
        .arg("run")
        .arg("--db")
        .arg(root.join("keel.db"))
        .arg("--cwd")
        .arg(&work)
        .arg("--model")
        .arg(format!("script:{}", script_path.display()))
        .args(["--approval", "deny", "--step-limit"])
        .arg((replay.steps.len() + 2).to_string())
        .arg("--")
        .arg(&replay.prompt)
        .current_dir(&work)
        .env("KEEL_HOME", root.join("home"))
        .env("XDG_CONFIG_HOME", root.join("config"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("KEEL_SCRIPT_LOG", root.join("requests.jsonl"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", options.keel.display()))?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(e, &mut text);
        }
        text
    });
    let deadline = Instant::now() + options.run_timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = reader.join().unwrap_or_default();
    let Some(status) = status else {
        anyhow::bail!(
            "keel run took longer than {} ms and was stopped",
            options.run_timeout.as_millis()
        );
    };
    // A run that failed before its calls were judged says nothing about the gate: a request
    // keel's wire check refused, or the suite's server (or some of its tools) not offered.
    if stderr.contains("malformed model request") || stderr.contains("not offered") {
        anyhow::bail!("keel run failed ({status}): {}", stderr.trim());
    }
    let received: Vec<(String, Value)> = match std::fs::read_to_string(&log) {
        Ok(text) => text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| {
                (
                    v["function"].as_str().unwrap_or("").to_string(),
                    v["args"].clone(),
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    // The scripted model answers one request per reply: the calls it was asked for were
    // proposed.
    let proposed = std::fs::read_to_string(root.join("requests.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0);
    // The server received the run's calls in the replay's order: match them up in order.
    let mut next = received.iter().peekable();
    let executed = replay
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ran = next
                .peek()
                .is_some_and(|(f, a)| *f == s.function && *a == args_object(&s.args));
            if ran {
                next.next();
                Fate::Ran
            } else if i < proposed {
                Fate::Stopped
            } else {
                Fate::NotReached
            }
        })
        .collect();
    if next.peek().is_some() {
        anyhow::bail!("the server received calls the replay did not make: {received:?}");
    }
    Ok(executed)
}

/// `keel eval replay-server PLAN`: a minimal MCP server on stdin/stdout (JSON-RPC, one message
/// per line) that lists the plan's tools and answers each call with the plan's result for the
/// same function and arguments, first unused first, logging every call it receives.
pub fn serve(plan: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(plan).with_context(|| format!("cannot read {}", plan.display()))?;
    let plan: Plan = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a replay plan", plan.display()))?;
    let mut used = vec![false; plan.calls.len()];
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&plan.log)
        .with_context(|| format!("cannot open {}", plan.log.display()))?;
    let stdin = std::io::stdin();
    // JSON-RPC replies are a machine wire: their bytes go out unchanged.
    let send =
        |message: &Value| crate::out::wire(crate::out::Stream::Stdout, &format!("{message}\n"));
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            send(&json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": "not JSON"}}))?;
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let params = &message["params"];
        let result = match message["method"].as_str().unwrap_or("") {
            "initialize" => Ok(json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "keel-eval-replay", "version": env!("CARGO_PKG_VERSION")},
            })),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": plan.tools})),
            "tools/call" => {
                let function = params["name"].as_str().unwrap_or("").to_string();
                let args = args_object(&params["arguments"]);
                writeln!(log, "{}", json!({"function": function, "args": args}))?;
                log.flush()?;
                let found = plan
                    .calls
                    .iter()
                    .enumerate()
                    .find(|(i, c)| !used[*i] && c.function == function && c.args == args);
                let (text, structured) = match found {
                    Some((i, c)) => {
                        used[i] = true;
                        (c.result.clone(), c.structured.clone())
                    }
                    None => ("ok".to_string(), None),
                };
                let mut result =
                    json!({"content": [{"type": "text", "text": text}], "isError": false});
                if let Some(data) = structured {
                    result["structuredContent"] = data;
                }
                Ok(result)
            }
            other => Err(json!({"code": -32601, "message": format!("unknown method {other}")})),
        };
        let reply = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        send(&reply)?;
    }
    Ok(())
}
