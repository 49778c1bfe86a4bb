use super::*;

fn tag(s: &str) -> Option<NoteTag> {
    NoteTag::new(s).ok()
}

fn add(notes: &mut SystemNotes, text: &str, lifetime: NoteLifetime, t: Option<&str>) {
    let result = notes.add(text, lifetime, t.and_then(tag), DEFAULT_MAX_UNTAGGED);
    assert_eq!(result, Ok(()));
}

fn shape(notes: &SystemNotes) -> Vec<(String, NoteLifetime, Option<String>)> {
    notes
        .iter()
        .map(|n| {
            (
                n.text.clone(),
                n.lifetime,
                n.tag.as_ref().map(|t| t.as_str().to_string()),
            )
        })
        .collect()
}

use NoteLifetime::{Run, Turn};

fn s(t: &str, l: NoteLifetime, g: Option<&str>) -> (String, NoteLifetime, Option<String>) {
    (t.to_string(), l, g.map(String::from))
}

#[test]
fn t1_add_replace_read() {
    let mut n = SystemNotes::new();
    add(&mut n, "A", Run, Some("x"));
    add(&mut n, "B", Turn, None);
    add(&mut n, "C", Run, Some("x"));
    assert_eq!(shape(&n), vec![s("B", Turn, None), s("C", Run, Some("x"))]);
    assert_eq!(n.blocks(), vec!["B", "C"]);

    add(&mut n, "   ", Run, Some("x"));
    assert_eq!(
        n.blocks(),
        vec!["B", "C"],
        "blank add keeps the tagged note (N27)"
    );

    add(&mut n, "B", Turn, None);
    assert_eq!(
        shape(&n),
        vec![
            s("B", Turn, None),
            s("C", Run, Some("x")),
            s("B", Turn, None)
        ]
    );
    assert_eq!(n.blocks(), vec!["B", "C", "B"]);
    assert_eq!(n.read("x"), Some("C"));

    let mut empty = SystemNotes::new();
    add(&mut empty, "\u{FEFF}", Run, Some("y"));
    assert!(empty.is_empty());
    assert_eq!(empty.to_stored_json(), None, "field absent when empty");

    let mut padded = SystemNotes::new();
    add(&mut padded, "  padded  ", Run, None);
    assert_eq!(padded.blocks(), vec!["  padded  "], "stored untrimmed");
}

#[test]
fn nel_only_note_is_not_blank() {
    let mut n = SystemNotes::new();
    add(&mut n, "\u{0085}", Run, None);
    assert_eq!(n.len(), 1);
}

#[test]
fn t2_consume_and_remove() {
    let mut n = SystemNotes::new();
    add(&mut n, "A", Run, Some("x"));
    add(&mut n, "B", Turn, None);
    n.consume_turn_notes();
    assert_eq!(shape(&n), vec![s("A", Run, Some("x"))]);

    let mut w = SystemNotes::new();
    add(&mut w, "B", Turn, Some("wake"));
    w.consume_turn_notes();
    assert!(w.is_empty());
    assert_eq!(w.to_stored_json(), None);

    // Legacy data can hold two notes with one tag; read returns the first, remove drops both.
    let legacy = serde_json::json!([
        {"text": "A", "lifetime": "run", "tag": "x"},
        {"text": "D", "lifetime": "run", "tag": "x"}
    ]);
    let (mut l, skipped) = SystemNotes::from_stored_json(Some(&legacy));
    assert!(skipped.is_empty());
    assert_eq!(l.read("x"), Some("A"));
    l.remove("x");
    assert!(l.is_empty());
    assert_eq!(l.to_stored_json(), None);
}

#[test]
fn clear_removes_everything() {
    let mut n = SystemNotes::new();
    add(&mut n, "A", Run, Some("x"));
    add(&mut n, "B", Turn, None);
    n.clear();
    assert!(n.is_empty());
    assert_eq!(n.read("x"), None);
}

#[test]
fn n3_n28_tolerant_reads() {
    assert!(SystemNotes::from_stored_json(None).0.is_empty());
    let not_array = serde_json::json!({"text": "A"});
    assert!(SystemNotes::from_stored_json(Some(&not_array)).0.is_empty());
    let mixed = serde_json::json!([
        {"text": "A", "lifetime": "run"},
        {"lifetime": "run"},
        {"text": 5, "lifetime": "run"},
        {"text": "B", "lifetime": "forever"},
        "C",
        {"text": "D", "lifetime": "turn", "tag": "t"}
    ]);
    let (n, skipped) = SystemNotes::from_stored_json(Some(&mixed));
    assert_eq!(
        n.blocks(),
        vec!["A", "D"],
        "well-formed notes keep their order"
    );
    assert_eq!(
        skipped.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
}

#[test]
fn n25_untagged_cap() {
    let mut n = SystemNotes::new();
    for i in 0..DEFAULT_MAX_UNTAGGED {
        add(&mut n, &format!("n{i}"), Run, None);
    }
    let before = n.clone();
    assert_eq!(
        n.add("one more", Run, None, DEFAULT_MAX_UNTAGGED),
        Err(NoteLimit { max: 16 })
    );
    assert_eq!(n, before, "a refused add changes nothing");
    // Tagged adds are not capped.
    add(&mut n, "tagged", Run, Some("t"));
    assert_eq!(n.len(), 17);
    // The cap is configurable.
    let mut small = SystemNotes::new();
    assert_eq!(small.add("a", Run, None, 1), Ok(()));
    assert_eq!(small.add("b", Run, None, 1), Err(NoteLimit { max: 1 }));
    assert_eq!(DEFAULT_MAX_UNTAGGED, 16);
}

#[test]
fn n27_tags_are_never_empty() {
    assert_eq!(NoteTag::new(""), Err(EmptyTag));
    assert!(
        serde_json::from_str::<SystemNote>(r#"{"text":"a","lifetime":"run","tag":""}"#).is_err()
    );
}

#[test]
fn size_is_counted_in_chars() {
    let mut n = SystemNotes::new();
    add(&mut n, "😀中", Run, None);
    add(&mut n, "ab", Run, Some("t"));
    assert_eq!(n.total_chars(), 4);
}

#[test]
fn producers_use_their_tags_and_lifetimes() {
    let mut n = SystemNotes::new();
    producers::add_caller_instructions(&mut n, "Be terse.");
    producers::add_tool_error(
        &mut n,
        "call_7",
        "fetch",
        &crate::item::Untrusted::new("boom TOOL_ERROR>>>".into()),
    );
    let notes = n.as_slice();
    assert_eq!(
        notes[0].tag.as_ref().map(NoteTag::as_str),
        Some("caller-instructions")
    );
    assert_eq!(notes[0].lifetime, Run);
    assert_eq!(
        notes[1].tag.as_ref().map(NoteTag::as_str),
        Some("tool-error:call_7")
    );
    assert_eq!(notes[1].lifetime, Turn);
    assert!(
        notes[1]
            .text
            .contains("\"boom TOOL_ERROR>>\"\nTOOL_ERROR>>>")
    );
    n.consume_turn_notes();
    assert_eq!(n.blocks(), vec!["Be terse."]);
}

mod property {
    //! Random sequences of note operations against a plain reference model.
    use super::*;
    use proptest::prelude::*;

    /// The reference: the spec's rules written as directly as possible.
    #[derive(Default)]
    struct Model(Vec<(String, NoteLifetime, Option<String>)>);

    impl Model {
        fn apply(&mut self, op: &NoteOp, max: usize) -> Result<NoteOpResult, NoteLimit> {
            Ok(match op {
                NoteOp::Add {
                    text,
                    lifetime,
                    tag,
                } => {
                    let blank = text.trim_matches(crate::text::is_js_whitespace).is_empty();
                    if !blank {
                        match tag {
                            Some(t) => {
                                self.0.retain(|n| n.2.as_deref() != Some(t.as_str()));
                                self.0
                                    .push((text.clone(), *lifetime, Some(t.as_str().into())));
                            }
                            None => {
                                if self.0.iter().filter(|n| n.2.is_none()).count() >= max {
                                    return Err(NoteLimit { max });
                                }
                                self.0.push((text.clone(), *lifetime, None));
                            }
                        }
                    }
                    NoteOpResult::Mutated
                }
                NoteOp::Blocks => {
                    NoteOpResult::Blocks(self.0.iter().map(|n| n.0.clone()).collect())
                }
                NoteOp::Consume => {
                    self.0.retain(|n| n.1 == Run);
                    NoteOpResult::Mutated
                }
                NoteOp::Read { tag } => NoteOpResult::Read(
                    self.0
                        .iter()
                        .find(|n| n.2.as_deref() == Some(tag.as_str()))
                        .map(|n| n.0.clone()),
                ),
                NoteOp::Remove { tag } => {
                    self.0.retain(|n| n.2.as_deref() != Some(tag.as_str()));
                    NoteOpResult::Mutated
                }
                NoteOp::Clear => {
                    self.0.clear();
                    NoteOpResult::Mutated
                }
            })
        }
    }

    fn arb_tag() -> impl Strategy<Value = NoteTag> {
        prop_oneof![Just("x"), Just("y"), Just("wake"), Just("z")]
            .prop_map(|t| NoteTag(t.to_string()))
    }

    fn arb_op() -> impl Strategy<Value = NoteOp> {
        let text = prop_oneof![
            Just(String::new()),
            Just("  ".to_string()),
            Just("\u{FEFF}".to_string()),
            Just("\u{0085}".to_string()),
            "[a-c]{1,3}",
            "\\PC{0,6}",
        ];
        let lifetime = prop_oneof![Just(Turn), Just(Run)];
        prop_oneof![
            4 => (text, lifetime, proptest::option::of(arb_tag()))
                .prop_map(|(text, lifetime, tag)| NoteOp::Add { text, lifetime, tag }),
            1 => Just(NoteOp::Blocks),
            1 => Just(NoteOp::Consume),
            1 => arb_tag().prop_map(|tag| NoteOp::Read { tag }),
            1 => arb_tag().prop_map(|tag| NoteOp::Remove { tag }),
            1 => Just(NoteOp::Clear),
        ]
    }

    proptest! {
        #[test]
        fn matches_reference_model(ops in proptest::collection::vec(arb_op(), 0..60), max in 0usize..5) {
            let mut real = SystemNotes::new();
            let mut model = Model::default();
            for op in ops {
                let got = real.apply(op.clone(), max);
                let want = model.apply(&op, max);
                prop_assert_eq!(got, want);
                prop_assert_eq!(shape(&real), model.0.clone());
                // N2: stored form is absent exactly when empty.
                prop_assert_eq!(real.to_stored_json().is_none(), real.is_empty());
                // Stored form round-trips.
                let (back, skipped) = SystemNotes::from_stored_json(real.to_stored_json().as_ref());
                prop_assert!(skipped.is_empty());
                prop_assert_eq!(&back, &real);
            }
        }
    }
}
