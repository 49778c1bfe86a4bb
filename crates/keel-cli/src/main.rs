//! `keel`: the command-line program of the keel agent runtime kernel.
//!
//! It parses the command line, loads configuration (interfaces.md §2), and hands each
//! command to the crate that does the work: keel-store for `runs`, keel-core through
//! `call` for the pure functions. Errors are reported in one line that says what to do.

// Printing to the terminal is the binary's job (libraries may not print), and it is done in
// one place, `out`, which escapes what a person reads: the printing macros stay denied here.

/// keel's allocator: a gate decision alone makes some sixty small allocations (Cargo.toml says
/// what it saves). The benches that measure keel's paths in process use it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod acp;
mod bench;
mod call;
mod check;
mod computer;
mod eval;
mod handoff;
mod linefeed;
mod out;
mod run;
mod runs;
mod settings;

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use keel_app::{config, ids, paths, policy};

#[derive(Parser)]
#[command(
    name = "keel",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("KEEL_BUILD_INFO"), ")"),
    about = "keel: an agent runtime kernel. Only a real user turn carries authority.",
    long_about = None
)]
struct Cli {
    /// The database file (default: $KEEL_HOME/keel.db).
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an agent on a task.
    Run {
        /// What the agent should do.
        #[arg(value_parser = run::non_blank)]
        task: String,
        #[command(flatten)]
        flags: run::RunFlags,
        /// System text for the run; it becomes the `caller-instructions` note, never a message.
        #[arg(long, value_name = "TEXT")]
        instructions: Option<String>,
        /// Earlier messages, one {"role":"user"|"assistant","content"} per line.
        #[arg(long, value_name = "FILE.jsonl")]
        history: Option<PathBuf>,
    },
    /// Talk with an agent, turn after turn, on one run.
    ///
    /// /help lists the commands, /exit (or /quit) leaves. On a terminal the line can be edited
    /// and the up arrow recalls the run's earlier lines ($KEEL_HOME/history/RUN.txt). Ctrl-C
    /// during a turn cancels that turn and comes back to the prompt; at the prompt it leaves.
    /// A new run left with nothing in it is not kept.
    Chat {
        #[command(flatten)]
        flags: run::RunFlags,
        /// Continue this run instead of starting a new one.
        #[arg(long, value_name = "ID")]
        run: Option<String>,
        /// System text for a new run; it becomes the `caller-instructions` note.
        #[arg(long, value_name = "TEXT")]
        instructions: Option<String>,
        /// Earlier messages for a new run, one {"role":"user"|"assistant","content"} per line.
        #[arg(long, value_name = "FILE.jsonl", conflicts_with = "run")]
        history: Option<PathBuf>,
    },
    /// Move a run to another preset: preview a summary draft, edit it, then --go.
    Handoff {
        /// The run to hand off (it is only read).
        run: String,
        #[command(flatten)]
        preview: handoff::PreviewFlags,
        #[command(flatten)]
        go: handoff::GoFlags,
        /// With --go --continue: how the new run is run.
        #[command(flatten)]
        flags: run::ContinueFlags,
    },
    /// The embedded local model.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// Inspect stored runs.
    Runs {
        #[command(subcommand)]
        command: RunsCommand,
    },
    /// Call one of keel's pure functions: a JSON object on stdin, the result on stdout.
    #[command(after_help = call::function_list())]
    Call {
        /// The function's kebab-case name, e.g. system-notes.
        function: String,
    },
    /// Queue a notification for a run. The payload is read from stdin, verbatim.
    Notify {
        /// The run to notify.
        run: String,
        #[arg(long, value_parser = ["search_result", "visual_result", "peer_report", "permission", "task_result"])]
        kind: String,
        /// The producer's id; a second notification with an id already seen for the run is
        /// recorded as a duplicate and not delivered. Without it keel makes a unique one.
        #[arg(long)]
        id: Option<String>,
        /// Print `{"id", "run", "duplicate_of"}` (`duplicate_of`: null, or whether the
        /// notification with the same id is "waiting" or "delivered").
        #[arg(long)]
        json: bool,
    },
    /// Decide one tool call with keel's whole gate: a SafetyCheckInput on stdin, a
    /// SafetyCheckResult on stdout. Usable as an external checker by other agents.
    Check {
        /// Add FILE at the workspace tier, on top of the built-in default policy.
        #[arg(long, value_name = "FILE")]
        policy: Vec<PathBuf>,
    },
    /// Desktop control (computer use): stop it for a run, or resume it.
    Computer {
        #[command(subcommand)]
        command: ComputerCommand,
    },
    /// Run keel as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, JetBrains,
    /// Neovim, Emacs) and `acpx`: each ACP session is a durable keel run, every call passes
    /// keel's gate, and its asks become the client's permission prompts. See docs/acp.md.
    Acp {
        /// local | local:PATH.gguf | openai:MODEL | script:FILE.
        #[arg(long)]
        model: Option<String>,
        /// OpenAI-compatible base URL, including /v1.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// The preset: system prompt, tools, mode.
        #[arg(long)]
        preset: Option<String>,
        /// Add FILE at the workspace tier of the configuration.
        #[arg(long, value_name = "FILE")]
        policy: Vec<PathBuf>,
        /// Model calls per turn (at least 1).
        #[arg(
            long,
            default_value_t = keel_runtime::agent::DEFAULT_STEP_LIMIT,
            value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
        )]
        step_limit: usize,
        /// How often, between prompts, to look for notifications that arrived (a background
        /// task's result) and deliver them to the client, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 500)]
        poll_ms: u64,
    },
    /// Print a shell completion script: `keel completions bash > ~/.local/share/bash-completion/completions/keel`,
    /// `keel completions zsh > ~/.zfunc/_keel`, `keel completions fish > ~/.config/fish/completions/keel.fish`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Replay benchmark suites through the gate.
    Eval {
        #[command(subcommand)]
        command: EvalCommand,
    },
    /// Run keel's own task sets on a model and print the pass rate.
    Bench {
        #[command(subcommand)]
        command: BenchCommand,
    },
    /// Show keel's policy.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Show the configuration files keel reads, in tier order, and any warnings.
    Config {
        /// Add FILE at the workspace tier.
        #[arg(long, value_name = "FILE")]
        policy: Vec<PathBuf>,
        /// As JSON: the files, each setting with whether it is the built-in default, and
        /// whether the policy loads.
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        command: Option<ConfigCommand>,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Write a user config with every setting commented out, to start from
    /// ($XDG_CONFIG_HOME/keel/config.toml).
    Init {
        /// Replace a config that is already there.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Subcommand)]
enum ComputerCommand {
    /// Revoke desktop control of RUN now, and pause new desktop sessions until `resume`.
    Stop {
        /// The run whose desktop session to stop.
        run: String,
    },
    /// Resume desktop control after a stop (the local "Resume desktop control").
    Resume,
}

#[derive(Subcommand)]
enum EvalCommand {
    /// AgentDojo suites (shared/bench/agentdojo): utility and security of the default policy.
    Agentdojo {
        /// Suite files, e.g. ../shared/bench/agentdojo/banking.json.
        #[arg(required = true)]
        suites: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
        /// Also list every decision with the rule or checker that made it and its reason, and
        /// how many decisions each rule and checker made.
        #[arg(long)]
        explain: bool,
        /// Also replay everything through `keel run`: the suite's tools on an MCP server, a
        /// scripted model making the calls, asks refused; and list every call the two paths
        /// decide differently.
        #[arg(long)]
        real_path: bool,
        /// One real-path run's time limit, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 60_000)]
        run_timeout_ms: u64,
        /// Score your own rules: add FILE at the workspace tier, on top of the built-in
        /// policy (as `keel check --policy` does). Repeatable.
        #[arg(long, value_name = "FILE")]
        policy: Vec<PathBuf>,
    },
    /// The MCP server the real path runs (`--real-path`): serves one replay's tools and
    /// results on stdin/stdout.
    #[command(hide = true)]
    ReplayServer { plan: PathBuf },
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Fetch the embedded model if it is not cached yet (with progress), verify it, and print
    /// its path.
    Fetch {
        /// Print `{"path"}`.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Everyday tasks (list, read, write, find a word, answer without a tool, a request the
    /// gate refuses), each in a scratch folder of its own, judged from the outcome; prints
    /// each task and the pass rate. Default model: the embedded one.
    Starter {
        /// local | local:PATH.gguf | openai:MODEL | script:FILE (default: [model] name, else
        /// local).
        #[arg(long)]
        model: Option<String>,
        /// OpenAI-compatible base URL, including /v1.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Model calls per task.
        #[arg(
            long,
            default_value_t = 4,
            value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
        )]
        step_limit: usize,
        /// Run only this task (repeatable).
        #[arg(long, value_name = "ID")]
        only: Vec<String>,
        /// Print `{"passed","total","tasks":[…]}` instead.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Print the built-in default policy, then the rules and checkers in force, highest
    /// priority first.
    ///
    /// Exits 2 when the policy does not load (then every call is denied, and it says why).
    Show {
        /// Add FILE at the workspace tier.
        #[arg(long, value_name = "FILE")]
        policy: Vec<PathBuf>,
        /// As JSON: whether the policy loads (and why not), and every rule and checker in
        /// force with its priority, tier, decision and source.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum RunsCommand {
    /// List runs, most recently updated first.
    List {
        #[arg(long)]
        json: bool,
        /// Only the runs that work in DIR.
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// At most N runs (the most recent).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
    },
    /// Show a run's items with their provenance, and its notes.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Print a run's items, one JSON object per line.
    Export { id: String },
    /// Delete runs, each with the runs that are its background tasks (origin `task of RUN`):
    /// every item, note, notification, ledger entry and answer, and its chat history. A run a
    /// live keel process is using is refused, and then nothing is deleted.
    Delete {
        /// Runs, each by its whole id or a prefix only it has.
        #[arg(required = true, value_name = "RUN")]
        ids: Vec<String>,
        /// Print `{"deleted":[{"id","task_of","items"}],"skipped":[],"dry_run":false}`.
        #[arg(long)]
        json: bool,
    },
    /// Delete the runs that pass every filter given, with their background tasks' runs. Runs a
    /// live keel process is using are kept, and said.
    #[command(group(
        clap::ArgGroup::new("which")
            .required(true)
            .multiple(true)
            .args(["older_than", "status", "empty"])
    ))]
    Prune {
        /// Last updated longer ago than DURATION: a number and a unit, s, m, h, d or w
        /// (30d, 12h, 1d12h).
        #[arg(long, value_name = "DURATION", value_parser = runs::parse_duration)]
        older_than: Option<std::time::Duration>,
        /// open (a turn left open: a crash, a cancel, the step limit) or idle.
        #[arg(long, value_parser = ["open", "idle"])]
        status: Option<String>,
        /// Runs that hold no item at all.
        #[arg(long)]
        empty: bool,
        /// List what would be deleted, and delete nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print `{"deleted":[{"id","task_of","items"}],"skipped":[{"id","pid","host","since"}],"dry_run"}`.
        #[arg(long)]
        json: bool,
    },
    /// Continue a run: calls a crash left unfinished become `unknown` (never re-run), an open
    /// turn goes on, and waiting notifications are delivered.
    Resume {
        id: String,
        #[command(flatten)]
        flags: run::RunFlags,
    },
}

/// The largest notification payload `keel notify` accepts.
const MAX_PAYLOAD_BYTES: usize = 64 * 1024 * 1024;

/// Exit codes: 0 success, 1 failure, 2 bad input or configuration.
const EXIT_FAILURE: u8 = 1;
const EXIT_BAD_INPUT: u8 = 2;

fn load_config(policy: &[PathBuf]) -> Result<config::Config> {
    let config = config::load(&config::Sources::standard(policy))?;
    for warning in &config.warnings {
        out::say(&format!("warning: {warning}"));
    }
    Ok(config)
}

fn store_options(config: &config::Config) -> keel_store::StoreOptions {
    config.store_options()
}

/// Text for a person on stdout, escaped (`out`).
fn print(text: &str) -> Result<ExitCode> {
    out::print(text).context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// A machine wire on stdout (JSON), its bytes unchanged (`out::wire`).
fn print_wire(text: &str) -> Result<ExitCode> {
    out::wire(out::Stream::Stdout, text).context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// `--json` output is a machine wire; the rest is for a person.
/// `--json` output is JSON text for machines, whose strings may quote anything a model or a
/// tool wrote: line breaks in disguise, C1 and bidirectional controls are written as `\u`
/// escapes (the same JSON), so it is safe on a terminal too.
fn print_as(json: bool, text: &str) -> Result<ExitCode> {
    if json {
        print_wire(&keel_core::text::json_line_safe(text))
    } else {
        print(text)
    }
}

fn execute(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "keel", &mut script);
            print_wire(&String::from_utf8_lossy(&script))
        }
        Command::Call { function } => {
            let mut input = Vec::new();
            std::io::stdin()
                .take(call::wire::MAX_INPUT_BYTES as u64 + 1)
                .read_to_end(&mut input)
                .context("cannot read stdin")?;
            let outcome = call::call(&function, &input);
            // interfaces.md §1: `keel call` is a wire, byte for byte, on both streams.
            out::wire(out::Stream::Stderr, &outcome.stderr).ok();
            print_wire(&outcome.stdout)?;
            Ok(ExitCode::from(outcome.code as u8))
        }
        Command::Run {
            task,
            flags,
            instructions,
            history,
        } => {
            let config = load_config(&flags.how.policy)?;
            let db = paths::db_path(cli.db.as_ref())?;
            run::run(&config, &flags, &task, instructions, history, &db)
        }
        Command::Acp {
            model,
            base_url,
            preset,
            policy,
            step_limit,
            poll_ms,
        } => {
            let config = load_config(&policy)?;
            let db = paths::db_path(cli.db.as_ref())?;
            let options = acp::AcpOptions {
                model,
                base_url,
                preset,
                step_limit,
                poll: std::time::Duration::from_millis(poll_ms),
            };
            acp::serve(&config, &options, &db)
        }
        Command::Chat {
            flags,
            run,
            instructions,
            history,
        } => {
            let config = load_config(&flags.how.policy)?;
            let db = paths::db_path(cli.db.as_ref())?;
            run::chat(&config, &flags, run, instructions, history, &db)
        }
        Command::Notify {
            run,
            kind,
            id,
            json,
        } => {
            let config = load_config(&[])?;
            let db = paths::db_path(cli.db.as_ref())?;
            let mut payload = Vec::new();
            std::io::stdin()
                .take(MAX_PAYLOAD_BYTES as u64 + 1)
                .read_to_end(&mut payload)
                .context("cannot read the payload from stdin")?;
            if payload.len() > MAX_PAYLOAD_BYTES {
                out::say(&format!(
                    "error: the payload is larger than {} MiB; nothing was queued",
                    MAX_PAYLOAD_BYTES / 1024 / 1024
                ));
                return Ok(ExitCode::from(EXIT_BAD_INPUT));
            }
            let Ok(payload) = String::from_utf8(payload) else {
                out::say("error: the payload is not valid UTF-8; nothing was queued");
                return Ok(ExitCode::from(EXIT_BAD_INPUT));
            };
            let kind = keel_core::notify::NotificationKind::parse(&kind)
                .context("clap checked the kind")?;
            let id = match id {
                Some(id) if id.is_empty() => {
                    out::say("error: --id must not be empty; leave it out to get a unique id");
                    return Ok(ExitCode::from(EXIT_BAD_INPUT));
                }
                Some(id) => id,
                None => ids::unique("n"),
            };
            let mut store = keel_store::SqliteStore::open_existing(&db, &store_options(&config))?;
            // The producer learns of a reused id now, not only when delivery records it.
            let earlier = keel_store::QueueStore::notifications(&store, &run)?
                .into_iter()
                .filter(|n| n.id == id)
                .map(|n| match n.state {
                    keel_store::QueueState::Pending => "waiting",
                    _ => "delivered",
                })
                .min_by_key(|state| *state == "waiting");
            if let Some(state) = earlier {
                out::say(&format!(
                    "warning: run {run} already has a notification with id {id} ({state}); this \
                     one is queued but will be recorded as a duplicate and never delivered. Leave \
                     out --id for a unique one."
                ));
            }
            keel_store::QueueStore::enqueue_notification(
                &mut store,
                &run,
                keel_store::NewNotification {
                    id: id.clone(),
                    kind,
                    payload,
                    now: ids::now(),
                },
            )?;
            if json {
                let line = serde_json::json!({"id": id, "run": run, "duplicate_of": earlier});
                return print_wire(&format!("{line}\n"));
            }
            print(&format!("{id}\n"))
        }
        Command::Check { policy } => {
            let mut input = Vec::new();
            std::io::stdin()
                .take(call::wire::MAX_INPUT_BYTES as u64 + 1)
                .read_to_end(&mut input)
                .context("cannot read stdin")?;
            match check::check(&input, check::load_policy(&policy, true)) {
                Ok(result) => print_wire(&format!("{}\n", result.to_wire())),
                Err(error) => {
                    let line = format!("{}\n", serde_json::json!({ "error": error }));
                    out::wire(out::Stream::Stderr, &line).ok();
                    Ok(ExitCode::from(EXIT_BAD_INPUT))
                }
            }
        }
        Command::Computer { command } => {
            let config = load_config(&[])?;
            let db = paths::db_path(cli.db.as_ref())?;
            let options = store_options(&config);
            match command {
                ComputerCommand::Stop { run } => computer::stop(&db, &options, &run),
                ComputerCommand::Resume => computer::resume(&db, &options),
            }
        }
        Command::Eval {
            command:
                EvalCommand::Agentdojo {
                    suites,
                    json,
                    explain,
                    real_path,
                    run_timeout_ms,
                    policy,
                },
        } => {
            // The default policy, plus the files given, and nothing else: no per-suite
            // configuration. A file that does not load is an error, not a suite of denials.
            let policy = check::load_policy(&policy, false);
            if let Some(error) = policy.policy.load_error() {
                anyhow::bail!("{error}");
            }
            let options = if real_path {
                Some(eval::real_path::Options {
                    keel: std::env::current_exe().context("cannot find keel's own binary")?,
                    run_timeout: std::time::Duration::from_millis(run_timeout_ms),
                    jobs: std::thread::available_parallelism().map_or(1, usize::from),
                })
            } else {
                None
            };
            print_as(
                json,
                &eval::run(&suites, &policy, json, explain, options.as_ref())?,
            )
        }
        Command::Eval {
            command: EvalCommand::ReplayServer { plan },
        } => eval::real_path::serve(&plan).map(|()| ExitCode::SUCCESS),
        Command::Bench {
            command:
                BenchCommand::Starter {
                    model,
                    base_url,
                    step_limit,
                    only,
                    json,
                },
        } => {
            let config = load_config(&[])?;
            let spec = keel_app::models::model_spec(&config, model.as_deref(), None);
            let options = bench::Options {
                model: Some(spec.clone()),
                base_url,
                step_limit,
                only,
            };
            if !json {
                out::say(&format!("the starter set on {spec}, greedy sampling"));
            }
            let outcomes = bench::starter(&config, &options, &mut |o| {
                if !json {
                    let _ = out::print(&format!("{}\n", bench::line(o)));
                }
            })?;
            print_as(json, &bench::summary(&outcomes, json))
        }
        Command::Policy {
            command: PolicyCommand::Show { policy, json },
        } => {
            // What a run in this directory would use: ./keel.toml included.
            let compiled = check::compile_sources(&config::Sources::standard(&policy));
            let loads = if json {
                let (text, loads) = settings::policy_json(&compiled);
                print_as(true, &text)?;
                loads
            } else {
                print(&policy::render(&compiled))?;
                compiled.policy.load_error().is_none()
            };
            // A policy that does not load is a configuration error, as `keel config` says.
            Ok(if loads {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_BAD_INPUT)
            })
        }
        Command::Config {
            command: Some(ConfigCommand::Init { force }),
            ..
        } => {
            let path = config::Sources::standard(&[])
                .user
                .context("no config folder: set XDG_CONFIG_HOME or HOME")?;
            print(&settings::init(&path, force)?)
        }
        Command::Config {
            policy,
            json,
            command: None,
        } => {
            let config = load_config(&policy)?;
            // A policy that fails to load is a configuration error (exit 2), said in full.
            let (text, loads) = if json {
                settings::render_json(&config)
            } else {
                settings::render(&config)
            };
            print_as(json, &text)?;
            Ok(if loads {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_BAD_INPUT)
            })
        }
        Command::Handoff {
            run,
            preview,
            go,
            flags,
        } => {
            if let Some(why) = flags.refused() {
                out::eprint(&format!("keel: error: {why}\n"));
                return Ok(ExitCode::from(EXIT_BAD_INPUT));
            }
            let flags = run::RunFlags::from(flags);
            let config = load_config(&flags.how.policy)?;
            let options = store_options(&config);
            let db = paths::db_path(cli.db.as_ref())?;
            if go.go {
                handoff::go(&config, &db, &options, &run, &go, &flags)
            } else {
                handoff::preview(&config, &db, &options, &run, &preview)
            }
        }
        Command::Model {
            command: ModelCommand::Fetch { json },
        } => {
            let path =
                keel_model::local::fetch_embedded_model(&paths::data_dir()?, &mut |m| out::say(m))?;
            if json {
                let line = serde_json::json!({"path": path.to_string_lossy()});
                return print_as(true, &format!("{line}\n"));
            }
            print(&format!("{}\n", path.display()))
        }
        Command::Runs { command } => {
            let config = load_config(&[])?;
            let options = store_options(&config);
            let db = paths::db_path(cli.db.as_ref())?;
            match command {
                RunsCommand::List { json, cwd, limit } => {
                    let filter = runs::ListFilter { cwd, limit };
                    print_as(json, &runs::list(&db, &options, json, &filter)?)
                }
                // A run is named by its id or a prefix only it has.
                RunsCommand::Show { id, json } => {
                    let id = runs::resolve_id(&db, &options, &id)?;
                    print_as(json, &runs::show(&db, &options, &id, json)?)
                }
                RunsCommand::Delete { ids, json } => {
                    print_as(json, &runs::delete(&db, &options, &ids, json)?)
                }
                RunsCommand::Prune {
                    older_than,
                    status,
                    empty,
                    dry_run,
                    json,
                } => {
                    let filter = runs::PruneFilter {
                        older_than,
                        status,
                        empty,
                    };
                    print_as(json, &runs::prune(&db, &options, &filter, dry_run, json)?)
                }
                RunsCommand::Export { id } => {
                    let id = runs::resolve_id(&db, &options, &id)?;
                    print_wire(&runs::export(&db, &options, &id)?)
                }
                RunsCommand::Resume { id, flags } => {
                    let id = runs::resolve_id(&db, &options, &id)?;
                    let config = load_config(&flags.how.policy)?;
                    run::resume(&config, &flags, &id, &db)
                }
            }
        }
    }
}

/// Logs go to stderr; `KEEL_LOG=error|warn|info|debug|trace` sets the level (default warn).
fn init_logging() {
    let level = std::env::var("KEEL_LOG")
        .ok()
        .and_then(|l| l.parse::<tracing::Level>().ok())
        .unwrap_or(tracing::Level::WARN);
    tracing_subscriber::fmt()
        .with_max_level(level)
        // Logs quote what they are about (a server's error, a path): escaped like the rest.
        .with_writer(out::stderr)
        .with_target(false)
        .without_time()
        .init();
}

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    match execute(cli) {
        Ok(code) => code,
        Err(e) => {
            // Errors quote servers, files and tools; their line feeds stay (a TOML error's
            // snippet), every other control character is escaped.
            out::eprint(&format!("keel: error: {e:#}\n"));
            let store_error = e.downcast_ref::<keel_store::StoreError>().or_else(|| {
                e.downcast_ref::<keel_app::AppError>()
                    .and_then(keel_app::AppError::as_store)
            });
            let bad_caller_input = matches!(
                store_error,
                Some(
                    keel_store::StoreError::InvalidCallerMessages(_)
                        | keel_store::StoreError::BadCallerMessage { .. }
                        | keel_store::StoreError::UnsupportedCallerRole { .. }
                )
            );
            let bad_config = e.downcast_ref::<config::ConfigError>().is_some()
                || matches!(
                    e.downcast_ref::<keel_app::AppError>(),
                    Some(keel_app::AppError::Config(_))
                );
            // A run whose directory is gone is the person's to fix (exit 2), like bad input.
            let missing_dir = matches!(
                e.downcast_ref::<keel_app::AppError>(),
                Some(keel_app::AppError::RunDirectoryMissing { .. })
            );
            if bad_config || bad_caller_input || missing_dir {
                ExitCode::from(EXIT_BAD_INPUT)
            } else {
                ExitCode::from(EXIT_FAILURE)
            }
        }
    }
}
