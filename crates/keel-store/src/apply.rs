//! The one meaning of a [`RunWrite`]: what it does to a run, as a pure function.
//!
//! [`RunRecord::apply`] is the only code that says how a write changes a run's head, items,
//! notes and compaction round. A store applies it inside the write's transaction and persists
//! the result; a writer that keeps the run in memory (the agent's turn cache) applies it to its
//! copy after the store committed, so the copy is what a reload would give. Nothing here
//! touches storage: the checks that need the run's other tables (a ledger entry is open, a
//! notification is still pending) stay with the store that holds them.

use keel_core::Item;

use crate::{Committed, QueueState, RunRecord, RunWrite, StoreError};

#[cfg(test)]
mod tests;

/// A queue settlement, with the item it became resolved to that item's sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settled {
    pub arrival: u64,
    pub state: QueueState,
    pub item_seq: Option<u64>,
}

/// What applying a write produced besides the changed record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The run's version and next sequence number after the write.
    pub committed: Committed,
    /// The write's queue settlements, in order, each with the sequence number of the item it
    /// became (the record holds no queue, so a store writes these to its own).
    pub settled: Vec<Settled>,
}

impl RunWrite {
    /// Whether the write changes the run's notes: it carries note operations, or it closes the
    /// turn. A write that does not leaves them as they are, so a store need not read them.
    pub fn changes_notes(&self) -> bool {
        !self.note_ops.is_empty() || self.close_turn
    }
}

impl RunRecord {
    /// Applies `write` to this run, or changes nothing and says why.
    ///
    /// In order: the write must present the version the run is at
    /// ([`StoreError::StaleWrite`]); its items are appended from `head.next_seq`; its note
    /// operations are applied under its untagged-note cap ([`StoreError::NoteLimit`]) and, when
    /// it closes the turn, the `Turn` notes are consumed after them (N8); a compaction round it
    /// records must follow the last one ([`StoreError::CompactionOutOfOrder`]); then the head
    /// takes the language, the turn state, the next version and sequence number, and an
    /// `updated_at` that never goes back.
    ///
    /// It reads no more of the record than the write needs: the head always, the notes only
    /// when [`RunWrite::changes_notes`], the compaction round only when the write records one,
    /// and never the items, which a write only appends to. So a store may apply it to a record
    /// loaded without those parts; `items` then holds exactly the appended ones.
    ///
    /// `skipped_notes` (N28) is cleared when note operations rewrite the notes, since the
    /// rewrite keeps only the well-formed ones; a close without note operations deletes just
    /// the `Turn` rows and leaves it as loaded.
    pub fn apply(&mut self, write: &RunWrite) -> Result<Applied, StoreError> {
        let head = &self.head;
        if head.version != write.expected_version {
            return Err(StoreError::StaleWrite {
                run: head.id.clone(),
                expected: write.expected_version,
                actual: head.version,
            });
        }
        // Everything that can fail is decided before anything changes, so a refused write
        // leaves the record as it was.
        let notes = if write.changes_notes() {
            let mut notes = self.notes.clone();
            for op in &write.note_ops {
                notes.apply(op.clone(), write.max_untagged_notes)?;
            }
            if write.close_turn {
                notes.consume_turn_notes();
            }
            Some(notes)
        } else {
            None
        };
        if let Some(c) = &write.compaction {
            let next = self
                .compaction
                .as_ref()
                .map_or(Some(1), |last| last.round.checked_add(1));
            if next != Some(c.round) {
                return Err(StoreError::CompactionOutOfOrder {
                    run: head.id.clone(),
                    round: c.round,
                });
            }
        }

        let first = head.next_seq;
        self.items
            .extend(write.append.iter().enumerate().map(|(i, n)| Item {
                seq: first + i as u64,
                id: n.id.clone(),
                ts: n.ts,
                body: n.body.clone(),
            }));
        if let Some(notes) = notes {
            self.notes = notes;
            if !write.note_ops.is_empty() {
                self.skipped_notes.clear();
            }
        }
        if let Some(c) = &write.compaction {
            self.compaction = Some(c.clone());
        }
        let head = &mut self.head;
        if let Some(language) = write.language {
            head.language = language;
        }
        if write.open_turn || write.close_turn {
            head.turn_open = write.open_turn && !write.close_turn;
        }
        head.version += 1;
        head.next_seq = first + write.append.len() as u64;
        head.updated_at = head.updated_at.max(write.now);
        Ok(Applied {
            committed: Committed {
                version: head.version,
                next_seq: head.next_seq,
            },
            settled: write
                .queue
                .iter()
                .map(|s| Settled {
                    arrival: s.arrival,
                    state: s.state,
                    item_seq: s.item_index.map(|i| first + i as u64),
                })
                .collect(),
        })
    }
}
