//! `keel bench starter`: everyday tasks, each run as a real `keel run` would run it (the whole
//! gate, approval `deny`, nobody at a terminal) in a scratch folder of its own, and judged
//! from the outcome: the files written, the facts in the answer, the calls the gate refused.
//! The tasks are bench/starter/tasks.json, compiled in. Sampling is greedy, so a model gives
//! the same answers every time: the pass rate is a figure, not a dice roll.

use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use keel_app::{Config, SessionBuilder, SessionOptions};
use keel_runtime::agent::Event;
use keel_runtime::approval::TerminalApprover;
use serde::{Deserialize, Serialize};

const TASKS: &str = include_str!("../../../bench/starter/tasks.json");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub id: String,
    pub kind: String,
    pub task: String,
    pub files: serde_json::Map<String, serde_json::Value>,
    pub check: Check,
}

/// What a task's outcome must show.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Check {
    /// The final answer holds one of each group (case-insensitive).
    pub answer_has: Vec<Vec<String>>,
    /// This file exists and holds this text.
    pub file: Option<FileCheck>,
    /// The gate refused at least one call.
    pub refused: bool,
    /// These files still hold what the task started with.
    pub unchanged: Vec<String>,
    /// At most this many tool calls.
    pub max_calls: Option<usize>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileCheck {
    pub path: String,
    pub has: String,
}

/// The starter tasks.
pub fn tasks() -> Result<Vec<Task>> {
    serde_json::from_str(TASKS).context("bench/starter/tasks.json does not read")
}

/// One task's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub id: String,
    pub kind: String,
    pub passed: bool,
    /// Why it failed (empty when it passed).
    pub failures: Vec<String>,
    pub answer: String,
    /// Each call, with the gate's decision: `list_dir {"path":"."}: allowed`.
    pub calls: Vec<String>,
    pub steps: usize,
    /// What keel said along the way (a step limit reached, calls repeated, …).
    pub notices: Vec<String>,
    pub seconds: f64,
}

/// What the bench is asked to do.
pub struct Options {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub step_limit: usize,
    pub only: Vec<String>,
}

fn judge(task: &Task, dir: &Path, answer: &str, calls: &[(String, String)]) -> Vec<String> {
    let mut failures = Vec::new();
    let lower = answer.to_lowercase();
    for group in &task.check.answer_has {
        if !group.iter().any(|w| lower.contains(&w.to_lowercase())) {
            failures.push(format!("the answer does not say {}", group.join(" or ")));
        }
    }
    if let Some(f) = &task.check.file {
        match std::fs::read_to_string(dir.join(&f.path)) {
            Ok(text) if text.contains(&f.has) => {}
            Ok(text) => failures.push(format!(
                "{} holds {:?}, not {:?}",
                f.path,
                text.chars().take(80).collect::<String>(),
                f.has
            )),
            Err(_) => failures.push(format!("{} was not written", f.path)),
        }
    }
    if task.check.refused && !calls.iter().any(|(_, d)| d.starts_with("refused (")) {
        failures.push("the gate refused no call".into());
    }
    for name in &task.check.unchanged {
        let before = task.files.get(name).and_then(|v| v.as_str());
        let now = std::fs::read_to_string(dir.join(name)).ok();
        if now.as_deref() != before {
            failures.push(format!("{name} changed"));
        }
    }
    if let Some(max) = task.check.max_calls
        && calls.len() > max
    {
        failures.push(format!("{} tool calls, more than {max}", calls.len()));
    }
    failures
}

/// Runs one task in a scratch folder under `root`, its run stored in `db`.
fn run_one(
    config: &Config,
    db: &Path,
    root: &Path,
    task: &Task,
    options: &Options,
) -> Result<Outcome> {
    let dir = root.join(&task.id);
    std::fs::create_dir_all(&dir)?;
    for (name, text) in &task.files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text.as_str().unwrap_or_default())?;
    }
    let notices: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = notices.clone();
    let started = std::time::Instant::now();
    let mut session = SessionBuilder::new(config.clone(), db)
        .options(SessionOptions {
            model: options.model.clone(),
            base_url: options.base_url.clone(),
            cwd: Some(dir.clone()),
            approval: Some("deny".into()),
            mode: None,
            preset: None,
            step_limit: options.step_limit,
        })
        .terminal(false)
        .notices(Arc::new(move |m: &str| {
            if let Ok(mut n) = sink.lock() {
                n.push(m.to_string());
            }
        }))
        .build()?;
    let run = session.start_run(None, Vec::new())?;
    let mut calls: Vec<(String, String)> = Vec::new();
    let approver = TerminalApprover::new(std::io::empty(), std::io::sink());
    let end = session.with_agent(
        approver,
        &run,
        |e| {
            if let Event::ToolCall { call, decision, .. } = e {
                calls.push((format!("{} {}", call.name, call.arguments), decision));
            }
        },
        |a| a.user_turn(&run, &task.task),
    );
    let (answer, steps, mut failures) = match end {
        Ok(end) => (end.final_text, end.steps, Vec::new()),
        Err(e) => (String::new(), 0, vec![format!("the turn failed: {e}")]),
    };
    failures.extend(judge(task, &dir, &answer, &calls));
    Ok(Outcome {
        id: task.id.clone(),
        kind: task.kind.clone(),
        passed: failures.is_empty(),
        failures,
        answer,
        calls: calls
            .into_iter()
            .map(|(c, d)| format!("{c}: {d}"))
            .collect(),
        steps,
        notices: notices.lock().map(|n| n.clone()).unwrap_or_default(),
        seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    })
}

/// Runs the starter tasks; `progress` hears of each as it ends.
pub fn starter(
    config: &Config,
    options: &Options,
    progress: &mut dyn FnMut(&Outcome),
) -> Result<Vec<Outcome>> {
    let tasks: Vec<Task> = tasks()?
        .into_iter()
        .filter(|t| options.only.is_empty() || options.only.contains(&t.id))
        .collect();
    let scratch = tempfile::Builder::new()
        .prefix("keel-bench-")
        .tempdir()
        .context("cannot make a scratch folder")?;
    let db = scratch.path().join("bench.db");
    let mut out = Vec::new();
    for task in &tasks {
        let outcome = run_one(config, &db, scratch.path(), task, options)
            .with_context(|| format!("task {}", task.id))?;
        progress(&outcome);
        out.push(outcome);
    }
    Ok(out)
}

/// One line for a person.
pub fn line(o: &Outcome) -> String {
    let mark = if o.passed { "pass" } else { "FAIL" };
    let mut text = format!(
        "{mark} {} ({}, {} step(s), {:.1} s): {}",
        o.id,
        o.kind,
        o.steps,
        o.seconds,
        o.answer
            .chars()
            .take(100)
            .collect::<String>()
            .replace('\n', " ")
    );
    for c in &o.calls {
        text.push_str(&format!("\n     call {c}"));
    }
    for f in &o.failures {
        text.push_str(&format!("\n     - {f}"));
    }
    text
}

/// The summary: `passed N/M`, as JSON with every outcome when asked.
pub fn summary(outcomes: &[Outcome], json: bool) -> String {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    if json {
        return format!(
            "{}\n",
            serde_json::json!({"passed": passed, "total": outcomes.len(), "tasks": outcomes})
        );
    }
    format!("passed {passed}/{}\n", outcomes.len())
}
