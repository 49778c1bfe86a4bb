//! `keel call notification-context` and `keel call conversation-language`
//! (interfaces.md §1.2, §1.3).

use keel_core::language::{ConversationLanguage, is_sample};
use keel_core::notify::{Lang, NotificationKind, NotificationLanguage, notification_context};
use serde_json::{Value, json};

use super::CallError;
use super::wire::{BadInput, Obj};

fn lang_at(obj: &Obj<'_>, key: &str, required: bool) -> Result<Option<Lang>, BadInput> {
    let value = if required {
        Some(obj.req_str(key)?)
    } else {
        obj.opt_str(key)?
    };
    value
        .map(|s| {
            Lang::parse(s).ok_or_else(|| {
                BadInput::new(
                    obj.path_of(key),
                    format!(
                        "`{}` must be \"en\" or \"zh-CN\", not {s:?}",
                        obj.path_of(key)
                    ),
                )
            })
        })
        .transpose()
}

fn strings(obj: &Obj<'_>, key: &str, required: bool) -> Result<Option<Vec<String>>, BadInput> {
    let items = if required {
        Some(obj.req_array(key)?)
    } else {
        obj.opt_array(key)?
    };
    items
        .map(|items| {
            items
                .list
                .into_iter()
                .map(|(path, v)| {
                    v.as_str().map(String::from).ok_or_else(|| {
                        BadInput::new(path.clone(), format!("`{path}` must be a string"))
                    })
                })
                .collect()
        })
        .transpose()
}

pub fn notification_context_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let kind_name = root.req_str("kind")?;
    let kind = NotificationKind::parse(kind_name).ok_or_else(|| {
        BadInput::new(
            "kind",
            format!(
                "`kind` must be one of search_result, visual_result, peer_report, permission, \
                 task_result; not {kind_name:?}"
            ),
        )
    })?;
    let payload = root.req_str("payload")?;
    let language = match root.opt("language") {
        None => None,
        Some(v) => {
            let obj = Obj::at(v, "language".into())?;
            Some(NotificationLanguage {
                fallback: lang_at(&obj, "fallbackLanguage", true)?.unwrap_or(Lang::En),
                output: lang_at(&obj, "outputLanguage", false)?,
                samples: strings(&obj, "userLanguageSamples", false)?,
            })
        }
    };
    Ok(json!(notification_context(
        kind,
        payload,
        language.as_ref()
    )))
}

pub fn conversation_language_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let utterances = strings(&root, "utterances", true)?.unwrap_or_default();
    let fallback = lang_at(&root, "fallbackLanguage", true)?.unwrap_or(Lang::En);
    let mut tracker = ConversationLanguage::new();
    for u in &utterances {
        tracker.observe(u);
    }
    let samples: Vec<&String> = utterances.iter().filter(|u| is_sample(u)).collect();
    Ok(json!({
        "outputLanguage": tracker.current.map(Lang::as_str),
        "resolved": tracker.resolve(fallback).as_str(),
        "explicit": tracker.explicit,
        "samples": samples,
    }))
}
