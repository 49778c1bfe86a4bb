//! A small GBNF recognizer, for tests: whether a grammar keel wrote admits a text, read the way
//! llama.cpp reads the subset keel writes (rules, literals, character classes with ranges and
//! negation, groups, alternatives, `?`, `*`, `+`). It checks grammars; it is not llama.cpp.

use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug)]
enum Node {
    Literal(Vec<char>),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Rule(String),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Opt(Box<Node>),
    Star(Box<Node>),
    Plus(Box<Node>),
    Repeat(Box<Node>, usize, usize),
}

pub struct Grammar {
    rules: HashMap<String, Node>,
}

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    line: &'a str,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.at < self.chars.len() && self.chars[self.at] == ' ' {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn escape(&mut self) -> Result<char, String> {
        let c = self.peek().ok_or("an escape at the end")?;
        self.at += 1;
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'x' => {
                let hex: String = self.chars[self.at..self.at + 2].iter().collect();
                self.at += 2;
                char::from_u32(u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?)
                    .ok_or("a bad \\x escape")?
            }
            other => other,
        })
    }

    fn alternatives(&mut self) -> Result<Node, String> {
        let mut alts = vec![self.sequence()?];
        loop {
            self.skip_ws();
            if self.peek() == Some('|') {
                self.at += 1;
                alts.push(self.sequence()?);
            } else {
                break;
            }
        }
        Ok(if alts.len() == 1 {
            alts.remove(0)
        } else {
            Node::Alt(alts)
        })
    }

    fn sequence(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            let Some(c) = self.peek() else { break };
            let atom = match c {
                '|' | ')' => break,
                '"' => {
                    self.at += 1;
                    let mut text = Vec::new();
                    loop {
                        let c = self
                            .peek()
                            .ok_or_else(|| format!("open literal: {}", self.line))?;
                        self.at += 1;
                        match c {
                            '"' => break,
                            '\\' => text.push(self.escape()?),
                            c => text.push(c),
                        }
                    }
                    Node::Literal(text)
                }
                '[' => {
                    self.at += 1;
                    let negated = self.peek() == Some('^');
                    if negated {
                        self.at += 1;
                    }
                    let mut ranges = Vec::new();
                    loop {
                        let c = self
                            .peek()
                            .ok_or_else(|| format!("open class: {}", self.line))?;
                        self.at += 1;
                        let low = match c {
                            ']' => break,
                            '\\' => self.escape()?,
                            c => c,
                        };
                        let high = if self.peek() == Some('-')
                            && self.chars.get(self.at + 1) != Some(&']')
                        {
                            self.at += 1;
                            let c = self.peek().ok_or("open range")?;
                            self.at += 1;
                            if c == '\\' { self.escape()? } else { c }
                        } else {
                            low
                        };
                        ranges.push((low, high));
                    }
                    Node::Class { negated, ranges }
                }
                '(' => {
                    self.at += 1;
                    let inner = self.alternatives()?;
                    self.skip_ws();
                    if self.peek() != Some(')') {
                        return Err(format!("unclosed group: {}", self.line));
                    }
                    self.at += 1;
                    inner
                }
                c if c.is_ascii_alphanumeric() || c == '-' => {
                    let start = self.at;
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        self.at += 1;
                    }
                    Node::Rule(self.chars[start..self.at].iter().collect())
                }
                other => return Err(format!("unexpected {other:?} in {}", self.line)),
            };
            let atom = match self.peek() {
                Some('?') => {
                    self.at += 1;
                    Node::Opt(Box::new(atom))
                }
                Some('*') => {
                    self.at += 1;
                    Node::Star(Box::new(atom))
                }
                Some('+') => {
                    self.at += 1;
                    Node::Plus(Box::new(atom))
                }
                Some('{') => {
                    let close = self.chars[self.at..]
                        .iter()
                        .position(|&c| c == '}')
                        .ok_or("open {")?;
                    let inside: String = self.chars[self.at + 1..self.at + close].iter().collect();
                    self.at += close + 1;
                    let (lo, hi) = inside.split_once(',').unwrap_or((&inside, &inside));
                    let lo = lo.trim().parse().map_err(|_| format!("bad {{{inside}}}"))?;
                    let hi = hi.trim().parse().map_err(|_| format!("bad {{{inside}}}"))?;
                    Node::Repeat(Box::new(atom), lo, hi)
                }
                _ => atom,
            };
            items.push(atom);
        }
        Ok(Node::Seq(items))
    }
}

impl Grammar {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut rules = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line
                .split_once(" ::= ")
                .ok_or_else(|| format!("not a rule: {line}"))?;
            let mut p = Parser {
                chars: body.chars().collect(),
                at: 0,
                line,
            };
            let node = p.alternatives()?;
            p.skip_ws();
            if p.at != p.chars.len() {
                return Err(format!("trailing text in {line}"));
            }
            if rules.insert(name.trim().to_string(), node).is_some() {
                return Err(format!("rule {name} defined twice"));
            }
        }
        Ok(Self { rules })
    }

    /// Whether the `root` rule matches all of `text`.
    pub fn admits(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let Some(root) = self.rules.get("root") else {
            return false;
        };
        self.ends(root, &chars, 0).contains(&chars.len())
    }

    /// Every position a match of `node` from `at` can end at.
    fn ends(&self, node: &Node, s: &[char], at: usize) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        match node {
            Node::Literal(text) => {
                if s[at..].starts_with(text) {
                    out.insert(at + text.len());
                }
            }
            Node::Class { negated, ranges } => {
                if let Some(&c) = s.get(at) {
                    let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                    if inside != *negated {
                        out.insert(at + 1);
                    }
                }
            }
            Node::Rule(name) => {
                if let Some(rule) = self.rules.get(name) {
                    out = self.ends(rule, s, at);
                }
            }
            Node::Seq(items) => {
                let mut here = BTreeSet::from([at]);
                for item in items {
                    here = here.iter().flat_map(|&p| self.ends(item, s, p)).collect();
                    if here.is_empty() {
                        break;
                    }
                }
                out = here;
            }
            Node::Alt(alts) => {
                for alt in alts {
                    out.extend(self.ends(alt, s, at));
                }
            }
            Node::Opt(inner) => {
                out.insert(at);
                out.extend(self.ends(inner, s, at));
            }
            Node::Repeat(inner, lo, hi) => {
                let mut frontier = BTreeSet::from([at]);
                for n in 0..=*hi {
                    if n >= *lo {
                        out.extend(frontier.iter().copied());
                    }
                    if n == *hi || frontier.is_empty() {
                        break;
                    }
                    frontier = frontier
                        .iter()
                        .flat_map(|&p| self.ends(inner, s, p))
                        .collect();
                }
            }
            Node::Star(inner) | Node::Plus(inner) => {
                let mut frontier = if matches!(node, Node::Plus(_)) {
                    self.ends(inner, s, at)
                } else {
                    BTreeSet::from([at])
                };
                out.extend(frontier.iter().copied());
                while !frontier.is_empty() {
                    let next: BTreeSet<usize> = frontier
                        .iter()
                        .flat_map(|&p| self.ends(inner, s, p))
                        .filter(|p| !out.contains(p))
                        .collect();
                    out.extend(next.iter().copied());
                    frontier = next;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_reads_what_keel_writes() -> Result<(), String> {
        let g = Grammar::parse(&crate::local::grammar::for_tools(&[]))?;
        assert!(g.admits(r#"{"reply": "Hello, \"you\"."}"#));
        assert!(g.admits(r#"{"reply":"x"}"#));
        assert!(!g.admits(r#"{"reply": "x"} "#));
        assert!(!g.admits(r#"{"tool": "x"}"#));
        assert!(!g.admits("{\"reply\": \"a\nb\"}"));
        Ok(())
    }
}
