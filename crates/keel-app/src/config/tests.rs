use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {name}: {e}"));
    path
}

fn sources(workspace: Vec<PathBuf>, user: Option<PathBuf>) -> Sources {
    Sources {
        workspace,
        user,
        admin_dir: None,
    }
}

#[test]
fn later_tiers_win_for_scalars_and_rules_accumulate() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let ws = write(
        dir.path(),
        "keel.toml",
        "mode = \"plan\"\n[notes]\nmax_untagged = 4\n[[rule]]\ntoolName = \"shell\"\ndecision = \"deny\"\n[presets.review]\nsystem_prompt = \"Review.\"\ntools = [\"read\"]\n",
    );
    let user = write(
        dir.path(),
        "config.toml",
        "mode = \"default\"\n[[rule]]\ntoolName = \"read\"\ndecision = \"allow\"\n[presets.review]\nmode = \"plan\"\n[mcp_servers.files]\ncommand = \"mcp-files\"\nargs = [\"--root\", \".\"]\n",
    );
    let config = load(&sources(vec![ws.clone()], Some(user.clone())))?;
    assert_eq!(config.mode.as_deref(), Some("default"));
    assert_eq!(config.max_untagged_notes(), 4);
    // The built-in default policy's rules come first (tier 1), then the files' in tier order.
    let builtin = config
        .rules
        .iter()
        .take_while(|r| r.tier == Tier::Default)
        .count();
    assert_eq!(builtin, 5);
    assert_eq!(config.rules.len(), builtin + 2);
    assert_eq!(
        config.rules[builtin..]
            .iter()
            .map(|r| (r.tier, r.file.clone()))
            .collect::<Vec<_>>(),
        vec![(Tier::Workspace, ws), (Tier::User, user)]
    );
    let review = config.presets.get("review").cloned().unwrap_or_default();
    assert_eq!(review.system_prompt.as_deref(), Some("Review."));
    assert_eq!(review.mode.as_deref(), Some("plan"));
    assert_eq!(
        config.mcp_servers.get("files").map(|s| s.args.len()),
        Some(2)
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    Ok(())
}

#[test]
fn defaults_hold_without_files() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let config = load(&sources(vec![], Some(dir.path().join("absent.toml"))))?;
    assert_eq!(config.max_untagged_notes(), 16);
    assert_eq!(
        config.store_options().busy_timeout,
        keel_store::StoreOptions::default().busy_timeout
    );
    assert_eq!(
        config.store_options().lease,
        keel_store::StoreOptions::default().lease
    );
    assert!(config.files.is_empty());
    Ok(())
}

#[test]
fn the_store_settings_reach_the_store_options() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let user = write(
        dir.path(),
        "config.toml",
        "[store]\nbusy_timeout_ms = 250\n",
    );
    let config = load(&sources(vec![], Some(user)))?;
    assert_eq!(
        config.store_options().busy_timeout,
        std::time::Duration::from_millis(250)
    );
    assert_ne!(
        config.store_options().busy_timeout,
        keel_store::StoreOptions::default().busy_timeout,
        "the test must set a value other than the default"
    );
    Ok(())
}

#[test]
fn the_lease_settings_reach_the_store_options_and_a_renewal_too_late_is_said()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let ms = std::time::Duration::from_millis;
    let user = write(
        dir.path(),
        "config.toml",
        "[store]\nlease_expiry_ms = 900\nlease_renew_ms = 200\n",
    );
    let config = load(&sources(vec![], Some(user)))?;
    assert_eq!(
        config.store_options().lease,
        keel_store::LeaseTerms {
            expiry: ms(900),
            renew_every: ms(200)
        }
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let late = write(
        dir.path(),
        "late.toml",
        "[store]\nlease_expiry_ms = 900\nlease_renew_ms = 900\n",
    );
    let config = load(&sources(vec![], Some(late)))?;
    assert_eq!(config.store_options().lease.renew_every, ms(300));
    assert!(
        config
            .warnings
            .iter()
            .any(|w| w.contains("lease_renew_ms") && w.contains("every 300 ms")),
        "{:?}",
        config.warnings
    );
    Ok(())
}

#[test]
fn workspace_files_may_not_run_programs_or_redirect_data() -> Result<(), Box<dyn std::error::Error>>
{
    let dir = tempfile::tempdir()?;
    let cases = [
        ("[mcp_servers.x]\ncommand = \"evil\"\n", "[mcp_servers.*]"),
        ("[checkers.c]\ncommand = \"evil\"\n", "[checkers.*]"),
        ("[computer_use]\nmodel = \"x\"\n", "[computer_use]"),
        (
            "[model]\nbase_url = \"http://attacker\"\n",
            "model endpoint",
        ),
        ("[model]\napi_key_env = \"OTHER\"\n", "model endpoint"),
        ("[model]\nname = \"local:/tmp/x.gguf\"\n", "local:PATH"),
        // A repository's script as the model (found by an outsider's attack).
        ("[model]\nname = \"script:evil.jsonl\"\n", "script:FILE"),
        ("[handoff]\nworker_model = \"openai:x\"\n", "worker_model"),
        // A provider chosen for you (a fourth outsider round).
        ("[model]\nname = \"openai:gpt-4o\"\n", "openai:MODEL"),
        ("mode = \"yolo\"\n", "yolo"),
        ("approval = \"ask\"\n", "approval"),
        ("[presets.p]\nmode = \"yolo\"\n", "[presets.p]"),
    ];
    for (i, (text, what)) in cases.iter().enumerate() {
        let path = write(dir.path(), &format!("ws{i}.toml"), text);
        let e = load(&sources(vec![path.clone()], None))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains(what), "{what}: {e}");
        // The same table is fine in the user tier.
        assert!(
            load(&sources(vec![], Some(path))).is_ok(),
            "{what} in the user tier"
        );
    }
    // The embedded model sends nothing anywhere: a workspace may name it.
    let local = write(dir.path(), "local.toml", "[model]\nname = \"local\"\n");
    assert!(load(&sources(vec![local], None)).is_ok());
    Ok(())
}

#[test]
fn unknown_keys_warn_with_key_and_file() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = write(
        dir.path(),
        "keel.toml",
        "colour = \"blue\"\n[notes]\nmax_untaged = 3\n[[rule]]\nanything = 1\n",
    );
    let config = load(&sources(vec![path.clone()], None))?;
    let shown = path.display().to_string();
    assert_eq!(
        config.warnings,
        vec![
            format!("{shown}: unknown key `colour` (ignored)"),
            format!("{shown}: unknown key `notes.max_untaged` (ignored)"),
        ]
    );
    Ok(())
}

#[test]
fn bad_files_are_errors_naming_the_file() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let syntax = write(dir.path(), "syntax.toml", "mode = \n");
    let typed = write(
        dir.path(),
        "typed.toml",
        "[notes]\nmax_untagged = \"many\"\n",
    );
    let missing = dir.path().join("missing.toml");
    for path in [syntax, typed, missing] {
        let e = load(&sources(vec![path.clone()], None))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
    }
    let bytes = dir.path().join("bytes.toml");
    std::fs::write(&bytes, b"mode = \"\xff\"\n")?;
    let e = load(&sources(vec![bytes], None))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("UTF-8"), "{e}");
    Ok(())
}

#[test]
fn admin_tier_wins_and_must_be_locked_down() -> Result<(), Box<dyn std::error::Error>> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let admin = dir.path().join("policy.d");
    std::fs::create_dir(&admin)?;
    std::fs::set_permissions(&admin, std::fs::Permissions::from_mode(0o755))?;
    let b = write(&admin, "b.toml", "mode = \"plan\"\n");
    write(&admin, "a.toml", "mode = \"default\"\n");
    write(&admin, "ignored.txt", "mode = \"x\"\n");
    let user = write(dir.path(), "user.toml", "mode = \"yolo\"\n");
    let src = Sources {
        workspace: vec![],
        user: Some(user),
        admin_dir: Some(admin),
    };
    let is_root = std::fs::metadata(&b).map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)?;
    match load(&src) {
        Ok(config) => {
            assert!(is_root, "a non-root admin file must not load");
            assert_eq!(
                config.mode.as_deref(),
                Some("plan"),
                "admin files in name order, last wins"
            );
            assert_eq!(config.files.last().map(|f| f.0), Some(Tier::Admin));
        }
        Err(e) => assert!(!is_root && e.to_string().contains("owned by root"), "{e}"),
    }
    std::fs::set_permissions(&b, std::fs::Permissions::from_mode(0o666))?;
    let e = load(&src).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("not writable by group or others"), "{e}");
    Ok(())
}

/// A mode keel does not know is a load error naming the file, in any tier, so `keel config`
/// says what `keel run` would refuse (a workspace's `mode = "YOLO"` looked valid there).
#[test]
fn an_unknown_mode_is_a_load_error_naming_the_file() -> std::io::Result<()> {
    let dir = tempfile::tempdir()?;
    for (i, text) in [
        "mode = \"YOLO\"\n",
        "mode = \"bogus\"\n",
        "[presets.p]\nmode = \"Plan\"\n",
    ]
    .iter()
    .enumerate()
    {
        let path = write(dir.path(), &format!("m{i}.toml"), text);
        for source in [
            sources(vec![path.clone()], None),
            sources(vec![], Some(path.clone())),
        ] {
            let e = load(&source)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.starts_with(&path.display().to_string()), "{e}");
            assert!(e.contains("no mode keel knows"), "{e}");
        }
    }
    let plan = write(dir.path(), "plan.toml", "mode = \"plan\"\n");
    assert!(load(&sources(vec![plan], None)).is_ok());
    Ok(())
}
