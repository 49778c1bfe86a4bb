//! Turn boundaries: the only moments notifications are delivered (notifications.md N25a).
//!
//! [`open_user_turn`] appends a real user turn, lets the conversation language observe it, and
//! merges everything waiting into it (N14a). [`deliver_after_close`] delivers the first waiting
//! notification as a turn of its own (N13a); the model call made for it carries notification
//! authority, which [`refusal_items`] records on its tool calls (N15a). Each is one store
//! transaction: a crash leaves either the whole step or none of it, so nothing is delivered
//! twice and nothing waiting is lost.

use keel_core::language::{ConversationLanguage, is_sample};
use keel_core::notify::{
    Boundary, Delivery, Lang, NotificationLanguage, Refusal, ResponseOrigin, next_delivery,
};
use keel_core::{ItemBody, ItemId, Timestamp, Untrusted};
use keel_store::{Committed, NewItem, QueueSettlement, QueueState, RunWrite, Store, StoreError};

/// How many recent user turns are searched for language samples. Samples are the non-blank
/// ones (N18, as `keel call conversation-language` reports them); the envelope keeps the last
/// three of those (N5).
const SAMPLE_WINDOW: usize = 64;

/// What opening a turn did.
#[derive(Debug)]
pub struct OpenedTurn {
    pub user_item: ItemId,
    pub language: ConversationLanguage,
    /// The notifications merged into this turn, and the duplicates recorded.
    pub delivery: Delivery,
    pub committed: Committed,
}

/// What delivering after a close did.
#[derive(Debug)]
pub struct DeliveredTurn {
    /// The notification delivered as a turn of its own, if one was waiting. The model call
    /// made for it has [`ResponseOrigin::Notification`].
    pub origin: Option<ResponseOrigin>,
    pub delivery: Delivery,
    pub committed: Option<Committed>,
}

fn language_for(
    store: &dyn Store,
    run: &str,
    language: ConversationLanguage,
    fallback: Lang,
) -> Result<NotificationLanguage, StoreError> {
    let samples: Vec<String> = store
        .recent_user_texts(run, SAMPLE_WINDOW)?
        .into_iter()
        .filter(|t| is_sample(t))
        .collect();
    Ok(NotificationLanguage {
        fallback,
        output: language.current,
        samples: Some(samples),
    })
}

fn settlements(delivery: &Delivery, state: QueueState, first_index: usize) -> Vec<QueueSettlement> {
    let delivered = delivery
        .items
        .iter()
        .enumerate()
        .map(|(i, d)| QueueSettlement {
            arrival: d.arrival,
            state,
            item_index: Some(first_index + i),
        });
    let duplicates = delivery.duplicates.iter().map(|&arrival| QueueSettlement {
        arrival,
        state: QueueState::Duplicate,
        item_index: None,
    });
    delivered.chain(duplicates).collect()
}

fn notification_items(
    delivery: &Delivery,
    now: Timestamp,
    next_id: &mut dyn FnMut() -> ItemId,
) -> Vec<NewItem> {
    delivery
        .items
        .iter()
        .map(|d| NewItem {
            id: next_id(),
            ts: now,
            body: ItemBody::Notification {
                envelope: d.envelope.clone(),
                merged_with_user: d.merged_with_user,
            },
        })
        .collect()
}

/// Opens a real user turn (step 1 of a turn): appends `text` as a User item, updates the
/// conversation language from it, and merges every waiting notification into it, in one
/// transaction.
pub fn open_user_turn(
    store: &mut dyn Store,
    run: &str,
    text: &str,
    now: Timestamp,
    fallback: Lang,
    next_id: &mut dyn FnMut() -> ItemId,
) -> Result<OpenedTurn, StoreError> {
    let head = store.run_head(run)?;
    let mut language = head.language;
    language.observe(text);
    let user_item = next_id();
    let user = NewItem {
        id: user_item.clone(),
        ts: now,
        body: ItemBody::User {
            text: text.to_string(),
        },
    };
    let mut notification_language = language_for(store, run, language, fallback)?;
    if is_sample(text)
        && let Some(samples) = notification_language.samples.as_mut()
    {
        samples.push(text.to_string());
    }
    let delivery = next_delivery(
        &store.pending_notifications(run)?,
        &store.delivered_notification_ids(run)?,
        &Boundary::OpeningUserTurn {
            user_item: user_item.clone(),
        },
        &notification_language,
    );
    let mut items = vec![user];
    items.extend(notification_items(&delivery, now, next_id));
    let write = RunWrite::append(head.version, now, items)
        .with_language(language)
        .settling(settlements(&delivery, QueueState::Merged, 1))
        .opening_turn();
    let committed = store.commit(run, write)?;
    Ok(OpenedTurn {
        user_item,
        language,
        delivery,
        committed,
    })
}

/// After a turn closes (step 8): delivers the first waiting notification as a turn of its
/// own, and records duplicates. Returns the authority the model call for it carries.
pub fn deliver_after_close(
    store: &mut dyn Store,
    run: &str,
    now: Timestamp,
    fallback: Lang,
    next_id: &mut dyn FnMut() -> ItemId,
) -> Result<DeliveredTurn, StoreError> {
    let head = store.run_head(run)?;
    let pending = store.pending_notifications(run)?;
    if pending.is_empty() {
        return Ok(DeliveredTurn {
            origin: None,
            delivery: Delivery::default(),
            committed: None,
        });
    }
    let delivery = next_delivery(
        &pending,
        &store.delivered_notification_ids(run)?,
        &Boundary::AfterTurnClose,
        &language_for(store, run, head.language, fallback)?,
    );
    let origin = delivery
        .items
        .first()
        .map(|d| ResponseOrigin::Notification(d.envelope.kind()));
    let mut write = RunWrite::append(
        head.version,
        now,
        notification_items(&delivery, now, next_id),
    )
    .settling(settlements(&delivery, QueueState::Delivered, 0));
    if origin.is_some() {
        // The delivered notification is a turn of its own, open until its response closes it.
        write = write.opening_turn();
    }
    let committed = store.commit(run, write)?;
    Ok(DeliveredTurn {
        origin,
        delivery,
        committed: Some(committed),
    })
}

/// Records the refusals of the authority stage: each refused call gets N15a's tool result
/// as its ToolResult item, so it is answered, never dispatched, and visible in the run.
pub fn refusal_items(
    refusals: &[Refusal],
    now: Timestamp,
    next_id: &mut dyn FnMut() -> ItemId,
) -> Vec<NewItem> {
    refusals
        .iter()
        .map(|r| NewItem {
            id: next_id(),
            ts: now,
            body: ItemBody::ToolResult {
                call_id: r.call_id.clone(),
                tool: r.tool.clone(),
                output: Untrusted::new(r.result.to_string()),
                is_error: true,
            },
        })
        .collect()
}
