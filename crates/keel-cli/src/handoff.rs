//! `keel handoff` (bridge.md §3.6–§3.7): move a run to another preset without dragging its
//! tool calls along.
//!
//! The preview runs the draft pipeline compaction runs too (keel-core's `draft`, the worker
//! call in keel-runtime's `worker`): fold the run (N38), build the budgeted source, choose the
//! conversation's language, ask the worker model (N20, with the N21 deadline), check its answer,
//! and append the verbatim visual evidence and the user's active prohibitions. This file is the
//! command line around it: the flags, what the worker will and will not see, and the files. An
//! answer that is not a summary is refused (`draft-rejected`), and the draft file is then a form
//! for the person to fill in. `--go` creates the target run from the draft byte for byte, as its
//! `handoff-summary` note, with the kickoff as its first user turn (N39). The source run is only
//! read, never written (N26).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use keel_core::bridge::source::BridgeSource;
use keel_core::bridge::{HandoffLang, build_bridge_kickoff, estimate_summary_tokens};
use keel_core::draft::{self, DraftRequest, Purpose};
use keel_core::notes::producers;
use keel_core::{ItemBody, ItemId};
use keel_runtime::worker::WorkerError;
use keel_store::{NewItem, NewRun, RunStore, SqliteStore, StoreOptions};
use serde::{Deserialize, Serialize};

use keel_app::config::Config;
use keel_app::{ids, models, paths};

use crate::{out, run};

/// `keel handoff RUN --to PRESET`.
#[derive(clap::Args, Clone, Debug)]
pub struct PreviewFlags {
    /// The preset the new run will use.
    #[arg(long, value_name = "PRESET", required_unless_present = "go")]
    pub to: Option<String>,
    /// The summary's language (default auto: the conversation's, from the user's messages).
    #[arg(long, value_parser = ["auto", "zh", "en"])]
    pub lang: Option<String>,
    /// How many chars of the run the worker reads (default 60000).
    #[arg(long, value_name = "CHARS", allow_negative_numbers = true)]
    pub source_budget: Option<i64>,
    /// How long the summary may be, in chars (default 2400).
    #[arg(long, value_name = "CHARS", allow_negative_numbers = true)]
    pub summary_budget: Option<i64>,
    /// The model that writes the summary (default: [handoff] worker_model, else the run's).
    #[arg(long, value_name = "MODEL")]
    pub worker_model: Option<String>,
}

/// `keel handoff RUN --go`.
#[derive(clap::Args, Clone, Debug)]
pub struct GoFlags {
    /// Create the new run from the last preview's draft.
    #[arg(
        long,
        conflicts_with_all = ["to", "source_budget", "summary_budget", "worker_model", "lang"]
    )]
    pub go: bool,
    /// Use this file as the draft instead of the preview's.
    #[arg(long, value_name = "FILE", requires = "go")]
    pub draft: Option<PathBuf>,
    /// Start the new run right away instead of waiting for you.
    #[arg(long = "continue", requires = "go")]
    pub auto_continue: bool,
}

/// What a preview leaves for `--go`, beside the draft.
#[derive(Debug, Serialize, Deserialize)]
struct Preview {
    run: String,
    to: String,
    lang: HandoffLang,
    draft: PathBuf,
    worker: String,
    created_at: String,
    /// The source run's version when previewed, to warn when it moved on before `--go`.
    source_version: u64,
    /// When the worker's answer was rejected: the form the draft file was left as, so `--go`
    /// refuses it until the person has written the summary into it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unfilled: Option<String>,
}

fn handoff_dir() -> Result<PathBuf> {
    Ok(paths::data_dir()?.join("handoff"))
}

/// Run ids name files here, so only plain ones are accepted.
fn file_stem(run: &str) -> Result<&str> {
    let plain = !run.is_empty()
        && !run.starts_with('.')
        && run
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        bail!(
            "run id {run:?} cannot name a draft file; keel's run ids are letters, digits, - and _"
        );
    }
    Ok(run)
}

fn preview_path(run: &str) -> Result<PathBuf> {
    Ok(handoff_dir()?.join(format!("{}.json", file_stem(run)?)))
}

fn check_preset(config: &Config, preset: &str) -> Result<()> {
    if preset != "default" && !config.presets.contains_key(preset) {
        bail!("no preset named {preset:?}; define [presets.{preset}] in keel.toml or your config");
    }
    Ok(())
}

/// The source budget `build_bridge_source` applies for `--source-budget` (N5): the default
/// when it is absent, and 0 for a negative value.
fn source_budget(flag: Option<i64>) -> i64 {
    flag.map_or(keel_core::bridge::source::SOURCE_CHAR_BUDGET, |b| b.max(0))
}

fn describe_source(out: &mut String, source: &BridgeSource, budget: i64, had_compaction: bool) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "  source       {} chars (budget {budget})",
        source.text.chars().count()
    );
    let _ = writeln!(
        out,
        "  users        {} of {} user messages used",
        source.user_messages_used, source.user_messages_total
    );
    let compaction = match (had_compaction, source.reused_compaction) {
        (false, _) => "none in this run",
        (true, true) => "reused whole",
        (true, false) => "CLIPPED or dropped (see below)",
    };
    let _ = writeln!(out, "  compaction   {compaction}");
    let images = &source.visual_evidence;
    if images.image_messages > 0 {
        let _ = writeln!(
            out,
            "  images       {} messages with images; described blocks appended verbatim",
            images.image_messages
        );
    }
    if source.dropped.is_empty() {
        let _ = writeln!(out, "  dropped      nothing: the worker sees the whole run");
    } else {
        let _ = writeln!(
            out,
            "\n  !! DROPPED: {} — the worker does NOT see these sections whole.\n  !! Raise \
             --source-budget to keep more, or check the draft for what is missing.",
            source.dropped.join(", ")
        );
    }
}

/// `keel handoff RUN --to PRESET …`: the preview and the draft.
pub fn preview(
    config: &Config,
    db: &Path,
    options: &StoreOptions,
    run_id: &str,
    flags: &PreviewFlags,
) -> Result<ExitCode> {
    let to = flags.to.clone().context("--to PRESET is required")?;
    check_preset(config, &to)?;
    let stem = file_stem(run_id)?.to_string();
    let store = SqliteStore::open_existing(db, options)?;
    let run = store.load_run(run_id)?;
    let (messages, prior) = draft::fold_run(&run.items, &run.notes, run.compaction.as_ref());
    let asked = match flags.lang.as_deref() {
        Some("zh") => Some(HandoffLang::Zh),
        Some("en") => Some(HandoffLang::En),
        _ => None,
    };
    let job = draft::prepare(DraftRequest {
        messages: &messages,
        whole_run: &messages,
        prior,
        conversation: run.head.language,
        lang: asked,
        source_char_budget: flags.source_budget,
        purpose: Purpose::Handoff {
            summary_char_budget: flags.summary_budget,
        },
    });
    let job = match job {
        Ok(job) => job,
        Err(empty) if !empty.dropped.is_empty() => {
            let budget = source_budget(flags.source_budget);
            let which = match flags.source_budget {
                Some(given) if given == budget => format!("--source-budget {budget}"),
                Some(given) => format!("--source-budget {given} (taken as {budget})"),
                None => format!("the default source budget {budget}"),
            };
            bail!(
                "empty-source: {which} left no room for any section of run {run_id} (dropped: \
                 {}); raise it with --source-budget",
                empty.dropped.join(", ")
            );
        }
        Err(_) => bail!(
            "empty-source: run {run_id} has no user or assistant messages to hand off, so there \
             is nothing to summarise"
        ),
    };
    let how = if asked.is_some() {
        "as asked"
    } else {
        "the conversation's, from the user's messages; --lang overrides"
    };
    let worker_spec = flags
        .worker_model
        .as_deref()
        .or(config.handoff.worker_model.as_deref())
        .map(|w| models::model_spec(config, Some(w), None))
        .or_else(|| Some(run.head.model.clone()).filter(|m| !m.is_empty()))
        .with_context(|| {
            format!(
                "run {run_id} does not record its model (an older keel made it); set [handoff] \
                 worker_model in your config or pass --worker-model"
            )
        })?;
    let timeout = config.worker_timeout();
    let source = &job.source;
    let estimate =
        estimate_summary_tokens(source.text.chars().count() as i64, flags.summary_budget);
    let mut shown = format!("Handoff preview: run {run_id} → preset {to}\n");
    describe_source(
        &mut shown,
        source,
        source_budget(flags.source_budget),
        prior.is_some(),
    );
    shown.push_str(&format!(
        "  language     {} ({how})\n  worker       {worker_spec} (timeout {} s; about {} tokens \
         in, ≤{} out)\n",
        job.lang.as_str(),
        timeout.as_secs(),
        estimate.input,
        estimate.output
    ));
    out::eprint(&shown);
    let model = models::model_for(&worker_spec, config, None, &run::notices())?;
    let mut progress = false;
    let mut waited = |secs: u64| {
        progress = true;
        out::progress(&format!(
            "keel: waiting for the worker: {secs} s of {} s",
            timeout.as_secs()
        ));
    };
    let answer = keel_runtime::worker::draft_with_timeout(model, &job, timeout, &mut waited);
    if progress {
        out::eprint("\n");
    }
    let dir = handoff_dir()?;
    let draft_path = dir.join(format!("{stem}.md"));
    let mut record = Preview {
        run: run_id.to_string(),
        to,
        lang: job.lang,
        draft: draft_path.clone(),
        worker: worker_spec,
        created_at: ids::now().to_rfc3339(),
        source_version: run.head.version,
        unfilled: None,
    };
    let draft = match answer {
        Ok(draft) => draft,
        Err(e @ WorkerError::Rejected { .. }) => {
            // The answer is not offered as a summary: the draft file becomes a form to fill
            // in, with what keel appends to every draft already in it.
            let form = job.form();
            record.unfilled = Some(form.clone());
            save(&dir, &draft_path, &form, &record)?;
            bail!(
                "{e}. It is not offered as a summary: the draft {} is a form with the five \
                 sections for you to fill in (then `keel handoff {run_id} --go`), or name a \
                 capable worker model with [handoff] worker_model or --worker-model and preview \
                 again",
                draft_path.display()
            );
        }
        Err(e) => {
            let hint = match e {
                WorkerError::Empty { .. } => {
                    " (set [handoff] worker_model or --worker-model to choose it)"
                }
                _ => "",
            };
            bail!("{e}{hint}");
        }
    };
    save(&dir, &draft_path, &draft, &record)?;
    out::eprint(&format!(
        "keel: the draft ({} chars) is in the file below; edit it as you like, then run\n  keel \
         handoff {run_id} --go            (the new run waits for you)\n  keel handoff {run_id} \
         --go --continue (the new run starts on the next step)\n",
        draft.chars().count()
    ));
    out::print(&format!("{}\n", draft_path.display())).context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the draft, then the preview record `--go` reads.
fn save(dir: &Path, draft_path: &Path, draft: &str, record: &Preview) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_file(draft_path, draft.as_bytes())?;
    write_file(
        &preview_path(&record.run)?,
        serde_json::to_string_pretty(record)?.as_bytes(),
    )
}

/// Writes through a temporary file and a rename, so a crash never leaves half a draft.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// `keel handoff RUN --go [--draft FILE] [--continue]`: the target run.
pub fn go(
    config: &Config,
    db: &Path,
    options: &StoreOptions,
    run_id: &str,
    flags: &GoFlags,
    run_flags: &run::RunFlags,
) -> Result<ExitCode> {
    let record_path = preview_path(run_id)?;
    let record: Preview = match std::fs::read(&record_path) {
        Ok(bytes) => serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{} is not a keel handoff preview; run `keel handoff {run_id} --to PRESET` again",
                record_path.display()
            )
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "no handoff preview for run {run_id}; run `keel handoff {run_id} --to PRESET` first"
        ),
        Err(e) => return Err(e).context(format!("cannot read {}", record_path.display())),
    };
    check_preset(config, &record.to)?;
    let draft_path = flags.draft.clone().unwrap_or(record.draft.clone());
    let bytes = std::fs::read(&draft_path)
        .with_context(|| format!("cannot read the draft {}", draft_path.display()))?;
    let draft = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "the draft {} is not valid UTF-8; nothing was created",
            draft_path.display()
        )
    })?;
    if keel_core::text::is_blank(&draft) {
        bail!(
            "the draft {} is empty; nothing was created. Write the summary into it, or preview \
             again",
            draft_path.display()
        );
    }
    if record.unfilled.as_deref() == Some(draft.as_str()) {
        bail!(
            "the draft {} is still the empty form the preview left when the worker's answer was \
             rejected; nothing was created. Write the summary into its sections, or preview again \
             with a capable worker model ([handoff] worker_model or --worker-model)",
            draft_path.display()
        );
    }
    let mut store = SqliteStore::open_existing(db, options)?;
    // N23: the target takes the source's model, never the worker's.
    let source = store.run_head(run_id)?;
    // The target works where the source does: refused before it is created when that
    // directory is gone, and said when it is not the current one.
    if let Some(dir) = &source.cwd {
        keel_app::workdir::check_exists(run_id, dir)?;
        let here = std::env::current_dir().context("the current directory")?;
        // With --continue, the resume says it.
        if !flags.auto_continue && !keel_app::workdir::same_dir(dir, &here) {
            out::say(&format!(
                "run {run_id} works in {} (you are in {}); the new run works there too",
                dir.display(),
                here.display()
            ));
        }
    }
    if source.version != record.source_version {
        out::say(&format!(
            "warning: run {run_id} changed after the preview (version {} → {}); the draft does \
             not cover its newest turns. Preview again to include them.",
            record.source_version, source.version
        ));
    }
    let target = ids::unique("run");
    let kickoff = build_bridge_kickoff(record.lang, flags.auto_continue);
    let now = ids::now();
    store.create_run(NewRun {
        id: target.clone(),
        preset: record.to.clone(),
        model: source.model,
        origin: Some(format!(
            "keel handoff --go from run {run_id} (the kickoff is the first user turn)"
        )),
        // The worker run continues the work where its source did.
        cwd: source.cwd,
        open_turn: true,
        now,
        // The draft exactly as confirmed (N19): never rewritten.
        note_ops: vec![producers::handoff_summary(draft)],
        items: vec![NewItem {
            id: ItemId::try_from(ids::unique("item")).context("a fresh item id")?,
            ts: now,
            body: ItemBody::User { text: kickoff },
        }],
    })?;
    // Held from its creation to this process's end (through `--continue`'s resume, the same
    // process's), so no other writer starts on it meanwhile.
    let _lease = keel_store::LeaseKeeper::process().acquire(db, options, &target)?;
    // The preview has been used (§3.7: kept until used or deleted).
    let _ = std::fs::remove_file(&record_path);
    out::say(&format!(
        "run {target} created with preset {} from run {run_id}; its handoff-summary note is the \
         draft, byte for byte. Run {run_id} is unchanged.",
        record.to
    ));
    out::print(&format!("{target}\n")).context("cannot write to stdout")?;
    if flags.auto_continue {
        return run::resume(config, run_flags, &target, db);
    }
    out::say(&format!(
        "it waits for you: `keel runs resume {target}` starts it."
    ));
    Ok(ExitCode::SUCCESS)
}
