//! `cargo bench -p keel-desktop --bench round_trip`: the Linux backend's round trips against
//! GTK's widget factory under Xvfb (the test fixture's private desktop), printing p50 and p95:
//! - observe: a snapshot with a screenshot, then the summary and its state digest, which is
//!   what one observation attempt of the session machine costs the backend (N12 step 1);
//! - tree: a snapshot without the screenshot;
//! - act: one key press (`Right`, which moves the caret and changes nothing else), with the
//!   default input settle time and without it.
//!
//! Without `--bench` (as `cargo test --benches` runs it) it takes three samples of each, so a
//! broken benchmark fails fast.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

#[path = "../tests/fixture/mod.rs"]
mod fixture;

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::{Duration, Instant};

use keel_computer::desktop::Desktop;
use keel_computer::observation::Action;
use keel_computer::summary::summarize;
use keel_desktop::{DesktopConfig, LinuxDesktop};

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: usize| samples[(samples.len() * q / 100).min(samples.len() - 1)];
    println!(
        "{name:<28} n={:<4} p50 {:>8.2} ms   p95 {:>8.2} ms",
        samples.len(),
        at(50).as_secs_f64() * 1e3,
        at(95).as_secs_f64() * 1e3
    );
}

fn time<E>(n: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<Vec<Duration>, E> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        f()?;
        out.push(t.elapsed());
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = if quick { 3 } else { 100 };
    let mut f = fixture::Fixture::start();
    let window = f.window();
    f.desktop.prepare(&window)?;
    // Focus a text field, so key presses go somewhere harmless.
    let s = f.desktop.snapshot(&window, false)?;
    let field = s
        .elements
        .iter()
        .find(|e| e.role == "AXTextField" && e.value.as_deref() == Some(""))
        .ok_or("no empty text field in the widget factory")?;
    let (x, y) = (field.bounds[0] + 20, field.bounds[1] + field.bounds[3] / 2);
    f.desktop.act(&window, &Action::Click { x, y })?;
    println!(
        "widget factory window: {}x{}, {} elements",
        s.width,
        s.height,
        s.elements.len()
    );

    let mut digest_len = 0;
    let observe = time(n, || {
        let mut s = f.desktop.snapshot(&window, true)?;
        let summary = summarize(&s.elements);
        digest_len = summary.digest().len();
        if let Some(frame) = s.frame.as_mut() {
            frame.zero();
        }
        Ok::<_, keel_computer::desktop::DesktopError>(())
    })?;
    assert_eq!(digest_len, 32);
    report("observe (tree+png+digest)", observe);
    report(
        "tree only",
        time(n, || f.desktop.snapshot(&window, false).map(|_| ()))?,
    );
    let key = Action::Key {
        keys: "Right".into(),
    };
    report(
        "act: key (50 ms settle)",
        time(n, || f.desktop.act(&window, &key))?,
    );
    let mut raw = LinuxDesktop::connect(DesktopConfig {
        display: Some(f.display.clone()),
        session_bus: Some(f.session_bus.clone()),
        input_settle: Duration::ZERO,
        ..DesktopConfig::default()
    })?;
    report("act: key (no settle)", time(n, || raw.act(&window, &key))?);
    // A pointer move alone (a scroll of no steps), which also asks X what is at the point.
    let point = Action::Scroll {
        x: 40,
        y: 40,
        dx: 0,
        dy: 0,
    };
    report(
        "act: pointer (no settle)",
        time(n, || raw.act(&window, &point))?,
    );
    Ok(())
}
