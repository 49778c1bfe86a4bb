//! Which untrusted texts may hold a value written the way a model tidies what it copies
//! ([`super::Reformatted`]: an address or host in lower case, a long number by its digits), so
//! that a run's index looks in those texts only. Looking in every text, one after another, was
//! the one search of the provenance checker that grew with the run: a value with six digits
//! or more (a phone, an account, a path such as `out/100000-5.md`) read every result the run
//! had, and a 100k-item run spent a third of a step's time there.
//!
//! Only an index kept across calls has these postings, as only it has the trigram postings of
//! the texts as written ([`super::Trigrams`]); an index made for one call scans. The answer is
//! the scan's: the first text, in order, that holds the value. A candidate is checked as the
//! scan checks every text.
//!
//! - A value in lower case (ASCII) is in a text's lower case only where the text as written
//!   holds, for each of the value's trigrams, one of its spellings in upper and lower case: so
//!   the texts posted under the spellings of its rarest trigram. Lowering a character outside
//!   ASCII may give an ASCII one (the Kelvin sign gives `k`), so the texts with any are always
//!   candidates, and a value outside ASCII is looked for everywhere.
//! - A number's digits are in a text's runs of digits ([`super::digit_runs`]) only where the
//!   runs hold its trigrams: the runs are posted as they are added.

use super::{Trigrams, trigram};

/// The postings of the texts' tidied forms.
#[derive(Clone, Debug, Default)]
pub(super) struct Reformed {
    /// Trigrams of each text's runs of digits.
    runs: Trigrams,
    /// The texts (as written or decoded) with a character outside ASCII, in order.
    unfolded: Vec<u32>,
}

impl Reformed {
    /// Posts the text at `at`: its form as written and, if any, as decoded.
    pub(super) fn add(&mut self, at: usize, forms: &[&str]) {
        let at32 = u32::try_from(at).unwrap_or(u32::MAX);
        if forms.iter().any(|f| !f.is_ascii()) {
            self.unfolded.push(at32);
        }
        for form in forms {
            for run in super::digit_runs(form) {
                self.runs.add(at, &run);
            }
        }
    }

    /// The texts, in order, that may hold a value whose lower case is `lower` (as a token)
    /// or whose digits are `digits`; `None` when every text may (a value too short to post,
    /// or outside ASCII).
    pub(super) fn candidates(
        &self,
        written: &Trigrams,
        lower: Option<&str>,
        digits: Option<&str>,
    ) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        if let Some(lower) = lower {
            if !lower.is_ascii() {
                return None;
            }
            out.extend(written.candidates_in_any_case(lower)?);
            out.extend_from_slice(&self.unfolded);
        }
        if let Some(digits) = digits {
            out.extend_from_slice(self.runs.candidates(digits)?);
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}

impl Trigrams {
    /// The texts posted under any spelling of `value`'s rarest trigram in upper and lower
    /// case (ASCII letters), in order; `None` when `value` is too short to say.
    fn candidates_in_any_case(&self, value: &str) -> Option<Vec<u32>> {
        let bytes = value.as_bytes();
        if bytes.len() < 3 {
            return None;
        }
        let spellings = |w: &[u8]| {
            let cases = |b: u8| [b.to_ascii_lowercase(), b.to_ascii_uppercase()];
            let mut keys = Vec::with_capacity(8);
            for a in cases(w[0]) {
                for b in cases(w[1]) {
                    for c in cases(w[2]) {
                        keys.push(trigram(&[a, b, c]));
                    }
                }
            }
            keys.sort_unstable();
            keys.dedup();
            keys
        };
        let mut best: Option<(usize, Vec<u32>)> = None;
        for w in bytes.windows(3) {
            let lists: Vec<&[u32]> = spellings(w)
                .iter()
                .filter_map(|k| self.0.get(k).map(super::Postings::as_slice))
                .collect();
            let size: usize = lists.iter().map(|l| l.len()).sum();
            if best.as_ref().is_some_and(|(s, _)| *s <= size) {
                continue;
            }
            let mut merged: Vec<u32> = lists.into_iter().flatten().copied().collect();
            merged.sort_unstable();
            merged.dedup();
            let empty = merged.is_empty();
            best = Some((size, merged));
            if empty {
                break;
            }
        }
        best.map(|(_, texts)| texts)
    }
}
