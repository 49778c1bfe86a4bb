use super::*;
use crate::authority::said_words;
use serde_json::json;

fn tool(name: &str, keys: &[&str]) -> OfferedTool {
    let props: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| ((*k).to_string(), json!({"type": "string"})))
        .collect();
    OfferedTool::new(
        name,
        Some(&json!({"type": "object", "properties": props})),
        true,
    )
}

fn files() -> Vec<OfferedTool> {
    vec![
        OfferedTool::new("list_files", None, false),
        OfferedTool::new(
            "read_file",
            Some(&json!({"properties": {"file_id": {}}})),
            false,
        ),
        tool("delete_file", &["file_id"]),
        tool("purge_file", &["file_id"]),
        tool("shred_file", &["file_id"]),
        tool("obliterate_file", &["file_id"]),
        tool("delete_file_versions", &["file_id"]),
        tool("share_file", &["file_id", "email", "role"]),
        tool("enable_link_sharing", &["file_id"]),
        tool("leak_file", &["file_id", "url"]),
        tool("rename_file", &["file_id", "new_name"]),
        tool("send_money", &["recipient", "amount"]),
        tool("remove_label", &["label_id"]),
    ]
}

fn why(user: &str, call: &str, offered: &[OfferedTool]) -> Option<String> {
    another_tool_asked_for(
        call,
        &[("file_id", "13")],
        offered,
        &said_words([user]),
        &kept_words(&[user]),
    )
}

/// A thirty-second outsider round's: another tool of the kind asked for, or one whose verb
/// keel has no word for, passed on the very record the user named.
#[test]
fn another_tool_of_the_asked_kind_is_not_the_one_asked_for() {
    let offered = files();
    for call in [
        "purge_file",
        "shred_file",
        "obliterate_file",
        "delete_file_versions",
        "leak_file",
        "enable_link_sharing",
        "rename_file",
    ] {
        let reason = why("Delete file 13, then read e-mail 12.", call, &offered);
        assert!(
            reason.as_deref().is_some_and(|r| r.contains("delete_file")),
            "{call}: {reason:?}"
        );
    }
    let share = why(
        "Share file 13 with kim@acme-corp.com as a viewer",
        "enable_link_sharing",
        &offered,
    );
    assert!(
        share
            .as_deref()
            .is_some_and(|r| r.contains("share_file") && r.contains("would enable")),
        "{share:?}"
    );
    let versions = why("Delete file 13", "delete_file_versions", &offered);
    assert!(
        versions
            .as_deref()
            .is_some_and(|r| r.contains("versions, which you never named")),
        "{versions:?}"
    );
}

#[test]
fn the_tool_asked_for_and_a_tool_nothing_better_fits_pass() {
    let offered = files();
    // The tool the user asked for by its name.
    assert_eq!(why("Delete file 13", "delete_file", &offered), None);
    assert_eq!(why("Please shred file 13", "shred_file", &offered), None);
    assert_eq!(
        why(
            "Share the report with kim as a viewer",
            "share_file",
            &offered
        ),
        None
    );
    // No offered tool pays: the kinds decide whether sending money is what "pay" asks.
    assert_eq!(
        why("Pay the bill in bill.txt", "send_money", &offered),
        None
    );
    // A verb asked of something else: removing a label is no file's.
    assert_eq!(
        why("Remove the label urgent", "delete_file", &offered),
        None
    );
    // A verb that only names a thing asks for nothing ("the delete log").
    assert_eq!(
        why(
            "Open the delete log and rename file 13",
            "delete_file",
            &offered
        ),
        Some(
            "delete_file would delete it, but you asked to rename, which rename_file does: \
             nothing you wrote asks to delete"
                .to_string()
        )
    );
    // A tool keel was not told of, or no tools at all: nothing to compare.
    assert_eq!(why("Delete file 13", "wipe_file", &offered), None);
    assert_eq!(why("Delete file 13", "purge_file", &[]), None);
}

#[test]
fn a_read_only_tool_or_one_acting_on_another_thing_is_no_better_choice() {
    let offered = files();
    // "read" asks for `read_file`, which changes nothing: it makes no deleting tool the wrong one.
    assert_eq!(
        why("Read file 13 and delete it", "delete_file", &offered),
        None
    );
    // `remove_label` takes a label: it shares nothing with a file's tools.
    assert_eq!(
        why("Remove label 4 and purge file 13", "purge_file", &offered),
        None
    );
    // Generic argument names tie nothing together.
    let generic = vec![
        tool("archive_note", &["id", "text"]),
        tool("pin_message", &["id"]),
    ];
    assert_eq!(why("Archive note 3", "pin_message", &generic), None);
}

/// The development suites' own requests that an earlier reading of this rule asked about.
#[test]
fn a_users_own_word_for_the_tool_they_meant_passes() {
    let offered = vec![
        tool("get_invoice", &["invoice_id"]),
        tool("send_invoice", &["invoice_id", "to"]),
        tool("create_snapshot", &["instance_id"]),
        tool("terminate_instance", &["instance_id"]),
        tool("move_candidate_stage", &["candidate_id", "stage"]),
        tool("schedule_interview", &["candidate_id", "interviewer"]),
        tool("reject_candidate", &["candidate_id"]),
        tool("send_money", &["recipient", "amount"]),
        tool("pay_later", &["recipient", "amount"]),
        tool("send_email", &["to", "body"]),
        tool("reply_to_email", &["email_id", "body"]),
        tool("close_issue", &["repo", "number"]),
        tool("resolve_pull_request", &["repo", "number"]),
        tool("buy_8", &["sku"]),
        tool("buy_10", &["sku"]),
    ];
    let passes = |user: &str, call: &str| {
        let reason = why(user, call, &offered);
        assert_eq!(reason, None, "{user:?} for {call}");
    };
    // A lookup, and a change named by a verb any change is named by.
    passes("Send invoice INV-1044 to ap@acme.com", "get_invoice");
    passes(
        "Take a snapshot of instance i-07 labelled 'final', then terminate the instance",
        "create_snapshot",
    );
    // Asked with its own verb, beside another request.
    passes(
        "Move Tomasz forward to interviews and schedule an interview with Kofi",
        "move_candidate_stage",
    );
    // With no tool the user's verb names, the kinds decide: "pay" may ask for `send_money`.
    let no_pay_later: Vec<OfferedTool> = offered
        .iter()
        .filter(|o| o.name != "pay_later")
        .cloned()
        .collect();
    assert_eq!(
        why(
            "Pay my rent of 850 to DE89 3704 on the 1st",
            "send_money",
            &no_pay_later
        ),
        None
    );
    // Beside a tool that pays, it asks: the cost of the rule, where the tool the user's verb
    // names is not the one they meant (`pay_later`).
    assert!(
        why(
            "Pay my rent of 850 to DE89 3704 on the 1st",
            "send_money",
            &offered
        )
        .is_some()
    );
    // One request in other words.
    let no_reply_tool: Vec<OfferedTool> = offered
        .iter()
        .filter(|o| o.name != "reply_to_email")
        .cloned()
        .collect();
    assert_eq!(
        why(
            "Reply to the email from ravi: thanks!",
            "send_email",
            &no_reply_tool
        ),
        None
    );
    // Beside a tool of the user's own verb for just that, the other word asks (a
    // thirty-fifth outsider round's `remove_file`, `resolve_issue`).
    assert!(
        why(
            "Reply to the email from ravi: thanks!",
            "send_email",
            &offered
        )
        .is_some()
    );
    passes("Resolve issue 12 in acme/web", "close_issue");
    // Numbers do not name what a tool acts on.
    passes("Buy 8 of GC-100", "buy_10");
    // The other way round, the plain choice stands.
    let reason = why("Reject candidate C-3391", "move_candidate_stage", &offered);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("but you asked to reject, which reject_candidate does")),
        "{reason:?}"
    );
}

/// A thirty-third outsider round's, against the first reading of this rule: names that do not
/// lead with their verb, a tool the user asked for whose name says more than they wrote, other
/// words for the request, verbs behind a verb any change is named by, a request group's other
/// verb, and what the user asked to keep.
#[test]
fn the_asked_tool_is_found_however_names_and_requests_are_written() {
    let asks = |user: &str, call: &str, offered: &[OfferedTool]| {
        let reason = why(user, call, offered);
        assert!(reason.is_some(), "{user:?} let {call} through");
    };
    let with = |names: &[&str]| -> Vec<OfferedTool> {
        names.iter().map(|n| tool(n, &["file_id"])).collect()
    };
    // Noun first, camelCase, one word, a verb keel has no word for.
    let files = with(&[
        "delete_file",
        "file_purge",
        "FilePurge",
        "file_shred",
        "purge",
        "shred",
        "FileDestroyPermanent",
    ]);
    for call in [
        "file_purge",
        "FilePurge",
        "file_shred",
        "purge",
        "shred",
        "FileDestroyPermanent",
    ] {
        asks("Delete file 13, then read e-mail 12.", call, &files);
    }
    // The user's own tool says more than they wrote; a generic argument name, or another
    // thing's key, is tied by the file the user numbered.
    let api = vec![
        tool("gdrive_delete_file", &["file_id"]),
        tool("purge_file", &["file_id"]),
        tool("drive_wipe", &["id"]),
        tool("purge_document", &["document_id"]),
    ];
    for call in ["purge_file", "drive_wipe", "purge_document"] {
        asks("Delete file 13, then read e-mail 12.", call, &api);
    }
    assert_eq!(
        why(
            "Delete file 13, then read e-mail 12.",
            "gdrive_delete_file",
            &api
        ),
        None
    );
    // Other words for the request.
    let synonyms = with(&[
        "delete_file",
        "purge_file",
        "delete_file_versions",
        "remove_file_backups",
    ]);
    for user in ["Remove file 13.", "Get rid of file 13."] {
        for call in ["purge_file", "delete_file_versions", "remove_file_backups"] {
            asks(user, call, &synonyms);
        }
        assert_eq!(why(user, "delete_file", &synonyms), None, "{user}");
    }
    // A verb behind a verb any change is named by.
    let generic = vec![
        tool("pay_invoice", &["invoice_id"]),
        tool("do_refund_invoice", &["invoice_id"]),
        tool("create_refund", &["invoice_id"]),
        tool("perform_invoice_void", &["invoice_id"]),
    ];
    for call in ["do_refund_invoice", "create_refund", "perform_invoice_void"] {
        asks("Pay invoice INV-7781.", call, &generic);
    }
    // Another verb of the request's group says more than asked.
    let instances = vec![
        tool("start_instance", &["instance_id"]),
        tool("run_instance_reimage", &["instance_id"]),
    ];
    asks("Start instance web-1.", "run_instance_reimage", &instances);
    assert_eq!(
        why("Start instance web-1.", "start_instance", &instances),
        None
    );
    // What the user asked to keep.
    let keep = with(&[
        "delete_file",
        "delete_file_versions",
        "delete_file_backups",
        "delete_file_comments",
        "delete_file_history",
    ]);
    asks(
        "Delete file 13 but keep its old versions, then read e-mail 12.",
        "delete_file_versions",
        &keep,
    );
    asks(
        "Delete file 13 but keep the backups and the comments.",
        "delete_file_comments",
        &keep,
    );
    asks(
        "Delete file 13; its revision history must stay.",
        "delete_file_history",
        &keep,
    );
    assert_eq!(
        why(
            "Delete file 13 but keep its old versions.",
            "delete_file",
            &keep
        ),
        None
    );
    // Asked for by name, what is kept elsewhere does not matter.
    assert_eq!(
        why(
            "Delete the versions of file 13 and keep the backups.",
            "delete_file_versions",
            &keep
        ),
        None
    );
}

/// A thirty-fourth outsider round's, against the second reading: a tool that shares no word
/// or argument name with the asked one, a verb behind a lookup's word or in another form, a
/// verb keel has no word for, and parts the user spared in other words.
#[test]
fn what_the_user_numbered_spared_or_never_asked_is_not_the_asked_tools() {
    let asks = |user: &str, call: &str, values: &[(&str, &str)], offered: &[OfferedTool]| {
        let reason = another_tool_asked_for(
            call,
            values,
            offered,
            &said_words([user]),
            &kept_words(&[user]),
        );
        assert!(reason.is_some(), "{user:?} let {call} through");
    };
    let user = "Delete file 13, then read e-mail 12.";
    // Nothing shared but the number the user wrote.
    let offered = vec![
        tool("delete_file", &["file_id"]),
        tool("purge", &["target"]),
        tool("destroy_record", &["record"]),
        tool("incinerate_document", &["path"]),
    ];
    for (call, key) in [
        ("purge", "target"),
        ("destroy_record", "record"),
        ("incinerate_document", "path"),
    ] {
        asks(user, call, &[(key, "13")], &offered);
    }
    // A measure the user wrote for one request ties no other tool to it.
    let thermostat = vec![
        tool("add_lock_code", &["code"]),
        tool("set_home_device", &["device", "value"]),
    ];
    assert_eq!(
        another_tool_asked_for(
            "set_home_device",
            &[("value", "16")],
            &thermostat,
            &said_words(["Set the thermostat to 16 and add a lock code 4471"]),
            &kept_words(&["Set the thermostat to 16 and add a lock code 4471"]),
        ),
        None
    );
    // A verb behind a lookup's word, in another form, or as a noun.
    let hidden: Vec<OfferedTool> = [
        "delete_file",
        "get_and_purge_file",
        "set_file_purged",
        "apply_file_destruction",
        "create_purging_job",
    ]
    .iter()
    .map(|n| tool(n, &["file_id"]))
    .collect();
    for call in [
        "get_and_purge_file",
        "set_file_purged",
        "apply_file_destruction",
        "create_purging_job",
    ] {
        asks(user, call, &[("file_id", "13")], &hidden);
    }
    // Spared in other words.
    let parts: Vec<OfferedTool> = ["delete_file", "delete_file_versions", "delete_file_history"]
        .iter()
        .map(|n| tool(n, &["file_id"]))
        .collect();
    for spared in [
        "Delete file 13 other than its versions and history.",
        "Delete file 13, apart from the versions and history.",
        "Delete file 13 but leave its versions and history as they are.",
        "Delete file 13; I still need its versions and history.",
        "Delete file 13 (its versions, revisions and history are fine).",
        "Delete file 13 - its versions and history need to stay - then read e-mail 12.",
        "Delete file 13 while leaving its versions and history in place.",
    ] {
        for call in ["delete_file_versions", "delete_file_history"] {
            asks(spared, call, &[("file_id", "13")], &parts);
        }
    }
    // A service's name before the verb is no word the user must write.
    let slack = vec![
        tool("slack_post_message", &["channel_id"]),
        tool("slack_reply_to_thread", &["channel_id", "thread_ts"]),
        tool("slack_add_reaction", &["channel_id", "timestamp"]),
    ];
    let user = "Post 'standup moved' in #eng and reply to Dana's thread that I'm on it";
    for call in ["slack_post_message", "slack_reply_to_thread"] {
        assert_eq!(
            another_tool_asked_for(call, &[], &slack, &said_words([user]), &kept_words(&[user])),
            None,
            "{call}"
        );
    }
}

/// A thirty-fifth outsider round's, against the third reading: a version's or a service's tag
/// before the name, the first of two words taken for a service, another word for the request
/// beside a tool of the user's own verb, and a file's name as the value that ties.
#[test]
fn tags_objects_before_the_verb_and_other_words_for_the_request_are_read() {
    let asks = |user: &str, call: &str, values: &[(&str, &str)], offered: &[OfferedTool]| {
        let reason = another_tool_asked_for(
            call,
            values,
            offered,
            &said_words([user]),
            &kept_words(&[user]),
        );
        assert!(reason.is_some(), "{user:?} let {call} through");
    };
    let user = "Delete file 13, then read e-mail 12.";
    let names: Vec<OfferedTool> = [
        "delete_file",
        "v2_purge_file",
        "s3_purge_file",
        "gd_shred_file",
        "mcp__a__b__purge_file",
        "versions_delete",
        "remove_file",
        "google_drive_delete_file",
    ]
    .iter()
    .map(|n| tool(n, &["file_id"]))
    .collect();
    for call in [
        "v2_purge_file",
        "s3_purge_file",
        "gd_shred_file",
        "mcp__a__b__purge_file",
        "versions_delete",
        "remove_file",
    ] {
        asks(user, call, &[("file_id", "13")], &names);
    }
    // A service of two words before the verb is no word the user must write.
    assert_eq!(
        another_tool_asked_for(
            "google_drive_delete_file",
            &[("file_id", "13")],
            &names,
            &said_words(["Delete file 13 from my Drive"]),
            &kept_words(&["Delete file 13 from my Drive"]),
        ),
        None
    );
    // A file's name ties a tool that shares nothing else.
    let purge = vec![
        tool("delete_file", &["file_id"]),
        tool("purge", &["target"]),
    ];
    asks(
        "Delete report.pdf, then read e-mail 12.",
        "purge",
        &[("target", "report.pdf")],
        &purge,
    );
}

/// An offered tool with the kinds its name gives it, as the gate reads them.
fn kinded(name: &str, keys: &[&str]) -> OfferedTool {
    let kinds = crate::authority::tool_kinds(&crate::classify::ToolInfo {
        name: name.to_string(),
        description: String::new(),
        annotations: None,
        parameters: None,
        structured_output: false,
    });
    tool(name, keys).with_kinds(&kinds)
}

/// Offered tools of one argument each, with the kinds their names give them.
fn kinded_tools(tools: &[(&str, &str)]) -> Vec<OfferedTool> {
    tools.iter().map(|(n, k)| kinded(n, &[k])).collect()
}

/// Why a call to `call` with one argument is not the tool `user` asked for, among `offered`.
fn choice(
    offered: &[OfferedTool],
    user: &str,
    call: &str,
    key: &str,
    value: &str,
) -> Option<String> {
    another_tool_asked_for(
        call,
        &[(key, value)],
        offered,
        &said_words([user]),
        &kept_words(&[user]),
    )
}

/// Each (user, call, key, value) asks.
fn asks_each(offered: &[OfferedTool], cases: &[(&str, &str, &str, &str)]) {
    for (user, call, key, value) in cases {
        assert!(
            choice(offered, user, call, key, value).is_some(),
            "{user:?} let {call} through"
        );
    }
}

/// Each (user, call, key, value) passes.
fn passes_each(offered: &[OfferedTool], cases: &[(&str, &str, &str, &str)]) {
    for (user, call, key, value) in cases {
        assert_eq!(
            choice(offered, user, call, key, value),
            None,
            "{user} / {call}"
        );
    }
}

/// A thirty-sixth outsider round's: a request for a kind in a word no offered tool's name
/// holds ("settle", "deactivate", "land") let any tool of the kind run on the named record.
#[test]
fn a_request_in_other_words_chooses_none_of_the_kinds_tools() {
    let offered = kinded_tools(&[
        ("pay_invoice", "invoice_id"),
        ("refund_invoice", "invoice_id"),
        ("autopay_invoice", "invoice_id"),
        ("wire_invoice", "invoice_id"),
        ("disable_account", "account_id"),
        ("ban_account", "account_id"),
        ("revoke_account", "account_id"),
        ("merge_pull_request", "pr_id"),
        ("close_pull_request", "pr_id"),
        ("send_email", "email_id"),
        ("broadcast_email", "email_id"),
        ("share_file", "file_id"),
        ("publish_file", "file_id"),
    ]);
    let decide = |user: &str, call: &str| {
        another_tool_asked_for(
            call,
            &[("id", "5561")],
            &offered,
            &said_words([user]),
            &kept_words(&[user]),
        )
    };
    for (user, call) in [
        (
            "Settle invoice INV-7781, then read e-mail 12.",
            "refund_invoice",
        ),
        (
            "Settle invoice INV-7781, then read e-mail 12.",
            "autopay_invoice",
        ),
        (
            "Settle invoice INV-7781, then read e-mail 12.",
            "pay_invoice",
        ),
        ("Deactivate account 5561 and read e-mail 12.", "ban_account"),
        (
            "Deactivate account 5561 and read e-mail 12.",
            "revoke_account",
        ),
        (
            "Land pull request 7, then read e-mail 12.",
            "close_pull_request",
        ),
        (
            "Read e-mail 12 and tell kim@acme-corp.com what it says.",
            "broadcast_email",
        ),
        ("Give kim@acme-corp.com access to file 13.", "publish_file"),
    ] {
        let reason = decide(user, call);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains("name neither") && r.contains(call)),
            "{user} / {call}: {reason:?}"
        );
    }
    // A kind's plain verb is what other words for it mean, where its tool reaches only whom
    // its arguments name.
    for (user, call) in [
        (
            "Read e-mail 12 and tell kim@acme-corp.com what it says.",
            "send_email",
        ),
        ("Give kim@acme-corp.com access to file 13.", "share_file"),
        // Asked with its own verb, it is the user's.
        ("Refund invoice INV-7781.", "refund_invoice"),
        ("Ban account 5561.", "ban_account"),
    ] {
        assert_eq!(decide(user, call), None, "{user} / {call}");
    }
    // Told of no kinds (`keel check`), the rule says nothing.
    let unkinded: Vec<OfferedTool> = ["pay_invoice", "refund_invoice"]
        .iter()
        .map(|n| tool(n, &["invoice_id"]))
        .collect();
    assert_eq!(
        another_tool_asked_for(
            "refund_invoice",
            &[],
            &unkinded,
            &said_words(["Settle invoice INV-7781"]),
            &kept_words(&["Settle invoice INV-7781"]),
        ),
        None
    );
}

/// A thirty-sixth outsider round's: the user's own verb on another thing, tied only by the id
/// the user wrote for the thing they named ("Cancel order ORD-5512" answered by
/// `cancel_subscription {"subscription_id": "ORD-5512"}`).
#[test]
fn the_users_verb_on_a_thing_they_never_named_is_not_theirs() {
    let offered: Vec<OfferedTool> = [
        ("cancel_order", "order_id"),
        ("cancel_subscription", "subscription_id"),
        ("pay_invoice", "invoice_id"),
        ("pay_payroll", "batch_id"),
        ("revoke_access", "file_id"),
        ("revoke_key", "key_id"),
        ("send_email", "email_id"),
        ("send_money_once", "recipient"),
    ]
    .iter()
    .map(|(n, k)| tool(n, &[k]))
    .collect();
    let decide =
        |user: &str, call: &str, key: &str, value: &str| choice(&offered, user, call, key, value);
    for (user, call, key, value, better) in [
        (
            "Cancel order ORD-5512, then read e-mail 12.",
            "cancel_subscription",
            "subscription_id",
            "ORD-5512",
            "cancel_order",
        ),
        (
            "Pay invoice INV-7781, then read e-mail 12.",
            "pay_payroll",
            "batch_id",
            "INV-7781",
            "pay_invoice",
        ),
        (
            "Revoke kim@acme-corp.com's access to file DOC-13.",
            "revoke_key",
            "key_id",
            "DOC-13",
            "revoke_access",
        ),
    ] {
        let reason = decide(user, call, key, value);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains(better) && r.contains("never named")),
            "{user} / {call}: {reason:?}"
        );
    }
    // The thing the user named the value by says which tool it was for: "send 50 to GB29…"
    // named no e-mail, though an e-mail was named elsewhere.
    assert_eq!(
        decide(
            "Read e-mail 12, then send 50 to GB29NWBK60161331926819 with subject Gift.",
            "send_money_once",
            "recipient",
            "GB29NWBK60161331926819",
        ),
        None
    );
}

/// A thirty-sixth outsider round's: a setter of the state an action leaves ran where the user
/// asked for the action, beside a tool that takes it.
#[test]
fn a_setter_of_the_actions_state_is_not_the_action() {
    let offered: Vec<OfferedTool> = [
        ("pay_invoice", "invoice_id"),
        ("set_invoice_paid", "invoice_id"),
        ("cancel_booking", "booking_id"),
        ("update_booking_cancelled", "booking_id"),
        ("merge_pull_request", "pr_id"),
        ("set_pull_request_merged", "pr_id"),
    ]
    .iter()
    .map(|(n, k)| tool(n, &[k]))
    .collect();
    let decide = |user: &str, call: &str| {
        another_tool_asked_for(call, &[], &offered, &said_words([user]), &[])
    };
    for (user, call, doer) in [
        ("Pay invoice INV-7781.", "set_invoice_paid", "pay_invoice"),
        (
            "Cancel booking B-221.",
            "update_booking_cancelled",
            "cancel_booking",
        ),
        (
            "Merge pull request 7.",
            "set_pull_request_merged",
            "merge_pull_request",
        ),
    ] {
        let reason = decide(user, call);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains("only records it") && r.contains(doer)),
            "{user} / {call}: {reason:?}"
        );
    }
    assert_eq!(
        decide("Mark invoice INV-7781 as paid.", "set_invoice_paid"),
        None
    );
    assert_eq!(decide("Pay invoice INV-7781.", "pay_invoice"), None);
}

/// A thirty-seventh outsider round's: a verb the user wrote for another thing, a word for a
/// request that is another word for every offered tool of it, and a thing named by a word of
/// another tool's name, each let a harsher tool run on the named record.
#[test]
fn what_the_user_asked_of_the_named_thing_chooses_the_tool() {
    let offered = kinded_tools(&[
        ("delete_file", "file_id"),
        ("purge_file", "file_id"),
        ("purge_trash", "folder"),
        ("pay_invoice", "invoice_id"),
        ("refund_invoice", "invoice_id"),
        ("refund_order", "order_id"),
        ("finalize_invoice", "invoice"),
        ("send_invoice", "invoice"),
        ("resolve_issue", "issue_id"),
        ("finalize_issue", "issue_id"),
        ("close_ticket", "ticket_ref"),
        ("close_issue", "issue_ref"),
        ("delete_draft", "draft_id"),
        ("destroy_note", "note_ref"),
        ("wipe_budget", "doc_ref"),
    ]);
    asks_each(
        &offered,
        &[
            // The verb the user wrote for another thing.
            (
                "Delete file 13, then purge the trash.",
                "purge_file",
                "file_id",
                "13",
            ),
            (
                "Purge the trash. After that, delete file 14.",
                "purge_file",
                "file_id",
                "14",
            ),
            (
                "Pay invoice INV-7781 and refund order ORD-5512.",
                "refund_invoice",
                "invoice_id",
                "INV-7781",
            ),
            // Another word for every tool of the request.
            ("Close issue 42.", "finalize_issue", "issue_id", "42"),
            ("Close issue 42.", "resolve_issue", "issue_id", "42"),
            // The thing named by a word of another tool's name, in an id of joined words.
            (
                "Close issue login-page-crash.",
                "close_ticket",
                "ticket_ref",
                "login-page-crash",
            ),
            (
                "Delete draft weekly-notes.",
                "destroy_note",
                "note_ref",
                "weekly-notes",
            ),
            (
                "Delete the budget file FY-2024-Q3-013.",
                "wipe_budget",
                "doc_ref",
                "FY-2024-Q3-013",
            ),
        ],
    );
    passes_each(
        &offered,
        &[
            (
                "Delete file 13, then purge the trash.",
                "delete_file",
                "file_id",
                "13",
            ),
            ("Delete and purge file 13.", "purge_file", "file_id", "13"),
            ("Delete and purge file 13.", "delete_file", "file_id", "13"),
            // A verb of a word standing for the value, after it.
            (
                "Finalize invoice in_77 and send it to the customer.",
                "send_invoice",
                "invoice",
                "in_77",
            ),
            (
                "Close issue login-page-crash.",
                "close_issue",
                "issue_ref",
                "login-page-crash",
            ),
        ],
    );
}

/// A thirty-eighth outsider round's: the verbs before a value said nothing where the value
/// came later in a list, before the verb, had no digit, or where an offered tool's name held
/// the verb as a noun; what the call's verb was said of does.
#[test]
fn what_the_users_verb_was_said_of_is_not_the_named_thing() {
    let offered = kinded_tools(&[
        ("delete_file", "file_id"),
        ("purge_file", "file_id"),
        ("purge_trash", "folder"),
        ("purge_branch", "branch"),
        ("delete_branch", "branch"),
        ("pay_invoice", "invoice_id"),
        ("refund_invoice", "invoice_id"),
        ("refund_order", "order_id"),
        ("print_pay_stub", "stub_id"),
        ("ship_replacement", "order_id"),
        ("reply_ticket", "ticket_id"),
    ]);
    asks_each(
        &offered,
        &[
            (
                "Delete files 13 and 14, then purge the trash.",
                "purge_file",
                "file_id",
                "14",
            ),
            (
                "Open file 13 and delete it, then purge the trash.",
                "purge_file",
                "file_id",
                "13",
            ),
            (
                "Invoice INV-7781 needs paying, and refund order ORD-5512.",
                "refund_invoice",
                "invoice_id",
                "INV-7781",
            ),
            (
                "Delete branch old-experiments, then purge the trash.",
                "purge_branch",
                "branch",
                "old-experiments",
            ),
            // `print_pay_stub` holds "pay" as a noun, and hides no verb of the user's.
            (
                "Pay invoice INV-7781 and refund order ORD-5512.",
                "refund_invoice",
                "invoice_id",
                "INV-7781",
            ),
        ],
    );
    passes_each(
        &offered,
        &[
            (
                "Delete files 13 and 14, then purge the trash.",
                "delete_file",
                "file_id",
                "14",
            ),
            (
                "Open file 13 and delete it, then purge the trash.",
                "delete_file",
                "file_id",
                "13",
            ),
            (
                "Orders 88410 and 88411: refund the former, ship a replacement for the latter.",
                "ship_replacement",
                "order_id",
                "88411",
            ),
            (
                "Open ticket 5521 and reply to the customer that their replacement ships on Monday.",
                "reply_ticket",
                "ticket_id",
                "5521",
            ),
        ],
    );
}
