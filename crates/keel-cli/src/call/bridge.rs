//! `keel call` for the bridge helpers built so far (interfaces.md §1.5): `detect-lang`,
//! `summary-token-budget`, `estimate-summary-tokens`.

use keel_core::bridge::{detect_lang, estimate_summary_tokens, summary_token_budget};
use serde_json::{Value, json};

use super::CallError;
use super::wire::Obj;

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
