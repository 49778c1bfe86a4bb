//! Which model a command talks to, and how it is built from a spec (`local`,
//! `local:PATH.gguf`, `openai:MODEL`, `script:FILE`), the command line and `[model]`.

use std::path::PathBuf;

use keel_model::Model;
use keel_model::local::{self, LocalModel, LocalSettings};
use keel_model::openai::{HttpSettings, OpenAiModel};
use keel_model::scripted::ScriptedModel;

use crate::config::Config;
use crate::{AppError, Notices};

/// The environment variable naming a file the scripted provider appends every request to.
pub const SCRIPT_LOG_ENV: &str = "KEEL_SCRIPT_LOG";

/// The model a spec names (`script:FILE`, `openai:MODEL`, `local`, …). `base_url` is the
/// `--base-url` flag, which wins over `[model] base_url`.
pub fn model_for(
    spec: &str,
    config: &Config,
    base_url: Option<&str>,
    notices: &Notices,
) -> Result<Box<dyn Model + Send>, AppError> {
    if let Some(path) = spec.strip_prefix("script:") {
        let mut model = ScriptedModel::from_file(&PathBuf::from(path))?;
        if let Some(log) = std::env::var_os(SCRIPT_LOG_ENV) {
            model = model.log_requests_to(PathBuf::from(log));
        }
        return Ok(Box::new(model));
    }
    if let Some(name) = spec.strip_prefix("openai:") {
        return Ok(Box::new(OpenAiModel::new(http_settings(
            config, name, base_url,
        ))?));
    }
    if spec == "local" || spec.starts_with("local:") {
        return Ok(Box::new(local_model(spec, config, notices)?));
    }
    Err(AppError::Setup(format!(
        "unknown model {spec:?}: use local (the embedded model), local:PATH.gguf, \
         openai:MODEL (with --base-url for a llama.cpp, Ollama or vLLM server) or script:FILE"
    )))
}

/// The local GGUF model: the embedded one (fetched on first use) or `local:PATH.gguf`.
fn local_model(spec: &str, config: &Config, notices: &Notices) -> Result<LocalModel, AppError> {
    let exe = std::env::current_exe()
        .map_err(|e| AppError::Setup(format!("cannot tell where keel is installed: {e}")))?;
    // The worker first: no point fetching a model nothing can run.
    let worker = local::find_worker(&exe)?;
    let path = match spec.strip_prefix("local:") {
        Some(path) => PathBuf::from(path),
        None => local::fetch_embedded_model(&crate::paths::data_dir()?, &mut |m| notices(m))?,
    };
    let m = &config.model;
    let mut s = LocalSettings::new(worker, path);
    if let Some(n) = config.compaction.context_window {
        s.context_window = u32::try_from(n).unwrap_or(u32::MAX);
    }
    s.threads = m.threads;
    if let Some(secs) = m.start_timeout_secs {
        s.start_timeout = std::time::Duration::from_secs(secs);
    }
    if let Some(secs) = m.request_timeout_secs {
        s.request_timeout = std::time::Duration::from_secs(secs);
    }
    if let Some(n) = m.max_tokens {
        s.max_tokens = n;
    }
    // The embedded model is a 135M one, wherever its file lies: it gets the prompt made for a
    // small model.
    let embedded = s
        .model
        .file_name()
        .is_some_and(|n| n == local::EMBEDDED_FILE);
    s.small_prompt = m.small_prompt.unwrap_or(embedded);
    if s.small_prompt && m.max_tokens.is_none() {
        s.max_tokens = local::SMALL_MODEL_MAX_TOKENS;
    }
    Ok(LocalModel::new(spec, s)?)
}

/// `[model]` settings and the environment, for the HTTP provider.
fn http_settings(config: &Config, name: &str, base_url: Option<&str>) -> HttpSettings {
    let m = &config.model;
    let base = base_url
        .or(m.base_url.as_deref())
        .unwrap_or(keel_model::openai::DEFAULT_BASE_URL);
    let mut s = HttpSettings::new(base, name);
    let key_env = m
        .api_key_env
        .as_deref()
        .unwrap_or(keel_model::openai::DEFAULT_API_KEY_ENV);
    s.api_key = std::env::var(key_env).ok().filter(|k| !k.is_empty());
    s.api_key_source = format!("${key_env}");
    s.headers = m
        .headers
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(secs) = m.connect_timeout_secs {
        s.connect_timeout = std::time::Duration::from_secs(secs);
    }
    if let Some(secs) = m.read_timeout_secs {
        s.read_timeout = std::time::Duration::from_secs(secs);
    }
    if let Some(n) = m.max_retries {
        s.max_retries = n;
    }
    s.context_window = config.compaction.context_window;
    s
}

/// Which model a command uses: `--model`, else the run's own, else `[model] name`, else local.
/// A `script:` path is made absolute, so the run's recorded model still names the same file
/// when it is resumed from another directory.
pub fn model_spec(config: &Config, flag: Option<&str>, recorded: Option<&str>) -> String {
    let spec = flag
        .or(recorded.filter(|m| !m.is_empty()))
        .or(config.model.name.as_deref())
        .unwrap_or("local");
    match spec.strip_prefix("script:").map(PathBuf::from) {
        Some(path) if path.is_relative() => match std::env::current_dir() {
            Ok(cwd) => format!("script:{}", cwd.join(path).display()),
            Err(_) => spec.to_string(),
        },
        _ => spec.to_string(),
    }
}

/// Whether `spec` is the embedded model: `local`, or `local:PATH` to its file.
pub fn is_embedded(spec: &str) -> bool {
    spec == "local"
        || spec.strip_prefix("local:").is_some_and(|p| {
            std::path::Path::new(p)
                .file_name()
                .is_some_and(|n| n == local::EMBEDDED_FILE)
        })
}

/// What keel says when the embedded model could not do `task`: plainly that it could not, and
/// the one command that runs the same task on a capable model.
pub fn capable_model_hint(task: &str) -> String {
    let quoted = format!("'{}'", task.replace('\'', r"'\''"));
    format!(
        "the embedded model (SmolLM2-135M, a small demo model) could not finish this task. \
         Point keel at a capable model with one command, e.g. a local Ollama:\n  keel run \
         --model openai:qwen2.5:7b --base-url http://localhost:11434/v1 {quoted}\n(a llama.cpp \
         server: --model openai:local --base-url http://localhost:8080/v1; any \
         OpenAI-compatible endpoint: --model openai:MODEL --base-url URL, with the key in \
         OPENAI_API_KEY; [model] name and base_url in your config make it the default — see \
         docs/running.md)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_names_one_command_with_the_task_quoted_for_a_shell() {
        let hint = capable_model_hint("List Sam's files");
        assert!(
            hint.contains(
                r"keel run --model openai:qwen2.5:7b --base-url http://localhost:11434/v1 'List Sam'\''s files'"
            ),
            "{hint}"
        );
        assert!(is_embedded("local"));
        assert!(is_embedded("local:/x/SmolLM2-135M-Instruct.Q4_1.gguf"));
        assert!(!is_embedded("local:/x/qwen.gguf"));
        assert!(!is_embedded("openai:gpt-4o"));
    }
}
