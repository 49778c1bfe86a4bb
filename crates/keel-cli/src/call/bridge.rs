//! `keel call` for the bridge helpers built so far (interfaces.md §1.5): `detect-lang`,
//! `summary-token-budget`, `estimate-summary-tokens`.

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
    use keel_core::bridge::constraints::{SourceMessage, preserve_active_user_constraints};
    let root = Obj::root(input)?;
    let summary = root.req_str("summary")?;
    let lang = lang(&root)?;
    let messages = root
        .req_array("messages")?
        .objects()?
        .iter()
        .map(|m| {
            Ok(SourceMessage {
                role: m.req_str("role")?.to_string(),
                content: m.req_str("content")?.to_string(),
            })
        })
        .collect::<Result<Vec<_>, BadInput>>()?;
    Ok(json!(preserve_active_user_constraints(
        summary, &messages, lang
    )))
}
