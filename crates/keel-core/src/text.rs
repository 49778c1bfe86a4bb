//! Text helpers shared by every spec: the JavaScript whitespace set and char-based lengths,
//! and [`terminal_safe`], the one rule for showing stored or quoted text on a terminal.
//!
//! The specs count lengths in Unicode scalar values and trim with JavaScript's whitespace set
//! (spec README, "Conventions"). Rust's `str::trim` differs in two places (it keeps U+FEFF and
//! removes U+0085), so keel has this one helper and nothing else trims spec-visible text.

/// True for the chars JavaScript's `String.prototype.trim` removes.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'..='\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// Trims the JavaScript whitespace set from both ends.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// "Blank" in the specs: empty after [`js_trim`].
pub fn is_blank(s: &str) -> bool {
    js_trim(s).is_empty()
}

/// Length in Unicode scalar values, the unit every spec counts in.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// [`char_len`] when it is at most `limit`, else `None` — reading only as much of `s` as that
/// takes: at most the bytes of its first `limit + 1` chars, and none when its byte length
/// alone decides (a char is one to four bytes). A budget asks whether a text fits, and most
/// texts that do not are far longer than the room left.
pub fn char_len_at_most(s: &str, limit: usize) -> Option<usize> {
    if s.len() <= limit {
        return Some(char_len(s));
    }
    let mut count = 0;
    let mut rest = s;
    loop {
        // Here count ≤ limit, and the chars in `rest` are at least a quarter of its bytes.
        if count + rest.len().div_ceil(4) > limit {
            return None;
        }
        // The next limit - count + 1 bytes hold at most that many chars, so counting them
        // cannot read past the char that would make one too many.
        let mut take = limit - count + 1;
        if take >= rest.len() {
            count += char_len(rest);
            return (count <= limit).then_some(count);
        }
        while !rest.is_char_boundary(take) {
            take += 1;
        }
        let (head, tail) = rest.split_at(take);
        count += char_len(head);
        if count > limit {
            return None;
        }
        rest = tail;
    }
}

/// Appends `s` to `out` as a JSON string literal, quotes included, byte for byte as
/// `serde_json::to_string(s)` writes it: `"` and backslash escaped with a backslash, the C0
/// controls as `\b \t \n \f \r` or `\u00xx` (lowercase hex), everything else — DEL, C1
/// controls, U+2028 — raw. Every envelope quotes untrusted text this way, so it is most of the
/// cost of a notification.
///
/// The text is read 64 bytes at a time into a mask of the bytes to escape, and the runs between
/// them are copied whole. Text that quotes a lot (search results, JSON payloads: an escape every
/// 15 bytes or so) is mostly escapes, so each costs a few moves: a run is copied as a fixed 64
/// bytes (a `memcpy` call for a few bytes costs more than copying them) into a window of the
/// line's buffer, and the escape as a fixed 8 bytes after it; the place of the next write moves
/// by the run's length and the escape's. The writes go to the bytes of the line, not through
/// `String`, whose every push keeps its length in memory (the next push waits for it) and
/// checks a char boundary at both ends of each run: half of the time per escape.
///
/// On an x86-64 CPU with AVX2 (checked once per call, the answer cached by std) the same code
/// is compiled for AVX2: the mask is two 32-byte compares and `vpmovmskb`
/// (`escape_mask_avx2`), and the fixed copies are 32-byte moves. Elsewhere the mask is the
/// portable `escape_mask`. Both give the same bytes (the tests run both).
pub fn push_json_string(out: &mut String, s: &str) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `push_json_string_avx2` asks only that the CPU has AVX2, which was just
        // checked. It is safe code otherwise: the unsafety is only that an AVX2 instruction
        // on a CPU without AVX2 would fault.
        #[allow(unsafe_code)]
        unsafe {
            push_json_string_avx2(out, s);
        }
        return;
    }
    push_json_string_with(out, s, escape_mask);
}

/// [`push_json_string`] compiled for AVX2, with the AVX2 mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn push_json_string_avx2(out: &mut String, s: &str) {
    push_json_string_with(out, s, |block| escape_mask_avx2(block));
}

/// The body of [`push_json_string`], `mask_of` giving each 64-byte block's [`escape_mask`].
/// Always inlined, so it is compiled for the target features of each caller.
#[inline(always)]
fn push_json_string_with(out: &mut String, s: &str, mask_of: impl Fn(&[u8; 64]) -> u64) {
    const BLOCK: usize = 64;
    // What one block can write past where it starts: every byte a six-byte escape, then the
    // fixed 64-byte copy of a run and an 8-byte escape that end past what is kept.
    const ROOM: usize = 6 * BLOCK + BLOCK + 8;
    let bytes = s.as_bytes();
    let mut line = std::mem::take(out).into_bytes();
    line.reserve(s.len() + 2);
    line.push(b'"');
    // What of `line` is written; past it, bytes that are zeros or will be written over.
    let mut end = line.len();
    // `run` is where the text not yet copied starts; `at` the block being read. Each block
    // is copied whole, escapes written in, before the next: `run == at` between blocks.
    let mut run = 0;
    let mut at = 0;
    // A block's mask, for a block with a whole block after it (so a run may be copied as a
    // fixed 64 bytes); the last one or two blocks are the byte loop's below.
    let block_mask = |at: usize| {
        bytes
            .get(at..at + 2 * BLOCK)
            .and_then(|blocks| blocks.first_chunk::<BLOCK>())
            .map(&mask_of)
    };
    // The next block's mask is worked out before this block's escapes are written: the end of
    // the loop over them is mostly a mispredicted branch, after which the mask would be
    // waited for.
    let mut next = block_mask(0);
    while let Some(mut mask) = next {
        next = block_mask(at + BLOCK);
        if line.len() < end + ROOM {
            // Zeros, written once; the window is written over.
            let len = (end + ROOM + 4096).max(line.capacity());
            line.resize(len, 0);
        }
        let window = &mut line[end..end + ROOM];
        // Where the next write goes in the window.
        let mut w = 0;
        while mask != 0 {
            // An escaped byte is ASCII, so the runs end on char boundaries.
            let hit = at + (mask.trailing_zeros() & 63) as usize;
            mask &= mask - 1;
            // `run..hit` is within this block (at most 63 bytes), and the text has a whole
            // block after it: the fixed copy is in bounds, and cut back by moving `w` only
            // by the run's length. (Indexing, not `get`: a bound missed panics, and never
            // leaves bytes written earlier in the window.)
            window[w..w + BLOCK].copy_from_slice(&bytes[run..run + BLOCK]);
            w += hit - run;
            let (escape, len) = ESCAPES[usize::from(bytes[hit] & 0x7F)];
            window[w..w + 8].copy_from_slice(&escape);
            // A branch, not a select: the next escape's place must not wait for this byte to
            // be loaded and looked up, and a six-byte escape is rare.
            w += if len == 2 { 2 } else { long_escape(len) };
            run = hit + 1;
        }
        // The rest of the block.
        at += BLOCK;
        window[w..w + BLOCK].copy_from_slice(&bytes[run..run + BLOCK]);
        w += at - run;
        run = at;
        end += w;
    }
    line.truncate(end);
    for (hit, &byte) in bytes.iter().enumerate().skip(at) {
        if needs_json_escape(byte) {
            line.extend_from_slice(&bytes[run..hit]);
            let (escape, len) = ESCAPES[usize::from(byte & 0x7F)];
            line.extend_from_slice(&escape[..usize::from(len)]);
            run = hit + 1;
        }
    }
    line.extend_from_slice(&bytes[run..]);
    line.push(b'"');
    debug_assert!(std::str::from_utf8(&line).is_ok(), "a quoted line is UTF-8");
    // SAFETY: `line` is what `out` held (a `String`), then `"`, then the bytes of `s` in
    // order — every run between escapes copied whole, `bytes[run..hit]` with `hit` the place
    // of an ASCII byte — with each escaped ASCII byte replaced by its ASCII escape, then `"`.
    // Text whose ASCII bytes are replaced by ASCII is UTF-8 when it was: `s` is a `str`, and
    // no UTF-8 sequence has an ASCII byte inside it. Past `end` nothing is kept (`truncate`).
    #[allow(unsafe_code)]
    let line = unsafe { String::from_utf8_unchecked(line) };
    *out = line;
}

/// The length of an escape that is not two bytes (a `\u00xx`), out of the way of the common
/// path.
#[cold]
fn long_escape(len: u8) -> usize {
    usize::from(len)
}

/// The escape of each byte that needs one, by its low 7 bits (only those bytes are looked
/// up): the escape's bytes, padded to 8, and its length.
const ESCAPES: [([u8; 8], u8); 128] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut table = [([0u8; 8], 0u8); 128];
    let mut b = 0;
    while b < 0x20 {
        table[b] = (
            [b'\\', b'u', b'0', b'0', HEX[b >> 4], HEX[b & 0xF], 0, 0],
            6,
        );
        b += 1;
    }
    let short: [(u8, u8); 7] = [
        (b'\n', b'n'),
        (b'\r', b'r'),
        (b'\t', b't'),
        (0x08, b'b'),
        (0x0C, b'f'),
        (b'"', b'"'),
        (b'\\', b'\\'),
    ];
    let mut i = 0;
    while i < short.len() {
        table[short[i].0 as usize] = ([b'\\', short[i].1, 0, 0, 0, 0, 0, 0], 2);
        i += 1;
    }
    table
};

fn needs_json_escape(byte: u8) -> bool {
    (byte < 0x20) | (byte == b'"') | (byte == b'\\')
}

/// Bit k set exactly when `block[k]` [`needs_json_escape`]. Written so the compiler makes the
/// tests vector compares: byte k gives bit k / 8 (its eight) of byte k % 8 (its place in the
/// eight), the eights are OR-ed into one word, and that 8×8 matrix of bits is transposed.
fn escape_mask(block: &[u8; 64]) -> u64 {
    const WEIGHT: [u8; 64] = {
        let mut weight = [0u8; 64];
        let mut k = 0;
        while k < 64 {
            weight[k] = 1 << (k / 8);
            k += 1;
        }
        weight
    };
    let mut flags = [0u8; 64];
    for ((flag, &b), &weight) in flags.iter_mut().zip(block).zip(&WEIGHT) {
        *flag = if needs_json_escape(b) { weight } else { 0 };
    }
    let mut x = 0u64;
    for eight in flags.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(eight);
        x |= u64::from_le_bytes(word);
    }
    // Byte j, bit e of `x` is byte 8e + j's flag; three swaps of blocks of bits (Hacker's
    // Delight, 7-3) make it bit 8e + j.
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// [`escape_mask`] with AVX2: for each 32 bytes, a compare for `"`, one for backslash and one
/// for the C0 controls (`min(b, 0x1f) == b`), their bytes' top bits gathered by `vpmovmskb`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn escape_mask_avx2(block: &[u8; 64]) -> u64 {
    use std::arch::x86_64::{
        _mm256_cmpeq_epi8, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set_epi64x, _mm256_set1_epi8,
    };
    let (words, _) = block.as_chunks::<8>();
    let mut mask = 0u64;
    for (k, four) in words.chunks_exact(4).enumerate() {
        // Four loads the compiler joins into one 32-byte load (an unaligned load intrinsic
        // would take a raw pointer).
        let v = _mm256_set_epi64x(
            i64::from_le_bytes(four[3]),
            i64::from_le_bytes(four[2]),
            i64::from_le_bytes(four[1]),
            i64::from_le_bytes(four[0]),
        );
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
        let any = _mm256_or_si256(_mm256_or_si256(quote, backslash), control);
        // The 32 top bits, as a u32 (movemask returns them in an i32).
        mask |= u64::from(_mm256_movemask_epi8(any).cast_unsigned()) << (32 * k);
    }
    mask
}

/// `parent.key`, or `key` at the top: the dot-paths arguments are named by (`paths.0`,
/// `options.target_directory`).
pub fn dot_join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Whether [`terminal_safe`] keeps line feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineBreaks {
    /// Multi-line output (`keel runs show`, `keel runs list`): a line feed stays a line feed.
    Keep,
    /// One field or one line (a tool name, a reason, a notice): a line feed is escaped too,
    /// so quoted text cannot start a line that looks like keel's own.
    Escape,
}

/// Text for a terminal: control characters are shown escaped (`\u{001b}`), so no stored or
/// quoted text can move the cursor, clear the screen, retitle the window, write the
/// clipboard (OSC 52) or rewrite a prompt a person is answering. Escaped are every C0
/// control (ESC, BEL, …), DEL and every C1 control (U+0080–U+009F: `\u{9b}` is a one-char
/// CSI on terminals that take 8-bit controls), and the Unicode bidirectional embedding,
/// override and isolate controls (U+202A–U+202E, U+2066–U+2069; see [`is_bidi_control`]),
/// and the line and paragraph separators (U+2028, U+2029), which are line breaks in
/// disguise. Tabs always stay; line feeds stay only with [`LineBreaks::Keep`]. A carriage return is
/// always escaped, even before a line feed: it would let a line overwrite itself.
///
/// Each char is judged alone, so text shown in pieces (a streamed reply) is as safe as text
/// shown whole: an ESC at the end of one piece is escaped there, whatever the next brings.
/// The escaped form is plain ASCII, so escaping twice changes nothing.
pub fn terminal_safe(text: &str, line_breaks: LineBreaks) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let kept = c == '\t' || (c == '\n' && line_breaks == LineBreaks::Keep);
        if (c.is_control() || is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')) && !kept {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// The bidirectional formatting chars that reorder what follows them on screen: LRE, RLE,
/// PDF, LRO, RLO (U+202A–U+202E) and LRI, RLI, FSI, PDI (U+2066–U+2069). With them a line
/// can show text in another order than it holds (CVE-2021-42574, "Trojan Source"): a command
/// or a path that reads as one thing and is another. They are format chars, not controls, so
/// `char::is_control` does not catch them. The marks (LRM, RLM, ALM) only nudge neutral
/// chars and stay.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// JSON text with the chars serde_json leaves raw in strings but a reader may take for a line
/// break or a control — U+2028, U+2029, NEL and every C1 control, the bidirectional controls —
/// written as `\uXXXX` escapes: the same JSON value, one line on any screen. (Outside strings
/// valid JSON holds none of them.)
pub fn json_line_safe(json: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write;
    let risky = |c: char| {
        matches!(c, '\u{2028}' | '\u{2029}')
            || ('\u{80}'..='\u{9f}').contains(&c)
            || is_bidi_control(c)
    };
    if !json.chars().any(risky) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if risky(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt): chars a
/// renderer shows as nothing — zero-width spaces and joiners, the bidirectional marks, word
/// joiners, variation selectors, the byte-order mark, tag characters. Text that spells one of
/// keel's markers once these are taken out reads, to a model or a person, as that marker.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(
        c as u32,
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFF8
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn quoted(s: &str) -> String {
        let mut out = String::new();
        push_json_string(&mut out, s);
        out
    }

    /// The same with the portable mask, whatever the CPU has (`quoted` takes the AVX2 build
    /// on a CPU with AVX2).
    fn quoted_portable(s: &str) -> String {
        let mut out = String::new();
        push_json_string_with(&mut out, s, escape_mask);
        out
    }

    #[test]
    fn every_byte_that_needs_an_escape_is_found_at_every_offset() {
        // Each ASCII byte at each position of a 140-byte text (so in each eight of a block, in
        // a later block and in the tail), after a run of plain and of multi-byte text, before
        // plain text and before multi-byte text (where the 32 bytes after a run end mid-char):
        // as serde writes it.
        for byte in 0u8..0x80 {
            for at in 0..140 {
                for (fill, after) in [("a", "z"), ("é", "z"), ("a", "文"), ("é", "文")] {
                    let mut text: String = fill.repeat(at);
                    text.push(char::from(byte));
                    text.push_str(&after.repeat(140 - at));
                    let want = serde_json::to_string(&text).unwrap_or_default();
                    assert_eq!(quoted(&text), want, "byte {byte:#x} at {at}");
                    assert_eq!(quoted_portable(&text), want, "byte {byte:#x} at {at}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn char_len_at_most_is_char_len_within_the_limit(
            text in prop_oneof![any::<String>(), "[a-zé文😀 ]{0,300}"],
            limit in 0usize..400,
        ) {
            let n = char_len(&text);
            prop_assert_eq!(char_len_at_most(&text, limit), (n <= limit).then_some(n));
        }

        #[test]
        fn push_json_string_writes_what_serde_writes(
            text in prop_oneof![
                any::<String>(),
                "[\\x00-\\x1f\"\\\\a-z\u{7f}\u{80}-\u{9f}\u{2028}文😀]{0,80}",
                // Several blocks, escapes near and far apart.
                "([a-z文😀 ]{0,40}[\\x00-\\x1f\"\\\\]){0,30}",
                // Many blocks, dense with escapes and multi-byte chars (a line that outgrows
                // its buffer while written).
                "[a-z文😀é\\x00-\\x1f\"\\\\]{100,1500}",
            ],
            prefix in "[a-z]{0,3}",
        ) {
            let mut out = prefix.clone();
            push_json_string(&mut out, &text);
            let want = format!("{prefix}{}", serde_json::to_string(&text).unwrap_or_default());
            prop_assert_eq!(&out, &want);
            let mut portable = prefix;
            push_json_string_with(&mut portable, &text, escape_mask);
            prop_assert_eq!(portable, want);
        }
    }

    #[test]
    fn json_line_safe_escapes_line_breaks_c1_and_bidi_controls_and_keeps_the_value() {
        let text =
            serde_json::to_string("a\u{2028}b\u{85}c\u{9b}d\u{202e}e\u{1b}f").unwrap_or_default();
        let safe = json_line_safe(&text);
        assert_eq!(safe, "\"a\\u2028b\\u0085c\\u009bd\\u202ee\\u001bf\"");
        let back: String = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back, "a\u{2028}b\u{85}c\u{9b}d\u{202e}e\u{1b}f");
        assert!(matches!(
            json_line_safe("\"plain\""),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn line_and_paragraph_separators_are_escaped_for_a_terminal() {
        assert_eq!(
            terminal_safe("a\u{2028}b\u{2029}c", LineBreaks::Keep),
            "a\\u{2028}b\\u{2029}c"
        );
    }

    #[test]
    fn terminal_safe_escapes_control_characters_and_line_feeds_only_when_asked() {
        let text = "a\u{1b}[2J\tb\nc\r\u{7f}\u{9b}";
        assert_eq!(
            terminal_safe(text, LineBreaks::Keep),
            "a\\u{001b}[2J\tb\nc\\u{000d}\\u{007f}\\u{009b}"
        );
        assert_eq!(
            terminal_safe(text, LineBreaks::Escape),
            "a\\u{001b}[2J\tb\\u{000a}c\\u{000d}\\u{007f}\\u{009b}"
        );
        assert_eq!(terminal_safe("中文 😀", LineBreaks::Escape), "中文 😀");
    }

    #[test]
    fn terminal_safe_escapes_every_c0_c1_and_del_but_tab_and_kept_line_feeds() {
        for cp in (0x00..=0x1F).chain(0x7F..=0x9F) {
            let c = char::from_u32(cp).unwrap_or('x');
            let shown = terminal_safe(&c.to_string(), LineBreaks::Keep);
            if c == '\t' || c == '\n' {
                assert_eq!(shown, c.to_string(), "U+{cp:04X}");
            } else {
                assert_eq!(shown, format!("\\u{{{cp:04x}}}"), "U+{cp:04X}");
            }
        }
        // CRLF: the carriage return is escaped, the line feed kept.
        assert_eq!(terminal_safe("a\r\nb", LineBreaks::Keep), "a\\u{000d}\nb");
    }

    #[test]
    fn terminal_safe_escapes_bidi_overrides_and_isolates() {
        // "Trojan Source": RLO makes `txt.exe` read as `exe.txt`.
        assert_eq!(
            terminal_safe("evil\u{202E}txt.exe", LineBreaks::Keep),
            "evil\\u{202e}txt.exe"
        );
        for cp in (0x202A..=0x202E).chain(0x2066..=0x2069) {
            let c = char::from_u32(cp).unwrap_or('x');
            assert!(is_bidi_control(c), "U+{cp:04X}");
            assert_eq!(
                terminal_safe(&c.to_string(), LineBreaks::Escape),
                format!("\\u{{{cp:04x}}}")
            );
        }
        // The marks, and right-to-left text itself, stay as they are.
        for kept in ["\u{200E}", "\u{200F}", "\u{061C}", "שלום", "مرحبا"] {
            assert_eq!(terminal_safe(kept, LineBreaks::Escape), kept);
        }
    }

    #[test]
    fn terminal_safe_is_the_same_in_pieces_and_idempotent() {
        let whole = "title \u{1b}]0;pwned\u{7}, clipboard \u{1b}]52;c;ZXZpbA==\u{7}\u{9b}2J\n";
        let pieces: String = whole
            .char_indices()
            .map(|(at, c)| terminal_safe(&whole[at..at + c.len_utf8()], LineBreaks::Keep))
            .collect();
        let once = terminal_safe(whole, LineBreaks::Keep);
        assert_eq!(pieces, once);
        assert_eq!(terminal_safe(&once, LineBreaks::Keep), once);
        assert!(!once.chars().any(|c| c.is_control() && c != '\n'), "{once}");
    }

    #[test]
    fn trims_feff_but_keeps_nel() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert!(is_blank("\u{FEFF}"));
        assert!(!is_blank("\u{0085}"));
        assert_eq!(js_trim("\u{0085}x\u{0085}"), "\u{0085}x\u{0085}");
        // Rust's own trim differs on exactly these two chars.
        assert_eq!("\u{FEFF}".trim(), "\u{FEFF}");
        assert_eq!("\u{0085}".trim(), "");
    }

    #[test]
    fn every_listed_char_is_whitespace() {
        let listed = [
            0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2000, 0x2005, 0x200A, 0x2028,
            0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF,
        ];
        for cp in listed {
            let c = char::from_u32(cp).unwrap_or('x');
            assert!(is_js_whitespace(c), "U+{cp:04X}");
        }
        for c in ['\u{0085}', '\u{200B}', '\u{180E}', 'a'] {
            assert!(!is_js_whitespace(c), "{c:?}");
        }
    }

    #[test]
    fn lengths_are_scalar_values() {
        assert_eq!(char_len("😀a"), 2);
        assert_eq!(char_len("中文"), 2);
    }
}
