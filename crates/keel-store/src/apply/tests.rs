//! `RunRecord::apply` against the SQLite store: after any sequence of writes, a record kept in
//! memory and updated only by `apply` equals a fresh load, and a write refused by one is
//! refused by the other with the same error.

use keel_core::compaction::{Compaction, Trigger};
use keel_core::language::ConversationLanguage;
use keel_core::notes::NoteOp;
use keel_core::notify::NotificationKind;
use keel_core::{ItemBody, ItemId, NoteLifetime, NoteTag, Timestamp, ToolCall, Untrusted};
use proptest::prelude::*;
use serde_json::json;

use crate::{
    DispatchState, LedgerWrite, NewItem, NewNotification, NewRun, QueueSettlement, QueueState,
    QueueStore, RunRecord, RunStore, RunWrite, SqliteStore, StoreError, StoreOptions,
};

const RUN: &str = "r";

/// One note operation of a planned write.
#[derive(Clone, Debug)]
enum NotePlan {
    Add {
        text: u8,
        turn: bool,
        tag: Option<u8>,
    },
    Remove(u8),
    Clear,
}

/// One planned write: any mix of what a [`RunWrite`] can carry.
#[derive(Clone, Debug)]
struct Plan {
    /// Item kinds to append: 0 user, 1 assistant with a tool call, 2 tool result.
    items: Vec<u8>,
    notes: Vec<NotePlan>,
    /// A tight untagged-note cap, so some adds are refused (NoteLimit).
    cap: Option<usize>,
    open: bool,
    close: bool,
    /// An utterance the conversation language observes.
    language: Option<u8>,
    /// Record a compaction round: the next one (`true`) or one out of order (`false`).
    compaction: Option<bool>,
    /// Enqueue a notification first and settle it in this write.
    settle: bool,
    /// Intend a new ledger entry (`true`), or complete the oldest open one (`false`).
    ledger: Option<bool>,
    /// Present an older version than the run is at.
    stale: bool,
    /// The write's clock, relative to the previous one (sometimes behind it).
    now_delta: i8,
}

fn note_plan() -> impl Strategy<Value = NotePlan> {
    prop_oneof![
        6 => (0u8..4, any::<bool>(), prop::option::of(0u8..3))
            .prop_map(|(text, turn, tag)| NotePlan::Add { text, turn, tag }),
        2 => (0u8..3).prop_map(NotePlan::Remove),
        1 => Just(NotePlan::Clear),
    ]
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        prop::collection::vec(0u8..3, 0..4),
        prop::collection::vec(note_plan(), 0..4),
        prop::option::weighted(0.15, 0usize..3),
        (any::<bool>(), any::<bool>()),
        prop::option::weighted(0.3, 0u8..3),
        prop::option::weighted(0.2, prop::bool::weighted(0.8)),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.3, any::<bool>()),
        prop::bool::weighted(0.05),
        -3i8..10,
    )
        .prop_map(
            |(
                items,
                notes,
                cap,
                (open, close),
                language,
                compaction,
                settle,
                ledger,
                stale,
                now_delta,
            )| {
                Plan {
                    items,
                    notes,
                    cap,
                    open,
                    close,
                    language,
                    compaction,
                    settle,
                    ledger,
                    stale,
                    now_delta,
                }
            },
        )
}

fn tag(n: u8) -> NoteTag {
    NoteTag::new(format!("tag-{n}")).unwrap_or_else(|_| panic!("empty tag"))
}

fn item_id(n: u64) -> ItemId {
    ItemId::try_from(format!("item-{n}")).unwrap_or_else(|_| panic!("empty id"))
}

const UTTERANCES: [&str; 3] = [
    "Please look at the build log and tell me what failed.",
    "请帮我看一下这个构建日志，告诉我哪里失败了。",
    "Answer in English from now on, please.",
];

/// What the test keeps besides the cached record: the clock, the ids handed out, the open
/// ledger entries and the rounds recorded.
struct Driver {
    store: SqliteStore,
    cache: RunRecord,
    now: i64,
    ids: u64,
    open_calls: Vec<String>,
    rounds: u32,
    language: ConversationLanguage,
}

impl Driver {
    fn new(dir: &std::path::Path) -> Result<Self, StoreError> {
        let mut store = SqliteStore::open(&dir.join("keel.db"), &StoreOptions::default())?;
        store.create_run(NewRun {
            id: RUN.into(),
            preset: "default".into(),
            model: String::new(),
            origin: None,
            cwd: None,
            open_turn: false,
            now: Timestamp(1_000),
            note_ops: vec![NoteOp::Add {
                text: "first".into(),
                lifetime: NoteLifetime::Run,
                tag: None,
            }],
            items: vec![NewItem {
                id: item_id(0),
                ts: Timestamp(1_000),
                body: ItemBody::User {
                    text: "hello".into(),
                },
            }],
        })?;
        let cache = store.load_run(RUN)?;
        Ok(Self {
            store,
            cache,
            now: 1_000,
            ids: 1,
            open_calls: Vec::new(),
            rounds: 0,
            language: ConversationLanguage::default(),
        })
    }

    fn new_item(&mut self, body: ItemBody) -> NewItem {
        self.ids += 1;
        NewItem {
            id: item_id(self.ids),
            ts: Timestamp(self.now),
            body,
        }
    }

    fn build(&mut self, p: &Plan) -> Result<RunWrite, StoreError> {
        self.now += i64::from(p.now_delta);
        let mut append = Vec::new();
        for kind in &p.items {
            let n = self.ids;
            let body = match kind {
                0 => ItemBody::User {
                    text: format!("user {n}"),
                },
                1 => ItemBody::Assistant {
                    text: format!("reply {n}"),
                    tool_calls: vec![ToolCall {
                        id: format!("call-{n}"),
                        name: "read_file".into(),
                        arguments: json!({"path": format!("f{n}")}),
                    }],
                },
                _ => ItemBody::ToolResult {
                    call_id: format!("call-{n}"),
                    tool: "read_file".into(),
                    output: Untrusted::new(format!("contents {n}")),
                    is_error: n.is_multiple_of(2),
                },
            };
            append.push(self.new_item(body));
        }
        let version = self.cache.head.version - u64::from(p.stale);
        let mut write = RunWrite::append(version, Timestamp(self.now), append);
        let ops = p
            .notes
            .iter()
            .map(|n| match n {
                NotePlan::Add { text, turn, tag: t } => NoteOp::Add {
                    text: format!("note {text}"),
                    lifetime: if *turn {
                        NoteLifetime::Turn
                    } else {
                        NoteLifetime::Run
                    },
                    tag: t.map(tag),
                },
                NotePlan::Remove(t) => NoteOp::Remove { tag: tag(*t) },
                NotePlan::Clear => NoteOp::Clear,
            })
            .collect();
        write = write.with_note_ops(ops, p.cap.unwrap_or(keel_core::notes::DEFAULT_MAX_UNTAGGED));
        if p.open {
            write = write.opening_turn();
        }
        if p.close {
            write = write.closing_turn();
        }
        if let Some(u) = p.language {
            let mut language = self.language;
            language.observe(UTTERANCES[usize::from(u)]);
            write = write.with_language(language);
        }
        if let Some(in_order) = p.compaction {
            let round = if in_order {
                self.rounds + 1
            } else {
                self.rounds + 2
            };
            let cap = write.max_untagged_notes;
            write = write
                .with_note_ops(
                    vec![keel_core::compaction::note_op(&format!("summary {round}"))],
                    cap,
                )
                .with_compaction(Compaction {
                    round,
                    first_unfolded_seq: self.cache.head.next_seq,
                    kept_user_seqs: vec![0],
                    summary_chars: 9,
                    trigger: Trigger::Threshold,
                    at: Timestamp(self.now),
                    source_dropped: vec![],
                });
        }
        if p.settle {
            let arrival = self.store.enqueue_notification(
                RUN,
                NewNotification {
                    id: format!("n-{}", self.ids),
                    kind: NotificationKind::TaskResult,
                    payload: "{}".into(),
                    now: Timestamp(self.now),
                },
            )?;
            let settlement = if write.append.is_empty() {
                QueueSettlement {
                    arrival,
                    state: QueueState::Duplicate,
                    item_index: None,
                }
            } else {
                QueueSettlement {
                    arrival,
                    state: QueueState::Merged,
                    item_index: Some(write.append.len() - 1),
                }
            };
            write = write.settling(vec![settlement]);
        }
        match p.ledger {
            Some(true) => {
                write = write.with_ledger(vec![LedgerWrite::Intend {
                    call_id: format!("ledger-{}", self.ids),
                    tool: "read_file".into(),
                    arguments: json!({"path": "a"}),
                }]);
            }
            Some(false) if !self.open_calls.is_empty() => {
                write = write.with_ledger(vec![LedgerWrite::Mark {
                    call_id: self.open_calls[0].clone(),
                    state: DispatchState::Completed,
                    result: Some("ok".into()),
                }]);
            }
            _ => {}
        }
        Ok(write)
    }

    /// Commits `write` to the store and applies it to the cache; both must agree.
    fn step(&mut self, write: RunWrite) -> Result<(), TestCaseError> {
        let stored = self.store.commit(RUN, write.clone());
        let mut cached = self.cache.clone();
        let applied = cached.apply(&write);
        match (&stored, &applied) {
            (Ok(committed), Ok(applied)) => {
                prop_assert_eq!(committed, &applied.committed);
                rules(&self.cache, &write, &cached)?;
                self.cache = cached;
                self.settled(&write, applied)?;
            }
            (Err(s), Err(a)) => {
                prop_assert_eq!(s.to_string(), a.to_string());
                // A refused write changes nothing, in the store or in memory.
                prop_assert_eq!(&cached, &self.cache);
            }
            _ => {
                return Err(TestCaseError::fail(format!(
                    "the store said {stored:?}, apply said {applied:?}"
                )));
            }
        }
        let fresh = self
            .store
            .load_run(RUN)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&self.cache, &fresh);
        Ok(())
    }

    /// Keeps the driver's own state in step with a committed write, and checks the queue
    /// holds the sequence numbers `apply` computed.
    fn settled(&mut self, write: &RunWrite, applied: &crate::Applied) -> Result<(), TestCaseError> {
        if let Some(language) = write.language {
            self.language = language;
        }
        if let Some(c) = &write.compaction {
            self.rounds = c.round;
        }
        for change in &write.ledger {
            match change {
                LedgerWrite::Intend { call_id, .. } => self.open_calls.push(call_id.clone()),
                LedgerWrite::Mark { .. } => {
                    self.open_calls.remove(0);
                }
            }
        }
        let queue = self
            .store
            .notifications(RUN)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for s in &applied.settled {
            let entry = queue.iter().find(|q| q.arrival == s.arrival);
            prop_assert_eq!(
                entry.map(|q| (q.state, q.item_seq)),
                Some((s.state, s.item_seq))
            );
        }
        Ok(())
    }
}

/// What a committed write must have done, stated apart from `apply`: the store persists what
/// `apply` computed, so comparing the two alone would not catch a rule both got wrong.
fn rules(before: &RunRecord, write: &RunWrite, after: &RunRecord) -> Result<(), TestCaseError> {
    let (b, a) = (&before.head, &after.head);
    prop_assert_eq!(a.version, b.version + 1);
    prop_assert_eq!(a.next_seq, b.next_seq + write.append.len() as u64);
    prop_assert_eq!(a.next_seq as usize, after.items.len());
    prop_assert_eq!(a.updated_at, b.updated_at.max(write.now));
    prop_assert_eq!((&a.id, a.created_at), (&b.id, b.created_at));
    prop_assert_eq!(
        (&a.preset, &a.model, &a.origin, &a.cwd),
        (&b.preset, &b.model, &b.origin, &b.cwd)
    );
    prop_assert_eq!(a.language, write.language.unwrap_or(b.language));
    let turn_open = if write.open_turn || write.close_turn {
        write.open_turn && !write.close_turn
    } else {
        b.turn_open
    };
    prop_assert_eq!(a.turn_open, turn_open);
    prop_assert_eq!(&after.items[..before.items.len()], &before.items[..]);
    for (i, (item, new)) in after.items[before.items.len()..]
        .iter()
        .zip(&write.append)
        .enumerate()
    {
        prop_assert_eq!(item.seq, b.next_seq + i as u64);
        prop_assert_eq!(
            (&item.id, item.ts, &item.body),
            (&new.id, new.ts, &new.body)
        );
    }
    if write.close_turn {
        prop_assert!(after.notes.iter().all(|n| n.lifetime == NoteLifetime::Run));
    }
    if write.note_ops.is_empty() && !write.close_turn {
        prop_assert_eq!(&after.notes, &before.notes);
    }
    prop_assert_eq!(
        &after.compaction,
        if write.compaction.is_some() {
            &write.compaction
        } else {
            &before.compaction
        }
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_record_kept_by_apply_equals_a_fresh_load(plans in prop::collection::vec(plan(), 1..12)) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut d = Driver::new(dir.path()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for p in &plans {
            let write = d.build(p).map_err(|e| TestCaseError::fail(e.to_string()))?;
            d.step(write)?;
        }
    }
}

/// Every kind of write in one run, deterministically, so a failure here names the kind.
#[test]
fn every_kind_of_write_keeps_the_record_equal_to_a_fresh_load() -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut d = Driver::new(dir.path()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let base = Plan {
        items: vec![],
        notes: vec![],
        cap: None,
        open: false,
        close: false,
        language: None,
        compaction: None,
        settle: false,
        ledger: None,
        stale: false,
        now_delta: 5,
    };
    let plans = [
        Plan {
            items: vec![0],
            open: true,
            language: Some(1),
            notes: vec![NotePlan::Add {
                text: 0,
                turn: true,
                tag: None,
            }],
            ..base.clone()
        },
        Plan {
            items: vec![1],
            ledger: Some(true),
            ..base.clone()
        },
        Plan {
            items: vec![2],
            ledger: Some(false),
            settle: true,
            ..base.clone()
        },
        Plan {
            stale: true,
            items: vec![0],
            ..base.clone()
        },
        Plan {
            notes: vec![
                NotePlan::Add {
                    text: 1,
                    turn: false,
                    tag: None,
                },
                NotePlan::Add {
                    text: 2,
                    turn: false,
                    tag: None,
                },
            ],
            cap: Some(1),
            ..base.clone()
        },
        Plan {
            compaction: Some(false),
            ..base.clone()
        },
        Plan {
            compaction: Some(true),
            now_delta: -3,
            ..base.clone()
        },
        Plan {
            items: vec![1],
            close: true,
            notes: vec![NotePlan::Add {
                text: 3,
                turn: false,
                tag: Some(1),
            }],
            ..base.clone()
        },
        Plan {
            items: vec![0],
            open: true,
            close: true,
            language: Some(2),
            settle: true,
            notes: vec![NotePlan::Remove(1), NotePlan::Clear],
            ..base
        },
    ];
    for p in &plans {
        let write = d.build(p).map_err(|e| TestCaseError::fail(e.to_string()))?;
        d.step(write)?;
    }
    let run = &d.cache;
    assert_eq!(run.head.version, 7, "three of the nine writes were refused");
    assert!(!run.head.turn_open);
    assert_eq!(run.compaction.as_ref().map(|c| c.round), Some(1));
    assert!(run.notes.iter().next().is_none());
    Ok(())
}

/// Note operations rewrite the notes from the well-formed ones, so what a load skipped (N28)
/// is gone after them; a close without operations leaves the malformed rows in place.
#[test]
fn note_operations_drop_what_a_load_skipped_and_a_bare_close_does_not()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut d = Driver::new(dir.path())?;
    let conn = rusqlite::Connection::open(dir.path().join("keel.db"))?;
    conn.execute_batch("INSERT INTO notes VALUES ('r', 5, 'B', 'forever', NULL);")?;
    let mut cache = d.store.load_run(RUN)?;
    assert_eq!(cache.skipped_notes.len(), 1);
    let close = RunWrite::append(cache.head.version, Timestamp(2_000), vec![]).closing_turn();
    d.store.commit(RUN, close.clone())?;
    cache.apply(&close)?;
    assert_eq!(cache, d.store.load_run(RUN)?);
    assert_eq!(cache.skipped_notes.len(), 1);
    let add = RunWrite::append(cache.head.version, Timestamp(2_000), vec![]).with_note_ops(
        vec![NoteOp::Add {
            text: "second".into(),
            lifetime: NoteLifetime::Run,
            tag: None,
        }],
        16,
    );
    d.store.commit(RUN, add.clone())?;
    cache.apply(&add)?;
    assert_eq!(cache, d.store.load_run(RUN)?);
    assert!(cache.skipped_notes.is_empty());
    Ok(())
}
