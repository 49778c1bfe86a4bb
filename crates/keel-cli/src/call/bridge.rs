//! `keel call` for the bridge functions built so far (interfaces.md §1.5): the language, budget
//! and text helpers, constraint preservation, and visual evidence.

use keel_core::bridge::message::{ChatMessage, ImageAttachment, ToolNode};
use keel_core::bridge::visual::{
    EvidenceBlock, VisualEvidence, append_visual_evidence, collect_visual_evidence,
};
use keel_core::bridge::{
    HandoffLang, build_bridge_instruction, build_bridge_kickoff, detect_lang,
    estimate_summary_tokens, summary_token_budget,
};
use serde_json::{Value, json};

use super::CallError;
use super::wire::{BadInput, Obj};

fn lang(root: &Obj<'_>) -> Result<HandoffLang, BadInput> {
    match root.req_str("lang")? {
        "zh" => Ok(HandoffLang::Zh),
        "en" => Ok(HandoffLang::En),
        other => Err(BadInput::new(
            root.path_of("lang"),
            format!("`lang` must be \"zh\" or \"en\", not {other:?}"),
        )),
    }
}

pub fn build_bridge_instruction_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let lang = lang(&root)?;
    let budget = match root.opt_obj("options")? {
        Some(options) => options.opt_int("summaryCharBudget")?,
        None => None,
    };
    Ok(json!(build_bridge_instruction(lang, budget)))
}

pub fn build_bridge_kickoff_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let lang = lang(&root)?;
    let auto_continue = match root.opt("autoContinue") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(
                BadInput::new("autoContinue", "`autoContinue` must be true or false").into(),
            );
        }
    };
    Ok(json!(build_bridge_kickoff(lang, auto_continue)))
}

pub fn detect_lang_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    Ok(json!(detect_lang(root.req_str("text")?).as_str()))
}

pub fn summary_token_budget_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    Ok(json!(summary_token_budget(
        root.opt_int("summaryCharBudget")?
    )))
}

pub fn estimate_summary_tokens_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let source_chars = root.req_int("sourceChars")?;
    let budget = match root.opt_obj("options")? {
        Some(options) => options.opt_int("summaryCharBudget")?,
        None => None,
    };
    let e = estimate_summary_tokens(source_chars, budget);
    Ok(json!({"input": e.input, "output": e.output}))
}

pub fn preserve_active_user_constraints_call(input: &Value) -> Result<Value, CallError> {
    use keel_core::bridge::constraints::preserve_active_user_constraints;
    let root = Obj::root(input)?;
    let summary = root.req_str("summary")?;
    let lang = lang(&root)?;
    let messages = chat_messages(&root)?;
    Ok(json!(preserve_active_user_constraints(
        summary, &messages, lang
    )))
}

/// A message list in the wire shape of interfaces.md §1.5; unknown keys are ignored.
fn chat_messages(root: &Obj<'_>) -> Result<Vec<ChatMessage>, BadInput> {
    root.req_array("messages")?
        .objects()?
        .iter()
        .map(|m| {
            let tool_nodes = match m.opt_array("toolNodes")? {
                Some(nodes) => nodes
                    .objects()?
                    .iter()
                    .map(|n| {
                        Ok(ToolNode {
                            title: n.req_str("title")?.to_string(),
                            detail: n.opt_str("detail")?.map(str::to_string),
                        })
                    })
                    .collect::<Result<Vec<_>, BadInput>>()?,
                None => Vec::new(),
            };
            Ok(ChatMessage {
                role: role(m)?.to_string(),
                content: m.req_str("content")?.to_string(),
                kind: m.opt_str("kind")?.map(str::to_string),
                tool_nodes,
                image_count: m.opt_int("imageCount")?.unwrap_or(0),
                image_attachments: attachments(m, "imageAttachments")?,
            })
        })
        .collect()
}

/// A message's `role`: `user`, `assistant` or `system` (bridge.md N2); anything else is a wrong
/// value (interfaces.md §1), not a message to skip.
fn role<'a>(message: &Obj<'a>) -> Result<&'a str, BadInput> {
    match message.req_str("role")? {
        role @ ("user" | "assistant" | "system") => Ok(role),
        other => Err(BadInput::new(
            message.path_of("role"),
            format!(
                "`{}` must be \"user\", \"assistant\" or \"system\", not {other:?}",
                message.path_of("role")
            ),
        )),
    }
}

fn attachments(owner: &Obj<'_>, key: &str) -> Result<Vec<ImageAttachment>, BadInput> {
    let Some(list) = owner.opt_array(key)? else {
        return Ok(Vec::new());
    };
    list.objects()?
        .iter()
        .map(|a| {
            Ok(ImageAttachment {
                attachment_id: a.req_str("attachmentId")?.to_string(),
                media_type: a.req_str("mediaType")?.to_string(),
                bytes: a.req_int("bytes")?,
                width: a.req_int("width")?,
                height: a.req_int("height")?,
                name: a.opt_str("name")?.map(str::to_string),
            })
        })
        .collect()
}

/// A VisualEvidence as `collect-visual-evidence` prints it.
fn visual_evidence(root: &Obj<'_>) -> Result<VisualEvidence, BadInput> {
    let evidence = root
        .opt_obj("evidence")?
        .ok_or_else(|| BadInput::new("evidence", "`evidence` is required"))?;
    let included = evidence
        .req_array("included")?
        .objects()?
        .iter()
        .map(|b| {
            Ok(EvidenceBlock {
                user_message: b.req_int("userMessage")?,
                image_count: b.req_int("imageCount")?,
                user_text: b.opt_str("userText")?.unwrap_or_default().to_string(),
                assistant_text: b.opt_str("assistantText")?.unwrap_or_default().to_string(),
                attachments: attachments(b, "attachments")?,
            })
        })
        .collect::<Result<Vec<_>, BadInput>>()?;
    let truncated = match evidence.opt("truncated") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(BadInput::new(
                evidence.path_of("truncated"),
                "`evidence.truncated` must be true or false",
            ));
        }
    };
    Ok(VisualEvidence {
        image_messages: evidence.req_int("imageMessages")?,
        images: evidence.opt_int("images")?.unwrap_or(0),
        represented: evidence.opt_int("represented")?.unwrap_or(0),
        unresolved: evidence.opt_int("unresolved")?.unwrap_or(0),
        included,
        omitted: evidence.opt_int("omitted")?.unwrap_or(0),
        truncated,
    })
}

pub fn collect_visual_evidence_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let messages = chat_messages(&root)?;
    let evidence = collect_visual_evidence(&messages, root.opt_int("charBudget")?);
    printed(evidence)
}

pub fn append_visual_evidence_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let summary = root.req_str("summary")?;
    let evidence = visual_evidence(&root)?;
    let lang = lang(&root)?;
    Ok(json!(append_visual_evidence(summary, &evidence, lang)))
}

pub fn build_bridge_source_call(input: &Value) -> Result<Value, CallError> {
    use keel_core::bridge::source::{SourceOptions, build_bridge_source};
    let root = Obj::root(input)?;
    let messages = chat_messages(&root)?;
    let options = match root.opt_obj("options")? {
        Some(options) => SourceOptions {
            source_char_budget: options.opt_int("sourceCharBudget")?,
            visual_evidence_char_budget: options.opt_int("visualEvidenceCharBudget")?,
        },
        None => SourceOptions::default(),
    };
    printed(build_bridge_source(&messages, options))
}

/// A result struct as the JSON `keel call` prints. These types hold only strings, integers and
/// lists, so serialization cannot fail in practice; if it ever did, the input was not at fault.
fn printed(result: impl serde::Serialize) -> Result<Value, CallError> {
    serde_json::to_value(result)
        .map_err(|e| CallError::Refused(format!("could not print the result: {e}")))
}
