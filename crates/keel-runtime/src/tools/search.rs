//! `search_files`: which files under a folder contain a text. Read-only and bounded: hidden
//! entries and symbolic links are not followed, and the walk stops after [`MAX_FILES`] files
//! and [`MAX_DEPTH`] levels, saying so. Each file is read as `read_file` reads it (opened
//! beneath the working directory), and only its first [`MAX_BYTES`] are searched.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{Tool, ToolContext, ToolOutput, annotations, display, spec, string_arg};
use keel_model::ToolSpec;

/// Files looked at, at most.
pub const MAX_FILES: usize = 2000;
/// Folders deep, at most.
pub const MAX_DEPTH: usize = 8;
/// Bytes of a file searched, at most.
pub const MAX_BYTES: usize = 1 << 20;

pub struct SearchFiles;

impl Tool for SearchFiles {
    fn spec(&self) -> ToolSpec {
        spec(
            "search_files",
            "Find the files that contain a text (ignoring case), under a folder (default: the working directory).",
            json!({"type": "object", "properties": {"text": {"type": "string"}, "path": {"type": "string"}}, "required": ["text"], "additionalProperties": false}),
        )
    }

    fn annotations(&self) -> Map<String, Value> {
        annotations(true, false)
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let text = match string_arg(args, "text") {
            Ok(t) if !t.trim().is_empty() => t.to_lowercase(),
            Ok(_) => return ToolOutput::error("`text` must not be empty"),
            Err(e) => return e,
        };
        let root = match args.get("path") {
            None | Some(Value::Null) => ctx.cwd.clone(),
            Some(_) => match ctx.path(args, "path") {
                Ok(p) => p,
                Err(e) => return e,
            },
        };
        if !root.is_dir() {
            return ToolOutput::error(format!("{} is not a folder", display(&root, ctx)));
        }
        let mut found = Vec::new();
        let mut seen = 0;
        let mut level: Vec<PathBuf> = vec![root];
        let mut cut = false;
        'walk: for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for dir in &level {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                let mut entries: Vec<(PathBuf, std::fs::FileType)> = entries
                    .filter_map(Result::ok)
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                for (path, kind) in entries {
                    if kind.is_dir() {
                        next.push(path);
                    } else if kind.is_file() {
                        if seen == MAX_FILES {
                            cut = true;
                            break 'walk;
                        }
                        seen += 1;
                        if contains(ctx, &path, &text) {
                            found.push(display(&path, ctx));
                        }
                    }
                }
            }
            level = next;
        }
        let mut out = if found.is_empty() {
            format!(
                "no file contains {:?}",
                args["text"].as_str().unwrap_or_default()
            )
        } else {
            found.join("\n")
        };
        if cut {
            out.push_str(&format!("\n[stopped after {MAX_FILES} files]"));
        }
        ToolOutput::ok(ctx.cap(out))
    }
}

fn contains(ctx: &ToolContext, path: &Path, lower: &str) -> bool {
    let Ok(text) = ctx.read_text(path, true) else {
        return false;
    };
    let mut end = text.len().min(MAX_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_lowercase().contains(lower)
}
