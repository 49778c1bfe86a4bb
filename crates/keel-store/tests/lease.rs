//! Run leases (issue 19): taken, refused, renewed, expired, released and reclaimed, on real
//! database files, with real processes' pids for the holders that are gone.

use std::time::{Duration, Instant};

use keel_core::Timestamp;
use keel_store::{
    LeaseHolder, LeaseKeeper, LeaseTerms, RunLeaseStore, StoreError, StoreOptions,
    lease::process_start_time,
};
use keel_testkit::Sandbox;

type R = Result<(), Box<dyn std::error::Error>>;

/// Another holder in a live process: this process's pid and start time, another token (as a
/// second keeper in this process would be), so nothing judges it gone.
fn live_other(token: &str) -> LeaseHolder {
    LeaseHolder {
        token: token.into(),
        ..LeaseHolder::this_process()
    }
}

/// A holder whose process has exited: a real child, waited for.
fn gone_holder() -> LeaseHolder {
    let mut child = std::process::Command::new("true")
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let pid = child.id();
    let started = process_start_time(pid);
    child.wait().unwrap_or_else(|e| panic!("{e}"));
    LeaseHolder {
        token: "gone".into(),
        pid,
        started,
        ..LeaseHolder::this_process()
    }
}

const T0: Timestamp = Timestamp(10_000);
const LATER: Timestamp = Timestamp(40_000);

#[test]
fn a_free_run_is_taken_and_a_second_live_holder_is_refused_naming_the_first() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let me = LeaseHolder::this_process();
    let taken = store.take_run_lease("r", &me, T0, LATER)?;
    assert_eq!(taken.replaced, None);
    let recorded = store.run_lease("r")?.ok_or("no lease recorded")?;
    assert_eq!(recorded.holder, me);
    assert_eq!((recorded.acquired_at, recorded.expires_at), (T0, LATER));

    let refused = store.take_run_lease("r", &live_other("second"), Timestamp(20_000), LATER);
    let Err(e @ StoreError::RunHeld { .. }) = refused else {
        panic!("a second live holder was not refused: {refused:?}");
    };
    let text = e.to_string();
    assert!(text.contains(&format!("pid {}", me.pid)), "{text}");
    assert!(text.contains(&T0.to_rfc3339()), "{text}");
    assert!(text.contains("Nothing was written"), "{text}");
    assert!(text.contains("keel runs show r"), "{text}");
    // The first holder keeps it, untouched.
    assert_eq!(store.run_lease("r")?, Some(recorded));
    Ok(())
}

#[test]
fn the_same_holder_takes_its_own_lease_again() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let me = LeaseHolder::this_process();
    store.take_run_lease("r", &me, T0, LATER)?;
    let again = store.take_run_lease("r", &me, Timestamp(20_000), Timestamp(50_000))?;
    assert_eq!(again.replaced, None);
    assert_eq!(
        store.run_lease("r")?.map(|l| l.expires_at),
        Some(Timestamp(50_000))
    );
    Ok(())
}

#[test]
fn an_expired_lease_is_taken_over_even_from_a_live_holder() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let first = live_other("first");
    store.take_run_lease("r", &first, T0, LATER)?;
    let me = LeaseHolder::this_process();
    // Not yet expired: refused.
    assert!(matches!(
        store.take_run_lease("r", &me, Timestamp(39_999), Timestamp(70_000)),
        Err(StoreError::RunHeld { .. })
    ));
    let taken = store.take_run_lease("r", &me, LATER, Timestamp(70_000))?;
    assert_eq!(taken.replaced.map(|l| l.holder), Some(first.clone()));
    assert_eq!(store.run_lease("r")?.map(|l| l.holder), Some(me));
    // The old holder's renewal finds it lost, and its release does not free the run.
    assert!(!store.renew_run_lease("r", &first, Timestamp(90_000))?);
    assert!(!store.release_run_lease("r", &first)?);
    assert!(store.run_lease("r")?.is_some());
    Ok(())
}

#[test]
fn a_lease_whose_process_is_gone_is_reclaimed_before_it_expires() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let gone = gone_holder();
    assert!(gone.is_gone());
    store.take_run_lease("r", &gone, T0, LATER)?;
    let me = LeaseHolder::this_process();
    let taken = store.take_run_lease("r", &me, Timestamp(11_000), LATER)?;
    assert_eq!(taken.replaced.map(|l| l.holder), Some(gone));
    Ok(())
}

#[test]
fn a_reused_pid_is_not_taken_for_the_holder() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let me = LeaseHolder::this_process();
    let started = me
        .started
        .ok_or("this system does not say when a process started")?;
    // The holder had this process's pid, but its process started at another time.
    let earlier = LeaseHolder {
        token: "earlier".into(),
        started: Some(started + 1),
        ..me.clone()
    };
    assert!(earlier.is_gone());
    // A holder on another host is never judged from here.
    let elsewhere = LeaseHolder {
        host: format!("{}-elsewhere", me.host),
        ..earlier.clone()
    };
    assert!(!elsewhere.is_gone());
    store.take_run_lease("r", &earlier, T0, LATER)?;
    assert!(
        store
            .take_run_lease("r", &me, Timestamp(11_000), LATER)?
            .replaced
            .is_some()
    );
    Ok(())
}

#[test]
fn renew_moves_the_expiry_and_release_frees_the_run() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let me = LeaseHolder::this_process();
    store.take_run_lease("r", &me, T0, LATER)?;
    assert!(store.renew_run_lease("r", &me, Timestamp(60_000))?);
    assert_eq!(
        store.run_lease("r")?.map(|l| (l.acquired_at, l.expires_at)),
        Some((T0, Timestamp(60_000)))
    );
    assert!(!store.release_run_lease("r", &live_other("not me"))?);
    assert!(store.release_run_lease("r", &me)?);
    assert_eq!(store.run_lease("r")?, None);
    // Free again: anyone takes it.
    store.take_run_lease("r", &live_other("next"), Timestamp(20_000), LATER)?;
    Ok(())
}

#[test]
fn a_lease_on_an_unknown_run_is_refused_as_unknown() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store();
    let got = store.take_run_lease("nope", &LeaseHolder::this_process(), T0, LATER);
    assert!(matches!(got, Err(StoreError::RunNotFound(_))), "{got:?}");
    Ok(())
}

/// Polls `done` until it holds, failing after a generous deadline: waiting for a change, not
/// timing it.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn short_terms() -> StoreOptions {
    StoreOptions {
        lease: LeaseTerms::new(Duration::from_secs(20), Duration::from_millis(20)),
        ..StoreOptions::default()
    }
}

#[test]
fn a_keeper_holds_a_run_once_however_often_it_is_taken_and_releases_it_with_the_last() -> R {
    let sandbox = Sandbox::new();
    let store = sandbox.store_with_run("r");
    let keeper = LeaseKeeper::new(live_other("keeper-a"));
    let options = StoreOptions::default();
    let first = keeper.acquire(&sandbox.db(), &options, "r")?;
    let second = keeper.acquire(&sandbox.db(), &options, "r")?;
    let other = LeaseKeeper::new(live_other("keeper-b"));
    let refused = other.acquire(&sandbox.db(), &options, "r");
    assert!(
        matches!(refused, Err(StoreError::RunHeld { .. })),
        "{refused:?}"
    );
    drop(first);
    assert_eq!(
        store.run_lease("r")?.map(|l| l.holder.token),
        Some("keeper-a".into())
    );
    drop(second);
    assert_eq!(store.run_lease("r")?, None);
    let _taken = other.acquire(&sandbox.db(), &options, "r")?;
    assert_eq!(
        store.run_lease("r")?.map(|l| l.holder.token),
        Some("keeper-b".into())
    );
    Ok(())
}

#[test]
fn a_keeper_renews_all_its_leases_before_they_expire() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    use keel_store::RunStore;
    store.create_run(keel_testkit::new_run("s"))?;
    let keeper = LeaseKeeper::new(live_other("renewer"));
    let options = short_terms();
    let _r = keeper.acquire(&sandbox.db(), &options, "r")?;
    let _s = keeper.acquire(&sandbox.db(), &options, "s")?;
    let expiry = |run: &str| {
        store
            .run_lease(run)
            .ok()
            .flatten()
            .map(|l| l.expires_at)
            .unwrap_or(Timestamp(0))
    };
    let (r0, s0) = (expiry("r"), expiry("s"));
    eventually("both leases are renewed", || {
        expiry("r") > r0 && expiry("s") > s0
    });
    assert!(!_r.is_lost() && !_s.is_lost());
    Ok(())
}

#[test]
fn a_keeper_whose_lease_was_taken_after_it_expired_stops_renewing_and_leaves_the_new_holder() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let keeper = LeaseKeeper::new(live_other("slow"));
    let lease = keeper.acquire(&sandbox.db(), &short_terms(), "r")?;
    // Another process, at a time past the lease's expiry, takes it.
    let far = Timestamp(i64::MAX / 2);
    let next = live_other("next");
    store.take_run_lease("r", &next, far, Timestamp(far.millis() + 1))?;
    eventually("the keeper sees its lease lost", || lease.is_lost());
    drop(lease);
    assert_eq!(store.run_lease("r")?.map(|l| l.holder), Some(next));
    Ok(())
}

#[test]
fn a_lost_lease_taken_again_is_released_only_with_its_last_handle() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let keeper = LeaseKeeper::new(live_other("again"));
    let options = short_terms();
    let old = keeper.acquire(&sandbox.db(), &options, "r")?;
    let far = Timestamp(i64::MAX / 2);
    let other = live_other("meanwhile");
    store.take_run_lease("r", &other, far, Timestamp(far.millis() + 1))?;
    eventually("the keeper sees its lease lost", || old.is_lost());
    store.release_run_lease("r", &other)?;
    let new = keeper.acquire(&sandbox.db(), &options, "r")?;
    assert!(!new.is_lost());
    drop(old);
    assert_eq!(
        store.run_lease("r")?.map(|l| l.holder.token),
        Some("again".into()),
        "the old handle released the lease taken again"
    );
    drop(new);
    assert_eq!(store.run_lease("r")?, None);
    Ok(())
}

#[test]
fn lease_terms_default_to_thirty_seconds_renewed_every_ten_and_never_renew_too_late() {
    let terms = LeaseTerms::default();
    assert_eq!(terms.expiry, Duration::from_secs(30));
    assert_eq!(terms.renew_every, Duration::from_secs(10));
    assert_eq!(StoreOptions::default().lease, terms);
    let late = LeaseTerms::new(Duration::from_secs(3), Duration::from_secs(3));
    assert_eq!(late.renew_every, Duration::from_secs(1));
    let zero = LeaseTerms::new(Duration::from_secs(3), Duration::ZERO);
    assert_eq!(zero.renew_every, Duration::from_secs(1));
}

#[test]
fn confirming_a_lease_another_writer_took_is_refused_before_the_keeper_notices() -> R {
    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let keeper = LeaseKeeper::new(live_other("paused"));
    // Renewed rarely: only `confirm` can find out in time.
    let options = StoreOptions {
        lease: LeaseTerms::new(Duration::from_secs(30), Duration::from_secs(10)),
        ..StoreOptions::default()
    };
    let lease = keeper.acquire(&sandbox.db(), &options, "r")?;
    assert!(lease.confirm().is_ok(), "its own lease is confirmed");
    // This process was paused past its lease, and another writer took the run meanwhile.
    let far = Timestamp(i64::MAX / 2);
    let other = live_other("took-over");
    store.take_run_lease("r", &other, far, Timestamp(far.millis() + 1))?;
    assert!(!lease.is_lost(), "the keeper has not looked yet");
    let refused = lease
        .confirm()
        .expect_err("another live writer holds the run");
    assert!(matches!(refused, StoreError::RunHeld { .. }), "{refused}");
    assert_eq!(store.run_lease("r")?.map(|l| l.holder), Some(other.clone()));
    // Once that writer is done, the run is this process's again.
    store.release_run_lease("r", &other)?;
    lease.confirm()?;
    assert_eq!(
        store.run_lease("r")?.map(|l| l.holder.token),
        Some("paused".into())
    );
    Ok(())
}
