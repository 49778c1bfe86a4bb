//! Built-in tools: `read_file`, `list_dir`, `write_file`, `edit_file` (exact search/replace),
//! `search_files` (which files contain a text; [`search`]) and `shell` (timeout, output cap,
//! confined working directory). Each has a JSON schema and
//! side-effect annotations the gate reads. Paths are relative to the session directory; the
//! gate's allowed-path checker keeps them inside it.
//!
//! `tool_manual` ([`manual`]) and `clarify` ([`clarify`]) live in submodules and are not built
//! in: whoever offers computer use adds them with [`Toolbox::add`].

mod beneath;
pub mod clarify;
pub mod manual;
pub mod search;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use keel_model::ToolSpec;
use keel_policy::classify::ToolInfo;
use serde_json::{Map, Value, json};

/// What a tool returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    /// The call failed in a way the model can correct by calling again.
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
        }
    }
}

/// Where the file tools read and write text: the file system, or an editor that holds the
/// files' open buffers (ACP's `fs/read_text_file` and `fs/write_text_file`), so that keel's
/// edits land where the person is looking. Either way the call went through the gate first.
pub trait TextFiles: Send + Sync + std::fmt::Debug {
    fn read(&self, path: &std::path::Path) -> Result<String, String>;
    fn write(&self, path: &std::path::Path, text: &str) -> Result<(), String>;
}

/// Text files on the file system: what the file tools use unless a front end gives them
/// an editor (and what an editor's front end falls back to for what the editor does not do).
#[derive(Debug)]
pub struct FileSystem;

impl FileSystem {
    /// `lossy`: bytes that are not UTF-8 come back replaced (for reading); otherwise they are
    /// an error (an edit must not write the replacements back).
    pub fn read_text(path: &std::path::Path, lossy: bool) -> Result<String, String> {
        if lossy {
            std::fs::read(path)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|e| e.to_string())
        } else {
            std::fs::read_to_string(path).map_err(|e| e.to_string())
        }
    }
}

impl TextFiles for FileSystem {
    fn read(&self, path: &std::path::Path) -> Result<String, String> {
        Self::read_text(path, true)
    }

    /// Writes the file, making its folders.
    fn write(&self, path: &std::path::Path, text: &str) -> Result<(), String> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(path, text).map_err(|e| e.to_string())
    }
}

/// Where tools run and their limits; every one is configurable.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// Text files through an editor instead of the file system, when a front end has one.
    pub files: Option<std::sync::Arc<dyn TextFiles>>,
    /// The run the call belongs to (set by the loop for each call).
    pub run_id: String,
    pub cwd: PathBuf,
    /// Which directory `cwd` named when the run's gate was made (device, inode): the file
    /// tools act in that one or refuse, so a working directory swapped for a link between the
    /// gate's decision and the tool's open is never written through.
    pub cwd_identity: Option<(u64, u64)>,
    pub shell_timeout: Duration,
    /// Most bytes of output a tool returns; the rest is cut, and the cut is said.
    pub output_cap: usize,
    /// Whether read-only shell commands that nobody was asked about run in the kernel
    /// sandbox ([`crate::sandbox`]).
    pub shell_sandbox: ShellSandbox,
    /// Set by the loop for each call: a person allowed this call when asked, so it runs as
    /// they allowed it, unconfined.
    pub person_approved: bool,
}

/// How the shell tool confines the read-only commands it runs without anyone's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ShellSandbox {
    /// Never.
    Off,
    /// Where the kernel has Landlock; elsewhere the allow-list's decision stands alone.
    #[default]
    Auto,
    /// Always: where it cannot be set up, the command does not run.
    Required,
}

impl ToolContext {
    pub fn new(cwd: PathBuf) -> Self {
        use std::os::unix::fs::MetadataExt;
        let cwd_identity = std::fs::metadata(&cwd)
            .ok()
            .filter(std::fs::Metadata::is_dir)
            .map(|m| (m.dev(), m.ino()));
        Self {
            files: None,
            run_id: String::new(),
            cwd,
            cwd_identity,
            shell_timeout: Duration::from_secs(60),
            output_cap: 64 * 1024,
            shell_sandbox: ShellSandbox::default(),
            person_approved: false,
        }
    }

    /// A text file's contents, through the editor when there is one. `lossy`: bytes that
    /// are not UTF-8 are shown replaced (for reading); otherwise they are an error (an edit
    /// must not write the replacements back).
    fn read_text(&self, path: &std::path::Path, lossy: bool) -> Result<String, String> {
        match &self.files {
            Some(files) => files.read(path),
            None => match beneath::read(&self.cwd, self.cwd_identity, path) {
                beneath::Beneath::Done(bytes) => {
                    let bytes = bytes?;
                    if lossy {
                        Ok(String::from_utf8_lossy(&bytes).into_owned())
                    } else {
                        String::from_utf8(bytes)
                            .map_err(|_| "stream did not contain valid UTF-8".to_string())
                    }
                }
                beneath::Beneath::Unsupported => FileSystem::read_text(path, lossy),
            },
        }
    }

    /// Writes a text file, through the editor when there is one (which makes its folders).
    fn write_text(&self, path: &std::path::Path, text: &str) -> Result<(), String> {
        match &self.files {
            Some(files) => files.write(path, text),
            None => match beneath::write(&self.cwd, self.cwd_identity, path, text.as_bytes()) {
                beneath::Beneath::Done(written) => written,
                beneath::Beneath::Unsupported => FileSystem.write(path, text),
            },
        }
    }

    fn path(&self, args: &Value, key: &str) -> Result<PathBuf, ToolOutput> {
        let p = args
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| ToolOutput::error(format!("`{key}` must be a string")))?;
        Ok(self.cwd.join(p))
    }

    /// `text`, cut at `output_cap` bytes on a char boundary, with the cut said.
    pub fn cap(&self, text: String) -> String {
        if text.len() <= self.output_cap {
            return text;
        }
        let mut end = self.output_cap;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n[output cut after {end} bytes]", &text[..end])
    }
}

/// A tool keel can run.
pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    fn annotations(&self) -> Map<String, Value>;
    /// Whether its results are structured data it serialized itself (an MCP `outputSchema`),
    /// not text someone else wrote: only such results hold records (provenance).
    fn structured_output(&self) -> bool {
        false
    }
    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput;

    /// Runs the call for a tool that may need a person mid-call (desktop consent, a
    /// clarifying question). `asker` is `None` when nobody can answer; such a tool then
    /// refuses what it would have asked. Most tools never ask: the default runs [`Tool::call`].
    fn call_asking(
        &self,
        args: &Value,
        ctx: &ToolContext,
        asker: Option<&mut dyn crate::approval::Approver>,
    ) -> ToolOutput {
        let _ = asker;
        self.call(args, ctx)
    }
}

fn string_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolOutput> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolOutput::error(format!("`{key}` must be a string")))
}

fn annotations(read_only: bool, destructive: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("readOnlyHint".into(), Value::Bool(read_only));
    m.insert("destructiveHint".into(), Value::Bool(destructive));
    m.insert("openWorldHint".into(), Value::Bool(false));
    m
}

fn spec(name: &str, description: &str, parameters: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters,
    }
}

struct ReadFile;
impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        spec(
            "read_file",
            "Read a text file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
        )
    }
    fn annotations(&self) -> Map<String, Value> {
        annotations(true, false)
    }
    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.path(args, "path") {
            Ok(p) => p,
            Err(e) => return e,
        };
        match ctx.read_text(&path, true) {
            Ok(text) => ToolOutput::ok(ctx.cap(text)),
            Err(e) => ToolOutput::error(format!("cannot read {}: {e}", path.display())),
        }
    }
}

struct ListDir;
impl Tool for ListDir {
    fn spec(&self) -> ToolSpec {
        spec(
            "list_dir",
            "List a directory (default: the working directory). Directories end with /.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": false}),
        )
    }
    fn annotations(&self) -> Map<String, Value> {
        annotations(true, false)
    }
    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let path = match args.get("path") {
            None | Some(Value::Null) => ctx.cwd.clone(),
            Some(_) => match ctx.path(args, "path") {
                Ok(p) => p,
                Err(e) => return e,
            },
        };
        // Listed as opened beneath the working directory where it lies under it, so a folder
        // swapped for a link since the gate decided is not what is listed.
        let (_kept_open, listed) = match beneath::open_folder(&ctx.cwd, ctx.cwd_identity, &path) {
            beneath::Beneath::Done(Ok((fd, named))) => (Some(fd), named),
            beneath::Beneath::Done(Err(e)) => {
                return ToolOutput::error(format!("cannot list {}: {e}", path.display()));
            }
            beneath::Beneath::Unsupported => (None, path.clone()),
        };
        let entries = match std::fs::read_dir(&listed) {
            Ok(e) => e,
            Err(e) => return ToolOutput::error(format!("cannot list {}: {e}", path.display())),
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| {
                let mut n = e.file_name().to_string_lossy().into_owned();
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    n.push('/');
                }
                n
            })
            .collect();
        names.sort();
        ToolOutput::ok(ctx.cap(names.join("\n")))
    }
}

struct WriteFile;
impl Tool for WriteFile {
    fn spec(&self) -> ToolSpec {
        spec(
            "write_file",
            "Create or overwrite a text file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"], "additionalProperties": false}),
        )
    }
    fn annotations(&self) -> Map<String, Value> {
        annotations(false, true)
    }
    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.path(args, "path") {
            Ok(p) => p,
            Err(e) => return e,
        };
        let content = match string_arg(args, "content") {
            Ok(c) => c,
            Err(e) => return e,
        };
        match ctx.write_text(&path, content) {
            Ok(()) => ToolOutput::ok(format!(
                "wrote {} bytes to {}",
                content.len(),
                display(&path, ctx)
            )),
            Err(e) => ToolOutput::error(format!("cannot write {}: {e}", path.display())),
        }
    }
}

struct EditFile;
impl Tool for EditFile {
    fn spec(&self) -> ToolSpec {
        spec(
            "edit_file",
            "Replace one exact occurrence of `old` with `new` in a file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}}, "required": ["path", "old", "new"], "additionalProperties": false}),
        )
    }
    fn annotations(&self) -> Map<String, Value> {
        annotations(false, true)
    }
    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.path(args, "path") {
            Ok(p) => p,
            Err(e) => return e,
        };
        let (old, new) = match (string_arg(args, "old"), string_arg(args, "new")) {
            (Ok(o), Ok(n)) => (o, n),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        if old.is_empty() {
            return ToolOutput::error("`old` must not be empty");
        }
        let text = match ctx.read_text(&path, false) {
            Ok(t) => t,
            Err(e) => return ToolOutput::error(format!("cannot read {}: {e}", path.display())),
        };
        match text.matches(old).count() {
            1 => match ctx.write_text(&path, &text.replacen(old, new, 1)) {
                Ok(()) => ToolOutput::ok(format!("edited {}", display(&path, ctx))),
                Err(e) => ToolOutput::error(format!("cannot write {}: {e}", path.display())),
            },
            0 => ToolOutput::error(format!(
                "`old` was not found in {}; read the file and try again",
                display(&path, ctx)
            )),
            n => ToolOutput::error(format!(
                "`old` occurs {n} times in {}; include more context so it occurs once",
                display(&path, ctx)
            )),
        }
    }
}

/// A `PATH` without its relative and empty entries.
fn absolute_path_entries(path: &std::ffi::OsStr) -> std::ffi::OsString {
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|p| p.is_absolute())
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

/// The sandbox a shell command runs in, if any: a read-only command nobody was asked about is
/// confined to reading ([`crate::sandbox`]).
fn confinement(
    command: &str,
    ctx: &ToolContext,
) -> Result<Option<crate::sandbox::Confinement>, crate::sandbox::SandboxError> {
    if ctx.shell_sandbox == ShellSandbox::Off
        || ctx.person_approved
        || !keel_policy::shell::read_only_known(command)
    {
        return Ok(None);
    }
    match crate::sandbox::read_only(&ctx.cwd) {
        Ok(c) => Ok(Some(c)),
        Err(crate::sandbox::SandboxError::Unsupported(_))
            if ctx.shell_sandbox == ShellSandbox::Auto =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

struct Shell;
impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        spec(
            "shell",
            "Run a shell command in the working directory. Output is capped and the command times out.",
            json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}),
        )
    }
    fn annotations(&self) -> Map<String, Value> {
        annotations(false, true)
    }
    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        use std::os::unix::process::CommandExt;
        let command = match string_arg(args, "command") {
            Ok(c) => c,
            Err(e) => return e,
        };
        // The child starts in the directory the run's gate was made for, through a descriptor
        // opened and checked now, not by a name that may since have been swapped for a link.
        let (_kept_open, start_in) = match beneath::working_directory(&ctx.cwd, ctx.cwd_identity) {
            Ok(Some((fd, named))) => (Some(fd), named),
            Ok(None) => (None, ctx.cwd.clone()),
            Err(e) => return ToolOutput::error(format!("keel did not run this command: {e}")),
        };
        let mut shell = Command::new("/bin/sh");
        shell
            .arg("-c")
            .arg(command)
            .current_dir(&start_in)
            // The shell takes an inherited `PWD` that names its directory as where it is, a
            // link's path too, and reads `cd ..` from there; without one it asks the kernel,
            // whose answer has no link in it: the path the gate reads `..` from (an
            // outsider's round 26 wrote beside the link keel was started through).
            .env_remove("PWD")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match confinement(command, ctx) {
            Ok(None) => {}
            Ok(Some(mut confined)) => {
                // A relative or empty `PATH` entry (`./bin:$PATH`, a trailing `:`) would let a
                // listed name run a program of the workspace's choosing.
                shell.env(
                    "PATH",
                    absolute_path_entries(&std::env::var_os("PATH").unwrap_or_default()),
                );
                // SAFETY: `enforce` only makes two system calls and allocates nothing on
                // success, which is what may run between fork and exec. (keel's one `unsafe`:
                // std has no safe hook between fork and exec.)
                #[allow(unsafe_code)]
                unsafe {
                    shell.pre_exec(move || confined.enforce());
                }
            }
            Err(e) => {
                return ToolOutput::error(format!(
                    "keel did not run this command: it runs read-only commands in a sandbox, and {e}"
                ));
            }
        }
        // Its own process group, watched by keel's reaper: if keel dies mid-command, the
        // command and whatever it started in the background die too, rather than act later
        // where nobody can see or stop them (the ledger then says `unknown`).
        let (mut child, _watch) = match keel_reaper::spawn(&mut shell) {
            Ok(c) => c,
            Err(e) => return ToolOutput::error(format!("cannot start the shell: {e}")),
        };
        let cap = ctx.output_cap;
        let read = |r: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut r) = r {
                    let _ = r.by_ref().take(cap as u64 + 1).read_to_end(&mut buf);
                    // Keep reading past the cap (and drop it), so the command is not killed by
                    // SIGPIPE for writing more than keel shows.
                    let _ = std::io::copy(&mut r, &mut std::io::sink());
                }
                buf
            })
        };
        let out = read(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let err = read(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let deadline = Instant::now() + ctx.shell_timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() >= deadline => break None,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break None,
            }
        };
        let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
        let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
        let mut text = stdout;
        if !stderr.is_empty() {
            text.push_str(&format!("\n[stderr]\n{stderr}"));
        }
        match status {
            None => ToolOutput::error(format!(
                "{}\n[timed out after {} ms; the command was killed]",
                ctx.cap(text),
                ctx.shell_timeout.as_millis()
            )),
            Some(s) if s.success() => ToolOutput::ok(ctx.cap(text)),
            Some(s) => ToolOutput::error(format!(
                "{}\n[exit status: {}]",
                ctx.cap(text),
                s.code()
                    .map_or_else(|| "killed by a signal".into(), |c| c.to_string())
            )),
        }
    }
}

fn display(path: &Path, ctx: &ToolContext) -> String {
    path.strip_prefix(&ctx.cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Removes keel's own schema keywords (`x-keel-…`) from `schema`, wherever they are.
pub fn strip_keel_keywords(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.retain(|k, _| !k.starts_with("x-keel-"));
            map.values_mut().for_each(strip_keel_keywords);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_keel_keywords),
        _ => {}
    }
}

/// The tools on offer, by name.
pub struct Toolbox {
    tools: BTreeMap<String, Offered>,
}

/// A tool offered, with its parameters' schema as it declares them, built once: every call is
/// checked against the schema before the gate ([`Toolbox::parameters`]), and building a
/// tool's spec (its JSON schema, its description) was about 8k instructions a call.
struct Offered {
    tool: Box<dyn Tool>,
    parameters: Value,
}

impl Offered {
    fn named(tool: Box<dyn Tool>) -> (String, Self) {
        let spec = tool.spec();
        (
            spec.name,
            Self {
                tool,
                parameters: spec.parameters,
            },
        )
    }
}

impl Toolbox {
    pub fn builtin() -> Self {
        let list: Vec<Box<dyn Tool>> = vec![
            Box::new(ReadFile),
            Box::new(ListDir),
            Box::new(WriteFile),
            Box::new(EditFile),
            Box::new(search::SearchFiles),
            Box::new(Shell),
        ];
        Self {
            tools: list.into_iter().map(Offered::named).collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools.get(name).map(|o| o.tool.as_ref())
    }

    /// The named tool's parameters, as its spec declares them (keel's own keywords kept).
    pub fn parameters(&self, name: &str) -> Option<&Value> {
        self.tools.get(name).map(|o| &o.parameters)
    }

    /// The tools as the model is offered them: keel's own schema keywords (`x-keel-…`, read
    /// by the gate) are left out, so no model API meets a keyword it does not know.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|Offered { tool: t, .. }| {
                let mut s = t.spec();
                strip_keel_keywords(&mut s.parameters);
                s
            })
            .collect()
    }

    /// What the gate knows of each tool: name, description, annotations.
    pub fn infos(&self) -> std::collections::HashMap<String, ToolInfo> {
        self.tools
            .values()
            .map(|Offered { tool: t, .. }| {
                let s = t.spec();
                (
                    s.name.clone(),
                    ToolInfo {
                        name: s.name,
                        description: s.description,
                        annotations: Some(t.annotations()),
                        parameters: Some(s.parameters),
                        structured_output: t.structured_output(),
                    },
                )
            })
            .collect()
    }

    /// Offers one more tool (an MCP server's); a tool of the same name is replaced.
    pub fn add(&mut self, tool: Box<dyn Tool>) {
        let (name, offered) = Offered::named(tool);
        self.tools.insert(name, offered);
    }

    /// Keeps only the named tools (a preset's `tools`).
    pub fn retain(&mut self, names: &[String]) {
        self.tools.retain(|n, _| names.iter().any(|k| k == n));
    }
}

#[cfg(test)]
mod tests;
