//! `keel runs list|show|export`: what a run holds, with the provenance of every item.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use keel_core::envelope::for_display;
use keel_core::item::Diagnostic;
use keel_core::text::{LineBreaks, terminal_safe};
use keel_core::{Item, ItemBody, SystemNotes};
use keel_store::{
    ApprovalStore, CompactionStore, LedgerStore, NotificationRecord, QueueStore, RunHead,
    RunLeaseRecord, RunLeaseStore, RunRecord, RunStore, RunSummary, SqliteStore, StoreError,
    StoreOptions,
};
use serde_json::{Map, Value, json};

/// Opens the database for reading; `None` when there is none yet.
fn open(db: &Path, options: &StoreOptions) -> Result<Option<SqliteStore>> {
    match SqliteStore::open_existing(db, options) {
        Ok(store) => Ok(Some(store)),
        Err(StoreError::NoDatabase { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Everything `keel runs show` prints about a run.
struct Shown {
    run: RunRecord,
    queue: Vec<NotificationRecord>,
    ledger: Vec<keel_store::LedgerEntry>,
    approvals: Vec<keel_store::ApprovalRecord>,
    compactions: Vec<keel_core::compaction::Compaction>,
    /// The process writing the run now, if one is.
    writer: Option<RunLeaseRecord>,
}

fn load(db: &Path, options: &StoreOptions, id: &str) -> Result<Shown> {
    match open(db, options)? {
        Some(store) => Ok(Shown {
            run: store.load_run(id)?,
            queue: store.notifications(id)?,
            ledger: store.ledger(id)?,
            approvals: store.approvals(id)?,
            compactions: store.compactions(id)?,
            writer: store
                .run_lease(id)?
                .filter(|l| l.in_force(keel_store::lease::now())),
        }),
        None => Err(StoreError::RunNotFound(id.to_string()).into()),
    }
}

/// Which runs `keel runs list` shows.
#[derive(Default)]
pub struct ListFilter {
    /// Only runs working in this directory.
    pub cwd: Option<std::path::PathBuf>,
    /// At most this many, most recent first.
    pub limit: Option<usize>,
}

/// The run `given` names: its whole id, or a prefix only one run's id starts with.
pub fn resolve_id(db: &Path, options: &StoreOptions, given: &str) -> Result<String> {
    let not_found = || keel_store::StoreError::RunNotFound(given.to_string());
    let Some(store) = open(db, options)? else {
        return Err(not_found().into());
    };
    let runs = store.list_runs()?;
    if runs.iter().any(|r| r.head.id == given) {
        return Ok(given.to_string());
    }
    let matching: Vec<&str> = runs
        .iter()
        .map(|r| r.head.id.as_str())
        .filter(|id| !given.is_empty() && id.starts_with(given))
        .collect();
    match matching.as_slice() {
        [one] => Ok((*one).to_string()),
        [] => Err(not_found().into()),
        many => anyhow::bail!(
            "{given} is the start of {} runs' ids ({}); give more of it",
            many.len(),
            many.iter().take(5).copied().collect::<Vec<_>>().join(", ")
        ),
    }
}

pub fn list(
    db: &Path,
    options: &StoreOptions,
    as_json: bool,
    filter: &ListFilter,
) -> Result<String> {
    let mut runs = match open(db, options)? {
        Some(store) => store.list_runs()?,
        None => Vec::new(),
    };
    if let Some(cwd) = &filter.cwd {
        let wanted = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.clone());
        runs.retain(|r| {
            r.head
                .cwd
                .as_ref()
                .is_some_and(|c| *c == wanted || *c == *cwd)
        });
    }
    if let Some(limit) = filter.limit {
        runs.truncate(limit);
    }
    if as_json {
        let list: Vec<Value> = runs.iter().map(summary_json).collect();
        return Ok(format!("{}\n", Value::Array(list)));
    }
    if runs.is_empty() {
        return Ok(terminal_safe(
            &format!(
                "No runs yet in {}.\nStart one with: keel run \"TASK\"\n",
                db.display()
            ),
            LineBreaks::Keep,
        ));
    }
    let width = runs
        .iter()
        .map(|r| r.head.id.len())
        .max()
        .unwrap_or(2)
        .max(2);
    let mut out = format!(
        "{:<width$}  {:<24}  {:<10}  {:<9}  {:>6}  {:>5}  TASK\n",
        "ID", "UPDATED", "PRESET", "STATUS", "ITEMS", "NOTES"
    );
    for r in &runs {
        let _ = writeln!(
            out,
            "{:<width$}  {:<24}  {:<10}  {:<9}  {:>6}  {:>5}  {}",
            one_line(&r.head.id),
            r.head.updated_at.to_rfc3339(),
            one_line(&r.head.preset),
            status(&r.head),
            r.head.next_seq,
            r.notes_count,
            one_line(&task_line(r))
        );
    }
    Ok(terminal_safe(&out, LineBreaks::Keep))
}

/// How a run stands: `open` while a turn is open (a crash, a cancel or the step limit left it
/// so: `keel runs resume` goes on), else `idle` (`keel chat --run` adds a turn).
fn status(head: &RunHead) -> &'static str {
    if head.turn_open { "open" } else { "idle" }
}

/// Longest task text `keel runs list` shows on its line.
const TASK_SHOWN_CHARS: usize = 48;

/// The TASK column: the first user turn, cut to [`TASK_SHOWN_CHARS`], then where the run
/// came from (`task of RUN`) and where it works when that is not the common case.
fn task_line(r: &RunSummary) -> String {
    let mut line = match &r.task {
        Some(task) if task.chars().count() > TASK_SHOWN_CHARS => {
            let cut: String = task.chars().take(TASK_SHOWN_CHARS - 1).collect();
            format!("{cut}…")
        }
        Some(task) => task.clone(),
        None => "(no user turn yet)".to_string(),
    };
    if let Some(origin) = &r.head.origin {
        line.push_str(&format!("  [{origin}]"));
    }
    if let Some(cwd) = &r.head.cwd {
        line.push_str(&format!("  in {}", cwd.display()));
    }
    line
}

fn head_json(head: &RunHead) -> Value {
    json!({
        "id": head.id,
        "created_at": head.created_at.to_rfc3339(),
        "updated_at": head.updated_at.to_rfc3339(),
        "preset": head.preset,
        "model": head.model,
        "origin": head.origin,
        // Where the run works; null for runs from before keel recorded it.
        "cwd": head.cwd.as_ref().map(|d| d.to_string_lossy()),
        // A turn was opened and not closed (a crash, a cancel, the step limit): `keel runs
        // resume` continues it.
        "turn_open": head.turn_open,
    })
}

fn summary_json(s: &RunSummary) -> Value {
    let mut v = head_json(&s.head);
    if let Value::Object(map) = &mut v {
        map.insert("items".into(), json!(s.head.next_seq));
        map.insert("notes_count".into(), json!(s.notes_count));
        map.insert("status".into(), json!(status(&s.head)));
        map.insert("task".into(), json!(s.task));
    }
    v
}

/// One item in the shape of `keel runs show --json` (`seq`, `id`, `kind`, `ts`, then the
/// kind's own fields).
pub fn item_json(item: &Item) -> Value {
    let mut map = Map::new();
    map.insert("seq".into(), json!(item.seq));
    map.insert("id".into(), json!(item.id.as_str()));
    map.insert("kind".into(), json!(item.body.kind_name()));
    map.insert("ts".into(), json!(item.ts.to_rfc3339()));
    if let Ok(Value::Object(body)) =
        serde_json::from_str::<Value>(&keel_core::item::encode_body(&item.body))
    {
        map.extend(body.into_iter().filter(|(k, _)| k != "kind"));
    }
    Value::Object(map)
}

/// Every item as [`item_json`] has it; an item of a withdrawn turn also names the
/// withdrawal that took it out of the model's context (`withdrawn_by`, the marker's seq), so
/// nothing left out is shown as if the model still read it.
fn items_json(items: &[Item]) -> Vec<Value> {
    let withdrawn = keel_core::withdrawal::ranges(items);
    items
        .iter()
        .map(|item| {
            let mut value = item_json(item);
            let by = withdrawn
                .iter()
                .find(|&&(from, to)| (from..to).contains(&item.seq))
                .map(|&(_, to)| to);
            if let (Some(by), Value::Object(map)) = (by, &mut value) {
                map.insert("withdrawn_by".into(), json!(by));
            }
            value
        })
        .collect()
}

fn notification_json(n: &NotificationRecord) -> Value {
    let mut map = Map::new();
    map.insert("id".into(), json!(n.id));
    map.insert("kind".into(), json!(n.kind.as_str()));
    map.insert("state".into(), json!(n.state.as_str()));
    map.insert("enqueued_at".into(), json!(n.enqueued_at.to_rfc3339()));
    if let Some(seq) = n.item_seq {
        map.insert("item_seq".into(), json!(seq));
    }
    map.insert("payload_chars".into(), json!(n.payload_chars));
    Value::Object(map)
}

fn notes_json(notes: &SystemNotes) -> Value {
    serde_json::to_value(notes.as_slice()).unwrap_or_else(|_| json!([]))
}

pub fn show(db: &Path, options: &StoreOptions, id: &str, as_json: bool) -> Result<String> {
    let Shown {
        run,
        queue,
        ledger,
        approvals,
        compactions,
        writer,
    } = load(db, options, id)?;
    if as_json {
        let value = json!({
            "run": head_json(&run.head),
            "items": items_json(&run.items),
            "notes": notes_json(&run.notes),
            "notes_count": run.notes.len(),
            "notes_chars": run.notes.total_chars(),
            "language": {
                "output": run.head.language.current.map(keel_core::envelope::Lang::as_str),
                "explicit": run.head.language.explicit,
            },
            "notifications": queue.iter().map(notification_json).collect::<Vec<_>>(),
            "ledger": ledger.iter().map(|e| json!({
                "call_id": e.call_id,
                "tool": e.tool,
                "arguments": e.arguments,
                "state": e.state.as_str(),
                "updated_at": e.updated_at.to_rfc3339(),
            })).collect::<Vec<_>>(),
            "approvals": approvals.iter().map(|a| json!({
                "call_id": a.call_id,
                "tool": a.tool,
                "answer": a.answer.as_str(),
                "reason": a.reason,
                "answered_at": a.answered_at.to_rfc3339(),
            })).collect::<Vec<_>>(),
            "compactions": compactions.iter().map(|c| json!({
                "round": c.round,
                "trigger": c.trigger.as_str(),
                "first_unfolded_seq": c.first_unfolded_seq,
                "kept_user_seqs": c.kept_user_seqs,
                "folded_count": c.folded_count(),
                "summary_chars": c.summary_chars,
                "source_dropped": c.source_dropped,
                "at": c.at.to_rfc3339(),
            })).collect::<Vec<_>>(),
        });
        let mut value = value;
        if !run.skipped_notes.is_empty()
            && let Value::Object(map) = &mut value
        {
            let skipped: Vec<Value> = run
                .skipped_notes
                .iter()
                .map(|(position, reason)| json!({"position": position, "reason": reason}))
                .collect();
            map.insert("skipped_notes".into(), Value::Array(skipped));
        }
        return Ok(format!("{value}\n"));
    }
    let mut text = render_text(&run, &queue, writer.as_ref());
    render_compactions(&mut text, &compactions);
    let _ = writeln!(text, "\nDispatch ledger ({})", ledger.len());
    for e in &ledger {
        let _ = writeln!(
            text,
            "  {:<10}  {} {} {}",
            e.state.as_str(),
            one_line(&e.call_id),
            one_line(&e.tool),
            e.arguments
        );
    }
    let _ = writeln!(text, "\nYour answers ({})", approvals.len());
    for a in &approvals {
        let _ = writeln!(
            text,
            "  {:<13}  {} {}  ({})",
            a.answer.as_str(),
            one_line(&a.call_id),
            one_line(&a.tool),
            one_line(&a.reason)
        );
    }
    Ok(terminal_safe(&text, LineBreaks::Keep))
}

pub fn export(db: &Path, options: &StoreOptions, id: &str) -> Result<String> {
    let run = load(db, options, id)?.run;
    let mut out = String::new();
    for item in items_json(&run.items) {
        let _ = writeln!(out, "{item}");
    }
    Ok(out)
}

/// A field shown inside one line (an id, a name, a tag): its line breaks are escaped too, so
/// it cannot start a line that looks like another item.
fn one_line(text: &str) -> String {
    text.replace('\n', "\\n").replace('\r', "\\r")
}

fn indented(out: &mut String, text: &str) {
    if text.is_empty() {
        out.push_str("      (empty)\n");
    }
    for line in text.lines() {
        let _ = writeln!(out, "      {line}");
    }
}

/// The provenance label and the text of one item, as a person reads it. Untrusted text is
/// shown quoted, never as if the user or the model had said it.
pub(crate) fn describe(body: &ItemBody) -> (String, String) {
    match body {
        ItemBody::User { text } => ("real user turn".into(), text.clone()),
        ItemBody::Assistant { text, tool_calls } => {
            let mut shown = text.clone();
            for call in tool_calls {
                if !shown.is_empty() {
                    shown.push('\n');
                }
                let _ = write!(
                    shown,
                    "→ tool call {} {} {}",
                    one_line(&call.id),
                    one_line(&call.name),
                    call.arguments
                );
            }
            ("model".into(), shown)
        }
        ItemBody::ToolResult {
            call_id,
            tool,
            output,
            is_error,
        } => (
            format!(
                "untrusted: {} of tool {}, call {}",
                if *is_error { "error" } else { "output" },
                one_line(tool),
                one_line(call_id)
            ),
            for_display(output),
        ),
        ItemBody::Notification {
            envelope,
            merged_with_user,
        } => (
            format!(
                "untrusted: notification {}{}",
                one_line(envelope.id()),
                if *merged_with_user {
                    ", merged with the user turn"
                } else {
                    ""
                }
            ),
            envelope.render(),
        ),
        ItemBody::Diagnostic(d) => match d {
            Diagnostic::ToolCallStatus { call_id, envelope } => (
                format!("diagnostic: status of call {}", one_line(call_id)),
                envelope.render(),
            ),
            Diagnostic::DispatchUnknown { call_id, tool } => (
                format!(
                    "diagnostic: dispatch of call {} ({}) unknown",
                    one_line(call_id),
                    one_line(tool)
                ),
                keel_core::compose::DISPATCH_UNKNOWN_TEXT.to_string(),
            ),
            Diagnostic::Context { envelope } => {
                ("diagnostic".into(), envelope.as_str().to_string())
            }
        },
        ItemBody::Withdrawal { from_seq, reason } => (
            format!(
                "keel: the turn from #{from_seq} to here is withdrawn from the model's context"
            ),
            reason.clone(),
        ),
    }
}

/// Every compaction round: what was folded, what stayed verbatim, why it ran.
fn render_compactions(out: &mut String, rounds: &[keel_core::compaction::Compaction]) {
    if rounds.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nCompactions ({})", rounds.len());
    for c in rounds {
        let kept = if c.kept_user_seqs.is_empty() {
            "none".to_string()
        } else {
            c.kept_user_seqs
                .iter()
                .map(|s| format!("#{s}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "  round {} ({})  {}  folded {} items before #{} into a {}-char summary; user \
             messages kept verbatim: {kept}",
            c.round,
            c.trigger.as_str(),
            c.at.to_rfc3339(),
            c.folded_count(),
            c.first_unfolded_seq,
            c.summary_chars
        );
        if !c.source_dropped.is_empty() {
            let _ = writeln!(
                out,
                "    the summariser did not see these sections whole: {}",
                c.source_dropped.join(", ")
            );
        }
    }
}

fn render_text(
    run: &RunRecord,
    queue: &[NotificationRecord],
    writer: Option<&RunLeaseRecord>,
) -> String {
    let h = &run.head;
    let mut out = format!(
        "Run {}\n  preset   {}\n  model    {}\n",
        one_line(&h.id),
        one_line(&h.preset),
        if h.model.is_empty() {
            "(not recorded)".to_string()
        } else {
            one_line(&h.model)
        }
    );
    let _ = writeln!(
        out,
        "  cwd      {}",
        h.cwd
            .as_ref()
            .map_or("(not recorded)".to_string(), |d| one_line(
                &d.to_string_lossy()
            ))
    );
    if let Some(origin) = &h.origin {
        let _ = writeln!(out, "  origin   {}", one_line(origin));
    }
    if let Some(w) = writer {
        let _ = writeln!(
            out,
            "  writer   keel process {} on {} since {} (others are refused until it is done)",
            w.holder.pid,
            one_line(&w.holder.host),
            w.acquired_at.to_rfc3339()
        );
    }
    let _ = write!(
        out,
        "  created  {}\n  updated  {}\n\nItems ({})\n",
        h.created_at.to_rfc3339(),
        h.updated_at.to_rfc3339(),
        run.items.len()
    );
    let withdrawn = keel_core::withdrawal::ranges(&run.items);
    for item in &run.items {
        let (provenance, text) = describe(&item.body);
        // Kept here, left out of every request since.
        let withdrawn = withdrawn
            .iter()
            .find(|&&(from, to)| (from..to).contains(&item.seq))
            .map_or(String::new(), |(_, to)| format!("  (withdrawn by #{to})"));
        // What the model no longer sees verbatim, and since which round.
        let folded = run
            .compaction
            .as_ref()
            .filter(|c| {
                item.seq < c.first_unfolded_seq
                    && c.kept_user_seqs.binary_search(&item.seq).is_err()
            })
            .map_or(String::new(), |_| "  (folded into the summary)".to_string());
        let _ = writeln!(
            out,
            "  #{:<4} {:<12} {}  [{provenance}]  id {}{folded}{withdrawn}",
            item.seq,
            item.body.kind_name(),
            item.ts.to_rfc3339(),
            one_line(item.id.as_str())
        );
        indented(&mut out, &text);
    }
    let _ = writeln!(
        out,
        "\nNotes ({}, {} chars in every prompt)",
        run.notes.len(),
        run.notes.total_chars()
    );
    for note in run.notes.iter() {
        let tag = note.tag.as_ref().map_or("(untagged)", |t| t.as_str());
        let _ = writeln!(out, "  {:<4}  {}", note.lifetime.as_str(), one_line(tag));
        indented(&mut out, &note.text);
    }
    for (pos, reason) in &run.skipped_notes {
        let _ = writeln!(out, "  warning: stored note {pos} was skipped: {reason}");
    }
    let language = &run.head.language;
    let _ = writeln!(
        out,
        "\nLanguage  {}",
        match (language.current, language.explicit) {
            (None, _) => "undecided".to_string(),
            (Some(l), true) => format!("{} (the user asked for it)", l.as_str()),
            (Some(l), false) => format!("{} (detected from the user's turns)", l.as_str()),
        }
    );
    let _ = writeln!(out, "\nNotifications ({})", queue.len());
    for n in queue {
        let fate = match (n.state, n.item_seq) {
            (keel_store::QueueState::Merged, Some(seq)) => {
                format!("merged with the user turn, item #{seq}")
            }
            (keel_store::QueueState::Delivered, Some(seq)) => {
                format!("delivered as its own turn, item #{seq}")
            }
            (keel_store::QueueState::Duplicate, _) => "dropped: duplicate id".to_string(),
            (state, _) => state.as_str().to_string(),
        };
        let _ = writeln!(
            out,
            "  {:<14} {}  id {}  {} chars  {fate}",
            n.kind.as_str(),
            n.enqueued_at.to_rfc3339(),
            one_line(&n.id),
            n.payload_chars
        );
    }
    out
}

/// Removes the chat history `keel chat` keeps for `run`, if there is one.
pub fn remove_history(run: &str) {
    if let Some(path) = crate::linefeed::history_file(run) {
        let _ = std::fs::remove_file(path);
    }
}

/// Which runs `keel runs prune` deletes: those that pass every filter given.
#[derive(Default)]
pub struct PruneFilter {
    /// Last updated longer ago than this.
    pub older_than: Option<std::time::Duration>,
    /// `open` or `idle` (as `keel runs list` shows it).
    pub status: Option<String>,
    /// Holding no item at all (a chat left before saying anything).
    pub empty: bool,
}

impl PruneFilter {
    fn is_empty(&self) -> bool {
        self.older_than.is_none() && self.status.is_none() && !self.empty
    }
}

/// A duration as `keel runs prune --older-than` takes it: a number and a unit (`s`, `m`, `h`,
/// `d`, `w`), or several (`1d12h`).
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let bad = || {
        format!(
            "{text:?} is not a duration: give a number and a unit, s, m, h, d or w (30d, 12h, \
             1d12h)"
        )
    };
    let mut total: u64 = 0;
    let mut digits = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit: u64 = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 7 * 86_400,
            _ => return Err(bad()),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        digits.clear();
        total = n
            .checked_mul(unit)
            .and_then(|secs| total.checked_add(secs))
            .ok_or_else(bad)?;
    }
    if !digits.is_empty() || total == 0 {
        return Err(bad());
    }
    Ok(std::time::Duration::from_secs(total))
}

/// `keel runs delete RUN...`: each run (whole id or unique prefix) with its tasks, or none of
/// them when one cannot be found or is in use.
pub fn delete(
    db: &Path,
    options: &StoreOptions,
    given: &[String],
    as_json: bool,
) -> Result<String> {
    let mut ids = Vec::new();
    for g in given {
        let id = resolve_id(db, options, g)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let Some(mut store) = open(db, options)? else {
        return Err(StoreError::RunNotFound(given.first().cloned().unwrap_or_default()).into());
    };
    let deletion = store.delete_runs(&ids, &keel_store::DeleteOptions::default())?;
    for run in &deletion.deleted {
        remove_history(&run.id);
    }
    Ok(report_deletion(&deletion, false, as_json))
}

/// `keel runs prune`: every run that passes `filter`, with its tasks; runs another process is
/// using are kept and said. With `dry_run`, what would go.
pub fn prune(
    db: &Path,
    options: &StoreOptions,
    filter: &PruneFilter,
    dry_run: bool,
    as_json: bool,
) -> Result<String> {
    if filter.is_empty() {
        anyhow::bail!(
            "say which runs to prune: --older-than DURATION (e.g. 30d), --status open|idle, \
             --empty, or several (a run must pass each); --dry-run lists them first"
        );
    }
    let Some(mut store) = open(db, options)? else {
        return Ok(report_deletion(
            &keel_store::Deletion::default(),
            dry_run,
            as_json,
        ));
    };
    let now = keel_store::lease::now();
    let cutoff = filter.older_than.map(|d| {
        keel_core::Timestamp(
            now.millis()
                .saturating_sub(d.as_millis().min(i64::MAX as u128) as i64),
        )
    });
    let chosen: Vec<String> = store
        .list_runs()?
        .into_iter()
        .filter(|r| cutoff.is_none_or(|c| r.head.updated_at < c))
        .filter(|r| {
            filter
                .status
                .as_deref()
                .is_none_or(|s| s == status(&r.head))
        })
        .filter(|r| !filter.empty || r.head.next_seq == 0)
        .map(|r| r.head.id)
        .collect();
    let deletion = store.delete_runs(
        &chosen,
        &keel_store::DeleteOptions {
            skip_in_use: true,
            dry_run,
            ..Default::default()
        },
    )?;
    if !dry_run {
        for run in &deletion.deleted {
            remove_history(&run.id);
        }
    }
    Ok(report_deletion(&deletion, dry_run, as_json))
}

/// What a deletion did, for a person or (`as_json`) as
/// `{"deleted":[{"id","task_of","items"}],"skipped":[{"id","pid","host","since"}],"dry_run"}`.
fn report_deletion(d: &keel_store::Deletion, dry_run: bool, as_json: bool) -> String {
    if as_json {
        let value = json!({
            "deleted": d.deleted.iter().map(|r| json!({
                "id": r.id,
                "task_of": r.task_of,
                "items": r.items,
            })).collect::<Vec<_>>(),
            "skipped": d.skipped.iter().map(|s| json!({
                "id": s.id,
                "pid": s.lease.holder.pid,
                "host": s.lease.holder.host,
                "since": s.lease.acquired_at.to_rfc3339(),
            })).collect::<Vec<_>>(),
            "dry_run": dry_run,
        });
        return format!("{value}\n");
    }
    let verb = if dry_run { "would delete" } else { "deleted" };
    let mut out = String::new();
    for r in &d.deleted {
        let _ = write!(out, "{verb} run {} ({} items)", one_line(&r.id), r.items);
        if let Some(parent) = &r.task_of {
            let _ = write!(
                out,
                ", a task of run {} (it goes with it)",
                one_line(parent)
            );
        }
        out.push('\n');
    }
    for s in &d.skipped {
        let _ = writeln!(
            out,
            "kept run {}: in use by keel process {} on {} since {}",
            one_line(&s.id),
            s.lease.holder.pid,
            if s.lease.holder.host.is_empty() {
                "this machine".to_string()
            } else {
                one_line(&s.lease.holder.host)
            },
            s.lease.acquired_at.to_rfc3339()
        );
    }
    let _ = writeln!(
        out,
        "{} {} run(s){}",
        if dry_run { "would delete" } else { "deleted" },
        d.deleted.len(),
        if dry_run {
            " (--dry-run: nothing was deleted)"
        } else {
            ""
        }
    );
    terminal_safe(&out, LineBreaks::Keep)
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_take_a_number_and_a_unit() {
        use std::time::Duration;
        assert_eq!(
            super::parse_duration("30d"),
            Ok(Duration::from_secs(30 * 86_400))
        );
        assert_eq!(
            super::parse_duration("12h"),
            Ok(Duration::from_secs(12 * 3600))
        );
        assert_eq!(
            super::parse_duration("1d12h"),
            Ok(Duration::from_secs(36 * 3600))
        );
        assert_eq!(
            super::parse_duration("2w"),
            Ok(Duration::from_secs(14 * 86_400))
        );
        for bad in ["", "30", "d", "3x", "0d", "-1d", "99999999999999999999w"] {
            assert!(super::parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn terminal_safe_escapes_control_characters() {
        // The whole text output is made safe at once: its line feeds stay.
        assert_eq!(
            super::terminal_safe("a\u{1b}[2J\tb\nc\u{7f}\u{9b}", super::LineBreaks::Keep),
            "a\\u{001b}[2J\tb\nc\\u{007f}\\u{009b}"
        );
    }
}
