//! What a shell command will run, read with a real shell grammar (issue 17).
//!
//! An allow-list of read-only commands is only as good as its reading of the command: `cat
//! .e*` is not `cat .e*` once the shell has expanded it, and `PATH=tools ls` is not `ls`. So the
//! allow decision trusts a command only when every word's meaning is known *after* the
//! expansions the shell would do: [`parse`] accepts simple commands joined by `;`, `&&`, `||`,
//! `|` and newlines whose words are literal once quotes are removed — no glob, brace, tilde,
//! parameter, command or arithmetic expansion, no assignment prefix, no redirection, no
//! grouping, no background job — and says [`Opaque`] with the reason for anything else. What is
//! opaque is never allowed by a command list; the rules that ask decide it.
//!
//! The grammar is brush-parser's (the parser of the brush shell: pure Rust, maintained,
//! POSIX `sh` and bash modes), used in `sh` mode because keel's shell tool runs `/bin/sh`. The
//! accepted subset means the same in dash and bash. brush's parser recurses once per level of
//! nesting, so [`parse`] first refuses, by a quote-aware scan, what would nest (or be opaque
//! anyway) before handing the text to it: a model cannot overflow keel's stack.
//!
//! [`commands`] knows the options of the commands keel's default policy lists, so it can tell
//! which words a command will read as files.

pub mod commands;

use brush_parser::ast::{self, Command, CommandPrefixOrSuffixItem, SeparatorOperator};
use brush_parser::word::WordPiece;
use brush_parser::{ParserOptions, parse_tokens, uncached_tokenize_str};

/// The longest command keel reads; longer ones are opaque.
pub const MAX_COMMAND_BYTES: usize = 8192;

/// How many reserved words (which open nested constructs) a command may have before keel
/// refuses to parse it: bounds the parser's recursion.
const MAX_RESERVED_WORDS: usize = 16;

/// One simple command, its words with quotes removed: `words[0]` is the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    pub words: Vec<String>,
}

/// Why a command's meaning is not known before it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opaque(pub String);

impl std::fmt::Display for Opaque {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn opaque(reason: impl Into<String>) -> Opaque {
    Opaque(reason.into())
}

/// How one simple command of a parsed command is joined to what runs after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    /// It is the only command of its pipeline, so it runs in the shell itself (a command of a
    /// pipeline runs in a subshell of its own: its `cd` moves nothing after it).
    pub alone: bool,
    /// What runs next runs only if it succeeded (`&&`), or beside it in its pipeline; `false`
    /// after `||`, `;`, a newline and at the end.
    pub and_next: bool,
}

/// The simple commands `command` runs, in order, when each of them is fully known.
pub fn parse(command: &str) -> Result<Vec<SimpleCommand>, Opaque> {
    parse_with_flow(command).map(|parsed| parsed.into_iter().map(|(c, _)| c).collect())
}

/// [`parse`], with how each command is joined to the next ([`Flow`]).
pub fn parse_with_flow(command: &str) -> Result<Vec<(SimpleCommand, Flow)>, Opaque> {
    if command.len() > MAX_COMMAND_BYTES {
        return Err(opaque(format!(
            "the command is longer than {MAX_COMMAND_BYTES} bytes"
        )));
    }
    let reading = prescan(command)?;
    let options = parser_options();
    let tokens = uncached_tokenize_str(command, &options.tokenizer_options())
        .map_err(|e| opaque(format!("the shell cannot read it: {e}")))?;
    let program = parse_tokens(&tokens, &options)
        .map_err(|e| opaque(format!("the shell cannot parse it: {e}")))?;
    let mut out = Vec::new();
    let mut flows = Vec::new();
    for list in &program.complete_commands {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, SeparatorOperator::Async) {
                return Err(opaque("it starts a background job (`&`)"));
            }
            let pipelines: Vec<_> = and_or.iter().collect();
            for (at, (_, pipeline)) in pipelines.iter().enumerate() {
                if pipeline.bang || pipeline.timed.is_some() {
                    return Err(opaque("it uses `!` or `time`"));
                }
                let joined_by_and =
                    matches!(pipelines.get(at + 1), Some((ast::PipelineOperator::And, _)));
                for (n, command) in pipeline.seq.iter().enumerate() {
                    out.push(simple(command)?);
                    flows.push(Flow {
                        alone: pipeline.seq.len() == 1,
                        and_next: n + 1 < pipeline.seq.len() || joined_by_and,
                    });
                }
            }
        }
    }
    if out.is_empty() {
        return Err(opaque("it runs no command"));
    }
    if out != reading {
        return Err(opaque(
            "keel's reading of its quotes and the shell grammar's disagree",
        ));
    }
    Ok(out.into_iter().zip(flows).collect())
}

/// Whether `command` is fully understood and runs only commands keel knows to be read-only
/// ([`commands`]): what keel may confine to reading (keel-runtime's sandbox).
pub fn read_only_known(command: &str) -> bool {
    parse(command).is_ok_and(|parsed| {
        parsed.iter().all(|c| {
            c.words.first().is_some_and(|p| commands::is_known(p))
                && commands::path_operands(&c.words).is_ok()
        })
    })
}

fn parser_options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        posix_mode: true,
        sh_mode: true,
        tilde_expansion_at_word_start: true,
        tilde_expansion_after_colon: false,
        ..ParserOptions::default()
    }
}

/// keel's own reading of a command, made before brush-parser sees it: POSIX sh quoting,
/// words split at blanks, commands at `;`, `&`, `|` and newlines.
///
/// It refuses, without parsing, what can only be opaque or could nest: outside quotes the
/// characters of grouping, negation, substitution, expansion (a tilde too) and redirection,
/// comments, and a shell keyword where a command starts; in double quotes `$` and backquotes;
/// more keywords than [`MAX_RESERVED_WORDS`]. What it accepts it returns as words, which
/// [`parse`] compares with the grammar's: two readers that disagree about a command (brush-
/// parser once read `\$'\' ; touch x ; echo '\'` as one `cat` argument, where sh runs `touch`)
/// mean keel does not know what it runs.
fn prescan(command: &str) -> Result<Vec<SimpleCommand>, Opaque> {
    // Control characters other than tab and line feed (NUL, CR, ESC, …) are where readers of
    // shell text disagree (a NUL cannot even reach a program's arguments), and brush-parser's
    // tokenizer was seen to exhaust memory on a 340-byte command with NULs and CRs in it.
    if let Some(c) = command
        .chars()
        .find(|&c| (c.is_control() && c != '\t' && c != '\n') || c == '\u{7f}')
    {
        return Err(opaque(format!(
            "it has the control character U+{:04X}",
            u32::from(c)
        )));
    }
    let mut reader = Reading::default();
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => reader.value.push(c),
            (Some(_), '$' | '`') => {
                return Err(opaque(format!("`{c}` inside double quotes expands")));
            }
            (Some(_), '\\') => {
                let escaped = chars.next().ok_or_else(unterminated)?;
                reader.raw.push(escaped);
                match escaped {
                    // A backslash-newline joins lines (POSIX 2.2.1).
                    '\n' => {}
                    // In double quotes only these are escapes; elsewhere the backslash stays.
                    '$' | '`' | '"' | '\\' => reader.value.push(escaped),
                    other => {
                        reader.value.push('\\');
                        reader.value.push(other);
                    }
                }
            }
            (Some(_), c) => {
                reader.raw.push(c);
                reader.value.push(c);
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                reader.raw.push(c);
            }
            (None, '\\') => {
                let escaped = chars.next().ok_or_else(unterminated)?;
                if escaped == '\n' {
                    continue;
                }
                // brush-parser reads `\$'…'` as bash's `$'…'` quoting, as if the backslash were
                // not there, so the two readers would disagree past it — and on a long command
                // the grammar then takes seconds to say so.
                if escaped == '$' {
                    return Err(opaque(
                        "it has an escaped `$` outside quotes (write '$' instead)",
                    ));
                }
                reader.raw.push('\\');
                reader.raw.push(escaped);
                reader.value.push(escaped);
            }
            // `~` is opaque in any case, and brush-parser panics on a tilde prefix with more
            // digits than a usize holds (`~99999999999999999999`): it never sees one.
            (None, '(' | ')' | '{' | '}' | '$' | '`' | '<' | '>' | '!' | '~') => {
                return Err(opaque(format!(
                    "unquoted `{c}` groups, negates, substitutes, expands or redirects"
                )));
            }
            // A glob's character class, or an array subscript (`name[…]`): either way the shell
            // decides what it means, so it could never run unasked. Refused before the parser,
            // whose subscript grammar backtracks exponentially: a 1 KiB command of `x[a"+"…`
            // pieces held it for minutes (found by a 30-minute run of the shell fuzz target).
            (None, '[') => {
                return Err(opaque(
                    "an unquoted `[` is a glob's character class or an array subscript",
                ));
            }
            // A comment is dropped by the shell: keel would rather not guess where one starts.
            (None, '#') if reader.raw.is_empty() => {
                return Err(opaque("it has a comment (`#`)"));
            }
            (None, ' ' | '\t') => reader.end_word()?,
            (None, '\n' | ';' | '&' | '|') => {
                reader.end_word()?;
                reader.end_command();
            }
            (None, c) => {
                reader.raw.push(c);
                reader.value.push(c);
            }
        }
    }
    if quote.is_some() {
        return Err(unterminated());
    }
    reader.end_word()?;
    reader.end_command();
    if reader.reserved > MAX_RESERVED_WORDS {
        return Err(opaque("it has too many shell keywords to read"));
    }
    Ok(reader.commands)
}

fn unterminated() -> Opaque {
    opaque("it has an unterminated quote or a trailing backslash")
}

/// The words [`prescan`] has read so far, and the one it is reading.
#[derive(Default)]
struct Reading {
    commands: Vec<SimpleCommand>,
    words: Vec<String>,
    /// The word as written, quotes and backslashes kept: what keywords and assignments are.
    raw: String,
    /// The word after quote removal.
    value: String,
    /// Keywords seen as arguments (`echo if`), which are only words there.
    reserved: usize,
}

impl Reading {
    fn end_word(&mut self) -> Result<(), Opaque> {
        if self.raw.is_empty() {
            return Ok(());
        }
        // Where the shell looks for a command: the first word, or one after assignments.
        let command_position = self.words.iter().all(|w| is_assignment(w));
        if is_reserved(&self.raw) {
            // A compound command (`if`, `while`, `for`, `case`, a function, `time`) is opaque
            // whatever it holds, and brush-parser's grammar is slow over unclosed ones: so the
            // parser only ever sees simple commands.
            if command_position {
                return Err(opaque(format!(
                    "it uses the shell keyword `{}` (a compound command)",
                    self.raw
                )));
            }
            self.reserved += 1;
        }
        self.words.push(std::mem::take(&mut self.value));
        self.raw.clear();
        Ok(())
    }

    fn end_command(&mut self) {
        if !self.words.is_empty() {
            let words = std::mem::take(&mut self.words);
            self.commands.push(SimpleCommand { words });
        }
    }
}

/// Whether `word`, as written (quotes included), is `NAME=…`: an assignment, after which the
/// shell still looks for the command word.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "while"
            | "until"
            | "for"
            | "in"
            | "function"
            | "select"
            | "time"
            | "coproc"
            | "!"
            | "[["
            | "]]"
    )
}

fn simple(command: &Command) -> Result<SimpleCommand, Opaque> {
    let Command::Simple(simple) = command else {
        return Err(opaque(
            "it uses a compound command (a group, loop, test or function)",
        ));
    };
    if simple.prefix.is_some() {
        // Assignments (`PATH=tools ls`, `LD_PRELOAD=x ls`) and leading redirections.
        return Err(opaque(
            "it sets variables or redirects before the command (`NAME=value cmd`)",
        ));
    }
    let Some(program) = &simple.word_or_name else {
        return Err(opaque("it has no command word"));
    };
    let mut words = vec![literal(&program.value)?];
    for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
        match item {
            CommandPrefixOrSuffixItem::Word(w) => words.push(literal(&w.value)?),
            CommandPrefixOrSuffixItem::IoRedirect(_) => {
                return Err(opaque("it redirects input or output"));
            }
            CommandPrefixOrSuffixItem::AssignmentWord(..)
            | CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(opaque("it assigns or substitutes"));
            }
        }
    }
    Ok(SimpleCommand { words })
}

/// A word's value after quote removal, when the shell would expand nothing in it.
pub fn literal(word: &str) -> Result<String, Opaque> {
    let pieces = brush_parser::word::parse(word, &parser_options())
        .map_err(|e| opaque(format!("the shell cannot read the word {word:?}: {e}")))?;
    let mut out = String::new();
    for piece in pieces {
        push_piece(&piece.piece, false, word, &mut out)?;
    }
    Ok(out)
}

fn push_piece(
    piece: &WordPiece,
    in_double_quotes: bool,
    word: &str,
    out: &mut String,
) -> Result<(), Opaque> {
    match piece {
        WordPiece::Text(text) if in_double_quotes => out.push_str(text),
        WordPiece::Text(text) => {
            // Unquoted, these are patterns or expansions the shell resolves against the disk
            // (`*`, `?`, `[`), brace lists, or a tilde — their value is not the text.
            if let Some(c) = text
                .chars()
                .find(|c| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '~' | '$' | '`'))
            {
                return Err(opaque(format!(
                    "the word {word:?} has an unquoted `{c}` the shell would expand"
                )));
            }
            out.push_str(text);
        }
        WordPiece::SingleQuotedText(text) => out.push_str(text),
        WordPiece::DoubleQuotedSequence(pieces) => {
            for p in pieces {
                push_piece(&p.piece, true, word, out)?;
            }
        }
        WordPiece::EscapeSequence(escape) => {
            let mut chars = escape.chars();
            let (Some('\\'), Some(c), None) = (chars.next(), chars.next(), chars.next()) else {
                return Err(opaque(format!("the word {word:?} has an unknown escape")));
            };
            match c {
                '\n' => return Err(opaque(format!("the word {word:?} continues a line"))),
                // In double quotes only these are escapes; elsewhere the backslash stays.
                '$' | '`' | '"' | '\\' => out.push(c),
                c if in_double_quotes => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        _ => {
            return Err(opaque(format!(
                "the word {word:?} has an expansion the shell resolves when it runs"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
