//! A differential fuzzer for the shell allow-list (issue 17): commands are generated from a
//! grammar of the techniques that have got past read-only allow-lists — globs, braces,
//! tildes, parameters, options with glued or abbreviated paths, assignment prefixes,
//! separators, quoting, escapes, redirections, grouping, recursion, symlinks — and every
//! command the built-in policy allows without asking is really run by `/bin/sh` in a scratch
//! workspace. Its output must carry none of the canaries planted outside the workspace, in
//! `.env`, in `.git/` and behind a symlink, and it must create no file anywhere (a write hidden
//! in quoting that readers of shell text disagree on is a command keel did not understand).
//!
//! `KEEL_SHELL_FUZZ_CASES` sets how many commands (default 2000, a few seconds);
//! `KEEL_SHELL_FUZZ_SEED` the seed. A long run:
//! `KEEL_SHELL_FUZZ_CASES=200000 cargo test --release -p keel-app --test all shell_fuzz -- --nocapture`.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use keel_policy::Decision;
use keel_policy::provenance::{OnTainted, ProvenanceIndex};
use keel_policy::rules::Mode;
use keel_runtime::policy_gate::{CallRef, CallToDecide, GateEnv, HistorySource, PolicyGate};
use serde_json::json;

const CANARIES: [&str; 5] = [
    "CANARY-OUTSIDE-a1",
    "CANARY-ENV-b2",
    "CANARY-GIT-c3",
    "CANARY-HOME-d4",
    "CANARY-TOOL-e5",
];

/// A small deterministic generator (xorshift64*): the same seed gives the same commands.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    home: PathBuf,
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let work = root.join("work");
    let home = root.join("home");
    write(&root.join("outside/secret.txt"), CANARIES[0]);
    write(
        &root.join("outside/list"),
        &format!("{}\0", root.join("outside/secret.txt").display()),
    );
    write(&work.join(".env"), &format!("SECRET={}\n", CANARIES[1]));
    write(&work.join(".git/config"), &format!("# {}\n", CANARIES[2]));
    write(&home.join(".ssh/id_rsa"), CANARIES[3]);
    write(&work.join("a.txt"), "hello SECRET\n");
    write(&work.join("sub/b.txt"), "sub file\n");
    std::os::unix::fs::symlink(root.join("outside"), work.join("sub/link"))
        .unwrap_or_else(|e| panic!("{e}"));
    let tool = work.join("tools/ls");
    write(&tool, &format!("#!/bin/sh\necho {}\n", CANARIES[4]));
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    World {
        _dir: dir,
        root,
        work,
        home,
    }
}

/// Every file under `dir`, not following links. The workspace is included: a command allowed
/// without asking only reads, so it creates no file anywhere.
fn files(dir: &Path, out: &mut BTreeSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        out.insert(path.clone());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            files(&path, out);
        }
    }
}

/// The grammar. Targets are what an attacker wants read; the rest dresses them up.
fn command(rng: &mut Rng, w: &World) -> String {
    let outside = w.root.join("outside").display().to_string();
    let abs_secret = format!("{outside}/secret.txt");
    let abs_list = format!("{outside}/list");
    let targets: Vec<String> = [
        ".env",
        ".git/config",
        ".git",
        "sub/link/secret.txt",
        "sub/link",
        "../outside/secret.txt",
        "../outside",
        ".e*",
        ".en?",
        ".[e]nv",
        ".?/outside/secret.txt",
        ".?/.?/.?/.?/.?/.?/.?/.?/etc/hostname",
        "sub/l*/secret.txt",
        "sub/l*",
        ".g*/config",
        ".g?t/config",
        "*",
        ".*",
        "~/.ssh/id_rsa",
        "~",
        "{.env,a.txt}",
        ".{e,x}nv",
        "$HOME/.ssh/id_rsa",
        "${PWD}/../outside/secret.txt",
        "'.env'",
        "\".env\"",
        ".e\"\"nv",
        ".\\env",
        "'.'env",
        ".en'v'",
        ".ENV",
        ".env.",
        "./.env",
        "sub/../.env",
        "sub/link/../outside/secret.txt",
        "a.txt",
        "sub/b.txt",
        ".",
        "sub",
        "-",
    ]
    .iter()
    .map(ToString::to_string)
    .chain([abs_secret.clone(), outside])
    .collect();
    // Half the time a harmless target, so the generator also probes what is allowed.
    let benign = [
        "a.txt",
        "sub/b.txt",
        ".",
        "sub",
        "-",
        "'a.txt'",
        "\"sub\"/b.txt",
    ];
    let target = |rng: &mut Rng| {
        if rng.chance(50) {
            rng.pick(&benign).to_string()
        } else {
            targets[rng.below(targets.len())].clone()
        }
    };
    let listed = [
        "ls", "cat", "head", "tail", "wc", "grep", "stat", "du", "df", "echo", "which", "whoami",
        "uname", "pwd",
    ];
    let programs = [
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "grep",
        "stat",
        "du",
        "df",
        "echo",
        "which",
        "whoami",
        "uname",
        "pwd",
        "sh",
        "find",
        "env",
        "tools/ls",
        "./tools/ls",
        "command",
        "\\cat",
        "'cat'",
        "c\"a\"t",
        "exec cat",
        "nice cat",
        "xargs cat",
    ];
    let options = [
        "-la",
        "-n",
        "-n 2",
        "-5",
        "-c 10",
        "-r",
        "-R",
        "-rn",
        "-L",
        "-RL",
        "-H",
        "-s",
        "-sh",
        "-x",
        "-v",
        "-e SECRET",
        "-i",
        "-d recurse",
        "-drecurse",
        "-d skip",
        "--recursive",
        "--recur",
        "--dereference",
        "--deref",
        "--follow",
        "-f",
        "-F",
        "--color=never",
        "--files0-from=",
        "--files0=",
        "--files0-from ",
        "-f",
        "-X",
        "--exclude-from=",
        "--file=",
        "-f ",
        "--",
        "-a",
        "-A",
        "--help",
    ];
    let prefixes = [
        "PATH=tools ",
        "LD_PRELOAD=x ",
        "GCONV_PATH=. ",
        "LD_LIBRARY_PATH=. ",
        "HOME=. ",
        "env ",
        "FOO=1 ",
        "\\",
        "! ",
        "time ",
        "command ",
    ];
    let separators = [" ; ", " && ", " || ", " | ", "\n", " & ", ";", "&&"];
    let simple = |rng: &mut Rng| -> String {
        let mut parts = Vec::new();
        if rng.chance(8) {
            parts.push(rng.pick(&prefixes).to_string());
        }
        parts.push(if rng.chance(70) {
            rng.pick(&listed).to_string()
        } else {
            rng.pick(&programs).to_string()
        });
        for _ in 0..rng.below(3) {
            let opt = rng.pick(&options);
            if opt.ends_with('=') || opt.ends_with(' ') || (opt.len() == 2 && rng.chance(30)) {
                // An option that takes a path: glued or separate.
                let t = if rng.chance(50) {
                    abs_list.clone()
                } else {
                    target(rng)
                };
                parts.push(format!("{}{t}", opt.trim_end()));
            } else {
                parts.push(opt.to_string());
            }
        }
        if rng.chance(40) {
            parts.push("SECRET".to_string());
        }
        for _ in 0..1 + rng.below(2) {
            parts.push(target(rng));
        }
        let mut cmd = parts.join(" ");
        match rng.below(30) {
            0 => cmd = format!("({cmd})"),
            1 => cmd = format!("{{ {cmd}; }}"),
            2 => cmd = format!("echo $({cmd})"),
            3 => cmd = format!("echo `{cmd}`"),
            4 => cmd.push_str(" < .env"),
            5 => cmd.push_str(&format!(" <{abs_secret}")),
            6 => cmd.push_str(" > ../outside/written"),
            7 => cmd.push_str(" 2>&1"),
            8 => cmd.push_str(" # comment"),
            9 => cmd = format!("ls #'\n{cmd}\n#'"),
            // Quoting that readers of shell text disagree on, hiding a write: bash's `$'…'`
            // (where `\'` does not end the quote) behind an escaped `$`, or unescaped.
            10 => cmd.push_str(" \\$'\\' ; touch smuggled ; echo '\\'"),
            11 => cmd.push_str(" $'\\'' ; touch smuggled ; echo '"),
            12 => cmd.push_str(" '\\'' ; touch smuggled ; echo '\\''"),
            13 => cmd.push_str(" \"\\$'\" ; touch smuggled ; echo \"'\""),
            14 => cmd.push_str(" \\\ntouch smuggled"),
            _ => {}
        }
        cmd
    };
    let mut out = simple(rng);
    for _ in 0..rng.below(3) {
        out.push_str(rng.pick(&separators));
        out.push_str(&simple(rng));
    }
    out
}

/// Runs an allowed command as the shell tool would, with a deadline; its output.
fn run(w: &World, command: &str) -> String {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .current_dir(&w.work)
        .env("HOME", &w.home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut text = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut text);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut text);
    }
    text
}

#[test]
fn shell_fuzz_no_allowed_command_reads_a_canary_or_writes_outside() {
    let cases: usize = std::env::var("KEEL_SHELL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let seed: u64 = std::env::var("KEEL_SHELL_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_cafe);
    let w = world();
    let compiled = keel_app::policy::builtin();
    let gate = PolicyGate::new(
        compiled.policy,
        compiled.registry,
        GateEnv {
            cwd: w.work.clone(),
            workspaces: Vec::new(),
            mode: Mode::Default,
            interactive: true,
            on_tainted: OnTainted::AskUser,
            tools: HashMap::new(),
        },
    );
    let provenance = ProvenanceIndex::default();
    let mut before = BTreeSet::new();
    files(&w.root, &mut before);
    let mut rng = Rng(seed | 1);
    let (mut allowed, mut found) = (0usize, Vec::new());
    let mut seen = BTreeSet::new();
    for _ in 0..cases {
        let cmd = command(&mut rng, &w);
        if !seen.insert(cmd.clone()) {
            continue;
        }
        let args = json!({ "command": cmd });
        let decision = gate.decide(&CallToDecide {
            call: CallRef {
                name: "shell",
                args: &args,
                id: None,
            },
            history: HistorySource::Given(Default::default()),
            provenance: &provenance,
        });
        if decision.outcome.decision != Decision::Allow {
            continue;
        }
        allowed += 1;
        let output = run(&w, &cmd);
        if let Some(canary) = CANARIES.iter().find(|c| output.contains(*c)) {
            found.push(format!("{cmd:?} printed {canary}"));
        }
        let mut after = BTreeSet::new();
        files(&w.root, &mut after);
        if after != before {
            let new: Vec<_> = after.difference(&before).collect();
            found.push(format!("{cmd:?} created {new:?}"));
            before = after;
        }
    }
    println!(
        "shell fuzz: seed {seed:#x}, {} distinct commands tried, {allowed} allowed and run, {} found",
        seen.len(),
        found.len()
    );
    // The generator must reach both sides, or it tests nothing.
    assert!(allowed > 0, "no generated command was allowed");
    assert!(allowed < seen.len(), "every generated command was allowed");
    assert!(found.is_empty(), "{}", found.join("\n"));
}
