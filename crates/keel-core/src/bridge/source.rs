//! The handoff source (bridge.md N5–N12, N28–N31, N37): what the summary worker reads. Three
//! sections — the last compaction summary, every user message, the recent assistant output —
//! share one char budget; the oldest user and assistant items are shed first, and every section
//! that was dropped or clipped is named in `dropped`, because silent dropping was the previous
//! design's worst failure.
//!
//! The cost is the budget's, not the session's: a section's items are measured newest first and
//! only until the budget is known to be spent (an allocation never exceeds the usable budget,
//! so a need beyond it changes nothing), each text is counted only as far as the room left
//! (`char_len_at_most`), and only what the source shows is copied, straight into its text.
//! What stays linear in the session is one cheap pass over the messages to find and count the
//! users. `reference.rs` (tests only) keeps the first, build-everything version, and a property
//! test holds the two to the same bytes.

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::message::{ChatMessage, ToolNode, count};
use super::visual::{VisualEvidence, collect_visual_evidence};
use crate::text::{char_len, char_len_at_most, is_blank, js_trim};

#[cfg(test)]
mod reference;

/// The default source budget in chars (N1).
pub const SOURCE_CHAR_BUDGET: i64 = 60_000;
/// How much of each recent assistant message is kept (N1).
const ASSISTANT_SNIPPET_CHARS: usize = 900;
/// How many recent assistant messages are read (N1).
const RECENT_ASSISTANT_MESSAGES: usize = 6;
const COMPACTION_HEADER: &str = "【早前上下文压缩摘要】";
const USERS_HEADER: &str = "【用户消息全文（按时间序）】";
const RECENT_HEADER: &str = "【最近助手输出摘要】";
/// The three section headers (N1): keel's words, not the conversation's, so nothing reads
/// them as the conversation's language, and a worker that answers with them is echoing.
pub const SECTION_HEADERS: [&str; 3] = [COMPACTION_HEADER, USERS_HEADER, RECENT_HEADER];
const CLIP_MARKER: &str = "\n…（底稿截断）";

/// `build_bridge_source`'s options (N5); `None` means absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceOptions {
    pub source_char_budget: Option<i64>,
    pub visual_evidence_char_budget: Option<i64>,
}

/// `build_bridge_source`'s result (N11), in the seed's field order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeSource {
    pub text: String,
    pub user_messages_used: i64,
    pub user_messages_total: i64,
    pub reused_compaction: bool,
    pub truncated: bool,
    pub dropped: Vec<String>,
    pub visual_evidence: VisualEvidence,
}

/// A section's items, read from the messages only when measured or written.
enum Items<'a> {
    /// The compaction summary, trimmed: one item, cut at its end when it does not fit.
    Compaction(&'a str),
    /// The users (N6), oldest first; item i is numbered i + 1 (N7). Whole items, the newest
    /// kept.
    Users(Vec<&'a ChatMessage>),
    /// The recent assistant blocks (at most six, each at most 900 chars and its tool lines),
    /// built whole. Whole items, the newest kept.
    Recent(Vec<String>),
}

struct Section<'a> {
    name: &'static str,
    header: &'static str,
    share_percent: i128,
    items: Items<'a>,
}

/// How one section came out of its allocation (N10): the items it shows, from index `from` to
/// the end (all of them for the compaction), and the drop note in front of them when it is
/// clipped.
enum Rendered {
    Dropped,
    Whole,
    /// The compaction summary's first `n` chars, then the clip marker.
    Cut(i128),
    /// The newest items from `from`, after the drop note for the `from` left out.
    Newest {
        from: usize,
    },
}

fn len(text: &str) -> i128 {
    i128::try_from(char_len(text)).unwrap_or(i128::MAX)
}

/// The chars of `text` when they are at most `limit` (a negative limit: never).
fn len_at_most(text: &str, limit: i128) -> Option<i128> {
    if limit < 0 {
        return None;
    }
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    char_len_at_most(text, limit).map(|n| i128::try_from(n).unwrap_or(i128::MAX))
}

/// The first `n` chars of `text` (cut on a char boundary, N31).
fn first_chars(text: &str, n: i128) -> &str {
    let n = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
    match text.char_indices().nth(n) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The path-like token of a tool's detail (N7, N33): `\w` is ASCII and `\s` is the JavaScript
/// whitespace set.
static PATH_TOKEN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    const S: &str = r"[\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";
    const W: &str = "A-Za-z0-9_";
    Regex::new(&format!(r"(?:^|{S})((?:/|~/|\./|[{W}.-]+/)[{W}./-]+)")).ok()
});

/// `title`, plus the first path-like token of the first line of `detail` (T5). Stdout and diffs
/// are never included.
pub fn tool_line(node: &ToolNode) -> String {
    let first_line = node
        .detail
        .as_deref()
        .and_then(|d| d.split('\n').next())
        .unwrap_or("");
    let path = PATH_TOKEN
        .as_ref()
        .and_then(|re| re.captures(first_line))
        .and_then(|c| c.get(1))
        .map(|m| m.as_str());
    match path {
        Some(path) => format!("{} {path}", node.title),
        None => node.title.clone(),
    }
}

/// The image part of a user item (N7), when the message has images.
fn image_part(message: &ChatMessage) -> Option<String> {
    (message.image_count > 0).then(|| {
        format!(
            "[image attachments: {}; visual content is not available to the summary worker]",
            message.image_count
        )
    })
}

/// User item `number` (N7): `"{number}. "` + the non-empty parts of [image part, trimmed
/// content] joined with one space.
fn write_user_item(out: &mut String, number: usize, message: &ChatMessage) {
    let _ = write!(out, "{number}. ");
    let content = js_trim(&message.content);
    if let Some(images) = image_part(message) {
        out.push_str(&images);
        if !content.is_empty() {
            out.push(' ');
        }
    }
    out.push_str(content);
}

/// The length of user item `number` when it is at most `limit` (the text is counted no
/// further).
fn user_item_len(number: usize, message: &ChatMessage, limit: i128) -> Option<i128> {
    // "{number}. " and the image part are ASCII: their chars are their bytes.
    let mut fixed = i128::try_from(number.to_string().len() + 2).unwrap_or(i128::MAX);
    let content = js_trim(&message.content);
    if let Some(images) = image_part(message) {
        fixed += len(&images) + i128::from(!content.is_empty());
    }
    len_at_most(content, limit - fixed).map(|n| n + fixed)
}

fn recent_block(message: &ChatMessage) -> String {
    let text = js_trim(&message.content);
    let mut block = match char_len_at_most(text, ASSISTANT_SNIPPET_CHARS) {
        Some(_) => text.to_string(),
        None => format!("{}…", first_chars(text, ASSISTANT_SNIPPET_CHARS as i128)),
    };
    if !message.tool_nodes.is_empty() {
        let lines: Vec<String> = message.tool_nodes.iter().map(tool_line).collect();
        if !block.is_empty() {
            block.push('\n');
        }
        let _ = write!(block, "[工具] {}", lines.join("；"));
    }
    block
}

impl Section<'_> {
    fn header_len(&self) -> i128 {
        len(self.header)
    }

    fn item_count(&self) -> usize {
        match &self.items {
            Items::Compaction(_) => 1,
            Items::Users(users) => users.len(),
            Items::Recent(blocks) => blocks.len(),
        }
    }

    /// Item `i`'s length in chars when it is at most `limit`.
    fn item_len(&self, i: usize, limit: i128) -> Option<i128> {
        match &self.items {
            Items::Compaction(text) => len_at_most(text, limit),
            Items::Users(users) => user_item_len(i + 1, users[i], limit),
            Items::Recent(blocks) => len_at_most(&blocks[i], limit),
        }
    }

    fn write_item(&self, out: &mut String, i: usize) {
        match &self.items {
            Items::Compaction(text) => out.push_str(text),
            Items::Users(users) => write_user_item(out, i + 1, users[i]),
            Items::Recent(blocks) => out.push_str(&blocks[i]),
        }
    }

    /// The header, a line feed and the items joined with LF (N9), in chars — or, when that is
    /// more than `cap`, some number above `cap` and at most the need: the items are measured
    /// newest first and no further than that.
    fn need(&self, cap: i128) -> i128 {
        let mut need = self.header_len();
        for i in (0..self.item_count()).rev() {
            // Each item brings itself and one separator; the first of them is the header's LF.
            match self.item_len(i, cap - need - 1) {
                Some(n) => need += n + 1,
                None => return cap + 1,
            }
        }
        if self.item_count() == 0 {
            need + 1
        } else {
            need
        }
    }

    fn drop_note(&self, n: usize) -> String {
        if self.name == "users" {
            format!("（较早的 {n} 条用户消息因预算省略，保留的是最近的）")
        } else {
            format!("（更早的 {n} 条助手输出因预算省略）")
        }
    }

    /// This section within its allocation (N10, N28, N29).
    fn render(&self, alloc: i128) -> Rendered {
        let header_len = self.header_len();
        if alloc <= header_len + 1 {
            return Rendered::Dropped;
        }
        let room = alloc - header_len - 1;
        if let Items::Compaction(text) = self.items {
            if len_at_most(text, room).is_some() {
                return Rendered::Whole;
            }
            let marker = len(CLIP_MARKER);
            if room <= marker {
                return Rendered::Dropped;
            }
            return Rendered::Cut(room - marker);
        }
        let total = self.item_count();
        // The lengths of the newest items that fit, newest first.
        let mut taken: Vec<i128> = Vec::new();
        let mut used: i128 = 0;
        for i in (0..total).rev() {
            let separator = i128::from(!taken.is_empty());
            let Some(n) = self.item_len(i, room - used - separator) else {
                break;
            };
            used += n + separator;
            taken.push(n);
        }
        if taken.is_empty() {
            return Rendered::Dropped;
        }
        if taken.len() == total {
            return Rendered::Whole;
        }
        // N28: make room for the note by shedding the oldest taken items, counting each.
        let mut note = self.drop_note(total - taken.len());
        while used + len(&note) + 1 > room {
            let Some(shed) = taken.pop() else {
                return Rendered::Dropped;
            };
            used -= shed + i128::from(!taken.is_empty());
            note = self.drop_note(total - taken.len());
        }
        if taken.is_empty() {
            return Rendered::Dropped;
        }
        Rendered::Newest {
            from: total - taken.len(),
        }
    }

    /// Writes what `render` decided: `header + LF + body` (N10).
    fn write(&self, out: &mut String, rendered: &Rendered) {
        out.push_str(self.header);
        out.push('\n');
        let from = match *rendered {
            Rendered::Dropped => return,
            Rendered::Whole => 0,
            Rendered::Cut(n) => {
                if let Items::Compaction(text) = self.items {
                    out.push_str(first_chars(text, n));
                    out.push_str(CLIP_MARKER);
                }
                return;
            }
            Rendered::Newest { from } => {
                out.push_str(&self.drop_note(from));
                out.push('\n');
                from
            }
        };
        for i in from..self.item_count() {
            if i > from {
                out.push('\n');
            }
            self.write_item(out, i);
        }
    }
}

/// The three sections with their items, in order, leaving out empty ones (N6, N7).
fn sections(messages: &[ChatMessage]) -> (Vec<Section<'_>>, usize) {
    let compaction = messages
        .iter()
        .rev()
        .find(|m| m.is_compaction() && !is_blank(&m.content));
    let users: Vec<&ChatMessage> = messages
        .iter()
        .filter(|m| m.role == "user" && (m.image_count > 0 || !is_blank(&m.content)))
        .collect();
    let users_total = users.len();
    let mut recent: Vec<&ChatMessage> = messages
        .iter()
        .rev()
        .filter(|m| m.role == "assistant" && (!m.tool_nodes.is_empty() || !is_blank(&m.content)))
        .take(RECENT_ASSISTANT_MESSAGES)
        .collect();
    recent.reverse();

    let mut recent_items: Vec<String> = recent.iter().map(|m| recent_block(m)).collect();
    let last = recent_items.len().saturating_sub(1);
    for block in recent_items.iter_mut().take(last) {
        block.push_str("\n---");
    }
    let mut present = Vec::with_capacity(3);
    if let Some(m) = compaction {
        present.push(Section {
            name: "compaction",
            header: COMPACTION_HEADER,
            share_percent: 25,
            items: Items::Compaction(js_trim(&m.content)),
        });
    }
    if !users.is_empty() {
        present.push(Section {
            name: "users",
            header: USERS_HEADER,
            share_percent: 45,
            items: Items::Users(users),
        });
    }
    if !recent_items.is_empty() {
        present.push(Section {
            name: "recent",
            header: RECENT_HEADER,
            share_percent: 30,
            items: Items::Recent(recent_items),
        });
    }
    (present, users_total)
}

/// Each section's allocation (N9): its share up to its need, then the unused pool to users,
/// recent and compaction, in that order. A need is only measured up to the usable budget: no
/// allocation can be more, so a need beyond it allocates exactly as that budget would.
fn allocate(sections: &[Section<'_>], budget: i128) -> Vec<i128> {
    let separators = 2 * (i128::try_from(sections.len()).unwrap_or(0) - 1);
    let usable = (budget - separators).max(0);
    let needs: Vec<i128> = sections.iter().map(|s| s.need(usable)).collect();
    let mut alloc: Vec<i128> = sections
        .iter()
        .zip(&needs)
        .map(|(s, need)| (*need).min(usable * s.share_percent / 100))
        .collect();
    let mut pool = usable - alloc.iter().sum::<i128>();
    for name in ["users", "recent", "compaction"] {
        if let Some(i) = sections.iter().position(|s| s.name == name) {
            let extra = (needs[i] - alloc[i]).clamp(0, pool.max(0));
            alloc[i] += extra;
            pool -= extra;
        }
    }
    alloc
}

/// `build_bridge_source` (N5–N12): the budgeted source text, what it used of the users, and the
/// name of every section it dropped or clipped.
pub fn build_bridge_source(messages: &[ChatMessage], options: SourceOptions) -> BridgeSource {
    let budget = i128::from(
        options
            .source_char_budget
            .unwrap_or(SOURCE_CHAR_BUDGET)
            .max(0),
    );
    let visual_evidence = collect_visual_evidence(messages, options.visual_evidence_char_budget);
    let (sections, users_total) = sections(messages);
    let user_messages_total = count(users_total);
    if sections.is_empty() {
        return BridgeSource {
            text: String::new(),
            user_messages_used: 0,
            user_messages_total,
            reused_compaction: false,
            truncated: false,
            dropped: Vec::new(),
            visual_evidence,
        };
    }
    let alloc = allocate(&sections, budget);
    let mut text = String::new();
    let mut dropped: Vec<String> = Vec::new();
    let mut user_messages_used = 0;
    let mut has_compaction = false;
    for (section, alloc) in sections.iter().zip(alloc) {
        has_compaction |= section.name == "compaction";
        let rendered = section.render(alloc);
        let kept = match rendered {
            Rendered::Dropped => {
                dropped.push(section.name.to_string());
                continue;
            }
            Rendered::Whole => section.item_count(),
            Rendered::Cut(_) => {
                dropped.push(section.name.to_string());
                1
            }
            Rendered::Newest { from } => {
                dropped.push(section.name.to_string());
                section.item_count() - from
            }
        };
        if section.name == "users" {
            user_messages_used = count(kept);
        }
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        section.write(&mut text, &rendered);
    }
    let reused_compaction = has_compaction && !dropped.iter().any(|d| d == "compaction");
    if visual_evidence.truncated {
        dropped.push("visual-evidence".to_string());
    }
    BridgeSource {
        text,
        user_messages_used,
        user_messages_total,
        reused_compaction,
        truncated: !dropped.is_empty(),
        dropped,
        visual_evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: &str, content: &str) -> ChatMessage {
        ChatMessage {
            role: role.to_string(),
            content: content.to_string(),
            ..ChatMessage::default()
        }
    }

    fn with_tool(mut m: ChatMessage, title: &str, detail: &str) -> ChatMessage {
        m.tool_nodes.push(ToolNode {
            title: title.to_string(),
            detail: Some(detail.to_string()),
        });
        m
    }

    fn budget(n: i64) -> SourceOptions {
        SourceOptions {
            source_char_budget: Some(n),
            visual_evidence_char_budget: None,
        }
    }

    fn chars(s: &str) -> usize {
        char_len(s)
    }

    fn t3() -> Vec<ChatMessage> {
        ["alpha", "bravo", "charlie", "delta", "echo"]
            .iter()
            .map(|t| message("user", t))
            .collect()
    }

    #[test]
    fn t3_users_only() {
        let all = build_bridge_source(&t3(), budget(60));
        assert_eq!(
            all.text,
            "【用户消息全文（按时间序）】\n1. alpha\n2. bravo\n3. charlie\n4. delta\n5. echo"
        );
        assert_eq!((all.user_messages_used, all.user_messages_total), (5, 5));
        assert!(all.dropped.is_empty() && !all.truncated);

        let clipped = build_bridge_source(&t3(), budget(59));
        assert_eq!(
            clipped.text,
            "【用户消息全文（按时间序）】\n（较早的 3 条用户消息因预算省略，保留的是最近的）\n4. delta\n5. echo"
        );
        assert_eq!(chars(&clipped.text), 58);
        assert_eq!(clipped.user_messages_used, 2);
        assert_eq!(clipped.dropped, ["users"]);
        assert!(clipped.truncated);

        let none = build_bridge_source(&t3(), budget(44));
        assert_eq!(none.text, "");
        assert_eq!(none.user_messages_used, 0);
        assert_eq!(none.dropped, ["users"]);
    }

    fn t4() -> Vec<ChatMessage> {
        let mut compaction = message("system", "Repo set up; API port is 8080.");
        compaction.kind = Some("compaction".to_string());
        vec![
            compaction,
            message("user", "Build a CLI"),
            with_tool(
                message("assistant", "Created the skeleton."),
                "Write",
                "src/main.rs\n+fn main() {}",
            ),
            message("user", "Add tests"),
            with_tool(
                message("assistant", "Tests pass."),
                "Bash",
                "cargo test --manifest-path ./Cargo.toml\nok",
            ),
            message("user", "Use port 9090"),
            message("assistant", "Port changed to 9090."),
        ]
    }

    const T4_FULL: &str = "【早前上下文压缩摘要】\nRepo set up; API port is 8080.\n\n【用户消息全文（按时间序）】\n1. Build a CLI\n2. Add tests\n3. Use port 9090\n\n【最近助手输出摘要】\nCreated the skeleton.\n[工具] Write src/main.rs\n---\nTests pass.\n[工具] Bash ./Cargo.toml\n---\nPort changed to 9090.";
    const T4_USERS: &str =
        "【用户消息全文（按时间序）】\n1. Build a CLI\n2. Add tests\n3. Use port 9090";

    #[test]
    fn t4_needs_and_allocations() {
        let messages = t4();
        let (sections, _) = sections(&messages);
        let needs: Vec<i128> = sections
            .iter()
            .map(|s| s.need(i128::from(i64::MAX)))
            .collect();
        assert_eq!(needs, [42, 59, 120]);
        for (budget, expected) in [
            (60_000, [42, 59, 120]),
            (200, [42, 59, 95]),
            (180, [42, 59, 75]),
            (150, [36, 59, 51]),
            (140, [34, 59, 43]),
        ] {
            assert_eq!(allocate(&sections, budget), expected, "budget {budget}");
        }
    }

    #[test]
    fn t4_three_sections() {
        let full = build_bridge_source(&t4(), SourceOptions::default());
        assert_eq!(full.text, T4_FULL);
        assert_eq!(chars(&full.text), 225);
        assert!(full.dropped.is_empty() && full.reused_compaction);
        assert_eq!(full.user_messages_used, 3);

        let at_200 = build_bridge_source(&t4(), budget(200));
        assert!(at_200.text.ends_with(
            "【最近助手输出摘要】\n（更早的 1 条助手输出因预算省略）\nTests pass.\n[工具] Bash ./Cargo.toml\n---\nPort changed to 9090."
        ), "{}", at_200.text);
        assert_eq!(chars(&at_200.text), 195);
        assert_eq!(at_200.dropped, ["recent"]);

        let recent_at_180 =
            "【最近助手输出摘要】\n（更早的 2 条助手输出因预算省略）\nPort changed to 9090.";
        let at_180 = build_bridge_source(&t4(), budget(180));
        assert!(at_180.text.ends_with(recent_at_180), "{}", at_180.text);
        assert_eq!(at_180.dropped, ["recent"]);
        assert!(at_180.reused_compaction);

        let at_150 = build_bridge_source(&t4(), budget(150));
        assert_eq!(
            at_150.text,
            format!(
                "【早前上下文压缩摘要】\nRepo set up; API\n…（底稿截断）\n\n{T4_USERS}\n\n{recent_at_180}"
            )
        );
        assert_eq!(chars(&at_150.text), 150);
        assert_eq!(at_150.dropped, ["compaction", "recent"]);
        assert!(!at_150.reused_compaction);

        let at_140 = build_bridge_source(&t4(), budget(140));
        assert_eq!(
            at_140.text,
            format!("【早前上下文压缩摘要】\nRepo set up; A\n…（底稿截断）\n\n{T4_USERS}")
        );
        assert_eq!(chars(&at_140.text), 95);
        assert_eq!(at_140.dropped, ["compaction", "recent"]);
    }

    #[test]
    fn t5_tool_lines() {
        for (detail, line) in [
            ("/etc/hosts", "T /etc/hosts"),
            ("ls -la ./src\ntotal 8", "T ./src"),
            ("foo/bar.ts:12 +3 -1", "T foo/bar.ts"),
            ("~/notes.md", "T ~/notes.md"),
            ("wrote 3 files", "T"),
            ("https://x.com/a", "T"),
            ("pattern in 文档/说明.md", "T"),
            ("\n/second/line", "T"),
            ("a\u{3000}./x", "T ./x"),
        ] {
            let node = ToolNode {
                title: "T".to_string(),
                detail: Some(detail.to_string()),
            };
            assert_eq!(tool_line(&node), line, "{detail:?}");
        }
    }

    fn checkpoint(role: &str, content: &str) -> ChatMessage {
        let mut m = message(role, content);
        m.kind = Some("compaction".to_string());
        m
    }

    #[test]
    fn n6_only_the_last_six_assistant_messages_are_read() {
        let mut messages = vec![message("user", "go")];
        for i in 1..=8 {
            messages.push(message("assistant", &format!("a{i}")));
        }
        // Blank replies are not among the six; a reply with only a tool call is.
        messages.insert(4, message("assistant", " \u{3000}"));
        messages.push(message("assistant", "\n"));
        messages.push(with_tool(message("assistant", " "), "Read", "src/lib.rs"));
        let source = build_bridge_source(&messages, SourceOptions::default());
        assert_eq!(
            source.text,
            "【用户消息全文（按时间序）】\n1. go\n\n【最近助手输出摘要】\na4\n---\na5\n---\na6\n---\na7\n---\na8\n---\n[工具] Read src/lib.rs"
        );
        // Reading six is the rule, not a cut: nothing is reported dropped.
        assert!(source.dropped.is_empty() && !source.truncated, "{source:?}");
        // An assistant checkpoint is still an assistant message (N6: whatever its kind).
        let mut messages = vec![message("assistant", "a1")];
        messages.push(checkpoint("assistant", "summary so far"));
        let source = build_bridge_source(&messages, SourceOptions::default());
        assert_eq!(
            source.text,
            "【早前上下文压缩摘要】\nsummary so far\n\n【最近助手输出摘要】\na1\n---\nsummary so far"
        );
    }

    #[test]
    fn n6_the_last_non_blank_checkpoint_wins() {
        let messages = vec![
            checkpoint("system", "first summary"),
            message("user", "u1"),
            checkpoint("system", "second summary"),
            message("user", "u2"),
            checkpoint("system", "  third summary \n"),
            message("assistant", "a1"),
        ];
        let source = build_bridge_source(&messages, SourceOptions::default());
        assert!(
            source
                .text
                .starts_with("【早前上下文压缩摘要】\nthird summary\n\n【用户消息全文"),
            "{}",
            source.text
        );
        assert!(!source.text.contains("first summary") && !source.text.contains("second summary"));
        assert!(source.reused_compaction);

        // Blank checkpoints (the JavaScript whitespace set, U+FEFF included) are skipped.
        let mut messages = messages;
        messages.push(checkpoint("system", " \u{FEFF}\u{3000}\n"));
        messages.push(checkpoint("system", ""));
        let source = build_bridge_source(&messages, SourceOptions::default());
        assert!(
            source
                .text
                .starts_with("【早前上下文压缩摘要】\nthird summary\n\n"),
            "{}",
            source.text
        );
        // Only blank checkpoints: no compaction section, nothing reused.
        let source = build_bridge_source(
            &[checkpoint("system", "\t"), message("user", "u")],
            SourceOptions::default(),
        );
        assert_eq!(source.text, "【用户消息全文（按时间序）】\n1. u");
        assert!(!source.reused_compaction && source.dropped.is_empty());
    }

    #[test]
    fn n6_a_user_checkpoint_is_the_compaction_and_a_user_message_too() {
        // N6 read literally: the compaction is the last non-blank `kind == "compaction"`
        // message whatever its role, and a user message with that kind still counts as a user.
        let messages = vec![
            checkpoint("system", "older summary"),
            message("user", "do x"),
            message("assistant", "did x"),
            checkpoint("user", "newer summary"),
        ];
        let source = build_bridge_source(&messages, SourceOptions::default());
        assert_eq!(
            source.text,
            "【早前上下文压缩摘要】\nnewer summary\n\n【用户消息全文（按时间序）】\n1. do x\n2. newer summary\n\n【最近助手输出摘要】\ndid x"
        );
        assert_eq!(
            (source.user_messages_used, source.user_messages_total),
            (2, 2)
        );
        assert!(source.reused_compaction);

        // A blank user checkpoint with images is a user message but not a checkpoint.
        let mut images = checkpoint("user", " ");
        images.image_count = 1;
        let source = build_bridge_source(
            &[checkpoint("system", "kept summary"), images],
            SourceOptions::default(),
        );
        assert_eq!(
            source.text,
            "【早前上下文压缩摘要】\nkept summary\n\n【用户消息全文（按时间序）】\n1. [image attachments: 1; visual content is not available to the summary worker]"
        );
        assert_eq!(source.user_messages_total, 1);
    }

    #[test]
    fn t7_a_numbered_list_counts_once() {
        let source = build_bridge_source(
            &[message("user", "Steps:\n1. do x\n2. do y")],
            budget(60_000),
        );
        assert_eq!(source.user_messages_used, 1);
    }

    #[test]
    fn n8_no_sections_still_counts_users_and_reports_evidence() {
        let blank = message("user", " ");
        let source = build_bridge_source(&[blank, message("system", "x")], budget(10));
        assert_eq!(source.text, "");
        assert_eq!(source.user_messages_total, 0);
        assert!(!source.truncated && source.dropped.is_empty());
    }

    #[test]
    fn images_and_long_assistant_text_render_per_n7() {
        let mut user = message("user", "  see  ");
        user.image_count = 2;
        let long = "é".repeat(901);
        let source = build_bridge_source(&[user, message("assistant", &long)], budget(-1));
        assert_eq!(source.text, "");
        assert_eq!(source.dropped, ["users", "recent"]);
        let mut user = message("user", "");
        user.image_count = 1;
        let source = build_bridge_source(
            &[user, message("assistant", &long)],
            SourceOptions::default(),
        );
        assert!(source.text.contains(
            "1. [image attachments: 1; visual content is not available to the summary worker]\n"
        ));
        assert!(source.text.ends_with(&format!("{}…", "é".repeat(900))));
        assert_eq!(source.visual_evidence.image_messages, 1);
        let tight = build_bridge_source(
            &[message("user", "x")],
            SourceOptions {
                source_char_budget: None,
                visual_evidence_char_budget: Some(0),
            },
        );
        assert!(tight.dropped.is_empty(), "no images, nothing omitted");
    }

    #[test]
    fn truncated_visual_evidence_is_named_in_dropped() {
        let mut user = message("user", "look");
        user.image_count = 1;
        let source = build_bridge_source(
            &[user],
            SourceOptions {
                source_char_budget: None,
                visual_evidence_char_budget: Some(0),
            },
        );
        assert_eq!(source.dropped, ["visual-evidence"]);
        assert!(source.truncated && source.visual_evidence.truncated);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn session() -> impl Strategy<Value = Vec<ChatMessage>> {
            prop::collection::vec(
                (0usize..4, "[a-z文 \n]{0,60}", 0i64..2, prop::bool::ANY).prop_map(
                    |(role, text, images, tool)| {
                        let mut m = message(["user", "assistant", "system", "user"][role], &text);
                        if m.role == "user" {
                            m.image_count = images;
                        }
                        if role == 2 {
                            m.kind = Some("compaction".to_string());
                        }
                        if tool && m.role == "assistant" {
                            m = with_tool(m, "Edit", "src/lib.rs");
                        }
                        m
                    },
                ),
                0..25,
            )
        }

        /// How many of `items` the section under `header` shows, when what it shows is exactly
        /// the newest ones (behind `note(left out)` when any is left out); `Some(0)` when the
        /// section is absent, `None` when it shows anything else.
        fn newest_kept(
            text: &str,
            header: &str,
            items: &[String],
            note: impl Fn(usize) -> String,
        ) -> Option<usize> {
            let Some(at) = text.find(&format!("{header}\n")) else {
                return Some(0);
            };
            let body = &text[at + header.len() + 1..];
            let body = body.find("\n\n【").map_or(body, |end| &body[..end]);
            (1..=items.len()).find(|&kept| {
                let newest = items[items.len() - kept..].join("\n");
                let left_out = items.len() - kept;
                if left_out == 0 {
                    body == newest
                } else {
                    body == format!("{}\n{newest}", note(left_out))
                }
            })
        }

        /// Sessions whose texts are long and mixed enough that a budget cuts inside them,
        /// counted by chars of one to four bytes.
        fn long_session() -> impl Strategy<Value = Vec<ChatMessage>> {
            prop::collection::vec(
                (
                    0usize..4,
                    prop_oneof![
                        "[a-z \n]{0,30}",
                        "[a-zé文😀 \n\u{3000}]{0,400}",
                        Just(" \u{FEFF}".to_string())
                    ],
                    0i64..3,
                    0usize..3,
                    prop::bool::ANY,
                )
                    .prop_map(|(role, text, images, tools, compaction)| {
                        let mut m = message(["user", "assistant", "system", "user"][role], &text);
                        m.image_count = images;
                        if role == 2 || (compaction && role == 3) {
                            m.kind = Some("compaction".to_string());
                        }
                        for t in 0..tools {
                            m = with_tool(m, "Edit", &format!("src/f{t}.rs\n+ x"));
                        }
                        m
                    }),
                0..40,
            )
        }

        fn budget_option() -> impl Strategy<Value = Option<i64>> {
            prop_oneof![
                Just(None),
                (-5i64..4000).prop_map(Some),
                Just(Some(i64::MAX))
            ]
        }

        proptest! {
            #[test]
            fn the_same_bytes_as_building_every_item_whole(
                messages in long_session(),
                source_char_budget in budget_option(),
                visual_evidence_char_budget in budget_option(),
            ) {
                let options = SourceOptions { source_char_budget, visual_evidence_char_budget };
                prop_assert_eq!(
                    build_bridge_source(&messages, options),
                    reference::build_bridge_source(&messages, options)
                );
                prop_assert_eq!(
                    collect_visual_evidence(&messages, visual_evidence_char_budget),
                    reference::collect_visual_evidence(&messages, visual_evidence_char_budget)
                );
            }

            #[test]
            fn never_over_budget_and_dropped_exactly_when_cut(
                messages in session(),
                budget_chars in -5i64..700,
            ) {
                let options = SourceOptions { source_char_budget: Some(budget_chars), visual_evidence_char_budget: Some(i64::MAX) };
                let source = build_bridge_source(&messages, options);
                prop_assert!(chars(&source.text) as i64 <= budget_chars.max(0));
                let whole = build_bridge_source(&messages, SourceOptions { source_char_budget: Some(i64::MAX / 4), visual_evidence_char_budget: Some(i64::MAX) });
                prop_assert!(whole.dropped.is_empty());
                prop_assert_eq!(source.dropped.is_empty(), source.text == whole.text);
                prop_assert_eq!(source.truncated, !source.dropped.is_empty());
                prop_assert!(source.user_messages_used <= source.user_messages_total);
                // Newest-first: each of the users and recent sections shows exactly its newest
                // items, whole and in order, behind a note that counts every item left out.
                let users: Vec<String> = messages
                    .iter()
                    .filter(|m| m.role == "user" && (!is_blank(&m.content) || m.image_count > 0))
                    .enumerate()
                    .map(|(i, m)| reference::user_item(i + 1, m))
                    .collect();
                let recent: Vec<&ChatMessage> = messages
                    .iter()
                    .filter(|m| m.role == "assistant" && (!is_blank(&m.content) || !m.tool_nodes.is_empty()))
                    .collect();
                let recent = &recent[recent.len().saturating_sub(6)..];
                let recent: Vec<String> = recent
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        let block = recent_block(m);
                        if i + 1 < recent.len() { format!("{block}\n---") } else { block }
                    })
                    .collect();
                let users_kept = newest_kept(&source.text, USERS_HEADER, &users, |n| {
                    format!("（较早的 {n} 条用户消息因预算省略，保留的是最近的）")
                });
                let recent_kept = newest_kept(&source.text, RECENT_HEADER, &recent, |n| {
                    format!("（更早的 {n} 条助手输出因预算省略）")
                });
                prop_assert!(users_kept.is_some(), "users section is not the newest users: {:?}", source.text);
                prop_assert!(recent_kept.is_some(), "recent section is not the newest replies: {:?}", source.text);
                let users_kept = users_kept.unwrap_or_default();
                let recent_kept = recent_kept.unwrap_or_default();
                prop_assert_eq!(source.user_messages_used as usize, users_kept);
                prop_assert_eq!(source.dropped.iter().any(|d| d == "users"), users_kept < users.len());
                prop_assert_eq!(source.dropped.iter().any(|d| d == "recent"), recent_kept < recent.len());
            }
        }
    }
}
